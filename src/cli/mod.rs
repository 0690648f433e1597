//! Command-line subcommands of the `siguo` binary (the tools live in `crates/tools`).
pub mod engine;
pub mod rules;
