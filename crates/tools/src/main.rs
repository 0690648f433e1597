//! `siguo-tools`: the tools that measure and exercise Siguo, kept out of the server binary.
//!
//! * `loadtest`: simulated guests play games (or hold idle sockets) against a running server.
//! * `selfplay`: a bot-against-bot tournament.
//! * `ladder-bench`: fills PostgreSQL with ranked players and times the leaderboard endpoints of a
//!   server reading that database.
#![forbid(unsafe_code)]

mod api;
mod engine_client;
mod ladder_bench;
mod loadtest;
mod selfplay;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "siguo-tools", version, about = "Siguo tools: load test, selfplay, ladder bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load test a running server on loopback: simulated guests play games (or hold idle sockets).
    Loadtest(loadtest::LoadtestArgs),
    /// Bot-against-bot tournament (teams swapped, deployments reused in pairs).
    Selfplay(selfplay::SelfplayArgs),
    /// Fill PostgreSQL with ranked players and time a server's leaderboard endpoints
    /// (docs/performance.md)
    LadderBench(ladder_bench::LadderBenchArgs),
}

fn main() {
    let code = match Cli::parse().command {
        Command::Loadtest(args) => loadtest::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::LadderBench(args) => ladder_bench::run(args),
    };
    std::process::exit(code)
}
