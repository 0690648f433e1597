//! The report of a run: JSON with `--json`, text otherwise. Exit status 1 when anything was lost,
//! duplicated or failed.
use super::histogram::Latency;
use super::monitor::ServerUsage;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize, Debug)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Report {
    Games(Box<GamesReport>),
    Idle(Box<IdleReport>),
}

/// What every report says about its target.
#[derive(Serialize, Debug)]
pub struct Target {
    pub target: String,
    /// the measured server process (`None`: not found, no server figures)
    pub server_pid: Option<u32>,
}

/// What went wrong.
#[derive(Serialize, Debug, Default)]
pub struct Failures {
    /// updates or moves that did not arrive
    pub lost: u64,
    /// versions or actions seen twice
    pub duplicated: u64,
    pub errors: u64,
    pub error_codes: BTreeMap<String, u64>,
    /// the first errors, described
    pub error_samples: Vec<String>,
}

#[derive(Serialize, Debug)]
pub struct GamesReport {
    #[serde(flatten)]
    pub target: Target,
    pub games: usize,
    pub move_rate: f64,
    pub duration_s: u64,
    pub ramp_up_s: u64,
    pub games_started: u64,
    pub games_finished: u64,
    pub setups_failed: u64,
    pub moves_sent: u64,
    pub moves_acked: u64,
    pub moves_completed: u64,
    /// completed moves sent in the window, per second of the window
    pub moves_per_s: f64,
    pub skips: u64,
    /// move sent → its ack
    pub latency_ack: Latency,
    /// move sent → the last of the four seats received its update
    pub latency_all_seats: Latency,
    /// `latency_all_seats` by the second of the window the move was sent in
    pub timeline: Vec<Latency>,
    pub held_at_window_start: Option<Held>,
    pub held_at_window_end: Option<Held>,
    #[serde(flatten)]
    pub failures: Failures,
    pub record_check: RecordCheck,
    pub server: Option<ServerUsage>,
    /// the server's CPU time per completed move of the window, milliseconds
    pub server_cpu_ms_per_move: Option<f64>,
    pub server_rss_before_mib: Option<f64>,
    pub server_rss_after_mib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub login_burst: Option<LoginBurst>,
    /// cluster mode (`--nodes`): each node's share
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeReport>,
}

/// One node of a cluster run: its tables, the moves completed on them in the window, and its
/// process's CPU and memory over the window.
#[derive(Serialize, Debug)]
pub struct NodeReport {
    pub node: String,
    pub addr: String,
    pub pid: Option<u32>,
    pub tables: usize,
    pub moves_in_window: u64,
    pub server: Option<ServerUsage>,
    pub cpu_ms_per_move: Option<f64>,
}

/// Games in play and sockets open at one instant.
#[derive(Serialize, Debug, Clone, Copy)]
pub struct Held {
    pub games: i64,
    pub sockets: i64,
}

/// The clients' move lists compared with the server's records.
#[derive(Serialize, Debug, Default)]
pub struct RecordCheck {
    pub games_checked: u64,
    pub games_matching: u64,
    /// records the server did not return
    pub unavailable: u64,
}

#[derive(Serialize, Debug)]
pub struct LoginBurst {
    pub rate_per_s: f64,
    pub logins_ok: u64,
    pub login_latency: Latency,
    pub game_latency_before: Latency,
    pub game_latency_during: Latency,
    /// game p99 during the burst / before it
    pub p99_ratio: f64,
    pub server_before: Option<ServerUsage>,
    pub server_during: Option<ServerUsage>,
}

#[derive(Serialize, Debug)]
pub struct IdleReport {
    #[serde(flatten)]
    pub target: Target,
    pub sockets_requested: usize,
    pub hello_received: u64,
    pub sockets_held: i64,
    pub sockets_at_end: i64,
    pub guest_logins_s: f64,
    pub connect_s: f64,
    pub hold_s: u64,
    pub server_rss_before_mib: Option<f64>,
    pub server_rss_held_mib: Option<f64>,
    pub server_rss_end_mib: Option<f64>,
    pub server_kib_per_socket: Option<f64>,
    pub server: Option<ServerUsage>,
    #[serde(flatten)]
    pub failures: Failures,
}

impl Report {
    fn failures(&self) -> &Failures {
        match self {
            Report::Games(r) => &r.failures,
            Report::Idle(r) => &r.failures,
        }
    }

    /// 0 when nothing was lost or duplicated and no error happened, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        let f = self.failures();
        i32::from(f.lost > 0 || f.duplicated > 0 || f.errors > 0)
    }

    pub fn print(&self, json: bool) {
        if json {
            println!("{}", serde_json::to_string_pretty(self).unwrap_or_default());
            return;
        }
        match self {
            Report::Games(r) => print_games(r),
            Report::Idle(r) => print_idle(r),
        }
        print_failures(self.failures());
    }
}

/// A value as JSON text (`null` for none).
fn j<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn print_header(mode: &str, t: &Target) {
    println!(
        "siguo-tools loadtest — {mode} mode against {} (server pid {})",
        t.target,
        j(&t.server_pid)
    );
}

fn latency(l: &Latency) -> String {
    format!("p50 {} ms  p99 {} ms  max {} ms  (n={})", l.p50_ms, l.p99_ms, l.max_ms, l.count)
}

fn print_games(r: &GamesReport) {
    print_header("games", &r.target);
    println!(
        "games: {} requested, {} started, {} finished, {} set-ups failed; held at window start {}, \
         at its end {}",
        r.games,
        r.games_started,
        r.games_finished,
        r.setups_failed,
        j(&r.held_at_window_start),
        j(&r.held_at_window_end)
    );
    println!(
        "moves: {} sent, {} acked, {} completed, {}/s in the window ({} skips)",
        r.moves_sent, r.moves_acked, r.moves_completed, r.moves_per_s, r.skips
    );
    println!("latency send→ack:        {}", latency(&r.latency_ack));
    println!("latency send→all 4 seats: {}", latency(&r.latency_all_seats));
    if let Some(b) = &r.login_burst {
        println!(
            "login burst {}/s: {} logins ok, login {} / game p99 before {} ms, during {} ms (×{})",
            b.rate_per_s,
            b.logins_ok,
            b.login_latency.p99_ms,
            b.game_latency_before.p99_ms,
            b.game_latency_during.p99_ms,
            b.p99_ratio
        );
    }
    println!("record check: {}", j(&r.record_check));
    println!(
        "server: {}  (RSS before {} MiB, after {} MiB; CPU {} ms a move)",
        j(&r.server),
        j(&r.server_rss_before_mib),
        j(&r.server_rss_after_mib),
        j(&r.server_cpu_ms_per_move)
    );
    for n in &r.nodes {
        println!(
            "node {} ({}, pid {}): {} tables, {} moves in the window, CPU {} ms a move, {}",
            n.node,
            n.addr,
            j(&n.pid),
            n.tables,
            n.moves_in_window,
            j(&n.cpu_ms_per_move),
            j(&n.server)
        );
    }
}

fn print_idle(r: &IdleReport) {
    print_header("idle", &r.target);
    println!(
        "sockets: {} requested, {} hello, {} held, {} still open at the end (held {} s)",
        r.sockets_requested, r.hello_received, r.sockets_held, r.sockets_at_end, r.hold_s
    );
    println!(
        "server RSS: {} MiB before, {} MiB held, {} MiB at the end → {} KiB per socket",
        j(&r.server_rss_before_mib),
        j(&r.server_rss_held_mib),
        j(&r.server_rss_end_mib),
        j(&r.server_kib_per_socket)
    );
    println!("server: {}", j(&r.server));
}

fn print_failures(f: &Failures) {
    println!(
        "lost: {}  duplicated: {}  errors: {} {}",
        f.lost,
        f.duplicated,
        f.errors,
        j(&f.error_codes)
    );
    for e in f.error_samples.iter().take(10) {
        println!("  {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(failures: Failures) -> Report {
        Report::Idle(Box::new(IdleReport {
            target: Target { target: "127.0.0.1:1".into(), server_pid: None },
            sockets_requested: 2,
            hello_received: 2,
            sockets_held: 2,
            sockets_at_end: 2,
            guest_logins_s: 0.1,
            connect_s: 0.2,
            hold_s: 1,
            server_rss_before_mib: None,
            server_rss_held_mib: None,
            server_rss_end_mib: None,
            server_kib_per_socket: Some(3.5),
            server: None,
            failures,
        }))
    }

    #[test]
    fn idle_report_json_and_exit_code() {
        let r = idle(Failures::default());
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["mode"], "idle");
        assert_eq!(v["target"], "127.0.0.1:1");
        assert!(v["server_pid"].is_null() && v["server"].is_null());
        assert_eq!(v["lost"], 0);
        assert_eq!(v["error_codes"], serde_json::json!({}));
        assert_eq!(v["server_kib_per_socket"], 3.5);
        assert_eq!(r.exit_code(), 0);
        assert_eq!(idle(Failures { duplicated: 1, ..Failures::default() }).exit_code(), 1);
        assert_eq!(idle(Failures { errors: 2, ..Failures::default() }).exit_code(), 1);
    }
}
