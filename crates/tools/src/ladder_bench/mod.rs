//! `siguo-tools ladder-bench`: fill a PostgreSQL database with many players on one ladder and
//! time a real server's leaderboard endpoints over HTTP, reporting p50/p95/p99/max. Results go
//! to docs/performance.md.
//!
//! The server is either started here (`--server path/to/siguo`: `siguo serve` on the bench
//! database and a free loopback port; it migrates the database as it starts) or already running
//! on that database (`--url`). The database named by `--database-url` is dedicated to the
//! benchmark: the ladder's rows are replaced by synthetic players (`bench_<n>` accounts) unless
//! it already holds `--players` of them. One account, `ladderbench`, is registered through the
//! API (or logged in on later runs) and given a row on the ladder, for `/me`.
//!
//! Timed, each `--samples` times: `GET /api/leaderboard/{ladder}?page=N` for a random page and
//! for the first page, and `GET /api/leaderboard/{ladder}/me` (the caller's rank and the page
//! holding it) after the bench account took the standing of a random synthetic player (by SQL,
//! not timed). The first samples' pages and ranks are checked against the textbook queries
//! (untimed). `--naive` also times the textbook queries in the database directly.
//!
//! `--ladder hf_ranked` (Hidden Front, rated by Glicko-2) fills players who are all on its
//! leaderboard (≥ 10 games, RD ≤ 110) with ratings spread around 1500, ordered by rating.
mod server;
mod sql;

use crate::api::{parse_answer, Api};
use rand::Rng;
use serde::Deserialize;
use server::ServerProcess;
use sql::BenchDb;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The account whose `/me` is timed.
const BENCH_USER: &str = "ladderbench";
const BENCH_PASSWORD: &str = "ladder-bench: not a secret";
/// The server's largest `per_page`.
const MAX_PER_PAGE: i64 = 100;

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["server", "url"]))]
pub struct LadderBenchArgs {
    /// PostgreSQL database of the server (created if missing when PostgreSQL allows it) that is
    /// filled with the synthetic players
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/siguo_bench")]
    pub database_url: String,
    /// The server binary to measure (e.g. target/release/siguo), started here on the database
    #[arg(long)]
    pub server: Option<PathBuf>,
    /// Base URL of a running server that uses --database-url (e.g. http://127.0.0.1:8080)
    #[arg(long)]
    pub url: Option<String>,
    /// The ladder to fill and measure: `{ladder}` of /api/leaderboard/{ladder}
    #[arg(long, default_value = "ranked")]
    pub ladder: String,
    /// synthetic players on the ladder (the bench account makes one more)
    #[arg(long, default_value_t = 1_000_000)]
    pub players: i64,
    /// timed requests of each kind
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    /// rows per page (1–100)
    #[arg(long, default_value_t = 50)]
    pub per_page: i64,
    /// also time the naive queries (OFFSET paging, COUNT(*) of rows ahead) in the database
    #[arg(long)]
    pub naive: bool,
}

pub fn run(args: LadderBenchArgs) -> i32 {
    let result = check_args(&args).and_then(|()| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        rt.block_on(bench(&args))
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("siguo-tools ladder-bench: {e}");
            1
        }
    }
}

fn check_args(a: &LadderBenchArgs) -> Result<(), String> {
    if !a.database_url.starts_with("postgres") {
        return Err("ladder-bench measures PostgreSQL: give a postgres:// URL".into());
    }
    if a.ladder.is_empty() || !a.ladder.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        return Err("--ladder is a ladder name: lowercase letters and _".into());
    }
    if a.players < 1 || a.samples < 1 {
        return Err("--players and --samples must be at least 1".into());
    }
    if !(1..=MAX_PER_PAGE).contains(&a.per_page) {
        return Err(format!("--per-page must be between 1 and {MAX_PER_PAGE}"));
    }
    Ok(())
}

/// The parts of a `LeaderboardPage` answer the bench checks.
#[derive(Deserialize)]
struct Page {
    page: i64,
    total: i64,
    rows: Vec<Row>,
    /// only on `/me` (`null` before the caller's first game)
    #[serde(default)]
    me: Option<Row>,
}

#[derive(Deserialize)]
struct Row {
    rank: i64,
    account_id: i64,
}

/// The server under measurement and the bench account's session on it.
struct Target {
    api: Api,
    ladder: String,
    per_page: i64,
    token: String,
}

impl Target {
    fn page_path(&self, page: i64) -> String {
        format!("/api/leaderboard/{}?page={page}&per_page={}", self.ladder, self.per_page)
    }

    /// A page, timed (request sent to body received), then parsed and checked; returns the
    /// time and the page's account ids.
    async fn page(&self, page: i64, total: i64) -> Result<(Duration, Vec<i64>), String> {
        let path = self.page_path(page);
        let t = Instant::now();
        let (status, body) = self.api.get_raw(&path, None).await?;
        let took = t.elapsed();
        let p: Page = parse_answer(&format!("GET {path}"), status, &body)?;
        let first = (page - 1) * self.per_page + 1;
        if p.total != total || p.rows.first().map(|r| r.rank) != Some(first) {
            return Err(format!(
                "GET {path}: total {} and first rank {:?}, expected {total} and {first}",
                p.total,
                p.rows.first().map(|r| r.rank)
            ));
        }
        Ok((took, p.rows.iter().map(|r| r.account_id).collect()))
    }

    /// `/me` of the bench account `me`, timed, then checked: its own row on the page holding it.
    /// An expired session is renewed (untimed) and the request sent again. Returns the time and
    /// the rank.
    async fn me(&mut self, me: i64) -> Result<(Duration, i64), String> {
        let path = format!("/api/leaderboard/{}/me?per_page={}", self.ladder, self.per_page);
        let (took, status, body) = loop {
            let t = Instant::now();
            let (status, body) = self.api.get_raw(&path, Some(&self.token)).await?;
            let took = t.elapsed();
            if status != 401 {
                break (took, status, body);
            }
            self.token = self.api.login(BENCH_USER, BENCH_PASSWORD).await?;
        };
        let p: Page = parse_answer(&format!("GET {path}"), status, &body)?;
        let row = p.me.ok_or_else(|| format!("GET {path}: the bench account has no row"))?;
        let on_page = p.rows.iter().any(|r| r.account_id == me && r.rank == row.rank);
        if row.account_id != me || p.page != (row.rank - 1) / self.per_page + 1 || !on_page {
            return Err(format!("GET {path}: rank {} is not on its page {}", row.rank, p.page));
        }
        Ok((took, row.rank))
    }
}

async fn bench(a: &LadderBenchArgs) -> Result<(), String> {
    sql::create_database_if_missing(&a.database_url).await?;
    let ladder = a.ladder.as_str();
    let mut db = BenchDb::connect(&a.database_url, ladder).await?;
    db.settle_skeletons().await?;
    // Started before the fill: it migrates the database. Stopped when dropped, at the end.
    let (_server, base) = match (&a.server, &a.url) {
        (Some(bin), _) => {
            let s = ServerProcess::start(bin, &a.database_url)?;
            let base = s.base.clone();
            println!("server: {} serve, at {base}", bin.display());
            (Some(s), base)
        }
        (None, Some(url)) => (None, url.clone()),
        (None, None) => unreachable!("clap requires --server or --url"),
    };
    let api = Api::at(&base)?;
    api.get_json::<serde_json::Value>("/readyz", None).await?;
    // An unknown ladder stops here, before the database is touched.
    api.get_json::<serde_json::Value>(&format!("/api/leaderboard/{ladder}?per_page=1"), None)
        .await?;

    let have = db.bench_players().await?;
    if have != a.players {
        println!("filling {} players on {ladder} (had {have}) ...", a.players);
        let t = Instant::now();
        db.fill(a.players).await?;
        println!("filled in {:.1} s", t.elapsed().as_secs_f64());
    } else {
        println!("reusing {have} players on {ladder}");
    }
    let token = match api.register(BENCH_USER, BENCH_PASSWORD).await {
        Ok(token) => token,
        Err(registering) => api
            .login(BENCH_USER, BENCH_PASSWORD)
            .await
            .map_err(|e| format!("{registering}; {e}"))?,
    };
    // The server must read the database filled here.
    let wrong_database =
        |e| format!("{e} (does the server at {base} use --database-url {}?)", a.database_url);
    let me = db.account_id(BENCH_USER).await.map_err(wrong_database)?;
    db.ensure_row(me).await?;

    let mut target = Target { api, ladder: ladder.to_string(), per_page: a.per_page, token };
    let total = a.players + 1;
    target.page(1, total).await.map_err(wrong_database)?;
    println!(
        "players: {total} ({} synthetic + {BENCH_USER}), samples: {}, per_page: {}",
        a.players, a.samples, a.per_page
    );
    let pages = (total + a.per_page - 1) / a.per_page;
    let mut rng = rand::rng();
    for _ in 0..50 {
        target.page(1, total).await?; // warm-up
    }
    let (mut page_t, mut first_t, mut me_t) = (vec![], vec![], vec![]);
    for i in 0..a.samples {
        let page = rng.random_range(1..=pages);
        let (took, ids) = target.page(page, total).await?;
        page_t.push(took);
        let exact = i < EXACT_CHECKS;
        if exact {
            let want = db.naive_page((page - 1) * a.per_page, a.per_page).await?;
            if want != ids {
                return Err(format!("page {page}: the server's {ids:?}, OFFSET gives {want:?}"));
            }
        }
        first_t.push(target.page(1, total).await?.0);
        db.copy_standing(me, rng.random_range(1..=a.players)).await?;
        let (took, rank) = target.me(me).await?;
        me_t.push(took);
        if exact && db.naive_rank(me).await? != rank {
            return Err(format!("/me: the server's rank {rank} is not COUNT(*)'s"));
        }
    }
    println!(
        "exact: the first {} pages and ranks are the textbook queries' (untimed)",
        EXACT_CHECKS.min(a.samples)
    );
    report("GET page (random page)", &mut page_t);
    report("GET page (first page)", &mut first_t);
    report("GET /me (rank + its page)", &mut me_t);
    if a.naive {
        let n = a.samples.min(200);
        let (mut off_t, mut cnt_t) = (vec![], vec![]);
        for _ in 0..n {
            let offset = rng.random_range(0..pages) * a.per_page;
            let t = Instant::now();
            db.naive_page(offset, a.per_page).await?;
            off_t.push(t.elapsed());
            let id = db.bench_id(rng.random_range(1..=a.players)).await?;
            let t = Instant::now();
            db.naive_rank(id).await?;
            cnt_t.push(t.elapsed());
        }
        report("naive SQL: OFFSET page", &mut off_t);
        report("naive SQL: COUNT(*) rank", &mut cnt_t);
    }
    Ok(())
}

/// Samples whose page and rank are checked against the textbook queries (OFFSET paging,
/// COUNT(*) of the rows ahead), untimed: the server's fast paths must give the same answers.
const EXACT_CHECKS: usize = 20;

fn report(what: &str, t: &mut [Duration]) {
    t.sort();
    let q = |p: f64| {
        t[((t.len() as f64 * p).ceil() as usize).clamp(1, t.len()) - 1].as_secs_f64() * 1000.0
    };
    println!(
        "{what:<30} n={:<5} p50={:>7.3} ms  p95={:>7.3} ms  p99={:>7.3} ms  max={:>7.3} ms",
        t.len(),
        q(0.50),
        q(0.95),
        q(0.99),
        t.last().map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    );
}
