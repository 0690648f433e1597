//! `siguo engine --bot LEVEL [--budget-ms N] [--seed S]`: one of the built-in bots speaking the
//! engine protocol (docs/engine.md) on stdin/stdout. The loop itself is `siguo_bots::engine`.
use siguo_bots::engine::{serve, EngineConfig};
use siguo_bots::Level;
use std::time::Duration;

/// Serve until `quit` or the end of stdin; the exit status.
pub fn run(level: Level, budget_ms: u64, seed: u64) -> i32 {
    let config = EngineConfig {
        level,
        budget: Duration::from_millis(budget_ms).min(siguo_bots::MAX_BUDGET),
        seed,
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match serve(config, stdin, stdout) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("siguo engine: {e}");
            1
        }
    }
}
