//! Player profiles: per-ladder standing and recent games with their results and replay links.
use super::leaderboard::{self, Row};
use super::points::outcome_from_flags;
use super::{LadderKind, Outcome};
use crate::db::schema::{accounts, game_players as gp, games, ladder_results as lr};
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::Serialize;
use siguo_rules::{Seat, Status};

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
    /// Most recent finished games first.
    pub recent_games: Vec<RecentGame>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecentGame {
    pub game_id: i64,
    /// ranked | ranked_dual | casual | practice
    pub kind: String,
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

type GameRow = (i64, String, Option<String>, Option<NaiveDateTime>, String, bool, bool);

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
    let rows: Vec<GameRow> = gp::table
        .inner_join(games::table)
        .filter(gp::account_id.eq(account_id))
        .filter(games::state.eq("finished"))
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
        ))
        .load(conn)?;
    // One entry per game (dual control holds two seats).
    let mut recent: Vec<(RecentGame, Option<Status>, bool, bool)> = vec![];
    for (game_id, kind, result, finished_at, seat, surrendered, escaped) in rows {
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
                let team = g.seats.first().and_then(|s| seat_of(s)).map(Seat::team);
                g.outcome = status
                    .zip(team)
                    .and_then(|(st, t)| outcome_from_flags(st, t, surrendered, escaped));
            }
            g
        })
        .collect();
    Ok(Profile { account_id, username: name, created_at, ranked, ranked_dual, recent_games })
}

fn seat_of(s: &str) -> Option<Seat> {
    Seat::ALL.into_iter().find(|x| x.letter().to_string() == s)
}
