//! The `siguo` binary.
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "siguo", about = "Siguo: four-player team military chess (四国军棋)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Referee: `moves`, `play` or `view <seat>`; JSON on stdin and stdout (rules.md §11).
    Rules {
        /// `moves`, `play` or `view`
        cmd: String,
        /// The viewing seat for `view` (`N`, `E`, `S`, `W` or `spectator`)
        seat: Option<String>,
    },
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::Rules { cmd, seat } => std::process::exit(siguo::cli::rules::run(&cmd, seat.as_deref())),
    }
}
