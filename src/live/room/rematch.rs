//! 再来一局 (rematch): after a casual or practice game, the people at the table ask for another.
//! When every person still in the room has asked — or the host starts it with those who asked —
//! the same room plays a new game with the same seats (bots stay, and take the seats of the
//! people who did not ask) and a new deployment.
use super::phase::{Lobby, Phase, Slot};
use super::{Answer, Room};
use crate::live::protocol::{AckBody, ErrorCode, ProtoError};
use crate::live::{SeatOccupant, Who};
use siguo_bots::Level;
use siguo_rules::{BySeat, Seat};
use std::net::IpAddr;

impl Room {
    /// `rematch`: ask for another game (`start`: the host starts it now with those who asked).
    /// `ip`: the address of the socket that asked (the new game counts against the host's rooms
    /// and the host's address, or this one when the host is not here).
    pub(super) async fn rematch(&mut self, who: &Who, ip: IpAddr, start: bool) -> Answer {
        if self.kind.is_ranked() {
            return Err(ProtoError::new(
                ErrorCode::CasualOnly,
                "a ranked game has no rematch: queue again",
            ));
        }
        if !matches!(self.phase, Phase::Finished(_)) {
            return Err(ProtoError::new(
                ErrorCode::WrongPhase,
                "a rematch is asked for once the game is over",
            ));
        }
        let mine = self.held_seats(who)?;
        if start {
            self.need_host(who)?;
        }
        if let Phase::Finished(f) = &mut self.phase {
            f.rematch = mine.iter().fold(f.rematch, |set, s| set.with(*s));
        }
        if start || self.everyone_asked() {
            self.start_rematch(Some(ip)).await?;
        } else {
            self.broadcast_room();
        }
        Ok(Some(AckBody::Empty {}))
    }

    /// Every person at the table who is still here has asked for another game (and someone has).
    fn everyone_asked(&self) -> bool {
        let Phase::Finished(f) = &self.phase else { return false };
        let people: Vec<(Seat, i64)> =
            self.seats().iter().filter_map(|s| Some((*s, self.phase.account_at(*s)?))).collect();
        let staying: Vec<Seat> =
            people.iter().filter(|(_, a)| !f.gone.contains(a)).map(|(s, _)| *s).collect();
        !staying.is_empty() && staying.iter().all(|s| f.rematch.contains(*s))
    }

    /// A person left the finished room: no rematch waits for them; the host passes to a person
    /// still at the table; if everyone left has asked, the new game starts.
    pub(super) async fn rematch_leave(
        &mut self,
        account_id: i64,
        ip: Option<IpAddr>,
    ) -> Result<(), ProtoError> {
        let seated: Vec<Seat> = self.seats_of_account(account_id).collect();
        let Phase::Finished(f) = &mut self.phase else { return Ok(()) };
        if seated.is_empty() || self.kind.is_ranked() {
            return Ok(());
        }
        f.gone.push(account_id);
        let gone = f.gone.clone();
        if self.host == Some(account_id) {
            let next = self.seats().iter().filter_map(|s| self.phase.account_at(*s));
            self.host = next.into_iter().find(|a| !gone.contains(a));
        }
        if self.everyone_asked() {
            self.start_rematch(ip).await?;
        }
        Ok(())
    }

    /// The seats those who asked keep (the others get a standard bot), as a waiting room whose
    /// seats are all ready: the new game's deployment begins at once.
    ///
    /// The new game is a room like any other: it counts against its host's rooms and the host's
    /// address (`live.max_rooms_per_account`, `live.max_rooms_per_ip`, on every node together),
    /// held before anything changes, and a rematch beyond them is refused `too_many_rooms`.
    async fn start_rematch(&mut self, ip: Option<IpAddr>) -> Result<(), ProtoError> {
        if !matches!(self.phase, Phase::Finished(_)) {
            return Err(ProtoError::new(ErrorCode::WrongPhase, "the game is not over"));
        }
        let reserved = match (self.host, self.owner) {
            (Some(h), None) => {
                // the host's address if the host is here, else the asker's (or anyone's here)
                let host_ip = self.subs.values().find(|s| s.who.account_id == h).map(|s| s.tx.ip);
                let any_ip = self.subs.values().next().map(|s| s.tx.ip);
                let Some(at) = host_ip.or(ip).or(any_ip) else {
                    return Err(ProtoError::new(ErrorCode::WrongPhase, "nobody is here to play"));
                };
                Some((h, self.live.reserve_room(h, at).await?))
            }
            _ => None,
        };
        let Phase::Finished(f) = std::mem::take(&mut self.phase) else {
            return Err(ProtoError::new(ErrorCode::WrongPhase, "the game is not over"));
        };
        let old_game = f.table.game_id;
        let seats = BySeat::from_fn(|s| {
            let p = f.table.players[s].as_ref()?;
            let occ = match &p.occ {
                SeatOccupant::Account { .. } if !f.rematch.contains(s) => {
                    SeatOccupant::Bot { level: Level::Standard }
                }
                occ => occ.clone(),
            };
            let offline_since = p.offline_since.filter(|_| occ.account_id().is_some());
            Some(Slot { occ, ready: true, offline_since })
        });
        self.phase = Phase::Waiting(Lobby { seats, empty_since: None });
        self.live.forget_game(old_game);
        self.begin_deployment().await?;
        if let Some(game) = self.phase.game_id() {
            self.live.set_game(&self.id, game);
        }
        if let Some((h, r)) = reserved {
            // the room counts against its host again while its game is played
            self.live.replace_room(r, &self.id);
            self.owner = Some(h);
        }
        self.update_summary();
        for s in self.subs.values() {
            s.tx.send(&self.room_msg(s.who.account_id));
            s.tx.send(&self.snapshot(s.who.account_id));
        }
        Ok(())
    }

    /// The seats that asked for a rematch, for the `room` frame (a finished casual or practice
    /// game; `None` otherwise).
    pub(super) fn rematch_seats(&self) -> Option<Vec<Seat>> {
        match &self.phase {
            Phase::Finished(f) if !self.kind.is_ranked() => Some(f.rematch.seats().collect()),
            _ => None,
        }
    }
}
