//! The state machine of one simulated table: what its four sockets have seen, checked as it
//! arrives. Every socket checks its version chain (`from_v` must be the version it holds: a gap
//! is a lost update, a repeated version a duplicate); every move sent is timed to its `ack` and
//! to the last of the four seats receiving its `update`. Synchronous: the sockets are driven by
//! `play.rs`.
use super::games::Ctx;
use super::messages::{Ack, ErrorReply, Event, LegalMoves, ServerMsg, Snapshot, Update};
use super::stats::bump;
use super::ws::Incoming;
use crate::api::Move;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

pub const SEATS: [&str; 4] = ["N", "E", "S", "W"];

/// What one seat's socket has seen.
#[derive(Default)]
pub struct SeatState {
    /// last version applied (`None`: no snapshot yet for the current game)
    pub v: Option<u64>,
    /// legal moves offered with version `moves_v`, sorted
    pub moves: Vec<Move>,
    pub moves_v: u64,
    pub hello: bool,
    pub open: bool,
}

impl SeatState {
    /// Its own latest update offered it moves: it is this seat's turn.
    fn may_move(&self) -> bool {
        !self.moves.is_empty() && self.v == Some(self.moves_v)
    }

    fn offer(&mut self, v: u64, legal: Option<&LegalMoves>) {
        self.moves = flatten_moves(legal);
        self.moves_v = v;
    }
}

/// A move sent whose ack or updates are still awaited.
pub struct Pending {
    id: u64,
    mover: usize,
    from: String,
    to: String,
    sent: Instant,
    acked: Option<Instant>,
    /// when each seat received the update of this move
    got: [Option<Instant>; 4],
}

/// The answer to a set-up action.
pub enum Reply {
    Ack(Ack),
    Error(ErrorReply),
}

/// A game this table played, as its clients saw it.
pub struct PlayedGame {
    pub id: i64,
    pub moves: Vec<Move>,
    /// the access token of one of its players (who may read its record)
    pub token: String,
}

pub struct Table {
    pub gi: usize,
    /// the access token of the table's first player
    pub player_token: String,
    ctx: Arc<Ctx>,
    pub seats: [SeatState; 4],
    next_id: u64,
    /// ids of set-up actions whose reply is awaited, and the replies that came
    awaited: HashSet<u64>,
    replies: HashMap<u64, Reply>,
    pub room: Option<String>,
    game: Option<i64>,
    /// moves in flight by the version they will create
    pending: HashMap<u64, Pending>,
    id_to_v: HashMap<u64, u64>,
    /// the version whose update said game over
    over_v: Option<u64>,
    /// the moves of the current game in version order (checked against the server's record)
    record: Vec<Move>,
    pub played: Vec<PlayedGame>,
    /// the table is shutting down: closed sockets are no error
    pub closing: bool,
}

impl Table {
    pub fn new(gi: usize, ctx: Arc<Ctx>) -> Table {
        Table {
            gi,
            player_token: String::new(),
            ctx,
            seats: Default::default(),
            next_id: 0,
            awaited: HashSet::new(),
            replies: HashMap::new(),
            room: None,
            game: None,
            pending: HashMap::new(),
            id_to_v: HashMap::new(),
            over_v: None,
            record: vec![],
            played: vec![],
            closing: false,
        }
    }

    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    pub fn ctx_arc(&self) -> Arc<Ctx> {
        self.ctx.clone()
    }

    pub fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A fresh id for a set-up action whose reply will be awaited.
    pub fn awaited_id(&mut self) -> u64 {
        let id = self.next_id();
        self.awaited.insert(id);
        id
    }

    /// Start following a new room: forget the previous game.
    pub fn enter_room(&mut self, room: String) {
        self.room = Some(room);
        self.game = None;
        self.over_v = None;
        self.record.clear();
        for seat in &mut self.seats {
            seat.v = None;
            seat.moves.clear();
        }
    }

    // ---- conditions the driver waits for

    pub fn all_hello(&self) -> bool {
        self.seats.iter().all(|s| s.hello)
    }

    pub fn any_closed(&self) -> bool {
        self.seats.iter().any(|s| !s.open)
    }

    pub fn has_replies(&self, ids: &[u64]) -> bool {
        ids.iter().all(|i| self.replies.contains_key(i))
    }

    /// Every seat has the game (deployment phase).
    pub fn all_in_game(&self) -> bool {
        self.seats.iter().all(|s| s.v.is_some())
    }

    /// Every seat holds the same version and one of them may move.
    pub fn battle_running(&self) -> bool {
        let v = self.seats[0].v;
        self.seats.iter().all(|s| s.v == v) && self.seats.iter().any(SeatState::may_move)
    }

    /// Game over was seen by every seat and no move is in flight.
    pub fn game_over(&self) -> bool {
        self.over_v.is_some()
            && self.pending.is_empty()
            && self.seats.iter().all(|s| s.v == self.over_v)
    }

    pub fn over_seen(&self) -> bool {
        self.over_v.is_some()
    }

    pub fn nothing_in_flight(&self) -> bool {
        self.pending.is_empty()
    }

    /// The seat that may move now, unless its move is already in flight.
    pub fn mover(&self) -> Option<usize> {
        (0..4).find(|&p| {
            let s = &self.seats[p];
            s.may_move() && !self.pending.contains_key(&(s.moves_v + 1))
        })
    }

    /// The replies to these set-up actions; an error reply fails the step.
    pub fn take_replies(&mut self, what: &str, ids: &[u64]) -> Result<Vec<Ack>, String> {
        let replies = ids.iter().filter_map(|i| self.replies.remove(i));
        replies
            .map(|r| match r {
                Reply::Ack(ack) => Ok(ack),
                Reply::Error(e) => Err(format!("{what}: {} {}", e.code, e.message)),
            })
            .collect()
    }

    /// Register seat `p`'s move `pick` (an index into its legal moves) as sent now; returns its
    /// id and stations.
    pub fn start_move(&mut self, p: usize, pick: usize) -> (u64, Move) {
        let seat = &self.seats[p];
        let (from, to) = seat.moves[pick].clone();
        let expect = seat.moves_v + 1;
        let id = self.next_id();
        let sent = Instant::now();
        let (f, t) = (from.clone(), to.clone());
        let pending = Pending { id, mover: p, from: f, to: t, sent, acked: None, got: [None; 4] };
        self.pending.insert(expect, pending);
        self.id_to_v.insert(id, expect);
        bump(&self.ctx.stats.moves_sent);
        (id, (from, to))
    }

    /// After the window: count the moves still in flight as lost.
    pub fn count_undelivered(&mut self) {
        let stats = &self.ctx.stats;
        for (v, pm) in self.pending.drain() {
            bump(&stats.lost);
            let missing: Vec<&str> =
                (0..4).filter(|&i| pm.got[i].is_none()).map(|i| SEATS[i]).collect();
            let acked = pm.acked.is_some();
            stats.error(
                "move_not_delivered",
                format!(
                    "game {}: move {} (v{v}) acked: {acked} missing at: {missing:?}",
                    self.gi, pm.id
                ),
            );
        }
        self.id_to_v.clear();
    }

    /// Keep the current game's moves for the record check.
    pub fn keep_record(&mut self) {
        if let Some(id) = self.game {
            let token = self.player_token.clone();
            self.played.push(PlayedGame { id, moves: self.record.clone(), token });
        }
    }

    // ---- incoming messages

    /// Process one incoming message (or a closed socket). Errors are counted here.
    pub fn observe(&mut self, incoming: Incoming) {
        let (p, t, msg) = match incoming {
            Incoming::Closed(p, why) => return self.on_closed(p, &why),
            Incoming::Msg(p, t, msg) => (p, t, msg),
        };
        match *msg {
            ServerMsg::Hello {} => self.seats[p].hello = true,
            ServerMsg::Ack(ack) => self.on_ack(t, ack),
            ServerMsg::Error(e) => self.on_error(p, e),
            ServerMsg::Snapshot(s) => self.on_snapshot(p, s),
            ServerMsg::Update(u) => self.on_update(p, t, u),
            ServerMsg::Room(r) => {
                if r.room.is_some() && r.room == self.room && r.game.is_some() {
                    self.game = r.game;
                }
            }
            ServerMsg::Other => {}
        }
    }

    fn on_closed(&mut self, p: usize, why: &str) {
        if !self.seats[p].open {
            return;
        }
        self.seats[p].open = false;
        self.ctx.stats.socket_closed();
        if !self.closing {
            let detail = format!("game {}: seat {}: {why}", self.gi, SEATS[p]);
            self.ctx.stats.error("socket_closed", detail);
        }
    }

    fn on_ack(&mut self, t: Instant, ack: Ack) {
        let Some(id) = ack.id else { return };
        let stats = &self.ctx.stats;
        if ack.duplicate {
            bump(&stats.duplicated);
            stats.error("duplicate_ack", format!("game {}: ack {id} marked duplicate", self.gi));
        }
        if let Some(v) = self.id_to_v.remove(&id) {
            if let Some(pm) = self.pending.get_mut(&v) {
                pm.acked = Some(t);
                bump(&stats.moves_acked);
                if self.ctx.window.contains(pm.sent) {
                    let micros = t.duration_since(pm.sent).as_micros() as u64;
                    stats.lat.lock().unwrap_or_else(|e| e.into_inner()).ack.record(micros);
                }
            }
            self.try_complete(v);
        } else if self.awaited.remove(&id) {
            self.replies.insert(id, Reply::Ack(ack));
        }
    }

    fn on_error(&mut self, p: usize, e: ErrorReply) {
        let detail = format!(
            "game {}: seat {}: error {} for id {:?}: {}",
            self.gi, SEATS[p], e.code, e.id, e.message
        );
        self.ctx.stats.error(&e.code, detail);
        let Some(id) = e.id else { return };
        if let Some(v) = self.id_to_v.remove(&id) {
            self.pending.remove(&v);
        }
        if self.awaited.remove(&id) {
            self.replies.insert(id, Reply::Error(e));
        }
    }

    /// Another room's message (a socket may still hear its previous room).
    fn other_room(&self, room: &Option<String>) -> bool {
        room.is_some() && *room != self.room
    }

    fn on_snapshot(&mut self, p: usize, s: Snapshot) {
        if self.other_room(&s.room) {
            return;
        }
        if s.game.is_some() {
            self.game = s.game;
        }
        let seat = &mut self.seats[p];
        seat.v = s.v;
        seat.offer(s.v.unwrap_or(0), s.legal_moves.as_ref());
    }

    fn on_update(&mut self, p: usize, t: Instant, u: Update) {
        if self.other_room(&u.room) {
            return;
        }
        let (Some(v), Some(from_v)) = (u.v, u.from_v) else {
            let detail = format!("game {}: update without v/from_v", self.gi);
            return self.ctx.stats.error("bad_update", detail);
        };
        if !self.check_version(p, v, from_v) {
            return;
        }
        let seat = &mut self.seats[p];
        seat.v = Some(v);
        seat.offer(v, u.legal_moves.as_ref());
        if p == 0 {
            self.record_events(&u.events);
        }
        if u.events.contains(&Event::GameOver {}) {
            self.over_v = Some(v);
        }
        self.match_pending(p, t, v, &u.events);
    }

    /// Check seat `p`'s version chain; false for a duplicate (to be ignored).
    fn check_version(&mut self, p: usize, v: u64, from_v: u64) -> bool {
        let (stats, gi, seat) = (&self.ctx.stats, self.gi, SEATS[p]);
        match self.seats[p].v {
            None => stats.error(
                "update_before_snapshot",
                format!("game {gi}: seat {seat}: update v{v} before a snapshot"),
            ),
            Some(held) if v <= held => {
                bump(&stats.duplicated);
                let detail = format!("game {gi}: seat {seat}: v{v} again (held v{held})");
                stats.error("duplicate_version", detail);
                return false;
            }
            Some(held) if from_v != held => {
                stats.lost.fetch_add(
                    from_v.saturating_sub(held).max(1),
                    std::sync::atomic::Ordering::Relaxed,
                );
                let detail = format!("game {gi}: seat {seat}: from_v {from_v} but held v{held}");
                stats.error("version_gap", detail);
            }
            Some(_) => {}
        }
        true
    }

    /// Moves and skips, as one seat (North) saw them.
    fn record_events(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::Skipped {} => bump(&self.ctx.stats.skips),
                Event::Moved { from, to, .. } => self.record.push((from.clone(), to.clone())),
                _ => {}
            }
        }
    }

    /// The update of version `v` reached seat `p`: time it against the move that made it.
    fn match_pending(&mut self, p: usize, t: Instant, v: u64, events: &[Event]) {
        let Some(pm) = self.pending.get_mut(&v) else { return };
        if p == pm.mover {
            let first = events.iter().find(|e| matches!(e, Event::Moved { .. }));
            let expected = Event::Moved {
                seat: SEATS[pm.mover].to_string(),
                from: pm.from.clone(),
                to: pm.to.clone(),
            };
            if first != Some(&expected) {
                let detail = format!(
                    "game {}: v{v} is not the move {}-{} of {}",
                    self.gi, pm.from, pm.to, SEATS[pm.mover]
                );
                self.ctx.stats.error("unexpected_update", detail);
            }
        }
        pm.got[p] = Some(t);
        self.try_complete(v);
    }

    /// A move acked and seen by all four seats is complete: record its latency.
    fn try_complete(&mut self, v: u64) {
        let Some(pm) = self.pending.get(&v) else { return };
        if pm.acked.is_none() || pm.got.iter().any(Option::is_none) {
            return;
        }
        let Some(pm) = self.pending.remove(&v) else { return };
        let Some(last) = pm.got.iter().flatten().max().copied() else { return };
        let stats = &self.ctx.stats;
        bump(&stats.moves_done);
        let window = self.ctx.window;
        if window.contains(pm.sent) {
            bump(&stats.moves_in_window);
            if let Some(n) = self.ctx.node_of(self.gi) {
                bump(&self.ctx.node_moves[n]);
            }
            let micros = last.duration_since(pm.sent).as_micros() as u64;
            stats
                .lat
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .record_move(&window, pm.sent, micros);
        }
    }
}

fn flatten_moves(legal: Option<&LegalMoves>) -> Vec<Move> {
    let Some(legal) = legal else { return vec![] };
    let mut out: Vec<Move> = legal
        .iter()
        .flat_map(|(from, tos)| tos.iter().map(move |to| (from.clone(), to.clone())))
        .collect();
    out.sort();
    out
}
