//! Leaderboard queries, fast with a million rows.
//!
//! Order (ladder.md): points desc, wins desc, escapes asc, then account id asc (a stable,
//! total order; equal players get consecutive ranks by seniority of their account). A player's
//! rank is 1 + the number of rows ahead of it.
//!
//! Counting rows ahead in a B-tree is linear in the rank, so the ladder keeps
//! `ladder_point_counts` (rows per points value, updated in the recording transaction):
//! - rank = Σ n over buckets with more points + rows with equal points ahead in the index
//!   `ladder_stats_order` (one short range scan);
//! - page k starts inside the bucket where the running sum passes `offset`; the page's ids are then
//!   one index-only range scan from that points value with an `OFFSET` inside the bucket, and the
//!   rows themselves are fetched by id.
use super::LadderKind;
use crate::db::schema::{accounts, ladder_point_counts as lpc, ladder_stats as ls};
use crate::db::DbConn;
use crate::error::AppResult;
use diesel::prelude::*;
use serde::Serialize;

/// One row of a leaderboard (the hidden rating is never part of it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Row {
    pub rank: i64,
    pub account_id: i64,
    pub username: String,
    pub points: i32,
    pub games: i32,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    pub surrenders: i32,
    pub escapes: i32,
}

type RawRow = (i64, String, i32, i32, i32, i32, i32, i32, i32);

fn to_row(rank: i64, r: RawRow) -> Row {
    let (account_id, username, points, games, wins, draws, losses, surrenders, escapes) = r;
    Row { rank, account_id, username, points, games, wins, draws, losses, surrenders, escapes }
}

/// Number of players on the ladder.
pub fn total(conn: &mut DbConn, ladder: LadderKind) -> AppResult<i64> {
    let buckets: Vec<i64> =
        lpc::table.filter(lpc::ladder.eq(ladder.as_str())).select(lpc::n).load(conn)?;
    Ok(buckets.into_iter().sum())
}

/// `limit` rows starting at 0-based position `offset`.
pub fn rows_at(
    conn: &mut DbConn,
    ladder: LadderKind,
    offset: i64,
    limit: i64,
) -> AppResult<Vec<Row>> {
    // Find the bucket (points value) holding position `offset`.
    let buckets: Vec<(i32, i64)> = lpc::table
        .filter(lpc::ladder.eq(ladder.as_str()))
        .filter(lpc::n.gt(0))
        .order(lpc::points.desc())
        .select((lpc::points, lpc::n))
        .load(conn)?;
    let mut before = 0i64;
    let mut start = None;
    for (points, n) in buckets {
        if before + n > offset {
            start = Some(points);
            break;
        }
        before += n;
    }
    let Some(start_points) = start else { return Ok(vec![]) };
    // Step 1: the page's account ids from the index alone (an index-only scan; the OFFSET skips
    // index entries, never heap rows or joins).
    let ids: Vec<i64> = ls::table
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::points.le(start_points))
        .order((ls::points.desc(), ls::wins.desc(), ls::escapes.asc(), ls::account_id.asc()))
        .select(ls::account_id)
        .offset(offset - before)
        .limit(limit)
        .load(conn)?;
    // Step 2: those rows with their names.
    let raw: Vec<RawRow> = ls::table
        .inner_join(accounts::table)
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq_any(&ids))
        .select((
            ls::account_id,
            accounts::username,
            ls::points,
            ls::games,
            ls::wins,
            ls::draws,
            ls::losses,
            ls::surrenders,
            ls::escapes,
        ))
        .load(conn)?;
    Ok(ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| {
            raw.iter().find(|r| r.0 == *id).map(|r| to_row(offset + i as i64 + 1, r.clone()))
        })
        .collect())
}

/// The row of one account with its rank, or `None` if it has no ranked game on this ladder.
pub fn row_of(conn: &mut DbConn, ladder: LadderKind, account_id: i64) -> AppResult<Option<Row>> {
    let raw: Option<RawRow> = ls::table
        .inner_join(accounts::table)
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq(account_id))
        .select((
            ls::account_id,
            accounts::username,
            ls::points,
            ls::games,
            ls::wins,
            ls::draws,
            ls::losses,
            ls::surrenders,
            ls::escapes,
        ))
        .first(conn)
        .optional()?;
    let Some(raw) = raw else { return Ok(None) };
    let (points, wins, escapes) = (raw.2, raw.4, raw.8);
    let above: Vec<i64> = lpc::table
        .filter(lpc::ladder.eq(ladder.as_str()))
        .filter(lpc::points.gt(points))
        .select(lpc::n)
        .load(conn)?;
    let same_ahead: i64 =
        ls::table
            .filter(ls::ladder.eq(ladder.as_str()))
            .filter(ls::points.eq(points))
            .filter(ls::wins.gt(wins).or(ls::wins.eq(wins).and(ls::escapes.lt(escapes))).or(
                ls::wins.eq(wins).and(ls::escapes.eq(escapes)).and(ls::account_id.lt(account_id)),
            ))
            .count()
            .get_result(conn)?;
    let rank = above.into_iter().sum::<i64>() + same_ahead + 1;
    Ok(Some(to_row(rank, raw)))
}
