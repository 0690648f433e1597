//! Applying a finished game to the ladder, exactly once per (game, account).
//!
//! [`record_result`] runs inside the transaction in which live play writes the game's final
//! state (it opens a savepoint of its own, so it is also atomic when called alone). For each
//! account it inserts a `ladder_results` row with `ON CONFLICT DO NOTHING`; only when that
//! insert really happened (one affected row) are the account's `ladder_stats` changed. The
//! primary key (game_id, account_id) therefore makes retries — after a crash, a restart that
//! re-finishes the game, a rolled-back transaction, or a plain double call — apply nothing twice.
//!
//! Locks are taken in one global order (stats rows by account id, then point buckets by
//! points, then rating buckets by rating), so two games finishing at once never deadlock on
//! PostgreSQL. A rated ladder (`hf_ranked`) also keeps `ladder_rating_counts`: the players on
//! its leaderboard per floor of the rating; a result moves its player between buckets, into
//! them (its 10th game with a settled RD) or out of them (an RD grown above 110).
use super::glicko::{self, Rating};
use super::leaderboard::{listed, rating_bucket};
use super::points::{self, PlayerResult};
use super::{FinishedGame, LadderKind, Outcome};
use crate::db::schema::{
    ladder_point_counts as lpc, ladder_rating_counts as lrc, ladder_results as lr,
    ladder_stats as ls,
};
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use diesel::prelude::*;
use std::collections::BTreeMap;

/// Run the same diesel statement on the concrete connection: `ON CONFLICT DO NOTHING` is not
/// available through the MultiConnection backend, but both PostgreSQL and SQLite (≥ 3.24) have it.
macro_rules! on_backend {
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn {
            DbConn::Pg($c) => $body,
            DbConn::Sqlite($c) => $body,
        }
    };
}

/// What [`record_result`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorded {
    /// The ladder the game counts for (`None`: it does not count, nothing was written).
    pub ladder: Option<LadderKind>,
    /// Results newly applied by this call (empty when they had all been applied before).
    pub applied: Vec<(i64, Outcome)>,
    /// Every account's result of this game as stored in `ladder_results`, newly applied or not
    /// (ordered by account id): what the game gave, the same on every call for the same game.
    pub results: Vec<StoredResult>,
}

/// One account's applied result of a game (a `ladder_results` row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredResult {
    pub account_id: i64,
    pub outcome: Outcome,
    pub points: i32,
    /// The account's Glicko-2 rating after the game (the hidden one on four-player ladders).
    pub rating: Option<Rating>,
    /// The rating it had before the game (`None` for results stored before it was kept).
    pub rating_before: Option<f64>,
}

/// Apply `game` to the ladder if it counts; idempotent. See the module docs.
pub fn record_result(conn: &mut DbConn, game: &FinishedGame) -> AppResult<Recorded> {
    let results = match points::results(game) {
        Ok(r) => r,
        Err(why) => {
            tracing::debug!(game_id = game.game_id, ?why, "game does not count for the ladder");
            return Ok(Recorded::default());
        }
    };
    let ladder = results[0].ladder;
    conn.transaction(|conn| {
        let mut applied = insert_results(conn, game.game_id, ladder, &results)?;
        applied.sort_by_key(|r| r.account_id);
        if !applied.is_empty() {
            apply_stats(conn, (game.game_id, ladder), &results, &applied)?;
        }
        Ok(Recorded {
            ladder: Some(ladder),
            applied: applied.iter().map(|r| (r.account_id, r.outcome)).collect(),
            results: stored_results(conn, game.game_id)?,
        })
    })
}

/// Insert a `ladder_results` row per account unless it is there; returns the results whose
/// row this call inserted (those not applied before).
fn insert_results<'r>(
    conn: &mut DbConn,
    game_id: i64,
    ladder: LadderKind,
    results: &'r [PlayerResult],
) -> AppResult<Vec<&'r PlayerResult>> {
    let now = chrono::Utc::now().naive_utc();
    let mut applied = Vec::new();
    for r in results {
        let row = (
            lr::game_id.eq(game_id),
            lr::account_id.eq(r.account_id),
            lr::ladder.eq(ladder.as_str()),
            lr::outcome.eq(r.outcome.as_str()),
            lr::points.eq(r.points()),
            lr::created_at.eq(now),
        );
        let n = on_backend!(conn, |c| diesel::insert_into(lr::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c))?;
        if n == 1 {
            applied.push(r);
        }
    }
    Ok(applied)
}

/// The results of a game as stored, by account id.
pub fn stored_results(conn: &mut DbConn, game_id: i64) -> AppResult<Vec<StoredResult>> {
    type Row = (i64, String, i32, Option<f64>, Option<f64>, Option<f64>, Option<f64>);
    let rows: Vec<Row> = lr::table
        .inner_join(ls::table.on(ls::account_id.eq(lr::account_id).and(ls::ladder.eq(lr::ladder))))
        .filter(lr::game_id.eq(game_id))
        .order(lr::account_id)
        .select((
            lr::account_id,
            lr::outcome,
            lr::points,
            lr::rating,
            lr::rd,
            ls::volatility.nullable(),
            lr::rating_before,
        ))
        .load(conn)?;
    rows.into_iter()
        .map(|(account_id, outcome, points, rating, rd, volatility, rating_before)| {
            let outcome = Outcome::parse(&outcome).ok_or_else(|| {
                AppError::internal(format!("stored outcome {outcome:?} of game {game_id}"))
            })?;
            let rating = match (rating, rd, volatility) {
                (Some(rating), Some(rd), Some(volatility)) => {
                    Some(Rating { rating, rd, volatility })
                }
                _ => None,
            };
            Ok(StoredResult { account_id, outcome, points, rating, rating_before })
        })
        .collect()
}

/// Change the stats (points, counts, rating) of the accounts in `applied` (sorted by account
/// id: the lock order) and the point and rating buckets. `results`: every player of the game.
fn apply_stats(
    conn: &mut DbConn,
    (game_id, ladder): (i64, LadderKind),
    results: &[PlayerResult],
    applied: &[&PlayerResult],
) -> AppResult<()> {
    let mut ids: Vec<i64> = results.iter().map(|r| r.account_id).collect();
    ids.sort_unstable();
    let mut bucket_delta = create_stats_rows(conn, ladder, &ids)?;
    let mut rating_delta: BTreeMap<i32, i64> = BTreeMap::new();
    let before = lock_standings(conn, ladder, &ids)?;
    let standing_of = |id: i64| {
        before.iter().find(|s| s.0 == id).map(|s| (s.1, s.2)).unwrap_or((0, Rating::default()))
    };
    for r in applied {
        // every new rating comes from the ratings before the game: one rating period for all
        let opponents: Vec<Rating> = results
            .iter()
            .filter(|o| opposes(ladder, r, o))
            .map(|o| standing_of(o.account_id).1)
            .collect();
        let (games, old) = standing_of(r.account_id);
        let new = glicko::update(old, &[(glicko::composite(&opponents), r.outcome.score())]);
        diesel::update(lr::table.find((game_id, r.account_id)))
            .set((
                lr::rating.eq(Some(new.rating)),
                lr::rd.eq(Some(new.rd)),
                lr::rating_before.eq(Some(old.rating)),
            ))
            .execute(conn)?;
        if let Some(now_points) = apply_one(conn, ladder, r, new)? {
            *bucket_delta.entry(now_points - r.points()).or_default() -= 1;
            *bucket_delta.entry(now_points).or_default() += 1;
        }
        if ladder.is_rated() {
            for (listed, rating, delta) in
                [(listed(games, old), old, -1), (listed(games + 1, new), new, 1)]
            {
                if listed {
                    *rating_delta.entry(rating_bucket(rating.rating)).or_default() += delta;
                }
            }
        }
    }
    for (points, delta) in bucket_delta.into_iter().filter(|b| b.1 != 0) {
        add_to_bucket(conn, ladder, points, delta)?;
    }
    for (bucket, delta) in rating_delta.into_iter().filter(|b| b.1 != 0) {
        add_to_rating_bucket(conn, ladder, bucket, delta)?;
    }
    Ok(())
}

/// (account, games, rating) of the stats rows of `ids` (sorted), locked until the transaction
/// ends on PostgreSQL (`FOR UPDATE`, in account order; SQLite has one writer at a time), so the
/// standings the new ratings and the buckets are computed from cannot change meanwhile.
fn lock_standings(
    conn: &mut DbConn,
    ladder: LadderKind,
    ids: &[i64],
) -> AppResult<Vec<(i64, i32, Rating)>> {
    let query = ls::table
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq_any(ids))
        .order(ls::account_id)
        .select((ls::account_id, ls::games, ls::rating, ls::rd, ls::volatility));
    let rows: Vec<(i64, i32, f64, f64, f64)> = match conn {
        DbConn::Pg(c) => query.for_update().load(c)?,
        DbConn::Sqlite(c) => query.load(c)?,
    };
    Ok(rows
        .into_iter()
        .map(|(id, games, rating, rd, volatility)| (id, games, Rating { rating, rd, volatility }))
        .collect())
}

/// Whether `o` is `r`'s opponent: the other team, or on Hidden Front (seats S and N, both of
/// the same nominal team) the other player.
fn opposes(ladder: LadderKind, r: &PlayerResult, o: &PlayerResult) -> bool {
    match ladder {
        LadderKind::HfRanked => o.account_id != r.account_id,
        LadderKind::Ranked | LadderKind::RankedDual => o.team != r.team,
    }
}

/// Every player of the game gets a stats row (ratings are read for all of them); returns the
/// point buckets' changes (new rows start at 0 points).
fn create_stats_rows(
    conn: &mut DbConn,
    ladder: LadderKind,
    ids: &[i64],
) -> AppResult<BTreeMap<i32, i64>> {
    let mut bucket_delta: BTreeMap<i32, i64> = BTreeMap::new();
    for &id in ids {
        let row = (ls::account_id.eq(id), ls::ladder.eq(ladder.as_str()));
        let n = on_backend!(conn, |c| diesel::insert_into(ls::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c))?;
        if n == 1 {
            *bucket_delta.entry(0).or_default() += 1;
        }
    }
    Ok(bucket_delta)
}

/// Add one result to its account's stats row, with its new rating; returns the account's
/// points afterwards when they changed.
fn apply_one(
    conn: &mut DbConn,
    ladder: LadderKind,
    r: &PlayerResult,
    new: Rating,
) -> AppResult<Option<i32>> {
    let o = r.outcome;
    let one = |x: Outcome| if o == x { 1 } else { 0 };
    let p = r.points();
    let target =
        ls::table.filter(ls::account_id.eq(r.account_id)).filter(ls::ladder.eq(ladder.as_str()));
    diesel::update(target)
        .set((
            ls::points.eq(ls::points + p),
            ls::games.eq(ls::games + 1),
            ls::wins.eq(ls::wins + one(Outcome::Win)),
            ls::draws.eq(ls::draws + one(Outcome::Draw)),
            ls::losses.eq(ls::losses + one(Outcome::Loss)),
            ls::surrenders.eq(ls::surrenders + one(Outcome::Surrender)),
            ls::escapes.eq(ls::escapes + one(Outcome::Escape)),
            ls::rating.eq(new.rating),
            ls::rd.eq(new.rd),
            ls::volatility.eq(new.volatility),
        ))
        .execute(conn)?;
    if p == 0 {
        return Ok(None);
    }
    // The row is locked by our update: its points cannot move under us.
    Ok(Some(target.select(ls::points).first(conn)?))
}

/// `$table[ladder, $key] += delta`, creating the bucket: `ladder_point_counts` by points,
/// `ladder_rating_counts` by the floor of the rating.
macro_rules! add_to_counts {
    ($conn:expr, $t:ident, $key:ident, ($ladder:expr, $value:expr, $delta:expr)) => {{
        let row = ($t::ladder.eq($ladder.as_str()), $t::$key.eq($value), $t::n.eq(0i64));
        on_backend!($conn, |c| diesel::insert_into($t::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c))?;
        let bucket = $t::table.filter($t::ladder.eq($ladder.as_str())).filter($t::$key.eq($value));
        diesel::update(bucket).set($t::n.eq($t::n + $delta)).execute($conn)?;
        Ok(())
    }};
}

/// `ladder_point_counts[ladder, points] += delta` (creating the bucket).
fn add_to_bucket(conn: &mut DbConn, ladder: LadderKind, points: i32, delta: i64) -> AppResult<()> {
    add_to_counts!(conn, lpc, points, (ladder, points, delta))
}

/// `ladder_rating_counts[ladder, bucket] += delta` (creating the bucket).
fn add_to_rating_bucket(
    conn: &mut DbConn,
    ladder: LadderKind,
    bucket: i32,
    delta: i64,
) -> AppResult<()> {
    add_to_counts!(conn, lrc, bucket, (ladder, bucket, delta))
}
