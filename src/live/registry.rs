//! The rooms of this node: every index of them under one lock (room id → task handle, invite
//! code → room, game id → room, the lobby's summaries, who sits where for `hello`, and the rooms
//! each account holds for its cap), so that no index is ever half updated.
use super::protocol::{LiveGameSummary, RoomSummary, SeatedRoom};
use super::room::RoomHandle;
use super::Seated;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Mutex;

#[derive(Default)]
struct State {
    rooms: HashMap<String, RoomHandle>,
    invites: HashMap<String, String>,
    games: HashMap<i64, String>,
    summaries: HashMap<String, RoomSummary>,
    /// room id → its game in progress, for the lobby's list of games to watch
    live_games: HashMap<String, LiveGameSummary>,
    /// room id → who sits there, for `hello`
    seated: HashMap<String, Seated>,
    /// account → the rooms it holds (waiting rooms it created, practice games), for the cap
    owned: HashMap<i64, HashSet<String>>,
    /// client address → the rooms made from it, and each such room's address
    owned_ip: (HashMap<IpAddr, HashSet<String>>, HashMap<String, IpAddr>),
}

/// The room registry of this node.
pub(crate) struct Registry {
    state: Mutex<State>,
    /// rooms an account, and a client address, may hold at once (`live.max_rooms_per_account`,
    /// `live.max_rooms_per_ip`)
    max_rooms: (usize, usize),
}

impl Registry {
    pub fn new(max_rooms: (usize, usize)) -> Registry {
        Registry { state: Mutex::default(), max_rooms }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // a panic while holding this lock leaves plain maps behind: keep serving them
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Add a room (its invite code and game, if any); returns the number of games here.
    pub fn register(
        &self,
        id: &str,
        invite: Option<&str>,
        game: Option<i64>,
        h: RoomHandle,
    ) -> usize {
        let mut s = self.state();
        s.rooms.insert(id.to_string(), h);
        if let Some(inv) = invite {
            s.invites.insert(inv.to_string(), id.to_string());
        }
        if let Some(g) = game {
            s.games.insert(g, id.to_string());
        }
        s.games.len()
    }
    /// Room `id` plays game `game` now; returns the number of games here.
    pub fn set_game(&self, id: &str, game: i64) -> usize {
        let mut s = self.state();
        s.games.insert(game, id.to_string());
        s.games.len()
    }
    /// A game that ended unplayed is no longer found by its id; returns the number of games.
    pub fn forget_game(&self, game: i64) -> usize {
        let mut s = self.state();
        s.games.remove(&game);
        s.games.len()
    }
    /// Remove a room and everything that points to it; returns the number of games here.
    pub fn unregister(&self, id: &str, invite: Option<&str>, game: Option<i64>) -> usize {
        let mut s = self.state();
        s.rooms.remove(id);
        s.summaries.remove(id);
        s.live_games.remove(id);
        s.seated.remove(id);
        if let Some(inv) = invite {
            s.invites.remove(inv);
        }
        if let Some(g) = game {
            s.games.remove(&g);
        }
        s.games.len()
    }
    /// Forget every room (the server stops).
    pub fn clear_rooms(&self) {
        self.state().rooms.clear();
    }
    pub fn room(&self, id: &str) -> Option<RoomHandle> {
        self.state().rooms.get(id).cloned()
    }
    pub fn room_by_invite(&self, invite: &str) -> Option<String> {
        self.state().invites.get(&invite.to_uppercase()).cloned()
    }
    pub fn room_by_game(&self, game: i64) -> Option<String> {
        self.state().games.get(&game).cloned()
    }
    /// The lobby entry of a public waiting room (`None` removes it).
    pub fn set_summary(&self, id: &str, summary: Option<RoomSummary>) {
        let mut s = self.state();
        match summary {
            Some(v) => s.summaries.insert(id.to_string(), v),
            None => s.summaries.remove(id),
        };
    }
    /// Open public rooms (phase `waiting`), oldest first.
    pub fn open_rooms(&self) -> Vec<RoomSummary> {
        let mut v: Vec<RoomSummary> = self.state().summaries.values().cloned().collect();
        v.sort_by_key(|r| r.created);
        v
    }
    /// The lobby entry of a game anyone may watch (`None` removes it).
    pub fn set_live_game(&self, id: &str, game: Option<LiveGameSummary>) {
        let mut s = self.state();
        match game {
            Some(g) => s.live_games.insert(id.to_string(), g),
            None => s.live_games.remove(id),
        };
    }
    /// Games in progress anyone may watch, oldest first.
    pub fn live_games(&self) -> Vec<LiveGameSummary> {
        let mut v: Vec<LiveGameSummary> = self.state().live_games.values().cloned().collect();
        v.sort_by_key(|g| (g.created, g.game));
        v
    }
    /// Record who sits in a room (`None`: nobody to list, e.g. finished).
    pub fn set_seated(&self, id: &str, seated: Option<Seated>) {
        let mut s = self.state();
        match seated {
            Some(x) => s.seated.insert(id.to_string(), x),
            None => s.seated.remove(id),
        };
    }
    /// Rooms where `account_id` holds a seat and the game is not finished (for `hello`).
    pub fn rooms_of(&self, account_id: i64) -> Vec<SeatedRoom> {
        let s = self.state();
        let mut out = vec![];
        for (seats, room) in s.seated.values() {
            let mine: Vec<_> =
                seats.iter().filter(|(a, _)| *a == account_id).map(|(_, s)| *s).collect();
            if !mine.is_empty() {
                out.push(SeatedRoom { seats: mine, ..room.clone() });
            }
        }
        out
    }

    // ---- the rooms an account holds (live.max_rooms_per_account) ----

    /// Count room `id` against `account_id`'s rooms (and those made from `ip`), or
    /// `too_many_rooms`.
    pub fn claim_room(&self, account_id: i64, ip: Option<IpAddr>, id: &str) -> AppResult<()> {
        let mut s = self.state();
        rooms_left(self.max_rooms.0, s.owned.get(&account_id).map_or(0, |m| m.len()))?;
        if let Some(ip) = ip {
            if s.owned_ip.0.get(&ip).map_or(0, |m| m.len()) >= self.max_rooms.1 {
                return Err(too_many_rooms_from_address(self.max_rooms.1));
            }
            s.owned_ip.0.entry(ip).or_default().insert(id.to_string());
            s.owned_ip.1.insert(id.to_string(), ip);
        }
        s.owned.entry(account_id).or_default().insert(id.to_string());
        Ok(())
    }
    /// Count room `id` against `account_id`'s rooms whatever their number (a game restored
    /// after a restart or a failover: it was counted when it was made).
    pub fn count_room(&self, account_id: i64, id: &str) {
        self.state().owned.entry(account_id).or_default().insert(id.to_string());
    }
    /// The place held as `key` now counts as room `id`.
    pub fn rename_room(&self, account_id: i64, key: &str, id: &str) {
        let mut s = self.state();
        let mine = s.owned.entry(account_id).or_default();
        mine.remove(key);
        mine.insert(id.to_string());
        if let Some(ip) = s.owned_ip.1.remove(key) {
            s.owned_ip.1.insert(id.to_string(), ip);
            let from_ip = s.owned_ip.0.entry(ip).or_default();
            from_ip.remove(key);
            from_ip.insert(id.to_string());
        }
    }
    /// Room `id` no longer counts against its owner (finished or closed).
    pub fn release_room(&self, account_id: i64, id: &str) {
        let mut s = self.state();
        if let Some(m) = s.owned.get_mut(&account_id) {
            m.remove(id);
            if m.is_empty() {
                s.owned.remove(&account_id);
            }
        }
        if let Some(ip) = s.owned_ip.1.remove(id) {
            if let Some(m) = s.owned_ip.0.get_mut(&ip) {
                m.remove(id);
                if m.is_empty() {
                    s.owned_ip.0.remove(&ip);
                }
            }
        }
    }
    /// How many rooms `account_id` holds here, and how many were made here from `ip`.
    pub fn rooms_held(&self, account_id: i64, ip: Option<IpAddr>) -> (usize, usize) {
        let s = self.state();
        let from_ip = ip.and_then(|ip| s.owned_ip.0.get(&ip)).map_or(0, |m| m.len());
        (s.owned.get(&account_id).map_or(0, |m| m.len()), from_ip)
    }
}

/// `too_many_rooms` when `n` rooms of `max` are already open.
fn rooms_left(max: usize, n: usize) -> AppResult<()> {
    if n >= max {
        return Err(too_many_rooms(max));
    }
    Ok(())
}

/// `too_many_rooms`: `max` rooms or practice games made from this client address are open.
pub(crate) fn too_many_rooms_from_address(max: usize) -> AppError {
    AppError::conflict(
        ErrorCode::TooManyRooms,
        format!("{max} rooms or practice games made from your address are open already"),
    )
}

/// `too_many_rooms`: `max` rooms or practice games are open already.
pub(crate) fn too_many_rooms(max: usize) -> AppError {
    AppError::conflict(
        ErrorCode::TooManyRooms,
        format!("you already have {max} rooms or practice games open"),
    )
}
