//! The room task: one tokio task per room owns its seats, subscribers, chat and, once started,
//! its game. Commands arrive on an mpsc channel ([`Cmd`]); every accepted change is committed
//! to the database, then broadcast with a fresh per-receiver view.
//!
//! Where things are: [`phase`] (the phase and its data), [`seats`] (who holds what, presence),
//! [`lobby`] (waiting-room actions), [`deploy`] (deployment), [`battle`] (moves, draws,
//! surrender, escape, bots), [`deadlines`] (the one next wake-up and what it does), [`history`]
//! (versions and the resync log), [`outgoing`] (every message a room sends), [`spawn`] (creating
//! and restoring rooms), [`chat`].
mod auto;
mod battle;
mod chat;
mod deadlines;
mod deploy;
mod history;
mod lobby;
mod outgoing;
mod phase;
mod rematch;
mod seats;
mod spawn;
mod views;

pub(crate) use spawn::{spawn_game, spawn_restored, spawn_waiting};

use super::protocol::{AckBody, ClientId, ErrorCode, ProtoError, RoomRequest, ServerMsg};
use super::{ClientTx, GameKind, Live, Who};
use history::History;
use phase::Phase;
use siguo_bots::Bot;
use siguo_rules::{Move, Options, Seat, Variant};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Commands to a room task.
pub enum Cmd {
    /// Subscribe a socket (spectator unless the person holds a seat).
    /// `id: None` means no ack (the lobby already acknowledged, e.g. `create_room`).
    /// `by_invite`: the socket presented the room's invite code (admits it to a private room).
    Join { conn: ClientTx, who: Who, id: Option<ClientId>, v: Option<u64>, by_invite: bool },
    /// A socket closed.
    Gone { conn_id: u64 },
    /// A client message addressed to this room.
    Msg { conn: ClientTx, who: Who, id: Option<ClientId>, msg: RoomRequest },
    /// A bot finished thinking.
    BotDone { seat: Seat, bot: Box<dyn Bot>, mv: Option<Move> },
    /// The game's current version (for `GET /api/games/{id}`).
    Version(tokio::sync::oneshot::Sender<u64>),
    /// May `viewer` learn that this room exists (`GET /api/rooms/{room}/node`)? A private room
    /// or practice game only its members.
    MayLearn { viewer: Option<i64>, tx: tokio::sync::oneshot::Sender<bool> },
}

/// Cloneable handle to a room task.
#[derive(Clone)]
pub struct RoomHandle {
    tx: mpsc::Sender<Cmd>,
}

impl RoomHandle {
    /// Send a command; false if the room is gone.
    pub async fn send(&self, cmd: Cmd) -> bool {
        self.tx.send(cmd).await.is_ok()
    }
}

/// A subscribed socket.
struct Sub {
    who: Who,
    tx: ClientTx,
    /// the viewer whose view of the current version this socket holds (the base of a delta);
    /// `None` before a game, or when it may hold another's
    seen: Option<siguo_rules::Viewer>,
}

/// What an accepted room message answers: an `ack` with this body, or nothing more (the
/// handler already sent its answer).
type Answer = Result<Option<AckBody>, ProtoError>;

struct Room {
    live: Live,
    me: mpsc::Sender<Cmd>,
    id: String,
    kind: GameKind,
    /// which game: its seats are `variant.seats()` (Hidden Front: S and N)
    variant: Variant,
    public: bool,
    invite: Option<String>,
    /// accounts that presented the invite code (they may come back by room id)
    admitted: std::collections::HashSet<i64>,
    /// accounts the host kicked, and until when (ms) they may not come back
    kicked: HashMap<i64, i64>,
    host: Option<i64>,
    /// names of the accounts met here (the host from the start), for `host`
    names: HashMap<i64, String>,
    /// the account this room counts against (`live.max_rooms_per_account`) until it finishes
    owner: Option<i64>,
    created: i64,
    options: Options,
    phase: Phase,
    subs: HashMap<u64, Sub>,
    history: History,
    /// every public event of the current game, oldest first (`past_events` of a snapshot)
    past: Vec<super::protocol::RawEvent>,
    /// each move of the current game as it stood when made (`past_seen` of a snapshot, redacted
    /// per receiver), one per `moved` event of `past`
    witnesses: Vec<siguo_rules::MoveWitness>,
    chat_times: HashMap<i64, VecDeque<Instant>>,
    /// a failed write is retried at this time (nothing else happens until then)
    retry_at: Option<i64>,
    /// the spectator count last sent, when, and when the next notice is due (throttled)
    spectators_told: (usize, i64, Option<i64>),
    /// when the seats' presence was last told, and when the next notice is due (throttled)
    presence_told: (i64, Option<i64>),
    /// who was online by the last `presence` (the variant's seats in order)
    presence_sent: Option<Vec<bool>>,
    closed: bool,
    /// the views the protocol-2 subscribers hold (the bases of their next deltas)
    held: Option<views::Held>,
    /// cluster mode: every write checks this node still owns the game
    guard: crate::live::directory::Guard,
}

impl Room {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let mut shutdown = self.live.shutdown_signal();
        if *shutdown.borrow() {
            return;
        }
        self.update_summary();
        self.after_change().await;
        while !self.closed {
            let sleep = tokio::time::sleep(self.until_next_wakeup());
            tokio::select! {
                _ = shutdown.changed() => break,
                cmd = rx.recv() => match cmd {
                    None => break,
                    Some(cmd) => self.handle(cmd).await,
                },
                _ = sleep => {
                    self.on_timer().await;
                    self.leave_if_moved();
                }
            }
        }
        self.release_owner();
    }

    /// One write of this room's game in a transaction of its own, after the lease check
    /// (cluster mode: refused with `moved` if another node owns the game now).
    async fn write<F>(&self, game: i64, f: F) -> crate::error::AppResult<()>
    where
        F: FnOnce(&mut crate::db::DbConn) -> crate::error::AppResult<()> + Send + 'static,
    {
        let guard = self.guard.clone();
        self.live
            .db()
            .run(move |c| {
                use diesel::Connection;
                c.transaction(|c| {
                    guard.check(c, game)?;
                    f(c)
                })
            })
            .await
    }

    /// The seats that play in this room's game.
    fn seats(&self) -> &'static [Seat] {
        self.variant.seats()
    }

    /// `bad_seat` for a seat that does not play in this room's game (Hidden Front: E, W).
    fn need_seat(&self, seat: Seat) -> Result<(), ProtoError> {
        if self.variant.has_seat(seat) {
            return Ok(());
        }
        Err(ProtoError::new(
            ErrorCode::BadSeat,
            format!("seat {} does not play in {}", seat.letter(), self.variant.name()),
        ))
    }

    /// Close the room now, before anything is answered: its owner's room slot is free, its
    /// subscribers are told, and it leaves the registries (the loop then ends).
    pub(super) fn close(&mut self) {
        self.closed = true;
        self.release_owner();
        self.send_all(&ServerMsg::RoomClosed { room: self.id.clone() });
        self.live.unregister(&self.id, self.invite.as_deref(), self.phase.game_id());
    }

    /// This room stops counting against its owner's rooms.
    fn release_owner(&mut self) {
        if let Some(a) = self.owner.take() {
            self.live.release_room(a, &self.id);
        }
    }

    fn until_next_wakeup(&self) -> Duration {
        let ms = self.next_wakeup().map(|w| (w - super::protocol::now_ms()).max(0) as u64);
        Duration::from_millis(ms.unwrap_or(3_600_000))
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Join { conn, who, id, v, by_invite } => self.on_join(conn, who, id, v, by_invite),
            Cmd::Gone { conn_id } => {
                if let Some(s) = self.subs.remove(&conn_id) {
                    self.after_unsubscribe(&s.who);
                }
            }
            Cmd::Msg { conn, who, id, msg } => self.on_client(conn, who, id, msg).await,
            Cmd::BotDone { seat, bot, mv } => self.on_bot_done(seat, bot, mv).await,
            Cmd::Version(tx) => {
                let _ = tx.send(self.history.v());
                return;
            }
            Cmd::MayLearn { viewer, tx } => {
                let known = match self.members() {
                    None => true,
                    Some(m) => viewer.is_some_and(|v| m.contains(&v)),
                };
                let _ = tx.send(known);
                return;
            }
        }
        self.after_change().await;
        self.leave_if_moved();
    }

    /// Cluster mode: a write was refused because another node owns the game now. The room
    /// stops here without writing anything more; its sockets are closed with
    /// [`super::CLOSE_MOVED`] so that the clients reconnect to the new owner.
    fn leave_if_moved(&mut self) {
        if !self.guard.lost() || self.closed {
            return;
        }
        tracing::warn!(room = %self.id, "another node owns this game now; the room stops here");
        self.closed = true;
        self.release_owner();
        for s in self.subs.values() {
            s.tx.close_with(super::CLOSE_MOVED);
        }
        self.live.unregister(&self.id, self.invite.as_deref(), self.phase.game_id());
    }

    /// A client message: idempotency, membership, then the handler and its ack or error.
    async fn on_client(
        &mut self,
        conn: ClientTx,
        who: Who,
        id: Option<ClientId>,
        msg: RoomRequest,
    ) {
        let dedupe = !matches!(msg, RoomRequest::Resync { .. } | RoomRequest::LegalMoves { .. });
        if dedupe {
            if let Some(ack) = self.live.seen_id(who.account_id, &id) {
                conn.send(&ServerMsg::Ack(ack));
                return;
            }
        }
        if !self.subs.contains_key(&conn.conn_id) {
            // to a stranger who may not enter, the same answer as for a room that does not
            // exist (someone the host kicked knows the room)
            let knows = self.kicked.contains_key(&who.account_id);
            let e = match knows || self.may_enter(who.account_id, false) {
                true => ProtoError::new(ErrorCode::NotInRoom, "join the room first (join_room)"),
                false => ProtoError::new(ErrorCode::NotFound, "no such room"),
            };
            conn.send(&ServerMsg::error(&id, &e));
            return;
        }
        match self.on_msg(&conn, &who, &id, msg).await {
            Ok(Some(body)) => {
                let ack = ServerMsg::ack(&id, body);
                if dedupe {
                    self.live.remember_id(who.account_id, &id, &ack);
                }
                conn.send(&ServerMsg::Ack(ack));
            }
            Ok(None) => {}
            Err(e) => conn.send(&ServerMsg::error(&id, &e)),
        }
    }

    /// Dispatch a room message to its handler.
    async fn on_msg(
        &mut self,
        conn: &ClientTx,
        who: &Who,
        id: &Option<ClientId>,
        msg: RoomRequest,
    ) -> Answer {
        use RoomRequest::*;
        match msg {
            LeaveRoom {} => self.leave(conn.conn_id, who).await,
            TakeSeat { seat, .. } => self.take_seat(who, seat),
            LeaveSeat { seat, .. } => self.leave_seat(who, seat),
            AddBot { seat, level, .. } => self.add_bot(who, seat, level).await,
            RemoveBot { seat, .. } => self.remove_bot(who, seat),
            Kick { seat, .. } => self.kick(who, seat),
            Ready { ready, .. } => self.set_ready(who, ready).await,
            Resync { v, .. } => self.resync(conn, who, v),
            Swap { seat, a, b, .. } => self.swap(who, seat, a, b).await,
            Randomize { seat, .. } => self.randomize(who, seat).await,
            LoadFormation { seat, formation, .. } => {
                self.load_formation(who, seat, formation).await
            }
            SetDeployment { seat, formation_data, .. } => {
                self.set_formation(who, seat, &formation_data).await
            }
            Confirm { seat, .. } => self.confirm(who, seat).await,
            Move { from, to, .. } => self.on_move(who, from, to).await,
            Surrender { seat, .. } if matches!(self.phase, Phase::Deploying(_)) => {
                self.surrender_deploying(who, seat).await
            }
            Surrender { seat, .. } => self.surrender(who, seat).await,
            OfferDraw { seat, .. } => self.offer_draw(who, seat).await,
            AcceptDraw {} => self.answer_draw(who, true).await,
            DeclineDraw {} => self.answer_draw(who, false).await,
            LegalMoves {} => {
                self.send_legal_moves(conn, who, id);
                Ok(None)
            }
            Chat { text, team } => self.chat(who, text, team.unwrap_or(false)),
            Rematch { start } => self.rematch(who, conn.ip, start.unwrap_or(false)).await,
            AutoPlay { on, seat } => self.auto_play(who, on, seat),
        }
    }
}
