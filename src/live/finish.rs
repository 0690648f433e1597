//! The end of a game: what the ladder needs to know, and the hook it fills.
//!
//! [`on_game_finished`] is called **inside the same database transaction** that writes the game's
//! final state (`games.state = 'finished'`, `result`, `finished_at`, and the `escaped` /
//! `surrendered` flags of `game_players`). If it returns an error the whole transaction rolls back
//! and the game task retries, so the ladder's writes and the final state are committed together,
//! exactly once (the ladder should still key its rows by (game_id, account_id)). It answers with
//! the results the ladder holds for the game, per seat ([`GameResults`]): the room sends them in
//! the update that ends the game. They are read back from the ladder's rows, so a retried or
//! repeated finish reports the same points as the first.
use super::protocol::{GameResults, SeatResult};
use super::GameKind;
use crate::db::DbConn;
use crate::error::AppResult;
use crate::ladder::record::Recorded;
use serde::Serialize;
use siguo_bots::Level;
use siguo_rules::{BySeat, Seat, Status};
use std::sync::{Arc, Mutex};

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
    /// Every seat (those a variant does not play are empty: no account, no bot).
    pub seats: BySeat<FinishedSeat>,
}

/// Called with the final result inside the transaction that writes the game's final state.
/// The ladder fills this in (ranked results, points); it must ignore games that do not count.
/// Returns the applied results per seat, `None` for a game that does not count.
pub fn on_game_finished(conn: &mut DbConn, game: &FinishedGame) -> AppResult<Option<GameResults>> {
    let recorded = crate::ladder::record_result(conn, game)?;
    Ok(seat_results(game, &recorded))
}

/// Each seat's result: the result of the account that held it (both seats of a team under dual
/// control have their account's). `None` unless the game counted.
pub fn seat_results(game: &FinishedGame, recorded: &Recorded) -> Option<GameResults> {
    let rated = recorded.ladder?.is_rated();
    let results = game
        .seats
        .iter()
        .filter_map(|(seat, s)| {
            let r = recorded.results.iter().find(|r| Some(r.account_id) == s.account_id)?;
            let rating = r.rating.filter(|_| rated);
            let rating_change =
                rating.zip(r.rating_before).map(|(after, before)| after.rating - before);
            let (outcome, points, rating) = (r.outcome, r.points, rating.map(Into::into));
            Some((seat, SeatResult { outcome, points, rating, rating_change }))
        })
        .collect();
    Some(results)
}

/// Where a finishing write leaves the results it applied, for the room to send once the write
/// committed. A write may run more than once (a group commit that failed is run again write by
/// write): each run replaces what the one before left, so the committed run's answer stays.
#[derive(Clone, Debug, Default)]
pub struct ResultsSlot(Arc<Mutex<Option<GameResults>>>);

impl ResultsSlot {
    pub fn put(&self, results: Option<GameResults>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = results;
    }

    pub fn take(&self) -> Option<GameResults> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
