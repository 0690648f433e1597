//! Command-line subcommands of the `siguo` binary (the tools live in `crates/tools`).
pub mod rules;
