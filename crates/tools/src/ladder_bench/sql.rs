//! The bench database, reached directly (tokio-postgres): the synthetic players, the bench
//! account's row, and the naive queries timed for comparison. Only the tables the server's
//! migrations create are used (`accounts`, `ladder_stats`, `ladder_point_counts`,
//! `ladder_rating_counts`, `ladder_results`); the server must have migrated the database first.
use tokio_postgres::{Client, NoTls};

/// The synthetic players are the accounts `bench_1` … `bench_<n>`.
const BENCH_KEY: &str = "'^bench_[0-9]+$'";
/// The ladder rated by Glicko-2 and ordered by rating (Hidden Front's).
const RATED: &str = "hf_ranked";
/// Who is on the rated ladder's leaderboard (ladder.md: ≥ 10 games, RD ≤ 110), as SQL.
const LISTED: &str = "games >= 10 AND rd <= 110";

async fn connect(url: &str) -> Result<Client, String> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| format!("cannot reach PostgreSQL at {url}: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("siguo-tools ladder-bench: database connection: {e}");
        }
    });
    Ok(client)
}

/// Create the database `url` names unless it exists (through the `postgres` database of the
/// same server).
pub async fn create_database_if_missing(url: &str) -> Result<(), String> {
    let mut u = url::Url::parse(url).map_err(|e| format!("bad --database-url: {e}"))?;
    let name = u.path().trim_start_matches('/').to_string();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("the database name must be letters, digits and _".into());
    }
    u.set_path("/postgres");
    let admin = connect(u.as_str()).await?;
    let found: i64 = admin
        .query_one("SELECT count(*) FROM pg_database WHERE datname = $1", &[&name])
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    if found == 0 {
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .await
            .map_err(|e| format!("cannot create database {name}: {e}"))?;
    }
    Ok(())
}

pub struct BenchDb {
    client: Client,
    /// `ladder_stats.ladder` of the measured ladder (letters and `_` only: checked by the caller)
    ladder: String,
}

impl BenchDb {
    pub async fn connect(url: &str, ladder: &str) -> Result<BenchDb, String> {
        Ok(BenchDb { client: connect(url).await?, ladder: ladder.to_string() })
    }

    /// Give synthetic accounts without a username skeleton (filled by an earlier version of
    /// this tool) a placeholder one, their key: the server computes missing skeletons one
    /// account at a time as it starts (`db::accounts::backfill_username_keys`), which for a
    /// million accounts would keep it from listening for many minutes. Nothing to do on a
    /// database the server has not migrated yet.
    pub async fn settle_skeletons(&self) -> Result<(), String> {
        let sql = "SELECT to_regclass('accounts') IS NOT NULL";
        let migrated: bool = self.client.query_one(sql, &[]).await.map_err(sql_error)?.get(0);
        if migrated {
            let sql = format!(
                "UPDATE accounts SET username_skeleton = username_key \
                 WHERE username_skeleton IS NULL AND username_key ~ {BENCH_KEY}"
            );
            self.client.batch_execute(&sql).await.map_err(sql_error)?;
        }
        Ok(())
    }

    /// Synthetic players on the ladder.
    pub async fn bench_players(&self) -> Result<i64, String> {
        let sql = format!(
            "SELECT count(*) FROM ladder_stats s JOIN accounts a ON a.id = s.account_id \
             WHERE s.ladder = $1 AND a.username_key ~ {BENCH_KEY}"
        );
        let row = self.client.query_one(&sql, &[&self.ladder]).await.map_err(sql_error)?;
        Ok(row.get(0))
    }

    /// Whether the measured ladder is rated by Glicko-2 (Hidden Front's), ordered by rating.
    fn rated(&self) -> bool {
        self.ladder == RATED
    }

    /// Replace the ladder by `n` synthetic players (plausible W/D/L spreads; accounts
    /// `bench_<i>` are created where missing and kept), rebuild its buckets exactly as recording
    /// maintains them, and refresh the planner statistics. Other ladders are left as they are.
    ///
    /// A points ladder's players have 1–600 games and points from their results. Hidden Front's
    /// are all on its leaderboard: 10–600 games, a rating spread around 1500 (the sum of four
    /// uniform draws: close to normal, σ ≈ 200), an RD of 45–110 and a volatility near 0.06.
    pub async fn fill(&self, n: i64) -> Result<(), String> {
        let l = &self.ladder;
        let (min_games, stats) = if self.rated() {
            (
                10,
                "0, games, w, d, games - w - d - s - e, s, e, \
                  1500 + 200 * sqrt(3.0) * (random() + random() + random() + random() - 2), \
                  45 + 65 * random(), 0.055 + 0.01 * random()",
            )
        } else {
            (
                1,
                "3 * w + d - 2 * e, games, w, d, games - w - d - s - e, s, e, \
                 1500 + 3 * (3 * w + d - 2 * e) - games, 80, 0.06",
            )
        };
        let sql = format!(
            "DELETE FROM ladder_results WHERE ladder = '{l}';
             DELETE FROM ladder_stats WHERE ladder = '{l}';
             DELETE FROM ladder_point_counts WHERE ladder = '{l}';
             DELETE FROM ladder_rating_counts WHERE ladder = '{l}';
             INSERT INTO accounts (username, username_key, username_skeleton, password_hash, is_guest, created_at)
               SELECT 'bench_' || g, 'bench_' || g, 'bench_' || g, NULL, FALSE, now() FROM generate_series(1, {n}) g
               ON CONFLICT (username_key) DO NOTHING;
             INSERT INTO ladder_stats (account_id, ladder, points, games, wins, draws, losses, surrenders, escapes, rating, rd, volatility)
               SELECT id, '{l}', {stats}
               FROM (SELECT id, games, w, d, s, e FROM (
                     SELECT id, games, w, d,
                            floor(random() * 0.3 * (games - w - d))::int AS s,
                            floor(random() * least(8, 0.1 * (games - w - d)))::int AS e
                     FROM (SELECT id, games, w, floor(random() * 0.15 * (games - w))::int AS d
                           FROM (SELECT id, games, floor(random() * 0.65 * games)::int AS w
                                 FROM (SELECT id, {min_games} + floor(random() * random() * (601 - {min_games}))::int AS games
                                       FROM accounts WHERE CASE WHEN username_key ~ {BENCH_KEY}
                                         THEN substr(username_key, 7)::bigint <= {n} END) a) b) c2) d2) x;
             INSERT INTO ladder_point_counts (ladder, points, n)
               SELECT ladder, points, count(*) FROM ladder_stats WHERE ladder = '{l}' GROUP BY ladder, points;"
        );
        self.client.batch_execute(&sql).await.map_err(|e| format!("fill: {e}"))?;
        if self.rated() {
            let sql = format!(
                "INSERT INTO ladder_rating_counts (ladder, bucket, n)
                   SELECT ladder, floor(rating)::int, count(*) FROM ladder_stats
                   WHERE ladder = '{l}' AND {LISTED} GROUP BY ladder, floor(rating)::int"
            );
            self.client.batch_execute(&sql).await.map_err(|e| format!("fill: {e}"))?;
        }
        // VACUUM cannot run inside the implicit transaction of a multi-statement batch.
        for t in ["accounts", "ladder_stats", "ladder_point_counts", "ladder_rating_counts"] {
            let vacuum = format!("VACUUM ANALYZE {t}");
            self.client.batch_execute(&vacuum).await.map_err(|e| format!("vacuum: {e}"))?;
        }
        Ok(())
    }

    /// The id of the account whose canonical name is `key`.
    pub async fn account_id(&self, key: &str) -> Result<i64, String> {
        let sql = "SELECT id FROM accounts WHERE username_key = $1";
        let row = self.client.query_opt(sql, &[&key]).await.map_err(sql_error)?;
        row.map(|r| r.get(0)).ok_or_else(|| format!("no account {key:?}"))
    }

    /// Give `account_id` a row on the ladder unless it has one, counted in its buckets: 0
    /// points on a points ladder; on Hidden Front's a listed player (10 games, 1500, RD 100).
    pub async fn ensure_row(&mut self, account_id: i64) -> Result<(), String> {
        let games: i32 = if self.rated() { 10 } else { 0 };
        let tx = self.client.transaction().await.map_err(sql_error)?;
        let added = tx
            .query_opt(
                "INSERT INTO ladder_stats (account_id, ladder, games, rating, rd) \
                 VALUES ($1, $2, $3, 1500, 100) \
                 ON CONFLICT (account_id, ladder) DO NOTHING RETURNING points, games, rating, rd",
                &[&account_id, &self.ladder, &games],
            )
            .await
            .map_err(sql_error)?;
        if let Some(row) = added {
            count(&tx, &self.ladder, Standing::of(&row), 1).await?;
        }
        tx.commit().await.map_err(sql_error)
    }

    /// Give `account_id` the standing (points, games, W/D/L, surrenders, escapes, rating) of the
    /// synthetic player `bench_<n>`, moving it between buckets as recording would.
    pub async fn copy_standing(&mut self, account_id: i64, n: i64) -> Result<(), String> {
        let tx = self.client.transaction().await.map_err(sql_error)?;
        let old = tx
            .query_one(
                "SELECT points, games, rating, rd FROM ladder_stats \
                 WHERE account_id = $1 AND ladder = $2 FOR UPDATE",
                &[&account_id, &self.ladder],
            )
            .await
            .map_err(sql_error)?;
        let new = tx
            .query_one(
                "UPDATE ladder_stats me \
                 SET (points, games, wins, draws, losses, surrenders, escapes, rating, rd, volatility) = \
                     (s.points, s.games, s.wins, s.draws, s.losses, s.surrenders, s.escapes, \
                      s.rating, s.rd, s.volatility) \
                 FROM ladder_stats s JOIN accounts a ON a.id = s.account_id \
                 WHERE me.account_id = $1 AND me.ladder = $2 AND s.ladder = $2 \
                   AND a.username_key = $3 \
                 RETURNING me.points, me.games, me.rating, me.rd",
                &[&account_id, &self.ladder, &format!("bench_{n}")],
            )
            .await
            .map_err(|e| format!("copy the standing of bench_{n}: {e}"))?;
        count(&tx, &self.ladder, Standing::of(&old), -1).await?;
        count(&tx, &self.ladder, Standing::of(&new), 1).await?;
        tx.commit().await.map_err(sql_error)
    }

    /// The ladder's order and who is on it, as SQL (`ORDER BY`, `WHERE`).
    fn order(&self) -> (&'static str, &'static str) {
        if self.rated() {
            ("rating DESC, account_id ASC", LISTED)
        } else {
            ("points DESC, wins DESC, escapes ASC, account_id ASC", "TRUE")
        }
    }

    /// The textbook page query: `ORDER BY … LIMIT … OFFSET …` over the whole ladder; returns
    /// the page's account ids.
    pub async fn naive_page(&self, offset: i64, limit: i64) -> Result<Vec<i64>, String> {
        let (l, (order, listed)) = (&self.ladder, self.order());
        let sql = format!(
            "SELECT account_id FROM ladder_stats WHERE ladder = '{l}' AND {listed} \
             ORDER BY {order} LIMIT {limit} OFFSET {offset}"
        );
        let rows = self.client.query(&sql, &[]).await.map_err(sql_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// The textbook rank query of account `id`: 1 + `COUNT(*)` of the rows ahead of it.
    pub async fn naive_rank(&self, id: i64) -> Result<i64, String> {
        let l = &self.ladder;
        let ahead = if self.rated() {
            "s.games >= 10 AND s.rd <= 110 AND (s.rating > me.rating OR \
             (s.rating = me.rating AND s.account_id < me.account_id))"
                .to_string()
        } else {
            "(s.points > me.points OR (s.points = me.points AND (s.wins > me.wins OR \
             (s.wins = me.wins AND (s.escapes < me.escapes OR (s.escapes = me.escapes AND s.account_id < me.account_id))))))"
                .to_string()
        };
        let sql = format!(
            "SELECT 1 + count(*) FROM ladder_stats s, ladder_stats me WHERE me.ladder = '{l}' \
             AND me.account_id = $1 AND s.ladder = '{l}' AND {ahead}"
        );
        let row = self.client.query_one(&sql, &[&id]).await.map_err(sql_error)?;
        Ok(row.get(0))
    }

    /// The id of the synthetic player `bench_<n>`.
    pub async fn bench_id(&self, n: i64) -> Result<i64, String> {
        self.account_id(&format!("bench_{n}")).await
    }
}

/// A player's standing as far as the buckets go.
struct Standing {
    points: i32,
    games: i32,
    rating: f64,
    rd: f64,
}

impl Standing {
    /// From a row of (points, games, rating, rd).
    fn of(row: &tokio_postgres::Row) -> Standing {
        Standing { points: row.get(0), games: row.get(1), rating: row.get(2), rd: row.get(3) }
    }
}

/// Add `delta` to the buckets of `ladder` of a player standing `s`: its points bucket, and on
/// the rated ladder its rating bucket while it is listed.
async fn count(
    tx: &tokio_postgres::Transaction<'_>,
    ladder: &str,
    s: Standing,
    delta: i64,
) -> Result<(), String> {
    add_to_bucket(tx, ("ladder_point_counts", "points"), ladder, s.points, delta).await?;
    if ladder == RATED && s.games >= 10 && s.rd <= 110.0 {
        let bucket = s.rating.floor() as i32;
        add_to_bucket(tx, ("ladder_rating_counts", "bucket"), ladder, bucket, delta).await?;
    }
    Ok(())
}

/// `table[ladder, key] += delta` (creating the bucket), as the server does; `table` and its
/// key column are `ladder_point_counts` and `points`, or `ladder_rating_counts` and `bucket`.
async fn add_to_bucket(
    tx: &tokio_postgres::Transaction<'_>,
    (table, key): (&str, &str),
    ladder: &str,
    value: i32,
    delta: i64,
) -> Result<(), String> {
    let sql = format!(
        "INSERT INTO {table} (ladder, {key}, n) VALUES ($1, $2, $3) \
         ON CONFLICT (ladder, {key}) DO UPDATE SET n = {table}.n + EXCLUDED.n"
    );
    tx.execute(&sql, &[&ladder, &value, &delta]).await.map_err(sql_error)?;
    Ok(())
}

fn sql_error(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("database: {}", db.message()),
        None => format!("database: {e}"),
    }
}
