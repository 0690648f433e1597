//! Command-line subcommands of the `siguo` binary.
pub mod rules;
pub mod selfplay;
