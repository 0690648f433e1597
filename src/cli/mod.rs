//! Command-line subcommands of the `siguo` binary.
pub mod loadtest;
pub mod rules;
pub mod selfplay;
pub mod ladder_bench;
