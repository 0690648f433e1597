//! A waiting room's actions: seats, bots, kick, ready, leaving, and the start.
use super::phase::{Phase, Slot};
use super::{Answer, Room};
use crate::live::protocol::{AckBody, ErrorCode, ProtoError, ServerMsg};
use crate::live::{SeatOccupant, Who};
use siguo_bots::Level;
use siguo_rules::Seat;

const DONE: Answer = Ok(Some(AckBody::Empty {}));

/// A kicked person may not come back into that room for this long.
pub(super) const KICK_BAN_MS: i64 = 10 * 60_000;

impl Room {
    pub(super) fn take_seat(&mut self, who: &Who, seat: Seat) -> Answer {
        self.need_seat(seat)?;
        let one_seat_each = !self.variant.is_four_player();
        let lobby = self.phase.lobby_mut()?;
        match lobby.seats[seat].as_ref() {
            Some(sl) if sl.occ.account_id() == Some(who.account_id) => return DONE,
            Some(_) => return Err(ProtoError::new(ErrorCode::SeatTaken, "that seat is taken")),
            None => {}
        }
        // holding a seat of the other team (Hidden Front: any other seat): switch
        for (s, slot) in lobby.seats.iter_mut() {
            let mine = slot.as_ref().and_then(|x| x.occ.account_id()) == Some(who.account_id);
            if (one_seat_each || s.team() != seat.team()) && mine {
                *slot = None;
            }
        }
        let occ = SeatOccupant::Account {
            account_id: who.account_id,
            name: who.name.clone(),
            guest: who.guest,
        };
        lobby.seats[seat] = Some(Slot { occ, ready: false, offline_since: None });
        self.clear_ready();
        self.broadcast_room();
        DONE
    }

    pub(super) fn leave_seat(&mut self, who: &Who, seat: Seat) -> Answer {
        self.need_seat(seat)?;
        let lobby = self.phase.lobby_mut()?;
        if lobby.seats[seat].as_ref().and_then(|s| s.occ.account_id()) != Some(who.account_id) {
            return Err(ProtoError::new(ErrorCode::NotYourSeat, "that is not your seat"));
        }
        lobby.seats[seat] = None;
        self.clear_ready();
        self.broadcast_room();
        DONE
    }

    pub(super) async fn add_bot(&mut self, who: &Who, seat: Seat, level: Option<Level>) -> Answer {
        self.need_seat(seat)?;
        self.phase.lobby_mut()?;
        self.need_host(who)?;
        let lobby = self.phase.lobby_mut()?;
        if lobby.seats[seat].is_some() {
            return Err(ProtoError::new(ErrorCode::SeatTaken, "that seat is taken"));
        }
        let occ = SeatOccupant::Bot { level: level.unwrap_or(Level::Standard) };
        lobby.seats[seat] = Some(Slot { occ, ready: true, offline_since: None });
        self.broadcast_room();
        self.maybe_start().await?;
        DONE
    }

    pub(super) fn remove_bot(&mut self, who: &Who, seat: Seat) -> Answer {
        self.need_seat(seat)?;
        self.phase.lobby_mut()?;
        self.need_host(who)?;
        let lobby = self.phase.lobby_mut()?;
        match lobby.seats[seat].as_ref().map(|s| &s.occ) {
            Some(SeatOccupant::Bot { .. }) => lobby.seats[seat] = None,
            _ => return Err(ProtoError::new(ErrorCode::SeatEmpty, "there is no bot on that seat")),
        }
        self.broadcast_room();
        DONE
    }

    pub(super) fn kick(&mut self, who: &Who, seat: Seat) -> Answer {
        self.need_seat(seat)?;
        self.phase.lobby_mut()?;
        self.need_host(who)?;
        let lobby = self.phase.lobby_mut()?;
        let Some(slot) = lobby.seats[seat].take() else {
            return Err(ProtoError::new(ErrorCode::SeatEmpty, "nobody sits there"));
        };
        if let Some(a) = slot.occ.account_id() {
            self.kicked.insert(a, crate::live::protocol::now_ms() + KICK_BAN_MS);
            self.admitted.remove(&a);
            self.free_seats_of(a);
            let kicked: Vec<u64> =
                self.subs.iter().filter(|(_, s)| s.who.account_id == a).map(|(k, _)| *k).collect();
            for k in kicked {
                if let Some(s) = self.subs.remove(&k) {
                    s.tx.send(&ServerMsg::Kicked { room: self.id.clone() });
                }
            }
        }
        self.clear_ready();
        self.broadcast_room();
        DONE
    }

    pub(super) async fn set_ready(&mut self, who: &Who, ready: bool) -> Answer {
        let lobby = self.phase.lobby_mut()?;
        let mut any = false;
        for slot in lobby.seats.values_mut().flatten() {
            if slot.occ.account_id() == Some(who.account_id) {
                slot.ready = ready;
                any = true;
            }
        }
        if !any {
            return Err(ProtoError::new(ErrorCode::NotYourSeat, "take a seat first"));
        }
        self.broadcast_room();
        self.maybe_start().await?;
        DONE
    }

    /// `leave_room`: unsubscribe; in a waiting room also free the seats (and pass the host
    /// on); in a ranked game, an escape; in a Hidden Front room during deployment, an
    /// unconfirmed seat is lost and the room waits again.
    pub(super) async fn leave(&mut self, conn_id: u64, who: &Who) -> Answer {
        if self.seat_lost_when_gone() {
            let gone = self.unconfirmed_away(Some(who.account_id));
            if !gone.is_empty() {
                self.reopen_seats(&gone).await?;
            }
        }
        match &self.phase {
            Phase::Waiting(_) => {
                self.free_seats_of(who.account_id);
                self.clear_ready();
                if self.host == Some(who.account_id) {
                    self.host = self.next_host(who.account_id);
                }
            }
            Phase::Deploying(_) | Phase::Battle(_) if self.kind.is_ranked() => {
                let game = self.phase.game();
                let mine: Vec<Seat> = self
                    .seats_of_account(who.account_id)
                    .filter(|s| !self.phase.escaped(*s))
                    .filter(|s| !game.is_some_and(|g| g.is_eliminated(*s)))
                    .collect();
                if !mine.is_empty() {
                    self.escape(&mine).await?;
                }
            }
            _ => {}
        }
        let ip = self.subs.get(&conn_id).map(|s| s.tx.ip);
        if let Some(s) = self.subs.remove(&conn_id) {
            self.after_unsubscribe(&s.who);
        }
        if matches!(self.phase, Phase::Finished(_)) {
            // the leaver has left whatever comes of it: a rematch refused now (too many rooms)
            // is for those who stay to ask again
            if let Err(e) = self.rematch_leave(who.account_id, ip).await {
                tracing::debug!(room = %self.id, code = ?e.code, "rematch after a leave refused");
                self.broadcast_room();
            }
        }
        if matches!(self.phase, Phase::Waiting(_)) {
            self.broadcast_room();
            if self.no_people() {
                self.close();
            }
        }
        DONE
    }

    /// The first seated person, else any other subscriber.
    fn next_host(&self, leaving: i64) -> Option<i64> {
        let seated = self.seats().iter().find_map(|s| self.phase.account_at(*s));
        seated.or_else(|| self.subs.values().map(|s| s.who.account_id).find(|a| *a != leaving))
    }

    fn free_seats_of(&mut self, account_id: i64) {
        if let Phase::Waiting(l) = &mut self.phase {
            for slot in l.seats.values_mut() {
                if slot.as_ref().and_then(|x| x.occ.account_id()) == Some(account_id) {
                    *slot = None;
                }
            }
        }
    }

    fn clear_ready(&mut self) {
        if let Phase::Waiting(l) = &mut self.phase {
            for s in l.seats.values_mut().flatten() {
                if s.occ.account_id().is_some() {
                    s.ready = false;
                }
            }
        }
    }

    /// Start when every seat of the game is filled (four, or Hidden Front's two), one of them
    /// by a person, and every seat is ready.
    async fn maybe_start(&mut self) -> Result<(), ProtoError> {
        let Phase::Waiting(l) = &self.phase else { return Ok(()) };
        let slots: Vec<&Slot> = self.seats().iter().filter_map(|s| l.seats[*s].as_ref()).collect();
        if slots.len() < self.seats().len() {
            return Ok(());
        }
        let people = slots.iter().filter(|s| s.occ.account_id().is_some()).count();
        if people == 0 || !slots.iter().all(|s| s.ready) {
            return Ok(());
        }
        self.begin_deployment().await?;
        if let Some(game) = self.phase.game_id() {
            self.live.set_game(&self.id, game);
        }
        self.update_summary();
        for s in self.subs.values() {
            s.tx.send(&self.room_msg(s.who.account_id));
            s.tx.send(&self.snapshot(s.who.account_id));
        }
        Ok(())
    }
}
