//! `siguo loadtest`: a load generator for a running Siguo server (docs/performance.md).
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
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

pub const MAX_GAMES: usize = 5_000;
pub const MAX_IDLE: usize = 20_000;
pub const MAX_SECONDS: u64 = 3_600;

/// Arguments of `siguo loadtest`.
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
}

/// Run the load test; returns the process exit status.
pub fn run(args: LoadtestArgs) -> i32 {
    let target = match check_args(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("siguo loadtest: {e}");
            return 2;
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("siguo loadtest: tokio runtime: {e}");
            return 2;
        }
    };
    let report = rt.block_on(async {
        if let Some(n) = args.idle {
            run_idle(&args, target, n).await
        } else {
            run_games(&args, target).await
        }
    });
    rt.shutdown_timeout(Duration::from_secs(2));
    match report {
        Ok(r) => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
            } else {
                print_report(&r);
            }
            let bad = ["lost", "duplicated", "errors"]
                .iter()
                .any(|k| r.get(*k).and_then(Value::as_u64).unwrap_or(0) > 0);
            i32::from(bad)
        }
        Err(e) => {
            eprintln!("siguo loadtest: {e}");
            1
        }
    }
}

fn check_args(a: &LoadtestArgs) -> Result<SocketAddr, String> {
    let addrs: Vec<SocketAddr> =
        a.target.to_socket_addrs().map_err(|e| format!("--target {}: {e}", a.target))?.collect();
    let addr = *addrs.first().ok_or_else(|| format!("--target {}: no address", a.target))?;
    if addrs.iter().any(|x| !x.ip().is_loopback()) {
        return Err(format!(
            "--target {} is not a loopback address (only 127.0.0.0/8 or ::1 may be load tested)",
            a.target
        ));
    }
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
    if let Some(r) = a.login_burst {
        if !(r > 0.0 && r <= 200.0) {
            return Err("--login-burst must be in (0, 200] logins per second".into());
        }
    }
    if a.connect_concurrency == 0 || a.connect_concurrency > 1024 {
        return Err("--connect-concurrency must be 1..=1024".into());
    }
    Ok(addr)
}

// ---------------------------------------------------------------------------------------------
// Latency histogram: log-linear buckets (32 per power of two above 64 µs, exact below),
// relative error under 3.2 %.

#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    max: u64,
    sum: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; 64 + 58 * 32], n: 0, max: 0, sum: 0 }
    }
}

impl Histogram {
    fn index(v: u64) -> usize {
        if v < 64 {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros() as usize; // >= 6
        let shift = msb - 5;
        let sub = (v >> shift) as usize; // 32..64
        64 + (shift - 1) * 32 + (sub - 32)
    }
    /// Largest value in bucket `i`.
    fn upper(i: usize) -> u64 {
        if i < 64 {
            return i as u64;
        }
        let shift = (i - 64) / 32 + 1;
        let sub = ((i - 64) % 32 + 32) as u64;
        ((sub + 1) << shift) - 1
    }
    pub fn record(&mut self, micros: u64) {
        let i = Self::index(micros).min(self.counts.len() - 1);
        self.counts[i] += 1;
        self.n += 1;
        self.max = self.max.max(micros);
        self.sum += micros;
    }
    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.max = self.max.max(o.max);
        self.sum += o.sum;
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    /// The value at quantile `q` (0..=1), in µs (an upper bound within the bucket's precision).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::upper(i).min(self.max);
            }
        }
        self.max
    }
    fn summary_ms(&self) -> Value {
        let ms = |us: u64| (us as f64 / 10.0).round() / 100.0;
        json!({"count": self.n, "p50_ms": ms(self.quantile(0.5)), "p99_ms": ms(self.quantile(0.99)),
               "max_ms": ms(self.max), "mean_ms": if self.n > 0 { ms(self.sum / self.n) } else { 0.0 }})
    }
}

// ---------------------------------------------------------------------------------------------
// Shared counters.

#[derive(Default)]
struct Lat {
    ack: Histogram,
    all: Histogram,
    all_before_burst: Histogram,
    all_during_burst: Histogram,
    login: Histogram,
    /// move → all four seats, per second of the window (by the second the move was sent)
    per_second: Vec<Histogram>,
}

struct Stats {
    sockets: AtomicI64,
    games_playing: AtomicI64,
    games_started: AtomicU64,
    games_finished: AtomicU64,
    setups_failed: AtomicU64,
    moves_sent: AtomicU64,
    moves_acked: AtomicU64,
    moves_done: AtomicU64,
    moves_in_window: AtomicU64,
    skips: AtomicU64,
    lost: AtomicU64,
    duplicated: AtomicU64,
    errors: AtomicU64,
    logins: AtomicU64,
    error_samples: Mutex<Vec<String>>,
    error_codes: Mutex<HashMap<String, u64>>,
    lat: Mutex<Lat>,
    stopping: AtomicBool,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            sockets: AtomicI64::new(0),
            games_playing: AtomicI64::new(0),
            games_started: AtomicU64::new(0),
            games_finished: AtomicU64::new(0),
            setups_failed: AtomicU64::new(0),
            moves_sent: AtomicU64::new(0),
            moves_acked: AtomicU64::new(0),
            moves_done: AtomicU64::new(0),
            moves_in_window: AtomicU64::new(0),
            skips: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            duplicated: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            logins: AtomicU64::new(0),
            error_samples: Mutex::default(),
            error_codes: Mutex::default(),
            lat: Mutex::default(),
            stopping: AtomicBool::new(false),
        }
    }
    fn error(&self, code: &str, detail: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        *self.error_codes.lock().unwrap().entry(code.to_string()).or_default() += 1;
        let mut s = self.error_samples.lock().unwrap();
        if s.len() < 20 {
            s.push(detail);
        }
    }
}

/// The measurement timeline.
#[derive(Clone, Copy)]
struct Window {
    start: Instant,
    end: Instant,
    /// start of the login burst (end when there is none)
    burst: Instant,
}

impl Window {
    fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

// ---------------------------------------------------------------------------------------------
// Server process: RSS and CPU from /proc.

/// The pid of the process listening on `port` (same user; from /proc/net/tcp{,6} and /proc/*/fd).
pub fn pid_listening_on(port: u16) -> Option<u32> {
    let mut inodes = HashSet::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() < 10 || cols[3] != "0A" {
                continue;
            }
            let lport = cols[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
            if lport == Some(port) {
                inodes.insert(format!("socket:[{}]", cols[9]));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    let me = std::process::id();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            if let Ok(l) = std::fs::read_link(fd.path()) {
                if inodes.contains(l.to_string_lossy().as_ref()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// (RSS in KiB, CPU time in clock ticks) of a process.
fn proc_sample(pid: &str) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // fields 14 and 15 of stat (utime, stime) are 12 and 13 after "pid (comm) "
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some((rss, ticks))
}

/// Linux USER_HZ (the unit of /proc/<pid>/stat times) is 100 on every supported architecture.
const TICKS_PER_SEC: f64 = 100.0;

#[derive(Clone, Copy)]
struct Sample {
    t: Instant,
    rss_kib: u64,
    ticks: u64,
    self_ticks: u64,
}

struct Monitor {
    pid: Option<u32>,
    samples: Arc<Mutex<Vec<Sample>>>,
}

impl Monitor {
    fn start(pid: Option<u32>) -> Monitor {
        let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
        if let Some(p) = pid {
            let s = samples.clone();
            tokio::spawn(async move {
                let p = p.to_string();
                let mut tick = tokio::time::interval(Duration::from_millis(500));
                loop {
                    tick.tick().await;
                    let Some((rss, ticks)) = proc_sample(&p) else { break };
                    let self_ticks = proc_sample("self").map(|x| x.1).unwrap_or(0);
                    s.lock().unwrap().push(Sample {
                        t: Instant::now(),
                        rss_kib: rss,
                        ticks,
                        self_ticks,
                    });
                }
            });
        }
        Monitor { pid, samples }
    }
    fn now(&self) -> Option<Sample> {
        let p = self.pid?.to_string();
        let (rss, ticks) = proc_sample(&p)?;
        Some(Sample {
            t: Instant::now(),
            rss_kib: rss,
            ticks,
            self_ticks: proc_sample("self").map(|x| x.1).unwrap_or(0),
        })
    }
    /// Peak RSS, and CPU % of the server and of this process, between two instants.
    fn window(&self, from: Instant, to: Instant) -> Value {
        let s = self.samples.lock().unwrap();
        let inside: Vec<&Sample> = s.iter().filter(|x| x.t >= from && x.t <= to).collect();
        let (Some(a), Some(b)) = (inside.first(), inside.last()) else { return Value::Null };
        let dt = b.t.duration_since(a.t).as_secs_f64().max(0.001);
        let peak = inside.iter().map(|x| x.rss_kib).max().unwrap_or(0);
        json!({
            "server_rss_peak_mib": mib(peak),
            "server_rss_end_mib": mib(b.rss_kib),
            "server_cpu_percent": ((b.ticks - a.ticks) as f64 / TICKS_PER_SEC / dt * 1000.0).round() / 10.0,
            "loadgen_cpu_percent": ((b.self_ticks.saturating_sub(a.self_ticks)) as f64 / TICKS_PER_SEC / dt * 1000.0).round() / 10.0,
        })
    }
}

fn mib(kib: u64) -> f64 {
    (kib as f64 / 1024.0 * 10.0).round() / 10.0
}

// ---------------------------------------------------------------------------------------------
// Minimal HTTP/1.1 client (one request per connection; the server is on loopback).

async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let fut = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| format!("connect {addr}: {e}"))?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: application/json\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.map_err(|e| format!("{method} {path}: {e}"))?;
        let mut buf = vec![];
        s.read_to_end(&mut buf).await.map_err(|e| format!("{method} {path}: {e}"))?;
        parse_http(&buf).map_err(|e| format!("{method} {path}: {e}"))
    };
    tokio::time::timeout(Duration::from_secs(60), fut)
        .await
        .map_err(|_| format!("{method} {path}: no answer in 60 s"))?
}

fn parse_http(buf: &[u8]) -> Result<(u16, Value), String> {
    let split = buf.windows(4).position(|w| w == b"\r\n\r\n").ok_or("truncated response")?;
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let status: u16 =
        head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or("bad status line")?;
    let mut body = buf[split + 4..].to_vec();
    if head.lines().any(|l| {
        l.to_ascii_lowercase().starts_with("transfer-encoding:")
            && l.to_ascii_lowercase().contains("chunked")
    }) {
        let mut out = vec![];
        let mut rest = &body[..];
        loop {
            let eol = rest.windows(2).position(|w| w == b"\r\n").ok_or("bad chunk")?;
            let size_hex = String::from_utf8_lossy(&rest[..eol]);
            let size = usize::from_str_radix(size_hex.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| "bad chunk size")?;
            rest = &rest[eol + 2..];
            if size == 0 {
                break;
            }
            out.extend_from_slice(rest.get(..size).ok_or("short chunk")?);
            rest = rest.get(size + 2..).unwrap_or(&[]);
        }
        body = out;
    }
    let v = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap_or(Value::Null)
    };
    Ok((status, v))
}

fn http_error(what: &str, status: u16, body: &Value) -> String {
    let code = body["error"]["code"].as_str().unwrap_or("?");
    let hint = if status == 429 {
        match what {
            "guest" => " (raise limits.guest_per_ip for the test: SIGUO_LIMITS_GUEST_PER_IP)",
            "register" => " (raise limits.register_per_ip for the test: SIGUO_LIMITS_REGISTER_PER_IP)",
            _ => " (raise limits.login_per_ip / login_per_account: SIGUO_LIMITS_LOGIN_PER_IP, SIGUO_LIMITS_LOGIN_PER_ACCOUNT)",
        }
    } else {
        ""
    };
    format!("{what}: HTTP {status} {code}{hint}")
}

async fn guest_token(addr: SocketAddr) -> Result<String, String> {
    let (status, body) = http(addr, "POST", "/api/auth/guest", None).await?;
    if status / 100 != 2 {
        return Err(http_error("guest", status, &body));
    }
    body["access_token"]
        .as_str()
        .map(String::from)
        .ok_or_else(|| "guest: no access_token".to_string())
}

// ---------------------------------------------------------------------------------------------
// WebSocket clients.

type Ws = WebSocketStream<TcpStream>;

async fn ws_connect(addr: SocketAddr, token: &str) -> Result<Ws, String> {
    let fut = async {
        let stream = TcpStream::connect(addr).await.map_err(|e| format!("ws connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut req =
            format!("ws://{addr}/api/ws").into_client_request().map_err(|e| e.to_string())?;
        req.headers_mut().insert(
            "Authorization",
            format!("Bearer {token}").parse().map_err(|_| "bad token".to_string())?,
        );
        match tokio_tungstenite::client_async(req, stream).await {
            Ok((ws, _)) => Ok(ws),
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                Err(format!("ws upgrade refused: HTTP {}", r.status()))
            }
            Err(e) => Err(format!("ws upgrade: {e}")),
        }
    };
    tokio::time::timeout(Duration::from_secs(60), fut)
        .await
        .map_err(|_| "ws connect: no answer in 60 s".to_string())?
}

/// The fields of server messages the load generator looks at (everything else is skipped).
#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct In {
    #[serde(rename = "type")]
    ty: String,
    id: Value,
    room: Option<String>,
    invite: Option<String>,
    game: Option<i64>,
    v: Option<u64>,
    from_v: Option<u64>,
    phase: Option<String>,
    code: Option<String>,
    message: Option<String>,
    duplicate: Option<bool>,
    events: Option<Vec<Ev>>,
    legal_moves: Option<HashMap<String, Vec<String>>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(default)]
struct Ev {
    #[serde(rename = "type")]
    ty: String,
    seat: Option<String>,
    from: Option<String>,
    to: Option<String>,
}

enum Inc {
    Msg(usize, Instant, Box<In>),
    Closed(usize, String),
}

async fn reader(p: usize, mut stream: SplitStream<Ws>, tx: mpsc::UnboundedSender<Inc>) {
    while let Some(m) = stream.next().await {
        let t = Instant::now();
        match m {
            Ok(Message::Text(s)) => {
                let inc = match serde_json::from_str::<In>(s.as_str()) {
                    Ok(i) => Inc::Msg(p, t, Box::new(i)),
                    Err(e) => Inc::Closed(p, format!("unparsable server message: {e}")),
                };
                if tx.send(inc).is_err() {
                    return;
                }
            }
            Ok(Message::Close(f)) => {
                let _ = tx.send(Inc::Closed(p, format!("closed by server: {f:?}")));
                return;
            }
            Ok(_) => {}
            Err(e) => {
                let _ = tx.send(Inc::Closed(p, format!("socket error: {e}")));
                return;
            }
        }
    }
    let _ = tx.send(Inc::Closed(p, "socket ended".into()));
}

// ---------------------------------------------------------------------------------------------
// Games mode.

const SEATS: [&str; 4] = ["N", "E", "S", "W"];

struct Player {
    sink: SplitSink<Ws, Message>,
    /// last version applied (None: no snapshot yet for the current game)
    v: Option<u64>,
    phase: String,
    /// legal moves offered with version `moves_v`
    moves: Vec<(String, String)>,
    moves_v: u64,
    hello: bool,
    open: bool,
}

struct Pending {
    id: u64,
    mover: usize,
    from: String,
    to: String,
    sent: Instant,
    acked: Option<Instant>,
    got: [Option<Instant>; 4],
}

enum Outcome {
    /// the game ended (game over); play another one
    Over,
    /// the measurement ended
    Stop,
}

struct Table {
    gi: usize,
    ctx: Arc<Ctx>,
    players: Vec<Player>,
    rx: mpsc::UnboundedReceiver<Inc>,
    next_id: u64,
    /// (id → player) for acks we wait for in set-up
    waiting: HashMap<u64, usize>,
    acks: HashMap<u64, In>,
    room: Option<String>,
    game: Option<i64>,
    pending: HashMap<u64, Pending>,
    id_to_v: HashMap<u64, u64>,
    over_v: Option<u64>,
    /// the moves of the current game in version order (checked against the server's record)
    record: Vec<(u64, String, String)>,
    /// (game id, moves) of every game this table played
    played: Vec<(i64, Vec<(String, String)>)>,
    closing: bool,
}

struct Ctx {
    args: LoadtestArgs,
    addr: SocketAddr,
    stats: Stats,
    window: Window,
    setup: Semaphore,
}

impl Table {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    async fn send(&mut self, p: usize, msg: Value) -> Result<(), String> {
        let r = self.players[p].sink.send(Message::text(msg.to_string())).await;
        r.map_err(|e| format!("send: {e}"))
    }

    /// Send an action and remember its id as awaited.
    async fn act(&mut self, p: usize, mut msg: Value) -> Result<u64, String> {
        let id = self.id();
        msg["id"] = json!(id);
        self.waiting.insert(id, p);
        self.send(p, msg).await?;
        Ok(id)
    }

    /// Process one incoming message (or a closed socket). Errors are counted here.
    fn observe(&mut self, inc: Inc) {
        let ctx = self.ctx.clone();
        let (p, t, m) = match inc {
            Inc::Closed(p, why) => {
                if self.players[p].open {
                    self.players[p].open = false;
                    self.ctx.stats.sockets.fetch_sub(1, Ordering::Relaxed);
                    if !self.closing {
                        self.ctx.stats.error(
                            "socket_closed",
                            format!("game {}: seat {}: {why}", self.gi, SEATS[p]),
                        );
                    }
                }
                return;
            }
            Inc::Msg(p, t, m) => (p, t, m),
        };
        let stats = &ctx.stats;
        let id = m.id.as_u64();
        match m.ty.as_str() {
            "hello" => self.players[p].hello = true,
            "ack" => {
                let Some(id) = id else { return };
                if m.duplicate == Some(true) {
                    stats.duplicated.fetch_add(1, Ordering::Relaxed);
                    stats.error(
                        "duplicate_ack",
                        format!("game {}: ack {id} marked duplicate", self.gi),
                    );
                }
                if let Some(v) = self.id_to_v.remove(&id) {
                    if let Some(pm) = self.pending.get_mut(&v) {
                        pm.acked = Some(t);
                        stats.moves_acked.fetch_add(1, Ordering::Relaxed);
                        if self.ctx.window.contains(pm.sent) {
                            self.ctx
                                .stats
                                .lat
                                .lock()
                                .unwrap()
                                .ack
                                .record(t.duration_since(pm.sent).as_micros() as u64);
                        }
                    }
                    self.try_complete(v);
                } else if self.waiting.remove(&id).is_some() {
                    self.acks.insert(id, *m);
                }
            }
            "error" => {
                let code = m.code.clone().unwrap_or_default();
                stats.error(
                    &code,
                    format!(
                        "game {}: seat {}: error {code} for id {:?}: {}",
                        self.gi,
                        SEATS[p],
                        id,
                        m.message.clone().unwrap_or_default()
                    ),
                );
                if let Some(id) = id {
                    if let Some(v) = self.id_to_v.remove(&id) {
                        self.pending.remove(&v);
                    }
                    if self.waiting.remove(&id).is_some() {
                        self.acks.insert(id, *m);
                    }
                }
            }
            "snapshot" => {
                if m.room.is_some() && m.room != self.room {
                    return;
                }
                let pl = &mut self.players[p];
                pl.v = m.v;
                pl.phase = m.phase.clone().unwrap_or_default();
                if m.game.is_some() {
                    self.game = m.game;
                }
                pl.moves = flatten_moves(m.legal_moves.as_ref());
                pl.moves_v = m.v.unwrap_or(0);
            }
            "update" => {
                if m.room.is_some() && m.room != self.room {
                    return;
                }
                let (Some(v), Some(from_v)) = (m.v, m.from_v) else {
                    stats.error("bad_update", format!("game {}: update without v/from_v", self.gi));
                    return;
                };
                let events = m.events.as_deref().unwrap_or(&[]);
                {
                    let pl = &mut self.players[p];
                    match pl.v {
                        None => stats.error(
                            "update_before_snapshot",
                            format!(
                                "game {}: seat {}: update v{v} before a snapshot",
                                self.gi, SEATS[p]
                            ),
                        ),
                        Some(h) if v <= h => {
                            stats.duplicated.fetch_add(1, Ordering::Relaxed);
                            stats.error(
                                "duplicate_version",
                                format!(
                                    "game {}: seat {}: v{v} again (held v{h})",
                                    self.gi, SEATS[p]
                                ),
                            );
                            return;
                        }
                        Some(h) if from_v != h => {
                            stats
                                .lost
                                .fetch_add(from_v.saturating_sub(h).max(1), Ordering::Relaxed);
                            stats.error(
                                "version_gap",
                                format!(
                                    "game {}: seat {}: from_v {from_v} but held v{h}",
                                    self.gi, SEATS[p]
                                ),
                            );
                        }
                        _ => {}
                    }
                    pl.v = Some(v);
                    if m.phase.is_some() {
                        pl.phase = m.phase.clone().unwrap_or_default();
                    }
                    pl.moves = flatten_moves(m.legal_moves.as_ref());
                    pl.moves_v = v;
                }
                if p == 0 {
                    for e in events {
                        match e.ty.as_str() {
                            "skipped" => {
                                stats.skips.fetch_add(1, Ordering::Relaxed);
                            }
                            "moved" => self.record.push((
                                v,
                                e.from.clone().unwrap_or_default(),
                                e.to.clone().unwrap_or_default(),
                            )),
                            _ => {}
                        }
                    }
                }
                if events.iter().any(|e| e.ty == "game_over") {
                    self.over_v = Some(v);
                }
                if let Some(pm) = self.pending.get_mut(&v) {
                    if p == pm.mover {
                        let first = events.iter().find(|e| e.ty == "moved");
                        let ok = first.is_some_and(|e| {
                            e.seat.as_deref() == Some(SEATS[pm.mover])
                                && e.from.as_deref() == Some(pm.from.as_str())
                                && e.to.as_deref() == Some(pm.to.as_str())
                        });
                        if !ok {
                            stats.error(
                                "unexpected_update",
                                format!(
                                    "game {}: v{v} is not the move {}-{} of {}",
                                    self.gi, pm.from, pm.to, SEATS[pm.mover]
                                ),
                            );
                        }
                    }
                    pm.got[p] = Some(t);
                    self.try_complete(v);
                }
            }
            "room" => {
                if m.room.is_some() && m.room == self.room && m.game.is_some() {
                    self.game = m.game;
                }
            }
            _ => {}
        }
    }

    fn try_complete(&mut self, v: u64) {
        let Some(pm) = self.pending.get(&v) else { return };
        let (Some(_), true) = (pm.acked, pm.got.iter().all(|g| g.is_some())) else { return };
        let pm = self.pending.remove(&v).unwrap();
        let last = pm.got.iter().flatten().max().copied().unwrap();
        let stats = &self.ctx.stats;
        stats.moves_done.fetch_add(1, Ordering::Relaxed);
        let w = self.ctx.window;
        if w.contains(pm.sent) {
            stats.moves_in_window.fetch_add(1, Ordering::Relaxed);
            let us = last.duration_since(pm.sent).as_micros() as u64;
            let mut l = stats.lat.lock().unwrap();
            l.all.record(us);
            let sec = pm.sent.duration_since(w.start).as_secs() as usize;
            if l.per_second.len() <= sec {
                l.per_second.resize_with(sec + 1, Histogram::default);
            }
            l.per_second[sec].record(us);
            if pm.sent < w.burst {
                l.all_before_burst.record(us);
            } else {
                l.all_during_burst.record(us);
            }
        }
    }

    /// Process messages until `done(self)` or the timeout.
    async fn until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&Table) -> bool,
    ) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + timeout;
        while !done(self) {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(inc)) => self.observe(inc),
                Ok(None) => return Err("all sockets gone".into()),
                Err(_) => return Err(format!("timed out waiting for {what}")),
            }
            if self.players.iter().any(|p| !p.open) && !self.closing {
                return Err(format!("a socket closed while waiting for {what}"));
            }
        }
        Ok(())
    }

    /// Wait for the acks of these ids; an error answer fails the step.
    async fn acked(&mut self, what: &str, ids: &[u64]) -> Result<Vec<In>, String> {
        let ids2 = ids.to_vec();
        self.until(what, Duration::from_secs(30), move |t| {
            ids2.iter().all(|i| t.acks.contains_key(i))
        })
        .await?;
        let mut out = vec![];
        for i in ids {
            let m = self.acks.remove(i).unwrap();
            if m.ty != "ack" {
                return Err(format!(
                    "{what}: {} {}",
                    m.code.unwrap_or_default(),
                    m.message.unwrap_or_default()
                ));
            }
            out.push(m);
        }
        Ok(out)
    }

    /// Create a room, seat the four, ready, confirm the deployments; returns when the battle runs.
    async fn setup_game(&mut self) -> Result<(), String> {
        let a = &self.ctx.args;
        let move_seconds = ((8.0 / a.move_rate).ceil() as u64 + 10).clamp(10, 120);
        let opts = json!({"move_seconds": move_seconds, "deploy_seconds": 300, "max_steps": 2000});
        let id =
            self.act(0, json!({"type": "create_room", "public": false, "options": opts})).await?;
        let ack = self.acked("create_room", &[id]).await?.remove(0);
        let room = ack.room.ok_or("create_room: no room in the ack")?;
        let invite = ack.invite;
        self.room = Some(room.clone());
        self.game = None;
        self.over_v = None;
        self.record.clear();
        for pl in &mut self.players {
            pl.v = None;
            pl.phase.clear();
            pl.moves.clear();
        }
        let mut ids = vec![];
        for p in 1..4 {
            let msg = match &invite {
                Some(i) => json!({"type": "join_room", "invite": i}),
                None => json!({"type": "join_room", "room": room}),
            };
            ids.push(self.act(p, msg).await?);
        }
        self.acked("join_room", &ids).await?;
        let mut ids = vec![];
        for p in 0..4 {
            ids.push(
                self.act(p, json!({"type": "take_seat", "room": room, "seat": SEATS[p]})).await?,
            );
        }
        self.acked("take_seat", &ids).await?;
        let mut ids = vec![];
        for p in 0..4 {
            ids.push(self.act(p, json!({"type": "ready", "room": room, "ready": true})).await?);
        }
        self.acked("ready", &ids).await?;
        self.until("the deployment phase", Duration::from_secs(30), |t| {
            t.players.iter().all(|p| p.v.is_some())
        })
        .await?;
        let mut ids = vec![];
        for p in 0..4 {
            ids.push(self.act(p, json!({"type": "confirm", "room": room})).await?);
        }
        self.acked("confirm", &ids).await?;
        self.until("the battle", Duration::from_secs(30), |t| {
            let v = t.players[0].v;
            t.players.iter().all(|p| p.v == v)
                && t.players.iter().any(|p| !p.moves.is_empty() && Some(p.moves_v) == p.v)
        })
        .await?;
        Ok(())
    }

    /// Play random legal moves at the configured rate until game over or the end of the window.
    async fn play(&mut self) -> Result<Outcome, String> {
        let interval = Duration::from_secs_f64(1.0 / self.ctx.args.move_rate);
        let room = self.room.clone().unwrap_or_default();
        let mut next_at =
            tokio::time::Instant::now() + interval.mul_f64(rand::rng().random::<f64>());
        let end = tokio::time::Instant::from_std(self.ctx.window.end);
        let far = tokio::time::Instant::now() + Duration::from_secs(86_400);
        loop {
            let now = tokio::time::Instant::now();
            let stop = now >= end || self.ctx.stats.stopping.load(Ordering::Relaxed);
            if self.over_v.is_some() && self.pending.is_empty() {
                let v = self.over_v.unwrap();
                if self.players.iter().all(|p| p.v == Some(v)) {
                    return Ok(Outcome::Over);
                }
            }
            if stop {
                return Ok(Outcome::Stop);
            }
            // the seat to move: its own latest update offered moves
            let mover = (0..4).find(|&p| {
                let pl = &self.players[p];
                !pl.moves.is_empty()
                    && pl.v == Some(pl.moves_v)
                    && !self.pending.contains_key(&(pl.moves_v + 1))
            });
            let wake = if mover.is_some() && self.over_v.is_none() {
                next_at.min(end)
            } else {
                end.min(far)
            };
            tokio::select! {
                inc = self.rx.recv() => match inc {
                    Some(inc) => self.observe(inc),
                    None => return Err("all sockets gone".into()),
                },
                _ = tokio::time::sleep_until(wake) => {
                    let Some(p) = mover else { continue };
                    if tokio::time::Instant::now() < next_at || tokio::time::Instant::now() >= end {
                        continue;
                    }
                    let pl = &self.players[p];
                    let (from, to) = pl.moves[rand::rng().random_range(0..pl.moves.len())].clone();
                    let expect = pl.moves_v + 1;
                    let id = self.id();
                    let sent = Instant::now();
                    self.pending.insert(expect, Pending { id, mover: p, from: from.clone(), to: to.clone(), sent, acked: None, got: [None; 4] });
                    self.id_to_v.insert(id, expect);
                    self.ctx.stats.moves_sent.fetch_add(1, Ordering::Relaxed);
                    self.send(p, json!({"type": "move", "id": id, "room": room, "from": from, "to": to})).await?;
                    next_at += interval;
                    if next_at < tokio::time::Instant::now() {
                        next_at = tokio::time::Instant::now();
                    }
                }
            }
            if self.players.iter().any(|p| !p.open) {
                return Err("a socket closed during the game".into());
            }
        }
    }

    /// After the window: let moves in flight arrive (up to 10 s), then count the missing ones.
    async fn drain(&mut self) {
        let _ =
            self.until("moves in flight", Duration::from_secs(10), |t| t.pending.is_empty()).await;
        let stats = &self.ctx.stats;
        for (v, pm) in self.pending.drain() {
            stats.lost.fetch_add(1, Ordering::Relaxed);
            let missing: Vec<&str> =
                (0..4).filter(|&i| pm.got[i].is_none()).map(|i| SEATS[i]).collect();
            stats.error(
                "move_not_delivered",
                format!(
                    "game {}: move {} (v{v}) acked: {} missing at: {:?}",
                    self.gi,
                    pm.id,
                    pm.acked.is_some(),
                    missing
                ),
            );
        }
        self.id_to_v.clear();
    }

    fn keep_record(&mut self) {
        if let Some(g) = self.game {
            let moves = self.record.iter().map(|(_, f, t)| (f.clone(), t.clone())).collect();
            self.played.push((g, moves));
        }
    }
}

fn flatten_moves(m: Option<&HashMap<String, Vec<String>>>) -> Vec<(String, String)> {
    let Some(m) = m else { return vec![] };
    let mut out = vec![];
    for (from, tos) in m {
        for to in tos {
            out.push((from.clone(), to.clone()));
        }
    }
    out.sort();
    out
}

/// One table: four guests, games one after another until the window ends.
async fn table(ctx: Arc<Ctx>, gi: usize) -> Vec<(i64, Vec<(String, String)>)> {
    let stats = &ctx.stats;
    let (tx, rx) = mpsc::unbounded_channel();
    let mut players = vec![];
    {
        let _permit = ctx.setup.acquire().await;
        for p in 0..4 {
            let r = async {
                let token = guest_token(ctx.addr).await?;
                ws_connect(ctx.addr, &token).await
            }
            .await;
            match r {
                Ok(ws) => {
                    stats.sockets.fetch_add(1, Ordering::Relaxed);
                    let (sink, stream) = ws.split();
                    tokio::spawn(reader(p, stream, tx.clone()));
                    players.push(Player {
                        sink,
                        v: None,
                        phase: String::new(),
                        moves: vec![],
                        moves_v: 0,
                        hello: false,
                        open: true,
                    });
                }
                Err(e) => {
                    stats.setups_failed.fetch_add(1, Ordering::Relaxed);
                    stats.error("connect", format!("game {gi}: {e}"));
                    for mut pl in players {
                        let _ = pl.sink.close().await;
                        stats.sockets.fetch_sub(1, Ordering::Relaxed);
                    }
                    return vec![];
                }
            }
        }
    }
    drop(tx);
    let mut t = Table {
        gi,
        ctx: ctx.clone(),
        players,
        rx,
        next_id: 0,
        waiting: HashMap::new(),
        acks: HashMap::new(),
        room: None,
        game: None,
        pending: HashMap::new(),
        id_to_v: HashMap::new(),
        over_v: None,
        record: vec![],
        played: vec![],
        closing: false,
    };
    let r: Result<(), String> = async {
        t.until("hello", Duration::from_secs(30), |t| t.players.iter().all(|p| p.hello)).await?;
        loop {
            if stats.stopping.load(Ordering::Relaxed) || Instant::now() >= ctx.window.end {
                return Ok(());
            }
            if let Err(e) = t.setup_game().await {
                stats.setups_failed.fetch_add(1, Ordering::Relaxed);
                return Err(format!("set-up: {e}"));
            }
            stats.games_started.fetch_add(1, Ordering::Relaxed);
            stats.games_playing.fetch_add(1, Ordering::Relaxed);
            let out = t.play().await;
            stats.games_playing.fetch_sub(1, Ordering::Relaxed);
            match out? {
                Outcome::Over => {
                    stats.games_finished.fetch_add(1, Ordering::Relaxed);
                    t.keep_record();
                    let room = t.room.clone().unwrap_or_default();
                    let mut ids = vec![];
                    for p in 0..4 {
                        ids.push(t.act(p, json!({"type": "leave_room", "room": room})).await?);
                    }
                    t.acked("leave_room", &ids).await?;
                }
                Outcome::Stop => {
                    t.drain().await;
                    t.keep_record();
                    return Ok(());
                }
            }
        }
    }
    .await;
    if let Err(e) = r {
        stats.error("table", format!("game {gi}: {e}"));
        t.keep_record();
    }
    t.closing = true;
    for pl in t.players.iter_mut() {
        let _ = pl.sink.send(Message::Close(None)).await;
        let _ = pl.sink.close().await;
        if pl.open {
            pl.open = false;
            stats.sockets.fetch_sub(1, Ordering::Relaxed);
        }
    }
    t.played
}

/// Compare the moves each table saw with the server's record of that game.
async fn verify_records(
    addr: SocketAddr,
    played: Vec<(i64, Vec<(String, String)>)>,
    stats: &Stats,
) -> Value {
    let sem = Arc::new(Semaphore::new(16));
    let mut tasks = vec![];
    for (g, moves) in played {
        let sem = sem.clone();
        tasks.push(tokio::spawn(async move {
            let _p = sem.acquire().await;
            (g, moves, http(addr, "GET", &format!("/api/games/{g}"), None).await)
        }));
    }
    let (mut checked, mut matched, mut unavailable) = (0u64, 0u64, 0u64);
    for t in tasks {
        let Ok((g, moves, r)) = t.await else { continue };
        let body = match r {
            Ok((200, b)) => b,
            Ok((s, b)) => {
                unavailable += 1;
                stats.error(
                    "verify",
                    format!("GET /api/games/{g}: HTTP {s} {}", b["error"]["code"]),
                );
                continue;
            }
            Err(e) => {
                unavailable += 1;
                stats.error("verify", format!("GET /api/games/{g}: {e}"));
                continue;
            }
        };
        checked += 1;
        let actions = if body["record"].is_object() {
            &body["record"]["actions"]
        } else {
            &body["public"]["actions"]
        };
        let server: Vec<(String, String)> = actions
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|x| x["type"] == "move")
                    .map(|x| {
                        (
                            x["from"].as_str().unwrap_or("").to_string(),
                            x["to"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        if server == moves {
            matched += 1;
        } else {
            let (s, m) = (server.len(), moves.len());
            if s > m {
                stats.duplicated.fetch_add((s - m) as u64, Ordering::Relaxed);
            } else if m > s {
                stats.lost.fetch_add((m - s) as u64, Ordering::Relaxed);
            }
            stats.error(
                "record_mismatch",
                format!("game {g}: server recorded {s} moves, the clients saw {m}"),
            );
        }
    }
    json!({"games_checked": checked, "games_matching": matched, "unavailable": unavailable})
}

async fn register_accounts(
    addr: SocketAddr,
    n: usize,
    conc: usize,
) -> Result<Vec<(String, String)>, String> {
    let tag: u32 = rand::rng().random();
    let sem = Arc::new(Semaphore::new(conc.min(8)));
    let mut tasks = vec![];
    for i in 0..n {
        let sem = sem.clone();
        tasks.push(tokio::spawn(async move {
            let _p = sem.acquire().await;
            let name = format!("lt{tag:08x}x{i}");
            let password = format!("Load-{tag:08x}-pw-{i}-Siguo");
            let (status, body) = http(
                addr,
                "POST",
                "/api/auth/register",
                Some(&json!({"username": name, "password": password})),
            )
            .await?;
            if status / 100 != 2 {
                return Err(http_error("register", status, &body));
            }
            Ok((name, password))
        }));
    }
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.map_err(|e| e.to_string())??);
    }
    Ok(out)
}

/// Logins at `rate` per second from `from` to `to`, round-robin over the accounts.
async fn login_burst(
    ctx: Arc<Ctx>,
    accounts: Vec<(String, String)>,
    rate: f64,
    from: Instant,
    to: Instant,
) {
    tokio::time::sleep_until(tokio::time::Instant::from_std(from)).await;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut tasks = vec![];
    let mut i = 0;
    let stop = tokio::time::Instant::from_std(to);
    loop {
        // (a rate below 1/window would otherwise wait for its next tick long after the window)
        tokio::select! {
            _ = tick.tick() => {}
            _ = tokio::time::sleep_until(stop) => break,
        }
        if Instant::now() >= to || ctx.stats.stopping.load(Ordering::Relaxed) {
            break;
        }
        let (name, password) = accounts[i % accounts.len()].clone();
        i += 1;
        let ctx = ctx.clone();
        tasks.push(tokio::spawn(async move {
            let t0 = Instant::now();
            match http(
                ctx.addr,
                "POST",
                "/api/auth/login",
                Some(&json!({"username": name, "password": password})),
            )
            .await
            {
                Ok((200, _)) => {
                    ctx.stats.logins.fetch_add(1, Ordering::Relaxed);
                    ctx.stats.lat.lock().unwrap().login.record(t0.elapsed().as_micros() as u64);
                }
                Ok((s, b)) => ctx.stats.error("login", http_error("login", s, &b)),
                Err(e) => ctx.stats.error("login", e),
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
}

fn server_pid(args: &LoadtestArgs, addr: SocketAddr) -> Option<u32> {
    args.server_pid.or_else(|| pid_listening_on(addr.port()))
}

fn progress(ctx: &Arc<Ctx>, every: u64, t0: Instant) {
    if every == 0 {
        return;
    }
    let ctx = ctx.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(every));
        tick.tick().await;
        let mut last_done = 0;
        loop {
            tick.tick().await;
            let s = &ctx.stats;
            let done = s.moves_done.load(Ordering::Relaxed);
            let p99 = s.lat.lock().unwrap().all.quantile(0.99) as f64 / 1000.0;
            eprintln!(
                "[{:>5.0}s] sockets {} games {} moves/s {:.0} p99 {:.1} ms lost {} dup {} errors {}",
                t0.elapsed().as_secs_f64(),
                s.sockets.load(Ordering::Relaxed),
                s.games_playing.load(Ordering::Relaxed),
                (done - last_done) as f64 / every as f64,
                p99,
                s.lost.load(Ordering::Relaxed),
                s.duplicated.load(Ordering::Relaxed),
                s.errors.load(Ordering::Relaxed),
            );
            last_done = done;
        }
    });
}

async fn run_games(args: &LoadtestArgs, addr: SocketAddr) -> Result<Value, String> {
    let pid = server_pid(args, addr);
    let burst_len = args.duration as f64 / 2.0;
    let accounts = match args.login_burst {
        Some(rate) => {
            // each account logs in at most 8 times (the default per-account limit is 10 per 10 min)
            let n = ((rate * burst_len / 8.0).ceil() as usize).clamp(1, 2000);
            eprintln!("registering {n} accounts for the login burst...");
            register_accounts(addr, n, args.connect_concurrency).await?
        }
        None => vec![],
    };
    let t0 = Instant::now();
    let start = t0 + Duration::from_secs(args.ramp_up);
    let end = start + Duration::from_secs(args.duration);
    let burst =
        if args.login_burst.is_some() { start + Duration::from_secs_f64(burst_len) } else { end };
    let ctx = Arc::new(Ctx {
        args: args.clone(),
        addr,
        stats: Stats::new(),
        window: Window { start, end, burst },
        setup: Semaphore::new(args.connect_concurrency),
    });
    let monitor = Monitor::start(pid);
    let before = monitor.now();
    progress(&ctx, args.progress, t0);
    let mut tables = vec![];
    for gi in 0..args.games {
        let at = t0 + Duration::from_secs_f64(args.ramp_up as f64 * gi as f64 / args.games as f64);
        let ctx = ctx.clone();
        tables.push(tokio::spawn(async move {
            tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
            table(ctx, gi).await
        }));
    }
    let burst_task = args
        .login_burst
        .map(|rate| tokio::spawn(login_burst(ctx.clone(), accounts, rate, burst, end)));
    // hard stop: everything ends at most 60 s after the window
    let hard = tokio::time::Instant::from_std(end + Duration::from_secs(60));
    // games and sockets held at the start and near the end of the window
    let held = {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            let mut out = vec![];
            for at in [start, end - Duration::from_millis(500).min(end - start)] {
                tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
                let s = &ctx.stats;
                out.push(json!({"games": s.games_playing.load(Ordering::Relaxed), "sockets": s.sockets.load(Ordering::Relaxed)}));
            }
            out
        })
    };
    let mut played = vec![];
    for t in tables {
        tokio::select! {
            r = t => { if let Ok(p) = r { played.extend(p); } }
            _ = tokio::time::sleep_until(hard) => { ctx.stats.stopping.store(true, Ordering::Relaxed); ctx.stats.error("hard_stop", "a table did not stop in time".into()); }
        }
    }
    let held = held.await.unwrap_or_default();
    if let Some(b) = burst_task {
        let _ = b.await;
    }
    let after = monitor.now();
    let verify = verify_records(addr, played, &ctx.stats).await;
    let s = &ctx.stats;
    let l = s.lat.lock().unwrap();
    let in_window = s.moves_in_window.load(Ordering::Relaxed);
    let mut r = json!({
        "mode": "games",
        "target": addr.to_string(),
        "server_pid": pid,
        "games": args.games, "move_rate": args.move_rate, "duration_s": args.duration, "ramp_up_s": args.ramp_up,
        "games_started": s.games_started.load(Ordering::Relaxed),
        "games_finished": s.games_finished.load(Ordering::Relaxed),
        "setups_failed": s.setups_failed.load(Ordering::Relaxed),
        "moves_sent": s.moves_sent.load(Ordering::Relaxed),
        "moves_acked": s.moves_acked.load(Ordering::Relaxed),
        "moves_completed": s.moves_done.load(Ordering::Relaxed),
        "moves_per_s": (in_window as f64 / args.duration as f64 * 10.0).round() / 10.0,
        "skips": s.skips.load(Ordering::Relaxed),
        "latency_ack": l.ack.summary_ms(),
        "latency_all_seats": l.all.summary_ms(),
        "lost": s.lost.load(Ordering::Relaxed),
        "duplicated": s.duplicated.load(Ordering::Relaxed),
        "errors": s.errors.load(Ordering::Relaxed),
        "error_codes": s.error_codes.lock().unwrap().clone(),
        "error_samples": s.error_samples.lock().unwrap().clone(),
        "record_check": verify,
        "server": monitor.window(start, end),
        "server_rss_before_mib": before.map(|b| mib(b.rss_kib)),
        "server_rss_after_mib": after.map(|b| mib(b.rss_kib)),
    });
    r["timeline"] = l.per_second.iter().map(Histogram::summary_ms).collect();
    r["held_at_window_start"] = held.first().cloned().unwrap_or(Value::Null);
    r["held_at_window_end"] = held.get(1).cloned().unwrap_or(Value::Null);
    if let Some(rate) = args.login_burst {
        let b = l.all_before_burst.quantile(0.99) as f64;
        let d = l.all_during_burst.quantile(0.99) as f64;
        r["login_burst"] = json!({
            "rate_per_s": rate, "logins_ok": s.logins.load(Ordering::Relaxed),
            "login_latency": l.login.summary_ms(),
            "game_latency_before": l.all_before_burst.summary_ms(),
            "game_latency_during": l.all_during_burst.summary_ms(),
            "p99_ratio": if b > 0.0 { (d / b * 100.0).round() / 100.0 } else { 0.0 },
            "server_before": monitor.window(start, burst),
            "server_during": monitor.window(burst, end),
        });
    }
    Ok(r)
}

// ---------------------------------------------------------------------------------------------
// Idle mode.

async fn run_idle(args: &LoadtestArgs, addr: SocketAddr, n: usize) -> Result<Value, String> {
    let pid = server_pid(args, addr);
    let stats = Arc::new(Stats::new());
    let t0 = Instant::now();
    eprintln!("logging in {n} guests...");
    let sem = Arc::new(Semaphore::new(args.connect_concurrency));
    let mut tasks = vec![];
    for _ in 0..n {
        let sem = sem.clone();
        tasks.push(tokio::spawn(async move {
            let _p = sem.acquire().await;
            guest_token(addr).await
        }));
    }
    let mut tokens = vec![];
    for t in tasks {
        match t.await.map_err(|e| e.to_string())? {
            Ok(tok) => tokens.push(tok),
            Err(e) => stats.error("guest", e),
        }
    }
    let logins_s = t0.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let monitor = Monitor::start(pid);
    let base = monitor.now();
    eprintln!("connecting {} sockets over {} s...", tokens.len(), args.ramp_up);
    let hello = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let t1 = Instant::now();
    let count = tokens.len().max(1);
    let mut holders = vec![];
    for (i, tok) in tokens.into_iter().enumerate() {
        let (sem, stats, hello, stop) = (sem.clone(), stats.clone(), hello.clone(), stop.clone());
        let at = t1 + Duration::from_secs_f64(args.ramp_up as f64 * i as f64 / count as f64);
        holders.push(tokio::spawn(async move {
            tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
            let ws = {
                let _p = sem.acquire().await;
                match ws_connect(addr, &tok).await {
                    Ok(ws) => ws,
                    Err(e) => {
                        stats.error("connect", e);
                        return;
                    }
                }
            };
            stats.sockets.fetch_add(1, Ordering::Relaxed);
            let (mut sink, mut stream) = ws.split();
            let mut got_hello = false;
            loop {
                tokio::select! {
                    m = stream.next() => match m {
                        Some(Ok(Message::Text(t))) => {
                            if !got_hello && t.as_str().contains("\"hello\"") {
                                got_hello = true;
                                hello.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Some(Ok(Message::Close(f))) => { stats.error("socket_closed", format!("closed by server: {f:?}")); break; }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => { stats.error("socket_closed", format!("socket error: {e}")); break; }
                        None => { stats.error("socket_closed", "socket ended".into()); break; }
                    },
                    _ = wait_flag(&stop) => {
                        let _ = sink.send(Message::Close(None)).await;
                        break;
                    }
                }
            }
            stats.sockets.fetch_sub(1, Ordering::Relaxed);
        }));
    }
    // wait until every socket said hello (or the ramp-up plus 60 s)
    let ready_by = t1 + Duration::from_secs(args.ramp_up + 60);
    while (hello.load(Ordering::Relaxed) as usize) < count
        && Instant::now() < ready_by
        && stats.errors.load(Ordering::Relaxed) < count as u64
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let connected_s = t1.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let held = monitor.now();
    let held_sockets = stats.sockets.load(Ordering::Relaxed);
    eprintln!("holding {held_sockets} sockets for {} s...", args.duration);
    let hold_start = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(args.progress.max(1)));
    tick.tick().await;
    while hold_start.elapsed() < Duration::from_secs(args.duration) {
        tick.tick().await;
        if args.progress > 0 {
            eprintln!(
                "[{:>5.0}s] sockets {} errors {}",
                t0.elapsed().as_secs_f64(),
                stats.sockets.load(Ordering::Relaxed),
                stats.errors.load(Ordering::Relaxed)
            );
        }
    }
    let end = monitor.now();
    let end_sockets = stats.sockets.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    for h in holders {
        let _ = tokio::time::timeout(Duration::from_secs(10), h).await;
    }
    let per_socket_kib = match (base, held) {
        (Some(b), Some(h)) if held_sockets > 0 => Some(
            ((h.rss_kib as f64 - b.rss_kib as f64) / held_sockets as f64 * 10.0).round() / 10.0,
        ),
        _ => None,
    };
    let s = &stats;
    Ok(json!({
        "mode": "idle",
        "target": addr.to_string(),
        "server_pid": pid,
        "sockets_requested": n,
        "hello_received": hello.load(Ordering::Relaxed),
        "sockets_held": held_sockets,
        "sockets_at_end": end_sockets,
        "guest_logins_s": (logins_s * 10.0).round() / 10.0,
        "connect_s": (connected_s * 10.0).round() / 10.0,
        "hold_s": args.duration,
        "server_rss_before_mib": base.map(|b| mib(b.rss_kib)),
        "server_rss_held_mib": held.map(|b| mib(b.rss_kib)),
        "server_rss_end_mib": end.map(|b| mib(b.rss_kib)),
        "server_kib_per_socket": per_socket_kib,
        "server": monitor.window(hold_start, Instant::now()),
        "lost": 0, "duplicated": 0,
        "errors": s.errors.load(Ordering::Relaxed),
        "error_codes": s.error_codes.lock().unwrap().clone(),
        "error_samples": s.error_samples.lock().unwrap().clone(),
    }))
}

async fn wait_flag(f: &AtomicBool) {
    while !f.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

// ---------------------------------------------------------------------------------------------

fn print_report(r: &Value) {
    let g = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
    let lat = |k: &str| {
        let v = &r[k];
        format!(
            "p50 {} ms  p99 {} ms  max {} ms  (n={})",
            v["p50_ms"], v["p99_ms"], v["max_ms"], v["count"]
        )
    };
    println!(
        "siguo loadtest — {} mode against {} (server pid {})",
        g("mode").as_str().unwrap_or("?"),
        g("target").as_str().unwrap_or("?"),
        g("server_pid")
    );
    if r["mode"] == "games" {
        println!("games: {} requested, {} started, {} finished, {} set-ups failed; held at window start {}, at its end {}",
            g("games"), g("games_started"), g("games_finished"), g("setups_failed"), g("held_at_window_start"), g("held_at_window_end"));
        println!(
            "moves: {} sent, {} acked, {} completed, {}/s in the window ({} skips)",
            g("moves_sent"),
            g("moves_acked"),
            g("moves_completed"),
            g("moves_per_s"),
            g("skips")
        );
        println!("latency send→ack:        {}", lat("latency_ack"));
        println!("latency send→all 4 seats: {}", lat("latency_all_seats"));
        if let Some(b) = r.get("login_burst") {
            println!("login burst {}/s: {} logins ok, login {} / game p99 before {} ms, during {} ms (×{})",
                b["rate_per_s"], b["logins_ok"], b["login_latency"]["p99_ms"], b["game_latency_before"]["p99_ms"],
                b["game_latency_during"]["p99_ms"], b["p99_ratio"]);
        }
        println!("record check: {}", g("record_check"));
        println!(
            "server: {}  (RSS before {} MiB, after {} MiB)",
            g("server"),
            g("server_rss_before_mib"),
            g("server_rss_after_mib")
        );
    } else {
        println!(
            "sockets: {} requested, {} hello, {} held, {} still open at the end (held {} s)",
            g("sockets_requested"),
            g("hello_received"),
            g("sockets_held"),
            g("sockets_at_end"),
            g("hold_s")
        );
        println!(
            "server RSS: {} MiB before, {} MiB held, {} MiB at the end → {} KiB per socket",
            g("server_rss_before_mib"),
            g("server_rss_held_mib"),
            g("server_rss_end_mib"),
            g("server_kib_per_socket")
        );
        println!("server: {}", g("server"));
    }
    println!(
        "lost: {}  duplicated: {}  errors: {} {}",
        g("lost"),
        g("duplicated"),
        g("errors"),
        g("error_codes")
    );
    if let Some(a) = r["error_samples"].as_array() {
        for e in a.iter().take(10) {
            println!("  {}", e.as_str().unwrap_or(""));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_close() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for (q, want) in [(0.5, 50_000.0), (0.99, 99_000.0), (1.0, 100_000.0)] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.035, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(0.0001), 10);
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1 << 20, (1 << 20) + 12345, u32::MAX as u64] {
            let i = Histogram::index(v);
            assert!(Histogram::upper(i) >= v, "{v}");
            assert!(i == 0 || Histogram::upper(i - 1) < v, "{v}");
        }
    }

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
        };
        assert!(check_args(&a).is_ok());
        a.target = "[::1]:80".into();
        assert!(check_args(&a).is_ok());
        a.target = "8.8.8.8:80".into();
        assert!(check_args(&a).unwrap_err().contains("loopback"));
        a.target = "127.0.0.1:8080".into();
        a.games = MAX_GAMES + 1;
        assert!(check_args(&a).is_err());
    }

    #[test]
    fn http_parsing() {
        let (s, v) =
            parse_http(b"HTTP/1.1 201 Created\r\ncontent-length: 9\r\n\r\n{\"a\":1}\r\n").unwrap();
        assert_eq!((s, v["a"].as_i64()), (201, Some(1)));
        let (s, v) = parse_http(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"b\"\r\n3\r\n:2}\r\n0\r\n\r\n").unwrap();
        assert_eq!((s, v["b"].as_i64()), (200, Some(2)));
    }
}
