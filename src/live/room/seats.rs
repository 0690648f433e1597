//! Who holds which seat, who is subscribed, who is online.
use super::phase::Phase;
use super::{Room, Sub};
use crate::live::protocol::{now_ms, AckBody, ClientId, ErrorCode, ProtoError, ServerMsg};
use crate::live::{ClientTx, Who};
use siguo_rules::{Seat, SeatSet, Viewer};

/// At most one `spectators` notice per this many milliseconds.
pub(super) const SPECTATOR_NOTICE_MS: i64 = 1_000;
/// At most one notice of the seats' presence (`presence`, or `room` while waiting) caused by
/// sockets joining and leaving per this many milliseconds: a seated person's churn cannot flood
/// the others; the last notice always shows the true state.
pub(super) const PRESENCE_NOTICE_MS: i64 = 1_000;

impl Room {
    /// Subscribe a socket: ack, the room, and (once there is a game) its catch-up.
    pub(super) fn on_join(
        &mut self,
        conn: ClientTx,
        who: Who,
        id: Option<ClientId>,
        v: Option<u64>,
        by_invite: bool,
    ) {
        let a = who.account_id;
        let now = now_ms();
        self.kicked.retain(|_, until| *until > now);
        if self.kicked.contains_key(&a) {
            let e =
                ProtoError::new(ErrorCode::KickedRecently, "the host removed you from this room");
            conn.send(&ServerMsg::error(&id, &e));
            return;
        }
        if !self.may_enter(a, by_invite) {
            // the same answer as for a room that does not exist: private ids are not probed
            let e = ProtoError::new(ErrorCode::NotFound, "no such room");
            conn.send(&ServerMsg::error(&id, &e));
            return;
        }
        let first = !self.subs.values().any(|s| s.who.account_id == a);
        let seated = self.seats_of_account(a).next().is_some();
        let max = self.live.config().max_spectators;
        if first && !seated && self.host != Some(a) && self.spectator_count() >= max {
            let e = ProtoError::new(
                ErrorCode::RoomFull,
                "this room has as many spectators as it admits",
            );
            conn.send(&ServerMsg::error(&id, &e));
            return;
        }
        self.names.insert(a, who.name.clone());
        // subscribed first, so that the room and snapshot frames already show this seat online
        self.subs.insert(conn.conn_id, Sub { who, tx: conn.clone(), seen: None });
        if id.is_some() {
            let body = AckBody::Joined {
                room: self.id.clone(),
                game: self.phase.game_id(),
                v: self.history.v(),
            };
            conn.send(&ServerMsg::Ack(ServerMsg::ack(&id, body)));
        }
        conn.send(&self.room_msg(a));
        if !matches!(self.phase, Phase::Waiting(_)) {
            match v {
                Some(v) => self.resync_to(&conn, a, v),
                None => conn.send(&self.snapshot(a)),
            }
            self.holds_current(conn.conn_id);
        }
        if let Phase::Waiting(l) = &mut self.phase {
            l.empty_since = None;
        }
        // a seat's presence is news for everyone; a spectator only changes a (throttled) count
        if first && seated {
            self.presence_changed();
        } else if first {
            self.spectators_changed();
        }
        self.update_summary();
    }

    /// Who may subscribe: anyone to a public casual room or a ranked game; to a private room
    /// or a practice game only its host, its seated people and whoever presented its invite.
    pub(super) fn may_enter(&mut self, account_id: i64, by_invite: bool) -> bool {
        if self.kind.open_to_all(self.public)
            || self.may_see_invite(account_id)
            || self.admitted.contains(&account_id)
        {
            return true;
        }
        if by_invite && self.invite.is_some() {
            self.admitted.insert(account_id);
            return true;
        }
        false
    }

    /// Who may enter a room that is not open to all: its host, its seated people and whoever
    /// presented its invite (sorted); `None` for a room open to all.
    pub(super) fn members(&self) -> Option<Vec<i64>> {
        if self.kind.open_to_all(self.public) {
            return None;
        }
        let mut m: Vec<i64> = self.host.into_iter().chain(self.admitted.iter().copied()).collect();
        m.extend(self.seats().iter().filter_map(|s| self.phase.account_at(*s)));
        m.sort_unstable();
        m.dedup();
        Some(m)
    }

    /// The invite code goes only to the host and the seated people.
    pub(super) fn may_see_invite(&self, account_id: i64) -> bool {
        self.host == Some(account_id) || self.seats_of_account(account_id).next().is_some()
    }

    pub(super) fn after_unsubscribe(&mut self, who: &Who) {
        if !self.subs.values().any(|s| s.who.account_id == who.account_id) {
            if self.seats_of_account(who.account_id).next().is_some() {
                self.presence_changed();
            } else {
                self.spectators_changed();
            }
        }
        if self.subs.is_empty() {
            if let Phase::Waiting(l) = &mut self.phase {
                l.empty_since = Some(now_ms());
            }
        }
        self.update_summary();
    }

    /// Note who went offline (and since when), then tell everyone.
    pub(super) fn presence_changed(&mut self) {
        let now = now_ms();
        let online: Vec<(Seat, bool)> =
            self.seats().iter().map(|s| (*s, self.online(*s))).collect();
        for (s, online) in online {
            let slot = match &mut self.phase {
                Phase::Waiting(l) => l.seats[s].as_mut().map(|x| (&x.occ, &mut x.offline_since)),
                other => other
                    .table_mut()
                    .and_then(|t| t.players[s].as_mut())
                    .map(|p| (&p.occ, &mut p.offline_since)),
            };
            if let Some((occ, offline_since)) = slot {
                if occ.account_id().is_some() {
                    if online {
                        *offline_since = None;
                    } else if offline_since.is_none() {
                        *offline_since = Some(now);
                    }
                }
            }
        }
        if self.take_back_returned() {
            self.broadcast_room();
        }
        let (sent_at, due) = self.presence_told;
        if due.is_none() {
            self.presence_told.1 = Some(now.max(sent_at + PRESENCE_NOTICE_MS));
        }
        self.send_presence_if_due(now);
    }

    /// Tell everyone who is online if a notice is due (the room's timer sends a delayed one);
    /// a waiting room sends the whole `room`, a game `presence` (unless nothing changed since
    /// the last one).
    pub(super) fn send_presence_if_due(&mut self, now: i64) {
        if self.presence_told.1.is_none_or(|d| d > now) {
            return;
        }
        self.presence_told = (now, None);
        if matches!(self.phase, Phase::Waiting(_)) {
            self.broadcast_room();
        } else {
            self.broadcast_presence();
        }
    }

    /// The spectator count changed: tell everyone now, or when the last notice is
    /// [`SPECTATOR_NOTICE_MS`] old (the room's timer sends it).
    pub(super) fn spectators_changed(&mut self) {
        let now = now_ms();
        let (_, sent_at, due) = self.spectators_told;
        if due.is_none() {
            self.spectators_told.2 = Some(now.max(sent_at + SPECTATOR_NOTICE_MS));
        }
        self.send_spectators_if_due(now);
    }

    /// Send the spectator count if a notice is due and the count differs from the last one.
    pub(super) fn send_spectators_if_due(&mut self, now: i64) {
        let (told, _, due) = self.spectators_told;
        if due.is_none_or(|d| d > now) {
            return;
        }
        let count = self.spectator_count();
        if count != told {
            self.send_all(&ServerMsg::Spectators { room: self.id.clone(), count });
        }
        self.spectators_told = (count, now, None);
    }

    pub(super) fn no_people(&self) -> bool {
        self.subs.is_empty() && !self.seats().iter().any(|s| self.phase.account_at(*s).is_some())
    }

    pub(super) fn seats_of_account(&self, account_id: i64) -> impl Iterator<Item = Seat> + '_ {
        self.seats().iter().copied().filter(move |s| self.phase.account_at(*s) == Some(account_id))
    }

    fn seat_set(&self, account_id: i64) -> Option<SeatSet> {
        self.seats_of_account(account_id)
            .fold(None, |set: Option<SeatSet>, s| Some(set.map_or(SeatSet::one(s), |x| x.with(s))))
    }

    pub(super) fn viewer(&self, account_id: i64) -> Viewer {
        match self.seat_set(account_id) {
            Some(s) => Viewer::Seats(s),
            None => Viewer::Spectator,
        }
    }

    /// The seats an account holds, or `not_your_seat`.
    pub(super) fn held_seats(&self, who: &Who) -> Result<Vec<Seat>, ProtoError> {
        let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
        if mine.is_empty() {
            return Err(ProtoError::new(
                ErrorCode::NotYourSeat,
                "you do not hold a seat in this game",
            ));
        }
        Ok(mine)
    }

    /// The seat an action is for: the named one (must be yours), or your only seat.
    pub(super) fn my_seat(&self, who: &Who, seat: Option<Seat>) -> Result<Seat, ProtoError> {
        let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
        match seat {
            Some(s) if mine.contains(&s) => Ok(s),
            Some(s) => Err(ProtoError::new(
                ErrorCode::NotYourSeat,
                format!("you do not control seat {}", s.letter()),
            )),
            None => match mine.as_slice() {
                [s] => Ok(*s),
                [] => Err(ProtoError::new(
                    ErrorCode::NotYourSeat,
                    "you do not hold a seat in this room",
                )),
                _ => Err(ProtoError::new(
                    ErrorCode::BadMessage,
                    "you control two seats: say which one (\"seat\")",
                )),
            },
        }
    }

    /// A bot is always online; a person when one of their sockets is subscribed.
    pub(super) fn online(&self, seat: Seat) -> bool {
        match self.phase.occupant(seat) {
            None => false,
            Some(occ) => match occ.account_id() {
                None => true,
                Some(a) => self.subs.values().any(|s| s.who.account_id == a),
            },
        }
    }

    pub(super) fn need_host(&self, who: &Who) -> Result<(), ProtoError> {
        if self.host == Some(who.account_id) {
            Ok(())
        } else {
            Err(ProtoError::new(ErrorCode::NotHost, "only the host may do that"))
        }
    }

    pub(super) fn need_not_escaped(&self, seat: Seat) -> Result<(), ProtoError> {
        if self.phase.escaped(seat) {
            Err(ProtoError::new(ErrorCode::Escaped, "this seat has escaped; its turns are skipped"))
        } else {
            Ok(())
        }
    }

    pub(super) fn host_name(&self) -> Option<String> {
        let h = self.host?;
        if let Some(name) = self.names.get(&h) {
            return Some(name.clone());
        }
        let subscribed = self.subs.values().find(|s| s.who.account_id == h);
        subscribed.map(|s| s.who.name.clone()).or_else(|| {
            self.seats().iter().find_map(|s| match self.phase.occupant(*s) {
                Some(crate::live::SeatOccupant::Account { account_id, name, .. })
                    if *account_id == h =>
                {
                    Some(name.clone())
                }
                _ => None,
            })
        })
    }

    pub(super) fn spectator_count(&self) -> usize {
        let mut ids: Vec<i64> = self
            .subs
            .values()
            .map(|s| s.who.account_id)
            .filter(|a| self.seats_of_account(*a).next().is_none())
            .collect();
        ids.sort();
        ids.dedup();
        ids.len()
    }
}
