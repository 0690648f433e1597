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
//!
//! `hf_ranked` (Hidden Front) is ordered by rating instead: rating desc, account id asc, among
//! the players with at least [`HF_MIN_GAMES`] games and an RD of at most
//! [`glicko::PROVISIONAL_RD`], through the partial index `ladder_stats_rating`. Its buckets are
//! `ladder_rating_counts` (listed players per floor of the rating, kept by recording), used as
//! the points buckets above: a rank sums the buckets of higher ratings and counts the rows
//! ahead inside its own bucket; a page starts with an `OFFSET` inside the bucket where it
//! begins. A player not yet on it still has a row (its profile), with rank 0.
use super::glicko::{self, Rating};
use super::title::Title;
use super::LadderKind;
use crate::db::schema::{
    accounts, ladder_point_counts as lpc, ladder_rating_counts as lrc, ladder_stats as ls,
};
use crate::db::DbConn;
use crate::error::AppResult;
use crate::live::protocol::ShownRating;
use diesel::prelude::*;
use serde::Serialize;

/// Games a Hidden Front player needs to be on its leaderboard (ladder.md).
pub const HF_MIN_GAMES: i32 = 10;

/// Whether a rated ladder's player with `games` games and `rating` is on its leaderboard
/// (ladder.md: at least 10 games and RD at most 110).
pub fn listed(games: i32, rating: Rating) -> bool {
    games >= HF_MIN_GAMES && rating.rd <= glicko::PROVISIONAL_RD
}

/// The `ladder_rating_counts` bucket of a rating: its floor (a rating in [b, b + 1) is in b).
pub fn rating_bucket(rating: f64) -> i32 {
    rating.floor() as i32
}

/// One row of a leaderboard (a four-player ladder's hidden rating is never part of it).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Row {
    /// 1-based; 0 for a Hidden Front player not yet on the leaderboard (fewer than 10 games, or
    /// a provisional rating: its own row still shows in its profile and on `/me`)
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
    /// 军衔 on this ladder (`null`: a provisional Hidden Front rating)
    pub title: Option<Title>,
    /// `hf_ranked` only: the rating (shown rounded, with a `?` while provisional)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<ShownRating>,
}

type RawRow = (i64, String, i32, i32, i32, i32, i32, i32, i32, f64, f64, f64);

fn to_row(ladder: LadderKind, rank: i64, r: RawRow) -> Row {
    let (account_id, username, points, games, wins, draws, losses, surrenders, escapes) =
        (r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8);
    let rating = Rating { rating: r.9, rd: r.10, volatility: r.11 };
    Row {
        rank,
        account_id,
        username,
        points,
        games,
        wins,
        draws,
        losses,
        surrenders,
        escapes,
        title: Title::on(ladder, points, rating),
        rating: ladder.is_rated().then(|| rating.into()),
    }
}

/// The columns of a [`RawRow`].
macro_rules! raw_columns {
    () => {
        (
            ls::account_id,
            accounts::username,
            ls::points,
            ls::games,
            ls::wins,
            ls::draws,
            ls::losses,
            ls::surrenders,
            ls::escapes,
            ls::rating,
            ls::rd,
            ls::volatility,
        )
    };
}

/// The rows of `ids` in that order, ranked from `offset + 1`.
fn rows_of(conn: &mut DbConn, ladder: LadderKind, ids: &[i64], offset: i64) -> AppResult<Vec<Row>> {
    let raw: Vec<RawRow> = ls::table
        .inner_join(accounts::table)
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq_any(ids))
        .select(raw_columns!())
        .load(conn)?;
    Ok(ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| {
            let r = raw.iter().find(|r| r.0 == *id)?;
            Some(to_row(ladder, offset + i as i64 + 1, r.clone()))
        })
        .collect())
}

/// Hidden Front's leaderboard rows: rated ladder, enough games, RD settled. Written as the
/// predicate of the partial index `ladder_stats_rating`.
macro_rules! on_hf_board {
    () => {
        ls::ladder
            .eq(LadderKind::HfRanked.as_str())
            .and(ls::games.ge(HF_MIN_GAMES))
            .and(ls::rd.le(glicko::PROVISIONAL_RD))
    };
}

/// The non-empty buckets of `$t` (keyed by `$key`) of a ladder whose key is above `$min`, best
/// first, as (key, players).
macro_rules! buckets_above {
    ($conn:expr, $t:ident, $key:ident, $ladder:expr, $min:expr) => {
        $t::table
            .filter($t::ladder.eq($ladder.as_str()))
            .filter($t::n.gt(0))
            .filter($t::$key.gt($min))
            .order($t::$key.desc())
            .select(($t::$key, $t::n))
            .load::<(i32, i64)>($conn)?
    };
}

/// The ladder's buckets above `min`, best first: (points, or the floor of the rating on a rated
/// ladder; players in it), empty ones left out.
fn buckets(conn: &mut DbConn, ladder: LadderKind, min: i32) -> AppResult<Vec<(i32, i64)>> {
    Ok(match ladder.is_rated() {
        true => buckets_above!(conn, lrc, bucket, ladder, min),
        false => buckets_above!(conn, lpc, points, ladder, min),
    })
}

/// Number of players on the ladder.
pub fn total(conn: &mut DbConn, ladder: LadderKind) -> AppResult<i64> {
    Ok(buckets(conn, ladder, i32::MIN)?.into_iter().map(|b| b.1).sum())
}

/// `limit` rows starting at 0-based position `offset`.
pub fn rows_at(
    conn: &mut DbConn,
    ladder: LadderKind,
    offset: i64,
    limit: i64,
) -> AppResult<Vec<Row>> {
    // Find the bucket holding position `offset`, and the players in the buckets before it.
    let mut before = 0i64;
    let mut start = None;
    for (key, n) in buckets(conn, ladder, i32::MIN)? {
        if before + n > offset {
            start = Some(key);
            break;
        }
        before += n;
    }
    let Some(start) = start else { return Ok(vec![]) };
    // Step 1: the page's account ids from the index alone (an index-only scan from the start
    // of that bucket; the OFFSET skips index entries inside it, never heap rows or joins).
    let ids: Vec<i64> = if ladder.is_rated() {
        ls::table
            .filter(on_hf_board!())
            .filter(ls::rating.lt(f64::from(start) + 1.0))
            .order((ls::rating.desc(), ls::account_id.asc()))
            .select(ls::account_id)
            .offset(offset - before)
            .limit(limit)
            .load(conn)?
    } else {
        ls::table
            .filter(ls::ladder.eq(ladder.as_str()))
            .filter(ls::points.le(start))
            .order((ls::points.desc(), ls::wins.desc(), ls::escapes.asc(), ls::account_id.asc()))
            .select(ls::account_id)
            .offset(offset - before)
            .limit(limit)
            .load(conn)?
    };
    // Step 2: those rows with their names.
    rows_of(conn, ladder, &ids, offset)
}

/// Players in the ladder's buckets above `key` (more points, or a higher floor of the rating).
fn above(conn: &mut DbConn, ladder: LadderKind, key: i32) -> AppResult<i64> {
    Ok(buckets(conn, ladder, key)?.into_iter().map(|b| b.1).sum())
}

/// The row of one account with its rank, or `None` if it has no ranked game on this ladder.
pub fn row_of(conn: &mut DbConn, ladder: LadderKind, account_id: i64) -> AppResult<Option<Row>> {
    let raw: Option<RawRow> = ls::table
        .inner_join(accounts::table)
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq(account_id))
        .select(raw_columns!())
        .first(conn)
        .optional()?;
    let Some(raw) = raw else { return Ok(None) };
    if ladder.is_rated() {
        let (games, rating) = (raw.3, raw.9);
        if !listed(games, Rating { rating, rd: raw.10, volatility: raw.11 }) {
            return Ok(Some(to_row(ladder, 0, raw)));
        }
        // the rows of its own bucket ahead of it: two short ranges of `ladder_stats_rating`
        // (an OR of the two would read the rows themselves, not the index alone)
        let bucket = rating_bucket(rating);
        let higher: i64 = ls::table
            .filter(on_hf_board!())
            .filter(ls::rating.gt(rating).and(ls::rating.lt(f64::from(bucket) + 1.0)))
            .count()
            .get_result(conn)?;
        let tied_ahead: i64 = ls::table
            .filter(on_hf_board!())
            .filter(ls::rating.eq(rating).and(ls::account_id.lt(account_id)))
            .count()
            .get_result(conn)?;
        let same_ahead = higher + tied_ahead;
        let rank = above(conn, ladder, bucket)? + same_ahead + 1;
        return Ok(Some(to_row(ladder, rank, raw)));
    }
    let (points, wins, escapes) = (raw.2, raw.4, raw.8);
    let same_ahead: i64 =
        ls::table
            .filter(ls::ladder.eq(ladder.as_str()))
            .filter(ls::points.eq(points))
            .filter(ls::wins.gt(wins).or(ls::wins.eq(wins).and(ls::escapes.lt(escapes))).or(
                ls::wins.eq(wins).and(ls::escapes.eq(escapes)).and(ls::account_id.lt(account_id)),
            ))
            .count()
            .get_result(conn)?;
    let rank = above(conn, ladder, points)? + same_ahead + 1;
    Ok(Some(to_row(ladder, rank, raw)))
}

/// The titles of `accounts` on `ladder` (an account with no standing there has the title of a
/// newcomer: 工兵 on a four-player ladder, none on Hidden Front's, provisional).
pub fn titles(
    conn: &mut DbConn,
    ladder: LadderKind,
    accounts: &[i64],
) -> AppResult<Vec<(i64, Option<Title>)>> {
    let rows: Vec<(i64, i32, f64, f64, f64)> = ls::table
        .filter(ls::ladder.eq(ladder.as_str()))
        .filter(ls::account_id.eq_any(accounts))
        .select((ls::account_id, ls::points, ls::rating, ls::rd, ls::volatility))
        .load(conn)?;
    Ok(accounts
        .iter()
        .map(|&id| {
            let (points, rating) = rows
                .iter()
                .find(|r| r.0 == id)
                .map(|r| (r.1, Rating { rating: r.2, rd: r.3, volatility: r.4 }))
                .unwrap_or_default();
            (id, Title::on(ladder, points, rating))
        })
        .collect())
}
