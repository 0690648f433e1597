//! `siguo-tools ladder-bench`: fill a PostgreSQL database with many ranked players and measure the
//! leaderboard queries the server runs (`leaderboard::rows_at` for a page, `leaderboard::row_of`
//! for a player's own rank), reporting p50/p95/p99/max. Results go to docs/performance.md.
//!
//! The database named by `--database-url` is dedicated to the benchmark: its `ranked` ladder
//! is replaced by synthetic players (`bench_<n>` accounts) unless it already holds `--players`.
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use rand::Rng;
use siguo::db::{Db, DbConn};
use siguo::ladder::{leaderboard, LadderKind};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct LadderBenchArgs {
    /// PostgreSQL database to fill (created if missing when the server allows it)
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/siguo_bench")]
    pub database_url: String,
    /// players on the ranked ladder
    #[arg(long, default_value_t = 1_000_000)]
    pub players: i64,
    /// timed queries of each kind
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    /// rows per page
    #[arg(long, default_value_t = 50)]
    pub per_page: i64,
    /// also time the naive queries (OFFSET paging, COUNT(*) of rows ahead) for comparison
    #[arg(long)]
    pub naive: bool,
}

pub fn run(args: LadderBenchArgs) -> i32 {
    match bench(&args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("siguo-tools ladder-bench: {e}");
            1
        }
    }
}

fn create_database_if_missing(url: &str) -> Result<(), String> {
    let mut u = url::Url::parse(url).map_err(|e| format!("bad --database-url: {e}"))?;
    let name = u.path().trim_start_matches('/').to_string();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("the database name must be letters, digits and _".into());
    }
    u.set_path("/postgres");
    let mut admin = diesel::PgConnection::establish(u.as_str())
        .map_err(|e| format!("cannot reach PostgreSQL: {e}"))?;
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let found: N = diesel::sql_query(format!(
        "SELECT count(*) AS n FROM pg_database WHERE datname = '{name}'"
    ))
    .get_result(&mut admin)
    .map_err(|e| e.to_string())?;
    if found.n == 0 {
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut admin)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn bench(a: &LadderBenchArgs) -> Result<(), String> {
    if !a.database_url.starts_with("postgres") {
        return Err("ladder-bench measures PostgreSQL: give a postgres:// URL".into());
    }
    create_database_if_missing(&a.database_url)?;
    let db = Db::connect(&a.database_url, 2, Duration::from_secs(10))?;
    db.migrate()?;
    let mut conn = db.pool.get().map_err(|e| e.to_string())?;
    let c: &mut DbConn = &mut conn;
    let have = leaderboard::total(c, LadderKind::Ranked).map_err(|e| e.to_string())?;
    if have != a.players {
        println!("filling {} players (had {have}) ...", a.players);
        let t = Instant::now();
        fill(c, a.players)?;
        println!("filled in {:.1} s", t.elapsed().as_secs_f64());
    } else {
        println!("reusing {have} players");
    }
    let total = leaderboard::total(c, LadderKind::Ranked).map_err(|e| e.to_string())?;
    let ids: Vec<i64> = {
        use siguo::db::schema::ladder_stats as ls;
        ls::table
            .filter(ls::ladder.eq("ranked"))
            .select(ls::account_id)
            .load(c)
            .map_err(|e| e.to_string())?
    };
    let buckets: i64 = {
        use siguo::db::schema::ladder_point_counts as lpc;
        lpc::table
            .filter(lpc::ladder.eq("ranked"))
            .count()
            .get_result(c)
            .map_err(|e| e.to_string())?
    };
    println!(
        "players: {total}, distinct points values: {buckets}, samples: {}, per_page: {}",
        a.samples, a.per_page
    );
    let pages = ((total + a.per_page - 1) / a.per_page).max(1);
    let mut rng = rand::rng();
    // warm-up
    for _ in 0..50 {
        leaderboard::rows_at(c, LadderKind::Ranked, 0, a.per_page).map_err(|e| e.to_string())?;
    }
    let mut page_t = vec![];
    let mut first_t = vec![];
    let mut rank_t = vec![];
    let mut me_t = vec![];
    for _ in 0..a.samples {
        let p = rng.random_range(0..pages);
        let t = Instant::now();
        let rows = leaderboard::rows_at(c, LadderKind::Ranked, p * a.per_page, a.per_page)
            .map_err(|e| e.to_string())?;
        page_t.push(t.elapsed());
        assert!(!rows.is_empty());
        let t = Instant::now();
        leaderboard::rows_at(c, LadderKind::Ranked, 0, a.per_page).map_err(|e| e.to_string())?;
        first_t.push(t.elapsed());
        let id = ids[rng.random_range(0..ids.len())];
        let t = Instant::now();
        let row = leaderboard::row_of(c, LadderKind::Ranked, id)
            .map_err(|e| e.to_string())?
            .ok_or("player vanished")?;
        rank_t.push(t.elapsed());
        // "around me": own rank + the page holding it (GET /api/leaderboard/{ladder}/me)
        let t = Instant::now();
        let me = leaderboard::row_of(c, LadderKind::Ranked, id)
            .map_err(|e| e.to_string())?
            .ok_or("player vanished")?;
        let around = leaderboard::rows_at(
            c,
            LadderKind::Ranked,
            (me.rank - 1) / a.per_page * a.per_page,
            a.per_page,
        )
        .map_err(|e| e.to_string())?;
        me_t.push(t.elapsed());
        if !around.iter().any(|r| r.account_id == id && r.rank == row.rank) {
            return Err(format!("account {id} (rank {}) is not on its own page", row.rank));
        }
    }
    report("page (random page)", &mut page_t);
    report("page (first page)", &mut first_t);
    report("own rank", &mut rank_t);
    report("around me (rank + its page)", &mut me_t);
    if a.naive {
        let n = a.samples.min(200);
        let mut off_t = vec![];
        let mut cnt_t = vec![];
        for _ in 0..n {
            let p = rng.random_range(0..pages);
            let sql = format!(
                "SELECT account_id FROM ladder_stats WHERE ladder = 'ranked' \
                 ORDER BY points DESC, wins DESC, escapes ASC, account_id ASC LIMIT {} OFFSET {}",
                a.per_page,
                p * a.per_page
            );
            let t = Instant::now();
            c.batch_execute(&sql).map_err(|e| e.to_string())?;
            off_t.push(t.elapsed());
            let id = ids[rng.random_range(0..ids.len())];
            let sql = format!(
                "SELECT count(*) FROM ladder_stats s, ladder_stats me WHERE me.ladder = 'ranked' AND me.account_id = {id} \
                 AND s.ladder = 'ranked' AND (s.points > me.points OR (s.points = me.points AND (s.wins > me.wins OR \
                 (s.wins = me.wins AND (s.escapes < me.escapes OR (s.escapes = me.escapes AND s.account_id < me.account_id))))))"
            );
            let t = Instant::now();
            c.batch_execute(&sql).map_err(|e| e.to_string())?;
            cnt_t.push(t.elapsed());
        }
        report("naive: OFFSET page", &mut off_t);
        report("naive: COUNT(*) rank", &mut cnt_t);
    }
    Ok(())
}

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

/// Replace the ranked ladder with `n` synthetic players (plausible W/D/L spreads), then rebuild
/// the point buckets exactly as recording maintains them, and refresh the planner statistics.
fn fill(c: &mut DbConn, n: i64) -> Result<(), String> {
    let sql = format!(
        "DELETE FROM ladder_results; DELETE FROM ladder_stats; DELETE FROM ladder_point_counts;
         DELETE FROM accounts WHERE username LIKE 'bench\\_%';
         INSERT INTO accounts (username, username_key, password_hash, is_guest, created_at)
           SELECT 'bench_' || g, 'bench_' || g, NULL, FALSE, now() FROM generate_series(1, {n}) g;
         INSERT INTO ladder_stats (account_id, ladder, points, games, wins, draws, losses, surrenders, escapes, rating, rd, volatility)
           SELECT id, 'ranked', 3 * w + d - 2 * e, games, w, d, games - w - d - s - e, s, e,
                  1500 + 3 * (3 * w + d - 2 * e) - games, 80, 0.06
           FROM (SELECT id, games, w, d, s, e FROM (
                 SELECT id, games, w, d,
                        floor(random() * 0.3 * (games - w - d))::int AS s,
                        floor(random() * least(8, 0.1 * (games - w - d)))::int AS e
                 FROM (SELECT id, games, w, floor(random() * 0.15 * (games - w))::int AS d
                       FROM (SELECT id, games, floor(random() * 0.65 * games)::int AS w
                             FROM (SELECT id, 1 + floor(random() * random() * 600)::int AS games
                                   FROM accounts WHERE username LIKE 'bench\\_%') a) b) c2) d2) x;
         INSERT INTO ladder_point_counts (ladder, points, n)
           SELECT ladder, points, count(*) FROM ladder_stats GROUP BY ladder, points;"
    );
    c.batch_execute(&sql).map_err(|e| format!("fill: {e}"))?;
    // VACUUM cannot run inside the implicit transaction of a multi-statement batch.
    for t in ["accounts", "ladder_stats", "ladder_point_counts"] {
        c.batch_execute(&format!("VACUUM ANALYZE {t}")).map_err(|e| format!("vacuum: {e}"))?;
    }
    Ok(())
}
