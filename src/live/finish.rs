//! The end of a game: what the ladder needs to know, and the hook it fills.
//!
//! [`on_game_finished`] is called **inside the same database transaction** that writes the game's
//! final state (`games.state = 'finished'`, `result`, `finished_at`, and the `escaped` /
//! `surrendered` flags of `game_players`). If it returns an error the whole transaction rolls back
//! and the game task retries, so the ladder's writes and the final state are committed together,
//! exactly once (the ladder should still key its rows by (game_id, account_id)).
use super::GameKind;
use crate::db::DbConn;
use crate::error::AppResult;
use serde::Serialize;
use siguo_bots::Level;
use siguo_rules::{Seat, Status};

/// One seat at the end of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinishedSeat {
    pub seat: Seat,
    /// `None` for a bot.
    pub account_id: Option<i64>,
    pub guest: bool,
    pub bot: Option<Level>,
    /// Left a ranked game, or stayed away longer than `reconnect_seconds` (ranked only).
    pub escaped: bool,
    pub surrendered: bool,
}

/// A finished game, as passed to [`on_game_finished`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinishedGame {
    pub game_id: i64,
    pub kind: GameKind,
    /// `Won { winner, .. }` or `Draw { .. }` (never `Ongoing`).
    pub status: Status,
    /// Whether the battle phase was reached (ladder.md: only then does a game count).
    pub reached_battle: bool,
    /// Index = `Seat::index()` (N, E, S, W).
    pub seats: [FinishedSeat; 4],
}

/// Called with the final result inside the transaction that writes the game's final state.
/// The ladder fills this in (ranked results, points); it must ignore games that do not count.
pub fn on_game_finished(conn: &mut DbConn, game: &FinishedGame) -> AppResult<()> {
    crate::ladder::record_result(conn, game).map(|_| ())
}
