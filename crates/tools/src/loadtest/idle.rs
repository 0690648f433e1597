//! Idle mode (`--idle N`): N authenticated sockets that only answer pings; reports the server's
//! memory per socket.
use super::messages::ServerMsg;
use super::monitor::{Monitor, Sample};
use super::report::{IdleReport, Report, Target};
use super::stats::{get, Stats};
use super::ws;
use super::LoadtestArgs;
use crate::api::Api;
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio::time::Instant as TokioInstant;
use tokio_tungstenite::tungstenite::Message;

/// How long sockets may take to say hello after the ramp-up.
const HELLO_GRACE: Duration = Duration::from_secs(60);
/// Settling time before the server's memory is read with every socket held.
const SETTLE: Duration = Duration::from_secs(2);

/// What the socket holders share.
struct Shared {
    stats: Stats,
    addr: SocketAddr,
    /// `/api/ws?protocol=N`
    path: String,
    connects: Semaphore,
    hello: AtomicU64,
    stop: AtomicBool,
}

pub async fn run(
    args: &LoadtestArgs,
    api: Api,
    addr: SocketAddr,
    pid: Option<u32>,
    n: usize,
) -> Result<Report, String> {
    let shared = Arc::new(Shared {
        stats: Stats::default(),
        addr,
        path: args.ws_path("/api/ws"),
        connects: Semaphore::new(args.connect_concurrency),
        hello: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    });
    let t0 = Instant::now();
    let tokens = guest_tokens(&api, &shared, n).await?;
    let logins_s = t0.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let monitor = Monitor::start(pid);
    let base = monitor.now();
    eprintln!("connecting {} sockets over {} s...", tokens.len(), args.ramp_up);
    let t1 = Instant::now();
    let count = tokens.len().max(1);
    let holders = start_holders(&shared, tokens, args.ramp_up, t1);
    wait_for_hello(&shared, count, t1 + Duration::from_secs(args.ramp_up) + HELLO_GRACE).await;
    let connect_s = t1.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let held = monitor.now();
    let held_sockets = shared.stats.open_sockets();
    eprintln!("holding {held_sockets} sockets for {} s...", args.duration);
    let hold_start = Instant::now();
    hold(&shared.stats, args, t0).await;
    let end = monitor.now();
    let end_sockets = shared.stats.open_sockets();
    shared.stop.store(true, Ordering::Relaxed);
    for h in holders {
        let _ = tokio::time::timeout(Duration::from_secs(10), h).await;
    }
    Ok(Report::Idle(Box::new(IdleReport {
        target: Target { target: addr.to_string(), server_pid: pid },
        sockets_requested: n,
        hello_received: get(&shared.hello),
        sockets_held: held_sockets,
        sockets_at_end: end_sockets,
        guest_logins_s: tenths(logins_s),
        connect_s: tenths(connect_s),
        hold_s: args.duration,
        server_rss_before_mib: base.map(|b| b.rss_mib()),
        server_rss_held_mib: held.map(|b| b.rss_mib()),
        server_rss_end_mib: end.map(|b| b.rss_mib()),
        server_kib_per_socket: kib_per_socket(base, held, held_sockets),
        server: monitor.window(hold_start, Instant::now()),
        failures: shared.stats.failures(),
    })))
}

fn tenths(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn kib_per_socket(base: Option<Sample>, held: Option<Sample>, sockets: i64) -> Option<f64> {
    let (base, held) = (base?, held?);
    (sockets > 0).then(|| tenths((held.rss_kib as f64 - base.rss_kib as f64) / sockets as f64))
}

/// `n` guest logins, `--connect-concurrency` at a time; failures are counted.
async fn guest_tokens(api: &Api, shared: &Arc<Shared>, n: usize) -> Result<Vec<String>, String> {
    eprintln!("logging in {n} guests...");
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (shared, api) = (shared.clone(), api.clone());
            tokio::spawn(async move {
                let _permit = shared.connects.acquire().await;
                api.guest_token().await
            })
        })
        .collect();
    let mut tokens = vec![];
    for t in tasks {
        match t.await.map_err(|e| e.to_string())? {
            Ok(token) => tokens.push(token),
            Err(e) => shared.stats.error("guest", e),
        }
    }
    Ok(tokens)
}

/// One task per socket, started evenly over the ramp-up.
fn start_holders(
    shared: &Arc<Shared>,
    tokens: Vec<String>,
    ramp_up: u64,
    t1: Instant,
) -> Vec<JoinHandle<()>> {
    let count = tokens.len().max(1);
    tokens
        .into_iter()
        .enumerate()
        .map(|(i, token)| {
            let shared = shared.clone();
            let at = t1 + Duration::from_secs_f64(ramp_up as f64 * i as f64 / count as f64);
            tokio::spawn(async move {
                tokio::time::sleep_until(TokioInstant::from_std(at)).await;
                hold_socket(&shared, &token).await
            })
        })
        .collect()
}

/// Connect and hold one socket until told to stop; count its hello.
async fn hold_socket(shared: &Shared, token: &str) {
    let connected = {
        let _permit = shared.connects.acquire().await;
        ws::connect(shared.addr, &shared.path, token).await
    };
    let ws = match connected {
        Ok(ws) => ws,
        Err(e) => return shared.stats.error("connect", e),
    };
    shared.stats.socket_opened();
    let (mut sink, mut stream) = ws.split();
    let mut got_hello = false;
    loop {
        tokio::select! {
            m = stream.next() => {
                if let Some(Ok(ServerMsg::Hello {})) = m.as_ref().and_then(|r| r.as_ref().ok()).and_then(ws::parse) {
                    if !got_hello {
                        got_hello = true;
                        shared.hello.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if let Some(why) = ws::end_reason(m) {
                    shared.stats.error("socket_closed", why);
                    break;
                }
            }
            _ = wait_flag(&shared.stop) => {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
        }
    }
    shared.stats.socket_closed();
}

/// Until every socket said hello, the deadline passed, or every one of them failed.
async fn wait_for_hello(shared: &Shared, count: usize, deadline: Instant) {
    while get(&shared.hello) < count as u64
        && Instant::now() < deadline
        && get(&shared.stats.errors) < count as u64
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Hold for `--duration` seconds, printing progress.
async fn hold(stats: &Stats, args: &LoadtestArgs, t0: Instant) {
    let start = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(args.progress.max(1)));
    tick.tick().await;
    while start.elapsed() < Duration::from_secs(args.duration) {
        tick.tick().await;
        if args.progress > 0 {
            eprintln!(
                "[{:>5.0}s] sockets {} errors {}",
                t0.elapsed().as_secs_f64(),
                stats.open_sockets(),
                get(&stats.errors)
            );
        }
    }
}

async fn wait_flag(flag: &AtomicBool) {
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
