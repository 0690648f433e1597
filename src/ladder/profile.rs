//! Player profiles: per-ladder standing and recent games with their results and replay links.
use super::leaderboard::{self, Row};
use super::points::{outcome_from_flags, seat_outcome};
use super::{LadderKind, Outcome};
use crate::db::schema::{accounts, game_players as gp, games, ladder_results as lr};
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::Serialize;
use siguo_rules::{Seat, Status, Variant};

/// How many recent games a profile lists.
pub const RECENT_GAMES: usize = 20;

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Profile {
    pub account_id: i64,
    pub username: String,
    pub created_at: NaiveDateTime,
    /// Standing on each ladder (`null` before the first counted game).
    pub ranked: Option<Row>,
    pub ranked_dual: Option<Row>,
    /// Hidden Front's rated ladder: rating, title, games (`rank` null until on the leaderboard)
    pub hf_ranked: Option<Row>,
    /// The `hf_ranked` rating after each rated game, oldest first (the last
    /// [`RATING_HISTORY`]): the profile's chart.
    pub rating_history: Vec<RatingPoint>,
    /// Finished games of each game (`four_player`, `hidden_front`), every kind counted.
    pub games: GameCounts,
    /// Most recent finished public games first (ranked, public casual rooms; never a private
    /// room's or a practice game).
    pub recent_games: Vec<RecentGame>,
}

/// How many points of the rating history a profile carries.
pub const RATING_HISTORY: i64 = 200;

/// The rating after one rated game.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RatingPoint {
    pub game_id: i64,
    pub at: NaiveDateTime,
    pub outcome: Outcome,
    pub rating: f64,
    pub rd: f64,
}

/// Finished games per game.
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct GameCounts {
    pub four_player: Tally,
    pub hidden_front: Tally,
}

/// Finished games of one game, and how many of them the player won, drew and lost.
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct Tally {
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecentGame {
    pub game_id: i64,
    /// ranked | ranked_dual | casual | practice
    pub kind: String,
    /// four_player | hidden_front
    #[schema(value_type = String)]
    pub variant: Variant,
    /// Seats the player held (`["N"]`, or `["N","S"]` under dual control).
    pub seats: Vec<String>,
    /// The player's result (win | draw | loss | surrender | escape).
    pub outcome: Option<Outcome>,
    /// Ladder points the game gave (`null`: the game did not count for the ladder).
    pub points: Option<i32>,
    pub finished_at: Option<NaiveDateTime>,
    /// The replay: `GET /api/games/{id}`.
    pub replay: String,
}

type GameRow = (i64, String, Option<String>, Option<NaiveDateTime>, String, bool, bool, String);

/// The profile of `username` (case-insensitive). Guests have no profile (404).
pub fn profile(conn: &mut DbConn, username: &str) -> AppResult<Profile> {
    let key = crate::auth::password::username_key(username);
    let (account_id, name, created_at, guest): (i64, String, NaiveDateTime, bool) = accounts::table
        .filter(accounts::username_key.eq(&key))
        .select((accounts::id, accounts::username, accounts::created_at, accounts::is_guest))
        .first(conn)
        .optional()?
        .ok_or(AppError::NotFound { what: "player" })?;
    if guest {
        return Err(AppError::NotFound { what: "player" });
    }
    let ranked = leaderboard::row_of(conn, LadderKind::Ranked, account_id)?;
    let ranked_dual = leaderboard::row_of(conn, LadderKind::RankedDual, account_id)?;
    let hf_ranked = leaderboard::row_of(conn, LadderKind::HfRanked, account_id)?;
    let rating_history = rating_history(conn, account_id)?;
    let recent_games = recent_games(conn, account_id)?;
    let games = game_counts(conn, account_id)?;
    Ok(Profile {
        account_id,
        username: name,
        created_at,
        ranked,
        ranked_dual,
        hf_ranked,
        rating_history,
        games,
        recent_games,
    })
}

/// The account's last public finished games, one entry per game, with its outcome and points.
fn recent_games(conn: &mut DbConn, account_id: i64) -> AppResult<Vec<RecentGame>> {
    let rows: Vec<GameRow> = gp::table
        .inner_join(games::table)
        .filter(gp::account_id.eq(account_id))
        .filter(games::state.eq("finished"))
        // a profile is public: private-room and practice games are not listed
        .filter(games::public.eq(true))
        .order((games::id.desc(), gp::seat.asc()))
        .limit(2 * RECENT_GAMES as i64)
        .select((
            games::id,
            games::kind,
            games::result,
            games::finished_at,
            gp::seat,
            gp::surrendered,
            gp::escaped,
            games::variant,
        ))
        .load(conn)?;
    // One entry per game (dual control holds two seats).
    let mut recent: Vec<(RecentGame, Option<Status>, bool, bool)> = vec![];
    for (game_id, kind, result, finished_at, seat, surrendered, escaped, variant) in rows {
        if let Some(last) = recent.last_mut().filter(|r| r.0.game_id == game_id) {
            last.0.seats.push(seat);
            last.2 |= surrendered;
            last.3 |= escaped;
            continue;
        }
        if recent.len() == RECENT_GAMES {
            break;
        }
        let status = result.and_then(|r| serde_json::from_str::<Status>(&r).ok());
        let g = RecentGame {
            game_id,
            kind,
            variant: crate::live::store::parse_variant(&variant)?,
            seats: vec![seat],
            outcome: None,
            points: None,
            finished_at,
            replay: format!("/api/games/{game_id}"),
        };
        recent.push((g, status, surrendered, escaped));
    }
    let ids: Vec<i64> = recent.iter().map(|r| r.0.game_id).collect();
    let ladder_rows: Vec<(i64, String, i32)> = lr::table
        .filter(lr::account_id.eq(account_id))
        .filter(lr::game_id.eq_any(&ids))
        .select((lr::game_id, lr::outcome, lr::points))
        .load(conn)?;
    let recent_games = recent
        .into_iter()
        .map(|(mut g, status, surrendered, escaped)| {
            if let Some((_, outcome, points)) = ladder_rows.iter().find(|r| r.0 == g.game_id) {
                g.outcome = Outcome::parse(outcome);
                g.points = Some(*points);
            } else {
                let seat = g.seats.first().and_then(|s| seat_of(s));
                g.outcome = status.zip(seat).and_then(|(st, s)| match st {
                    Status::SeatWon { .. } => seat_outcome(st, s, surrendered, escaped),
                    _ => outcome_from_flags(st, s.team(), surrendered, escaped),
                });
            }
            g
        })
        .collect();
    Ok(recent_games)
}

/// The account's `hf_ranked` rating after each of its last rated games, oldest first.
fn rating_history(conn: &mut DbConn, account_id: i64) -> AppResult<Vec<RatingPoint>> {
    type Point = (i64, NaiveDateTime, String, Option<f64>, Option<f64>);
    let rows: Vec<Point> = lr::table
        .filter(lr::account_id.eq(account_id))
        .filter(lr::ladder.eq(LadderKind::HfRanked.as_str()))
        .order((lr::created_at.desc(), lr::game_id.desc()))
        .limit(RATING_HISTORY)
        .select((lr::game_id, lr::created_at, lr::outcome, lr::rating, lr::rd))
        .load(conn)?;
    let mut points: Vec<RatingPoint> = rows
        .into_iter()
        .filter_map(|(game_id, at, outcome, rating, rd)| {
            let outcome = Outcome::parse(&outcome)?;
            Some(RatingPoint { game_id, at, outcome, rating: rating?, rd: rd? })
        })
        .collect();
    points.reverse();
    Ok(points)
}

/// Every finished game of the account, counted per game (one row per seat it held).
fn game_counts(conn: &mut DbConn, account_id: i64) -> AppResult<GameCounts> {
    let rows: Vec<(i64, String, Option<String>, String)> = gp::table
        .inner_join(games::table)
        .filter(gp::account_id.eq(account_id))
        .filter(games::state.eq("finished"))
        .select((games::id, games::variant, games::result, gp::seat))
        .load(conn)?;
    let mut counts = GameCounts::default();
    let mut seen = std::collections::HashSet::new();
    for (id, variant, result, seat) in rows {
        if !seen.insert(id) {
            continue; // dual control: one game
        }
        let tally = match crate::live::store::parse_variant(&variant)? {
            Variant::FourPlayer => &mut counts.four_player,
            Variant::HiddenFront => &mut counts.hidden_front,
        };
        let status = result.and_then(|r| serde_json::from_str::<Status>(&r).ok());
        let won = status.zip(seat_of(&seat)).and_then(|(st, s)| st.is_winner(s));
        tally.played += 1;
        match won {
            Some(true) => tally.won += 1,
            Some(false) => tally.lost += 1,
            None => tally.drawn += 1,
        }
    }
    Ok(counts)
}

fn seat_of(s: &str) -> Option<Seat> {
    Seat::ALL.into_iter().find(|x| x.letter().to_string() == s)
}
