//! Command-line subcommands of the `siguo` binary.
pub mod ladder_bench;
pub mod loadtest;
pub mod rules;
pub mod selfplay;
