//! Games mode: `--games` tables play over a ramp-up and a measurement window, optionally with a
//! burst of password logins in the window's second half; then every game's move list is compared
//! with the server's record.
use super::histogram::Histogram;
use super::monitor::ServerUsage;
use super::monitor::{self, Monitor, Sample};
use super::play::run_table;
use super::report::{GamesReport, Held, LoginBurst, NodeReport, RecordCheck, Report, Target};
use super::stats::{bump, get, Stats, Window};
use super::table::PlayedGame;
use super::{parse_nodes, LoadtestArgs, NodeTarget};
use crate::api::Api;
use rand::Rng;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio::time::Instant as TokioInstant;

/// What every table of a run shares.
pub struct Ctx {
    pub args: LoadtestArgs,
    pub api: Api,
    pub addr: SocketAddr,
    pub stats: Stats,
    pub window: Window,
    /// connection set-ups in flight at once
    pub setup: Semaphore,
    /// cluster mode (`--nodes`): the nodes, and the moves completed in the window on each
    pub nodes: Vec<NodeTarget>,
    pub node_moves: Vec<AtomicU64>,
}

impl Ctx {
    /// Where table `gi`'s sockets connect: `/api/ws`, or in cluster mode `/ws/n/{node}` of
    /// node `gi` mod N (the room a table creates is then owned by that node).
    pub fn ws_path(&self, gi: usize) -> String {
        let path = match self.node_of(gi) {
            Some(n) => format!("/ws/n/{}", self.nodes[n].name),
            None => "/api/ws".to_string(),
        };
        self.args.ws_path(&path)
    }

    /// The index of table `gi`'s node in cluster mode.
    pub fn node_of(&self, gi: usize) -> Option<usize> {
        (!self.nodes.is_empty()).then(|| gi % self.nodes.len())
    }
}

/// Everything ends at most this long after the window.
const HARD_STOP_AFTER: Duration = Duration::from_secs(60);
/// Each burst account logs in at most this often (the default per-account limit is 10 per 10 min).
const LOGINS_PER_ACCOUNT: f64 = 8.0;
/// Record checks in flight at once.
const VERIFY_CONCURRENCY: usize = 16;

pub async fn run(
    args: &LoadtestArgs,
    api: Api,
    addr: SocketAddr,
    pid: Option<u32>,
) -> Result<Report, String> {
    let burst_len = args.duration as f64 / 2.0;
    let accounts = match args.login_burst {
        Some(rate) => register_accounts(&api, account_count(rate, burst_len), args).await?,
        None => vec![],
    };
    let t0 = Instant::now();
    let start = t0 + Duration::from_secs(args.ramp_up);
    let end = start + Duration::from_secs(args.duration);
    let burst = match args.login_burst {
        Some(_) => start + Duration::from_secs_f64(burst_len),
        None => end,
    };
    let nodes = parse_nodes(&args.nodes)?;
    let ctx = Arc::new(Ctx {
        args: args.clone(),
        api,
        addr,
        stats: Stats::default(),
        window: Window { start, end, burst },
        setup: Semaphore::new(args.connect_concurrency),
        node_moves: nodes.iter().map(|_| AtomicU64::new(0)).collect(),
        nodes,
    });
    let monitor = Monitor::start(pid);
    let node_monitors: Vec<(Option<u32>, Monitor)> = ctx
        .nodes
        .iter()
        .map(|n| {
            let pid = monitor::pid_listening_on(n.addr.port());
            (pid, Monitor::start(pid))
        })
        .collect();
    let before = monitor.now();
    progress(&ctx, t0);
    let tables = start_tables(&ctx, t0);
    let burst_task =
        args.login_burst.map(|rate| tokio::spawn(login_burst(ctx.clone(), accounts, rate)));
    let held = tokio::spawn(held_at_start_and_end(ctx.clone()));
    let played = wait_tables(&ctx, tables).await;
    let held = held.await.unwrap_or_default();
    if let Some(b) = burst_task {
        let _ = b.await;
    }
    let after = monitor.now();
    let record_check = verify_records(&ctx, played).await;
    let run =
        Run { ctx: &ctx, monitor: &monitor, node_monitors: &node_monitors, pid, before, after };
    Ok(Report::Games(Box::new(run.report(held, record_check))))
}

/// A process's CPU time per completed move over the window, milliseconds (CPU % × window ÷ moves).
fn cpu_ms_per_move(server: &Option<ServerUsage>, duration_s: u64, moves: u64) -> Option<f64> {
    let s = server.as_ref()?;
    if moves == 0 {
        return None;
    }
    let ms = s.server_cpu_percent / 100.0 * duration_s as f64 * 1000.0 / moves as f64;
    Some((ms * 1000.0).round() / 1000.0)
}

fn account_count(rate: f64, burst_len: f64) -> usize {
    ((rate * burst_len / LOGINS_PER_ACCOUNT).ceil() as usize).clamp(1, 2000)
}

/// The tables, started evenly over the ramp-up.
fn start_tables(ctx: &Arc<Ctx>, t0: Instant) -> Vec<JoinHandle<Vec<PlayedGame>>> {
    let (games, ramp_up) = (ctx.args.games, ctx.args.ramp_up as f64);
    (0..games)
        .map(|gi| {
            let at = t0 + Duration::from_secs_f64(ramp_up * gi as f64 / games as f64);
            let ctx = ctx.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(TokioInstant::from_std(at)).await;
                run_table(ctx, gi).await
            })
        })
        .collect()
}

/// The games the tables played; a table still running at the hard stop is told to stop.
async fn wait_tables(ctx: &Ctx, tables: Vec<JoinHandle<Vec<PlayedGame>>>) -> Vec<PlayedGame> {
    let hard = TokioInstant::from_std(ctx.window.end + HARD_STOP_AFTER);
    let mut played = vec![];
    for t in tables {
        tokio::select! {
            r = t => played.extend(r.unwrap_or_default()),
            _ = tokio::time::sleep_until(hard) => {
                ctx.stats.stopping.store(true, Ordering::Relaxed);
                ctx.stats.error("hard_stop", "a table did not stop in time".into());
            }
        }
    }
    played
}

/// Games and sockets held at the start of the window and half a second before its end.
async fn held_at_start_and_end(ctx: Arc<Ctx>) -> Vec<Held> {
    let Window { start, end, .. } = ctx.window;
    let mut out = vec![];
    for at in [start, end - Duration::from_millis(500).min(end - start)] {
        tokio::time::sleep_until(TokioInstant::from_std(at)).await;
        out.push(Held { games: ctx.stats.games_in_play(), sockets: ctx.stats.open_sockets() });
    }
    out
}

/// The accounts of the login burst: (username, password).
async fn register_accounts(
    api: &Api,
    n: usize,
    args: &LoadtestArgs,
) -> Result<Vec<(String, String)>, String> {
    eprintln!("registering {n} accounts for the login burst...");
    let tag: u32 = rand::rng().random();
    let sem = Arc::new(Semaphore::new(args.connect_concurrency.min(8)));
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let (sem, api) = (sem.clone(), api.clone());
            tokio::spawn(async move {
                let _permit = sem.acquire().await;
                let name = format!("lt{tag:08x}x{i}");
                let password = format!("Load-{tag:08x}-pw-{i}-Siguo");
                api.register(&name, &password).await.map(|_token| (name, password))
            })
        })
        .collect();
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.map_err(|e| e.to_string())??);
    }
    Ok(out)
}

/// Logins at `rate` per second from the burst instant to the end of the window, round-robin
/// over the accounts.
async fn login_burst(ctx: Arc<Ctx>, accounts: Vec<(String, String)>, rate: f64) {
    tokio::time::sleep_until(TokioInstant::from_std(ctx.window.burst)).await;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let stop = TokioInstant::from_std(ctx.window.end);
    let mut tasks = vec![];
    for (name, password) in accounts.into_iter().cycle() {
        // (a rate below 1/window would otherwise wait for its next tick long after the window)
        tokio::select! {
            _ = tick.tick() => {}
            _ = tokio::time::sleep_until(stop) => break,
        }
        if Instant::now() >= ctx.window.end || ctx.stats.stopping() {
            break;
        }
        tasks.push(tokio::spawn(timed_login(ctx.clone(), name, password)));
    }
    for t in tasks {
        let _ = t.await;
    }
}

async fn timed_login(ctx: Arc<Ctx>, name: String, password: String) {
    let t0 = Instant::now();
    match ctx.api.login(&name, &password).await {
        Ok(_token) => {
            bump(&ctx.stats.logins);
            ctx.stats
                .lat
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .login
                .record(t0.elapsed().as_micros() as u64);
        }
        Err(e) => ctx.stats.error("login", e),
    }
}

/// Compare the moves each table saw with the server's record of that game.
async fn verify_records(ctx: &Arc<Ctx>, played: Vec<PlayedGame>) -> RecordCheck {
    let sem = Arc::new(Semaphore::new(VERIFY_CONCURRENCY));
    let tasks: Vec<_> = played
        .into_iter()
        .map(|game| {
            let (sem, api) = (sem.clone(), ctx.api.clone());
            tokio::spawn(async move {
                let _permit = sem.acquire().await;
                let server = api.game_moves(game.id, &game.token).await;
                (game, server)
            })
        })
        .collect();
    let mut check = RecordCheck::default();
    let stats = &ctx.stats;
    for t in tasks {
        let Ok((game, server)) = t.await else { continue };
        let server = match server {
            Ok(moves) => moves,
            Err(e) => {
                check.unavailable += 1;
                stats.error("verify", e);
                continue;
            }
        };
        check.games_checked += 1;
        if server == game.moves {
            check.games_matching += 1;
            continue;
        }
        let (s, m) = (server.len() as u64, game.moves.len() as u64);
        stats.duplicated.fetch_add(s.saturating_sub(m), Ordering::Relaxed);
        stats.lost.fetch_add(m.saturating_sub(s), Ordering::Relaxed);
        let detail = format!("game {}: server recorded {s} moves, the clients saw {m}", game.id);
        stats.error("record_mismatch", detail);
    }
    check
}

/// A progress line to stderr every `--progress` seconds.
fn progress(ctx: &Arc<Ctx>, t0: Instant) {
    let every = ctx.args.progress;
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
            let done = get(&s.moves_done);
            let p99 =
                s.lat.lock().unwrap_or_else(|e| e.into_inner()).all.quantile(0.99) as f64 / 1000.0;
            eprintln!(
                "[{:>5.0}s] sockets {} games {} moves/s {:.0} p99 {:.1} ms lost {} dup {} errors {}",
                t0.elapsed().as_secs_f64(),
                s.open_sockets(),
                s.games_in_play(),
                (done - last_done) as f64 / every as f64,
                p99,
                get(&s.lost),
                get(&s.duplicated),
                get(&s.errors),
            );
            last_done = done;
        }
    });
}

/// What the report is made of.
struct Run<'a> {
    ctx: &'a Ctx,
    monitor: &'a Monitor,
    node_monitors: &'a [(Option<u32>, Monitor)],
    pid: Option<u32>,
    before: Option<Sample>,
    after: Option<Sample>,
}

impl Run<'_> {
    fn report(&self, held: Vec<Held>, record_check: RecordCheck) -> GamesReport {
        let (args, s, w) = (&self.ctx.args, &self.ctx.stats, self.ctx.window);
        let login_burst = args.login_burst.map(|rate| self.login_burst(rate));
        let l = s.lat.lock().unwrap_or_else(|e| e.into_inner());
        let per_s = get(&s.moves_in_window) as f64 / args.duration as f64;
        let server = self.monitor.window(w.start, w.end);
        let nodes = self.nodes();
        GamesReport {
            target: Target { target: self.ctx.addr.to_string(), server_pid: self.pid },
            games: args.games,
            move_rate: args.move_rate,
            duration_s: args.duration,
            ramp_up_s: args.ramp_up,
            games_started: get(&s.games_started),
            games_finished: get(&s.games_finished),
            setups_failed: get(&s.setups_failed),
            moves_sent: get(&s.moves_sent),
            moves_acked: get(&s.moves_acked),
            moves_completed: get(&s.moves_done),
            moves_per_s: (per_s * 10.0).round() / 10.0,
            skips: get(&s.skips),
            latency_ack: l.ack.summary(),
            latency_all_seats: l.all.summary(),
            timeline: l.per_second.iter().map(Histogram::summary).collect(),
            held_at_window_start: held.first().copied(),
            held_at_window_end: held.get(1).copied(),
            failures: s.failures(),
            record_check,
            server_cpu_ms_per_move: cpu_ms_per_move(
                &server,
                args.duration,
                get(&s.moves_in_window),
            ),
            server,
            nodes,
            server_rss_before_mib: self.before.map(|b| b.rss_mib()),
            server_rss_after_mib: self.after.map(|b| b.rss_mib()),
            login_burst,
        }
    }

    /// Cluster mode: each node's tables, moves, CPU and memory over the window.
    fn nodes(&self) -> Vec<NodeReport> {
        let (args, w) = (&self.ctx.args, self.ctx.window);
        let k = self.ctx.nodes.len();
        self.ctx
            .nodes
            .iter()
            .zip(self.node_monitors)
            .enumerate()
            .map(|(i, (n, (pid, m)))| {
                let moves = get(&self.ctx.node_moves[i]);
                let server = m.window(w.start, w.end);
                NodeReport {
                    node: n.name.clone(),
                    addr: n.addr.to_string(),
                    pid: *pid,
                    tables: (0..args.games).filter(|gi| gi % k == i).count(),
                    moves_in_window: moves,
                    cpu_ms_per_move: cpu_ms_per_move(&server, args.duration, moves),
                    server,
                }
            })
            .collect()
    }

    fn login_burst(&self, rate: f64) -> LoginBurst {
        let (s, w) = (&self.ctx.stats, self.ctx.window);
        let l = s.lat.lock().unwrap_or_else(|e| e.into_inner());
        let before = l.all_before_burst.quantile(0.99) as f64;
        let during = l.all_during_burst.quantile(0.99) as f64;
        LoginBurst {
            rate_per_s: rate,
            logins_ok: get(&s.logins),
            login_latency: l.login.summary(),
            game_latency_before: l.all_before_burst.summary(),
            game_latency_during: l.all_during_burst.summary(),
            p99_ratio: if before > 0.0 { (during / before * 100.0).round() / 100.0 } else { 0.0 },
            server_before: self.monitor.window(w.start, w.burst),
            server_during: self.monitor.window(w.burst, w.end),
        }
    }
}
