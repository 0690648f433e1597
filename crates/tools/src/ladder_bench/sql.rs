//! The bench database, reached directly (tokio-postgres): the synthetic players, the bench
//! account's row, and the naive queries timed for comparison. Only the tables the server's
//! migrations create are used (`accounts`, `ladder_stats`, `ladder_point_counts`,
//! `ladder_results`); the server must have migrated the database first.
use tokio_postgres::{Client, NoTls};

/// The synthetic players are the accounts `bench_1` … `bench_<n>`.
const BENCH_KEY: &str = "'^bench_[0-9]+$'";

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

    /// Synthetic players on the ladder.
    pub async fn bench_players(&self) -> Result<i64, String> {
        let sql = format!(
            "SELECT count(*) FROM ladder_stats s JOIN accounts a ON a.id = s.account_id \
             WHERE s.ladder = $1 AND a.username_key ~ {BENCH_KEY}"
        );
        let row = self.client.query_one(&sql, &[&self.ladder]).await.map_err(sql_error)?;
        Ok(row.get(0))
    }

    /// Replace the ladder by `n` synthetic players (plausible W/D/L spreads; accounts
    /// `bench_<i>` are created where missing and kept), rebuild its point buckets exactly as
    /// recording maintains them, and refresh the planner statistics. Other ladders are left as
    /// they are.
    pub async fn fill(&self, n: i64) -> Result<(), String> {
        let l = &self.ladder;
        let sql = format!(
            "DELETE FROM ladder_results WHERE ladder = '{l}';
             DELETE FROM ladder_stats WHERE ladder = '{l}';
             DELETE FROM ladder_point_counts WHERE ladder = '{l}';
             INSERT INTO accounts (username, username_key, password_hash, is_guest, created_at)
               SELECT 'bench_' || g, 'bench_' || g, NULL, FALSE, now() FROM generate_series(1, {n}) g
               ON CONFLICT (username_key) DO NOTHING;
             INSERT INTO ladder_stats (account_id, ladder, points, games, wins, draws, losses, surrenders, escapes, rating, rd, volatility)
               SELECT id, '{l}', 3 * w + d - 2 * e, games, w, d, games - w - d - s - e, s, e,
                      1500 + 3 * (3 * w + d - 2 * e) - games, 80, 0.06
               FROM (SELECT id, games, w, d, s, e FROM (
                     SELECT id, games, w, d,
                            floor(random() * 0.3 * (games - w - d))::int AS s,
                            floor(random() * least(8, 0.1 * (games - w - d)))::int AS e
                     FROM (SELECT id, games, w, floor(random() * 0.15 * (games - w))::int AS d
                           FROM (SELECT id, games, floor(random() * 0.65 * games)::int AS w
                                 FROM (SELECT id, 1 + floor(random() * random() * 600)::int AS games
                                       FROM accounts WHERE CASE WHEN username_key ~ {BENCH_KEY}
                                         THEN substr(username_key, 7)::bigint <= {n} END) a) b) c2) d2) x;
             INSERT INTO ladder_point_counts (ladder, points, n)
               SELECT ladder, points, count(*) FROM ladder_stats WHERE ladder = '{l}' GROUP BY ladder, points;"
        );
        self.client.batch_execute(&sql).await.map_err(|e| format!("fill: {e}"))?;
        // VACUUM cannot run inside the implicit transaction of a multi-statement batch.
        for t in ["accounts", "ladder_stats", "ladder_point_counts"] {
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

    /// Give `account_id` a row on the ladder (0 points) unless it has one, counted in its bucket.
    pub async fn ensure_row(&mut self, account_id: i64) -> Result<(), String> {
        let tx = self.client.transaction().await.map_err(sql_error)?;
        let added = tx
            .query_opt(
                "INSERT INTO ladder_stats (account_id, ladder) VALUES ($1, $2) \
                 ON CONFLICT (account_id, ladder) DO NOTHING RETURNING points",
                &[&account_id, &self.ladder],
            )
            .await
            .map_err(sql_error)?;
        if let Some(row) = added {
            add_to_bucket(&tx, &self.ladder, row.get(0), 1).await?;
        }
        tx.commit().await.map_err(sql_error)
    }

    /// Give `account_id` the standing (points, games, W/D/L, surrenders, escapes) of the
    /// synthetic player `bench_<n>`, moving it between point buckets as recording would.
    pub async fn copy_standing(&mut self, account_id: i64, n: i64) -> Result<(), String> {
        let tx = self.client.transaction().await.map_err(sql_error)?;
        let old: i32 = tx
            .query_one(
                "SELECT points FROM ladder_stats WHERE account_id = $1 AND ladder = $2 FOR UPDATE",
                &[&account_id, &self.ladder],
            )
            .await
            .map_err(sql_error)?
            .get(0);
        let new: i32 = tx
            .query_one(
                "UPDATE ladder_stats me \
                 SET (points, games, wins, draws, losses, surrenders, escapes) = \
                     (s.points, s.games, s.wins, s.draws, s.losses, s.surrenders, s.escapes) \
                 FROM ladder_stats s JOIN accounts a ON a.id = s.account_id \
                 WHERE me.account_id = $1 AND me.ladder = $2 AND s.ladder = $2 \
                   AND a.username_key = $3 \
                 RETURNING me.points",
                &[&account_id, &self.ladder, &format!("bench_{n}")],
            )
            .await
            .map_err(|e| format!("copy the standing of bench_{n}: {e}"))?
            .get(0);
        if new != old {
            add_to_bucket(&tx, &self.ladder, old, -1).await?;
            add_to_bucket(&tx, &self.ladder, new, 1).await?;
        }
        tx.commit().await.map_err(sql_error)
    }

    /// The textbook page query: `ORDER BY … LIMIT … OFFSET …` over the whole ladder.
    pub async fn naive_page(&self, offset: i64, limit: i64) -> Result<(), String> {
        let l = &self.ladder;
        let sql = format!(
            "SELECT account_id FROM ladder_stats WHERE ladder = '{l}' \
             ORDER BY points DESC, wins DESC, escapes ASC, account_id ASC LIMIT {limit} OFFSET {offset}"
        );
        self.client.batch_execute(&sql).await.map_err(sql_error)
    }

    /// The textbook rank query of `bench_<n>`: `COUNT(*)` of the rows ahead of it.
    pub async fn naive_rank(&self, n: i64) -> Result<(), String> {
        let l = &self.ladder;
        let sql = format!(
            "SELECT count(*) FROM ladder_stats s, ladder_stats me WHERE me.ladder = '{l}' \
             AND me.account_id = (SELECT id FROM accounts WHERE username_key = 'bench_{n}') \
             AND s.ladder = '{l}' AND (s.points > me.points OR (s.points = me.points AND (s.wins > me.wins OR \
             (s.wins = me.wins AND (s.escapes < me.escapes OR (s.escapes = me.escapes AND s.account_id < me.account_id))))))"
        );
        self.client.batch_execute(&sql).await.map_err(sql_error)
    }
}

/// `ladder_point_counts[ladder, points] += delta` (creating the bucket), as the server does.
async fn add_to_bucket(
    tx: &tokio_postgres::Transaction<'_>,
    ladder: &str,
    points: i32,
    delta: i64,
) -> Result<(), String> {
    tx.execute(
        "INSERT INTO ladder_point_counts (ladder, points, n) VALUES ($1, $2, $3) \
         ON CONFLICT (ladder, points) DO UPDATE SET n = ladder_point_counts.n + EXCLUDED.n",
        &[&ladder, &points, &delta],
    )
    .await
    .map_err(sql_error)?;
    Ok(())
}

fn sql_error(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("database: {}", db.message()),
        None => format!("database: {e}"),
    }
}
