//! Every message a room sends, built as a typed [`ServerMsg`] for its receiver.
use super::history::Catchup;
use super::phase::Phase;
use super::views::Body;
use super::{Answer, Room};
use crate::live::protocol::{
    now_ms, seat_map, AckBody, ClientId, Clock, DeploymentMsg, Events, LegalMoves, LiveGameSummary,
    PhaseName, RawEvent, RoomMsg, RoomSummary, SeatInfo, SeatMap, SeatedRoom, ServerMsg, Snapshot,
    SummarySeat, Update, YouInRoom, YouSeats,
};
use crate::live::{ClientTx, GameKind, SeatOccupant, Who};
use bytestring::ByteString;
use siguo_rules::{Seat, Viewer};
use std::borrow::Cow;

/// A game's step in the shared list (cluster) is written every this many steps.
const LIVE_ENTRY_STEPS: u32 = 10;

fn bot_name(level: siguo_bots::Level) -> String {
    let name = serde_json::to_value(level).ok().and_then(|v| v.as_str().map(String::from));
    format!("Bot ({})", name.unwrap_or_default())
}

impl Room {
    pub(super) fn send_all(&self, msg: &ServerMsg) {
        let text = msg.to_text();
        for s in self.subs.values() {
            s.tx.send_text(text.clone());
        }
    }

    fn seat_infos(&self) -> SeatMap<Option<SeatInfo>> {
        seat_map(self.variant, |s| {
            let occ = self.phase.occupant(s)?;
            let ready = match &self.phase {
                Phase::Waiting(l) => l.seats[s].as_ref().is_some_and(|x| x.ready),
                _ => true,
            };
            let (account_id, name, guest, bot) = match occ {
                SeatOccupant::Account { account_id, name, guest } => {
                    (Some(*account_id), name.clone(), *guest, None)
                }
                SeatOccupant::Bot { level } => (None, bot_name(*level), false, Some(*level)),
            };
            let (online, escaped, auto) =
                (self.online(s), self.phase.escaped(s), self.phase.auto(s));
            Some(SeatInfo { account_id, name, guest, bot, ready, online, escaped, auto })
        })
    }

    pub(super) fn room_msg(&self, account_id: i64) -> ServerMsg<'static> {
        ServerMsg::Room(Box::new(RoomMsg {
            room: self.id.clone(),
            kind: self.kind,
            variant: self.variant,
            public: self.public,
            invite: self.invite.clone().filter(|_| self.may_see_invite(account_id)),
            host: self.host_name(),
            options: self.options.shown(self.variant),
            phase: self.phase.name(),
            game: self.phase.game_id(),
            seats: self.seat_infos(),
            spectators: self.spectator_count(),
            you: YouInRoom {
                seats: self.seats_of_account(account_id).collect(),
                host: self.host == Some(account_id),
            },
            rematch: self.rematch_seats(),
        }))
    }

    pub(super) fn clock(&self) -> Clock {
        let now = now_ms();
        let (seat, deadline) = match &self.phase {
            Phase::Deploying(d) => (None, Some(d.deadline)),
            Phase::Battle(b) => (b.game.turn(), b.turn_deadline),
            Phase::Finished(_) | Phase::Waiting(_) => (None, None),
        };
        Clock {
            phase: self.phase.name(),
            seat,
            deadline,
            remaining_ms: deadline.map(|d| (d - now).max(0)),
            server_time: now,
        }
    }

    /// The viewer's legal moves (from → destinations), empty unless it is the viewer's turn.
    fn legal_moves(&self, viewer: Viewer) -> LegalMoves {
        let mut m = LegalMoves::new();
        let Ok(b) = self.phase.battle() else { return m };
        let (Some(turn), Viewer::Seats(set)) = (b.game.turn(), viewer) else { return m };
        if set.contains(turn) {
            for mv in b.game.legal_moves() {
                m.entry(mv.from).or_default().push(mv.to);
            }
        }
        m
    }

    pub(super) fn snapshot(&self, account_id: i64) -> ServerMsg<'_> {
        let viewer = self.viewer(account_id);
        let mine: Vec<Seat> = self.seats_of_account(account_id).collect();
        let (deployments, confirmed) = match &self.phase {
            Phase::Deploying(d) => (
                Some(mine.iter().map(|s| (*s, d.seats[*s].deployment.clone())).collect()),
                self.seats().iter().copied().filter(|s| d.seats[*s].confirmed).collect(),
            ),
            Phase::Waiting(_) => (None, vec![]),
            _ => (None, self.seats().to_vec()),
        };
        ServerMsg::Snapshot(Box::new(Snapshot {
            room: self.id.clone(),
            game: self.phase.game_id(),
            v: self.history.v(),
            phase: self.phase.name(),
            seats: self.seat_infos(),
            you: YouSeats { seats: mine },
            view: self.phase.game().map(|g| Cow::Owned(g.view(viewer))),
            deployments,
            confirmed,
            clock: self.clock(),
            legal_moves: self.legal_moves(viewer),
            last_events: Events::Raw(self.history.last()),
            past_events: (!self.past.is_empty()).then_some(Events::Raw(&self.past)),
            past_seen: (!self.past.is_empty())
                .then(|| self.witnesses.iter().map(|w| w.seen(viewer)).collect()),
            results: self.phase.results().cloned(),
        }))
    }

    /// The `update` for one viewer, as text: with its whole view (`Body::Full`) or a delta.
    pub(super) fn update_text(
        &self,
        viewer: Viewer,
        (from_v, events): (u64, &[RawEvent]),
        clock: Clock,
        body: Body<'_>,
    ) -> ByteString {
        let (view, delta) = match body {
            Body::Full(view) => (Some(view), None),
            Body::Delta(d) => (None, Some(Box::new(d))),
        };
        ServerMsg::Update(Update {
            room: self.id.clone(),
            game: self.phase.game_id(),
            v: self.history.v(),
            from_v,
            events: Events::Raw(events),
            view,
            delta,
            clock,
            legal_moves: self.legal_moves(viewer),
            results: self.phase.results().cloned().map(Box::new),
        })
        .to_text()
    }

    /// Bring a client from version `v` to the current one: nothing, the missed events, or a
    /// snapshot.
    pub(super) fn resync_to(&self, conn: &ClientTx, account_id: i64, v: u64) {
        match self.history.since(v) {
            Catchup::Current => {}
            Catchup::Events(events) => {
                let viewer = self.viewer(account_id);
                let view = self.phase.game().map(|g| Cow::Owned(g.view(viewer)));
                let body = Body::Full(view);
                conn.send_text(self.update_text(viewer, (v, &events), self.clock(), body))
            }
            Catchup::Snapshot => conn.send(&self.snapshot(account_id)),
        }
    }

    pub(super) fn resync(&mut self, conn: &ClientTx, who: &Who, v: Option<u64>) -> Answer {
        if matches!(self.phase, Phase::Waiting(_)) {
            conn.send(&self.room_msg(who.account_id));
            return Ok(Some(AckBody::Empty {}));
        }
        match v {
            Some(v) => self.resync_to(conn, who.account_id, v),
            None => conn.send(&self.snapshot(who.account_id)),
        }
        self.holds_current(conn.conn_id);
        Ok(Some(AckBody::Version { v: self.history.v() }))
    }

    pub(super) fn send_legal_moves(&self, conn: &ClientTx, who: &Who, id: &Option<ClientId>) {
        conn.send(&ServerMsg::LegalMoves {
            id: id.clone(),
            room: self.id.clone(),
            game: self.phase.game_id(),
            v: self.history.v(),
            moves: self.legal_moves(self.viewer(who.account_id)),
        });
    }

    /// A seat's own deployment, to its owner's sockets only.
    pub(super) fn send_deployment(&self, seat: Seat) {
        let (Phase::Deploying(d), Some(a)) = (&self.phase, self.phase.account_at(seat)) else {
            return;
        };
        let msg = ServerMsg::Deployment(DeploymentMsg {
            room: self.id.clone(),
            game: d.table.game_id,
            seat,
            confirmed: d.seats[seat].confirmed,
            pieces: d.seats[seat].deployment.pieces.clone(),
        });
        for s in self.subs.values().filter(|s| s.who.account_id == a) {
            s.tx.send(&msg);
        }
    }

    pub(super) fn broadcast_room(&mut self) {
        for s in self.subs.values() {
            s.tx.send(&self.room_msg(s.who.account_id));
        }
        // everyone has the current spectator count now
        self.spectators_told.0 = self.spectator_count();
        self.update_summary();
    }

    /// `presence` to everyone, unless it would repeat the last one.
    pub(super) fn broadcast_presence(&mut self) {
        let online: Vec<bool> = self.seats().iter().map(|s| self.online(*s)).collect();
        if self.presence_sent.as_ref() == Some(&online) {
            return;
        }
        self.presence_sent = Some(online);
        let seats = seat_map(self.variant, |s| self.online(s));
        self.send_all(&ServerMsg::Presence { room: self.id.clone(), seats });
    }

    /// Keep the lobby's registries current: who sits here (for `hello`) and, for a public
    /// waiting room, its summary in the room list.
    pub(super) fn update_summary(&self) {
        let seated: Vec<(i64, Seat)> =
            self.seats().iter().filter_map(|s| Some((self.phase.account_at(*s)?, *s))).collect();
        let listed = !matches!(self.phase, Phase::Finished(_)) && !seated.is_empty();
        self.live.set_seated(
            &self.id,
            listed.then(|| {
                let room = SeatedRoom {
                    room: self.id.clone(),
                    variant: self.variant,
                    game: self.phase.game_id(),
                    phase: self.phase.name(),
                    seats: vec![],
                };
                (seated, room)
            }),
        );
        let public =
            self.phase.name() == PhaseName::Waiting && self.public && self.kind == GameKind::Casual;
        let summary = public.then(|| self.summary());
        let live = self.live_entry();
        self.share(summary.as_ref(), live.as_ref());
        self.live.set_summary(&self.id, summary);
        self.live.set_live_game(&self.id, live);
    }

    /// The lobby's entry of this room's game while it is played, if anyone may watch it.
    fn live_entry(&self) -> Option<LiveGameSummary> {
        let playing = matches!(self.phase, Phase::Deploying(_) | Phase::Battle(_));
        if !playing || !self.kind.open_to_all(self.public) {
            return None;
        }
        Some(LiveGameSummary {
            room: self.id.clone(),
            game: self.phase.game_id()?,
            kind: self.kind,
            variant: self.variant,
            phase: self.phase.name(),
            steps: self.phase.game().map_or(0, |g| g.steps()),
            seats: self.summary_seats(),
            spectators: self.spectator_count(),
            created: self.created,
        })
    }

    /// After a new version: the game's step in the list (shared with the other nodes every
    /// [`LIVE_ENTRY_STEPS`] steps, not on every move).
    pub(super) fn refresh_live_entry(&self) {
        let Some(live) = self.live_entry() else { return };
        if live.steps % LIVE_ENTRY_STEPS == 0 {
            self.share(None, Some(&live));
        }
        self.live.set_live_game(&self.id, Some(live));
    }

    /// Hand this room's state to the directory (cluster mode: the shared `rooms` table), so
    /// that every node lists it (`summary`: a public waiting room's entry) and sends people here.
    /// Only rooms with an invite code are shared (casual rooms, practice games); a finished one
    /// is removed. Never blocks.
    pub(super) fn share(&self, summary: Option<&RoomSummary>, live: Option<&LiveGameSummary>) {
        if self.invite.is_none() && !self.kind.is_ranked() {
            return;
        }
        let dir = self.live.directory();
        if matches!(self.phase, Phase::Finished(_)) {
            dir.unshare_room(&self.id);
            return;
        }
        let filled = self.seats().iter().filter(|s| self.phase.occupant(**s).is_some()).count();
        dir.share_room(crate::live::directory::SharedRoom {
            id: self.id.clone(),
            game_id: self.phase.game_id(),
            kind: self.kind.as_str(),
            variant: self.variant.name(),
            public: self.public,
            status: self.phase.name().as_str(),
            seats_filled: filled as i32,
            invite_hash: self.invite.as_deref().map(crate::live::directory::invite_hash),
            summary: summary.and_then(|s| serde_json::to_string(s).ok()),
            live_entry: live.and_then(|s| serde_json::to_string(s).ok()),
            created_ms: self.created,
            members: self.members().and_then(|m| serde_json::to_string(&m).ok()),
        });
    }

    fn summary_seats(&self) -> SeatMap<Option<SummarySeat>> {
        seat_map(self.variant, |s| {
            self.phase.occupant(s).map(|occ| match occ {
                SeatOccupant::Account { name, .. } => SummarySeat::Person { name: name.clone() },
                SeatOccupant::Bot { level } => SummarySeat::Bot { bot: *level },
            })
        })
    }

    fn summary(&self) -> RoomSummary {
        let seats = self.summary_seats();
        RoomSummary {
            room: self.id.clone(),
            variant: self.variant,
            host: self.host_name(),
            host_id: self.host,
            options: self.options.shown(self.variant),
            seats,
            spectators: self.spectator_count(),
            created: self.created,
        }
    }
}
