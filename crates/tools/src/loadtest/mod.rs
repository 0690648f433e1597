//! `siguo-tools loadtest`: a load generator for a running Siguo server (docs/performance.md).
//!
//! Games mode (default): `--games` simulated tables of four guests each. Every guest logs in
//! (`POST /api/auth/guest`), opens a WebSocket, and the four fill a private casual room, deploy
//! (confirm the random deployment) and play random legal moves at `--move-rate` moves per game per
//! second. Measured per move: send → `ack`, and send → the last of the four seats receiving the
//! `update` of that version. Every socket checks its version chain (`from_v` = the version it
//! holds): a gap is a lost update, a repeated version a duplicate. At the end every game's move
//! list is compared with the server's record (`GET /api/games/{id}`).
//!
//! Idle mode (`--idle N`): N authenticated sockets that only answer pings; reports server memory
//! per socket.
//!
//! `--login-burst R`: during the second half of the measurement window, R password logins per
//! second (accounts registered at the start); the report compares game latency before and during
//! the burst.
//!
//! Bounded: loopback targets only, at most 5,000 games or 20,000 idle sockets, at most one hour;
//! the run stops by itself. Exit status 0 when nothing was lost or duplicated and no error
//! happened, 1 otherwise, 2 for bad arguments.
//!
//! Modules: `ws` is the WebSocket client (HTTP goes through `crate::api`), `messages` the
//! protocol as the tool sees it, `table` the state machine of one table and `play` its driver,
//! `games` and `idle` the two modes, `monitor` the server process, `stats` and `histogram` the counters, `report` the output.
mod games;
mod histogram;
mod idle;
mod messages;
mod monitor;
mod play;
mod report;
mod stats;
mod table;
mod ws;

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

pub const MAX_GAMES: usize = 5_000;
pub const MAX_IDLE: usize = 20_000;
pub const MAX_SECONDS: u64 = 3_600;

/// Arguments of `siguo-tools loadtest`.
#[derive(clap::Args, Debug, Clone)]
pub struct LoadtestArgs {
    /// Server address, host:port (loopback only)
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub target: String,
    /// Concurrent four-player games
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Moves per game per second
    #[arg(long, default_value_t = 1.0)]
    pub move_rate: f64,
    /// Seconds of measurement after the ramp-up
    #[arg(long, default_value_t = 30)]
    pub duration: u64,
    /// Seconds over which games (or idle sockets) are started
    #[arg(long, default_value_t = 10)]
    pub ramp_up: u64,
    /// Idle-socket mode: hold this many authenticated idle sockets instead of playing games
    #[arg(long)]
    pub idle: Option<usize>,
    /// Password logins per second during the second half of the measurement window
    #[arg(long)]
    pub login_burst: Option<f64>,
    /// The server's process id (for RSS and CPU); default: the process listening on the target port
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Connection set-ups (HTTP login + WebSocket) in flight at once
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
    /// Print a progress line every this many seconds to stderr (0: never)
    #[arg(long, default_value_t = 5)]
    pub progress: u64,
    /// Cluster mode: the nodes behind the target (a load balancer), as `name=host:port`, comma
    /// separated. Table i's four sockets connect through the target to `/ws/n/{name}` of node
    /// i mod N, as the sockets of a room owned by that node do; each node's address finds its
    /// process for the per-node CPU figures.
    #[arg(long, value_delimiter = ',')]
    pub nodes: Vec<String>,
    /// The live protocol version the sockets ask for (`?protocol=`): 2, updates carry deltas of
    /// the view; 1, whole views (docs/protocol.md §1)
    #[arg(long, default_value_t = 2)]
    pub protocol: u8,
}

impl LoadtestArgs {
    /// `path` with the protocol version asked for.
    pub fn ws_path(&self, path: &str) -> String {
        format!("{path}?protocol={}", self.protocol)
    }
}

/// One node of `--nodes`.
#[derive(Debug, Clone)]
pub struct NodeTarget {
    pub name: String,
    pub addr: SocketAddr,
}

/// Parse `--nodes`: `name=host:port`, names as the server accepts them for `cluster.node_id`
/// (1–32 ASCII letters, digits, `-`, `_`), loopback addresses only.
pub fn parse_nodes(nodes: &[String]) -> Result<Vec<NodeTarget>, String> {
    let mut out: Vec<NodeTarget> = vec![];
    for n in nodes {
        let (name, addr) =
            n.split_once('=').ok_or_else(|| format!("--nodes {n}: expected name=host:port"))?;
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if name.is_empty() || name.len() > 32 || !name.chars().all(plain) {
            return Err(format!(
                "--nodes {n}: a node name is 1 to 32 ASCII letters, digits, '-' or '_'"
            ));
        }
        if out.iter().any(|o| o.name == name) {
            return Err(format!("--nodes: node {name} named twice"));
        }
        let addr = loopback_target(addr).map_err(|e| e.replace("--target", "--nodes"))?;
        out.push(NodeTarget { name: name.to_string(), addr });
    }
    Ok(out)
}

/// Run the load test; returns the process exit status.
pub fn run(args: LoadtestArgs) -> i32 {
    let target = match check_args(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("siguo-tools loadtest: {e}");
            return 2;
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("siguo-tools loadtest: tokio runtime: {e}");
            return 2;
        }
    };
    let report = rt.block_on(run_mode(&args, target));
    rt.shutdown_timeout(Duration::from_secs(2));
    match report {
        Ok(r) => {
            r.print(args.json);
            r.exit_code()
        }
        Err(e) => {
            eprintln!("siguo-tools loadtest: {e}");
            1
        }
    }
}

async fn run_mode(args: &LoadtestArgs, target: SocketAddr) -> Result<report::Report, String> {
    let api = crate::api::Api::new(target)?;
    let pid = args.server_pid.or_else(|| monitor::pid_listening_on(target.port()));
    match args.idle {
        Some(n) => idle::run(args, api, target, pid, n).await,
        None => games::run(args, api, target, pid).await,
    }
}

fn check_args(a: &LoadtestArgs) -> Result<SocketAddr, String> {
    let addr = loopback_target(&a.target)?;
    if let Some(n) = a.idle {
        if n == 0 || n > MAX_IDLE {
            return Err(format!("--idle must be 1..={MAX_IDLE}"));
        }
    } else if a.games == 0 || a.games > MAX_GAMES {
        return Err(format!("--games must be 1..={MAX_GAMES}"));
    }
    if !(a.move_rate > 0.0 && a.move_rate <= 20.0) {
        return Err("--move-rate must be in (0, 20] moves per game per second".into());
    }
    if a.duration == 0 || a.duration > MAX_SECONDS || a.ramp_up > 600 {
        return Err(format!(
            "--duration must be 1..={MAX_SECONDS} seconds and --ramp-up at most 600"
        ));
    }
    if a.login_burst.is_some_and(|r| !(r > 0.0 && r <= 200.0)) {
        return Err("--login-burst must be in (0, 200] logins per second".into());
    }
    if a.connect_concurrency == 0 || a.connect_concurrency > 1024 {
        return Err("--connect-concurrency must be 1..=1024".into());
    }
    if !(1..=2).contains(&a.protocol) {
        return Err("--protocol must be 1 or 2".into());
    }
    if !a.nodes.is_empty() && a.idle.is_some() {
        return Err("--nodes is for games mode (idle sockets stay on the node they land on)".into());
    }
    parse_nodes(&a.nodes)?;
    Ok(addr)
}

/// The target's address; every address it resolves to must be a loopback one.
fn loopback_target(target: &str) -> Result<SocketAddr, String> {
    let addrs: Vec<SocketAddr> =
        target.to_socket_addrs().map_err(|e| format!("--target {target}: {e}"))?.collect();
    let addr = *addrs.first().ok_or_else(|| format!("--target {target}: no address"))?;
    if addrs.iter().any(|x| !x.ip().is_loopback()) {
        return Err(format!(
            "--target {target} is not a loopback address (only 127.0.0.0/8 or ::1 may be load \
             tested)"
        ));
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_targets() {
        let mut a = LoadtestArgs {
            target: "127.0.0.1:8080".into(),
            games: 1,
            move_rate: 1.0,
            duration: 1,
            ramp_up: 0,
            idle: None,
            login_burst: None,
            server_pid: None,
            json: false,
            connect_concurrency: 4,
            progress: 0,
            nodes: vec![],
            protocol: 2,
        };
        assert!(check_args(&a).is_ok());
        a.target = "[::1]:80".into();
        assert!(check_args(&a).is_ok());
        a.target = "8.8.8.8:80".into();
        assert!(check_args(&a).unwrap_err().contains("loopback"));
        a.target = "127.0.0.1:8080".into();
        a.games = MAX_GAMES + 1;
        assert!(check_args(&a).is_err());
        a.games = 1;
        a.login_burst = Some(0.0);
        assert!(check_args(&a).unwrap_err().contains("--login-burst"));
        a.login_burst = None;
        a.nodes = vec!["n1=127.0.0.1:8081".into(), "n2=127.0.0.1:8082".into()];
        assert!(check_args(&a).is_ok());
        let nodes = parse_nodes(&a.nodes).unwrap();
        assert_eq!((nodes[1].name.as_str(), nodes[1].addr.port()), ("n2", 8082));
        for bad in ["n1", "n 1=127.0.0.1:1", "n1=8.8.8.8:80", "=127.0.0.1:1"] {
            a.nodes = vec![bad.into()];
            assert!(check_args(&a).unwrap_err().contains("--nodes"), "{bad}");
        }
        a.nodes = vec!["a=127.0.0.1:1".into(), "a=127.0.0.1:2".into()];
        assert!(check_args(&a).unwrap_err().contains("twice"));
        a.nodes = vec![];
        a.protocol = 3;
        assert!(check_args(&a).unwrap_err().contains("--protocol"));
        a.protocol = 1;
        assert!(check_args(&a).is_ok());
        assert_eq!(a.ws_path("/api/ws"), "/api/ws?protocol=1");
        a.nodes = vec!["a=127.0.0.1:1".into()];
        a.idle = Some(10);
        assert!(check_args(&a).unwrap_err().contains("--nodes"));
    }
}
