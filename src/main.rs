//! The `siguo` binary: thin clap front-end over the library.
use clap::{Parser, Subcommand};
use siguo::config::Config;
use std::process::ExitCode;

/// mimalloc instead of glibc malloc: under live-play load glibc spent ~45 % of the server's CPU in
/// malloc/free (chunk consolidation) and kept freed memory in per-thread arenas (RSS);
/// see docs/performance.md, "Live play capacity".
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "siguo",
    version,
    about = "Siguo: an online server for four-player team military chess (四国军棋)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (config/default.toml < $SIGUO_CONFIG file < SIGUO_* environment)
    Serve,
    /// Apply pending database migrations and exit
    Migrate,
    /// Referee: `moves`, `play`, `view <seat>` or `deploy <seat>`; JSON on stdin and stdout
    /// (rules.md §11), for either game (`"variant": "hidden_front"`, hidden-front.md §8).
    Rules {
        /// `moves`, `play`, `view` or `deploy`
        cmd: String,
        /// The viewing seat for `view` (`N`, `E`, `S`, `W` or `spectator`); the deploying seat
        /// for `deploy`
        seat: Option<String>,
    },
    /// A built-in bot speaking the engine protocol on stdin/stdout (docs/engine.md)
    Engine {
        /// random, greedy, standard or standard-v1
        #[arg(long, default_value = "standard")]
        bot: siguo_bots::Level,
        /// The most thinking time per move, in milliseconds (a `go` may ask for less; max 2000)
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
        /// Seed of the bot's randomness (a `new_game` may give its own)
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve => serve(),
        Command::Migrate => migrate(),
        Command::Rules { cmd, seat } => {
            std::process::exit(siguo::cli::rules::run(&cmd, seat.as_deref()))
        }
        Command::Engine { bot, budget_ms, seed } => {
            std::process::exit(siguo::cli::engine::run(bot, budget_ms, seed))
        }
    }
}

fn load_config() -> Result<Config, ExitCode> {
    Config::load().map_err(|e| {
        eprintln!("siguo: {e}");
        ExitCode::from(2)
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime")
}

fn serve() -> ExitCode {
    let config = match load_config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    siguo::app::init_logging(&config);
    runtime().block_on(async move {
        let running = match siguo::app::start(config).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!("cannot start: {e}");
                eprintln!("siguo: cannot start: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!("siguo listening on http://{}", running.addr);
        siguo::app::shutdown_signal().await;
        tracing::info!("shutting down");
        running.stop().await;
        tracing::info!("stopped");
        ExitCode::SUCCESS
    })
}

fn migrate() -> ExitCode {
    let config = match load_config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    siguo::app::init_logging(&config);
    let db = match siguo::db::Db::connect(
        &config.database.url,
        1,
        std::time::Duration::from_secs(config.database.connect_timeout_secs.max(1)),
    ) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("siguo: {e}");
            return ExitCode::FAILURE;
        }
    };
    match db.migrate() {
        Ok(n) => {
            println!("siguo: {n} migration(s) applied ({})", db.backend_name());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("siguo: {e}");
            ExitCode::FAILURE
        }
    }
}
