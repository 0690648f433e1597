//! Live play: rooms, games in progress, the WebSocket protocol (docs/protocol.md).
//!
//! Shape: every room (a table: seats, options, spectators, chat and, once started, its game) is
//! owned by one tokio task ([`room`]) with an mpsc command channel; nothing else touches it. A
//! socket ([`socket`]) parses frames into typed commands ([`protocol`]) and sends them to the room
//! task; the room task applies them with the rules engine, commits the change to the database
//! ([`store`]) and only then sends each receiver its own redacted view. Bots are seat drivers that
//! go through the same command channel. At start-up [`Live::restore`] reloads unfinished games.
pub mod finish;
pub mod protocol;
pub mod room;
pub mod socket;
pub mod store;

use crate::auth::limits::FailureLimiter;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use bytestring::ByteString;
use protocol::{Ack, ClientId, ErrorCode, MovedTo, ProtoError, RoomSummary, SeatedRoom, ServerMsg};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use siguo_bots::Level;
use siguo_rules::{BySeat, Options, Seat, Variant};
use std::collections::{HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch, Notify};

/// Kind of game (ladder.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Ranked,
    RankedDual,
    Casual,
    Practice,
}

impl GameKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Ranked => "ranked",
            GameKind::RankedDual => "ranked_dual",
            GameKind::Casual => "casual",
            GameKind::Practice => "practice",
        }
    }
    pub fn parse(s: &str) -> Option<GameKind> {
        Some(match s {
            "ranked" => GameKind::Ranked,
            "ranked_dual" => GameKind::RankedDual,
            "casual" => GameKind::Casual,
            "practice" => GameKind::Practice,
            _ => return None,
        })
    }
    pub fn is_ranked(self) -> bool {
        matches!(self, GameKind::Ranked | GameKind::RankedDual)
    }
}

/// Who sits on a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SeatOccupant {
    Account { account_id: i64, name: String, guest: bool },
    Bot { level: Level },
}

impl SeatOccupant {
    pub fn account_id(&self) -> Option<i64> {
        match self {
            SeatOccupant::Account { account_id, .. } => Some(*account_id),
            SeatOccupant::Bot { .. } => None,
        }
    }
}

/// A connected person (from the auth identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Who {
    pub account_id: i64,
    pub name: String,
    pub guest: bool,
}

/// Live-play settings (section `[live]` of the config; defaults here).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LiveConfig {
    /// Origins allowed to open a WebSocket besides the server's own (copied from
    /// `server.allowed_origins` at start).
    #[serde(skip)]
    pub allowed_origins: Vec<String>,
    /// Extra seconds added to every clock when a game is restored after a restart.
    pub restore_grace_seconds: u32,
    /// How long a finished room stays open (for its chat and last view).
    pub finished_room_seconds: u32,
    /// Bot thinking budget per move, ms.
    pub bot_budget_ms: u64,
    /// A bot's move is committed no sooner than this many ms after the change before it, so
    /// that people can follow the round (0: as soon as the bot has chosen).
    pub bot_move_delay_ms: u64,
    /// Events kept per game for resync.
    pub resync_log: usize,
    /// Messages queued for one socket before it counts as too slow and is closed (1013).
    pub outbound_queue: usize,
    /// Failed `join_room` invite look-ups allowed per account, and per client IP, within
    /// `invite_failure_window_secs` (beyond: `rate_limited`).
    pub invite_failures_per_account: u32,
    pub invite_failures_per_ip: u32,
    pub invite_failure_window_secs: u64,
    /// People watching one room without a seat (beyond: `room_full`).
    pub max_spectators: usize,
    /// Rooms an account may have open at once: waiting rooms it created and practice games
    /// (beyond: `too_many_rooms`), until they finish.
    pub max_rooms_per_account: usize,
    /// Open WebSockets per account and per client IP (beyond: HTTP 429 `too_many_sockets`).
    pub max_sockets_per_account: usize,
    pub max_sockets_per_ip: usize,
    /// Bots thinking at once across the server; 0 = one per CPU core.
    pub bot_threads: usize,
    /// Let private and practice Hidden Front games set clocks shorter than hidden-front.md §6
    /// (any value `Options::validate` allows). For tests; off in production.
    pub hidden_front_short_clocks: bool,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            allowed_origins: vec![],
            restore_grace_seconds: 15,
            finished_room_seconds: 300,
            bot_budget_ms: 300,
            bot_move_delay_ms: 800,
            resync_log: 128,
            outbound_queue: OUTBOUND_QUEUE,
            invite_failures_per_account: 10,
            invite_failures_per_ip: 30,
            invite_failure_window_secs: 600,
            max_spectators: 50,
            max_rooms_per_account: 3,
            max_sockets_per_account: 8,
            max_sockets_per_ip: 64,
            bot_threads: 0,
            hidden_front_short_clocks: false,
        }
    }
}

/// Outbound half of one socket: bounded; on overflow the socket is told to close.
#[derive(Clone)]
pub struct ClientTx {
    pub conn_id: u64,
    pub account_id: i64,
    tx: mpsc::Sender<ByteString>,
    kill: Arc<Kill>,
}

/// Why a socket is told to close: its outbound queue overflowed (1013), or its session ended
/// ([`CLOSE_SESSION_ENDED`]).
#[derive(Default)]
pub struct Kill {
    pub notify: Notify,
    /// 0 = outbound queue full; else the close code to send
    pub code: std::sync::atomic::AtomicU16,
}

/// Close code (4001) of a socket whose session ended: its access token expired, or the account
/// logged out or changed its password. The client refreshes its token and reconnects.
pub const CLOSE_SESSION_ENDED: u16 = 4001;

/// Close code (4009) of a socket whose room moved to another node (cluster mode: this node lost
/// the game's lease). The client asks `GET /api/games/{id}/node` and reconnects there.
pub const CLOSE_MOVED: u16 = 4009;

impl ClientTx {
    /// Close this socket with `code` (e.g. [`CLOSE_SESSION_ENDED`]).
    pub fn close_with(&self, code: u16) {
        self.kill.code.store(code, Ordering::Relaxed);
        self.kill.notify.notify_one();
    }

    /// Queue a message's text (a `ByteString` is shared, not copied, by every receiver).
    pub fn send_text(&self, text: ByteString) {
        match self.tx.try_send(text) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => self.kill.notify.notify_one(),
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
    pub fn send(&self, msg: &ServerMsg) {
        self.send_text(msg.to_text())
    }
}

/// The node id a single node answers (`GET /api/games/{id}/node`).
pub const LOCAL_NODE: &str = "local";

/// Outbound queue length per socket.
pub const OUTBOUND_QUEUE: usize = 256;

/// Make a socket's outbound channel: the sender side for rooms, the receiver and kill switch for
/// the socket task.
pub fn client_channel(
    conn_id: u64,
    account_id: i64,
    capacity: usize,
) -> (ClientTx, mpsc::Receiver<ByteString>, Arc<Kill>) {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    let kill = Arc::new(Kill::default());
    (ClientTx { conn_id, account_id, tx, kill: kill.clone() }, rx, kill)
}

/// The seated accounts of a room with their seats, and the room as `hello` lists it.
pub(crate) type Seated = (Vec<(i64, Seat)>, SeatedRoom);

/// Remembered action ids per account (idempotency).
#[derive(Default)]
struct RecentIds {
    order: VecDeque<ClientId>,
    acks: HashMap<ClientId, Ack>,
}

const RECENT_IDS: usize = 256;

pub(crate) struct Inner {
    pub db: Db,
    pub config: LiveConfig,
    rooms: Mutex<HashMap<String, room::RoomHandle>>,
    invites: Mutex<HashMap<String, String>>,
    games: Mutex<HashMap<i64, String>>,
    summaries: Mutex<HashMap<String, RoomSummary>>,
    /// room id → who sits there, for `hello`
    seated: Mutex<HashMap<String, Seated>>,
    accounts: Mutex<HashMap<i64, Vec<ClientTx>>>,
    recent: Mutex<HashMap<i64, RecentIds>>,
    /// failed invite look-ups per account and per client IP (bucketed)
    invite_failures: (FailureLimiter<i64>, FailureLimiter<IpAddr>),
    /// account → the rooms it owns (waiting rooms it created, practice games), for the cap
    owned: Mutex<HashMap<i64, HashSet<String>>>,
    /// open sockets per client IP (bucketed)
    ips: Mutex<HashMap<IpAddr, usize>>,
    /// permits for bots thinking at once
    bot_thinkers: Arc<tokio::sync::Semaphore>,
    /// held while a game is restored, so that a join and the heartbeat never restore it twice
    restoring: tokio::sync::Mutex<()>,
    next_conn: AtomicU64,
    shutdown: watch::Sender<bool>,
    runtime: tokio::runtime::Handle,
    /// bots searching a move now, and the most at once since the start
    thinking: (std::sync::atomic::AtomicI64, std::sync::atomic::AtomicI64),
    /// the gauges live play moves, when metrics are attached
    gauges: std::sync::OnceLock<LiveGauges>,
    /// this node, in cluster mode (set once at start)
    node: std::sync::OnceLock<crate::cluster::Lease>,
    /// cluster mode: where this node's rooms are written for the other nodes
    shared_rooms: std::sync::OnceLock<crate::cluster::rooms::Writer>,
    /// cluster mode: where [`Live::tell`] sends a notice (to every node; set once at start)
    publisher: std::sync::OnceLock<Publisher>,
}

/// Sends an account's notice (its text) to every node, which deliver it to their sockets of that
/// account (cluster mode: `src/cluster/notify.rs`).
pub type Publisher = Arc<dyn Fn(i64, ByteString) + Send + Sync>;

/// The gauges live play moves (see [`crate::metrics::Metrics`]).
/// A place among an account's rooms held while its game is made ([`Live::reserve_room`]);
/// given back if dropped before [`Live::replace_room`].
pub(crate) struct RoomReservation {
    live: Live,
    account_id: i64,
    key: String,
}

impl Drop for RoomReservation {
    fn drop(&mut self) {
        // after replace_room the key is gone already and this removes nothing
        self.live.release_room(self.account_id, &self.key);
    }
}

pub struct LiveGauges {
    pub open_sockets: prometheus::IntGauge,
    pub live_games: prometheus::IntGauge,
    pub bots_thinking: prometheus::IntGauge,
    pub bots_thinking_peak: prometheus::IntGauge,
}

/// Cloneable handle to live play (in `AppState`).
#[derive(Clone)]
pub struct Live {
    pub(crate) inner: Arc<Inner>,
}

impl Live {
    /// Must be called inside a tokio runtime; room tasks are spawned on it.
    pub fn new(db: Db, config: LiveConfig) -> Live {
        let (shutdown, _) = watch::channel(false);
        Live {
            inner: Arc::new(Inner {
                db,
                rooms: Mutex::default(),
                invites: Mutex::default(),
                games: Mutex::default(),
                summaries: Mutex::default(),
                seated: Mutex::default(),
                accounts: Mutex::default(),
                recent: Mutex::default(),
                invite_failures: (
                    FailureLimiter::new(
                        config.invite_failures_per_account,
                        config.invite_failure_window_secs,
                    ),
                    FailureLimiter::new(
                        config.invite_failures_per_ip,
                        config.invite_failure_window_secs,
                    ),
                ),
                owned: Mutex::default(),
                ips: Mutex::default(),
                bot_thinkers: Arc::new(tokio::sync::Semaphore::new(match config.bot_threads {
                    0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
                    n => n,
                })),
                restoring: tokio::sync::Mutex::new(()),
                next_conn: AtomicU64::new(1),
                config,
                shutdown,
                runtime: tokio::runtime::Handle::current(),
                thinking: Default::default(),
                gauges: std::sync::OnceLock::new(),
                node: std::sync::OnceLock::new(),
                shared_rooms: std::sync::OnceLock::new(),
                publisher: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Report open sockets, games in memory and bots thinking to these gauges.
    pub fn attach_metrics(&self, gauges: LiveGauges) {
        let _ = self.inner.gauges.set(gauges);
        self.count_games();
    }

    fn count_games(&self) {
        if let Some(g) = self.inner.gauges.get() {
            g.live_games.set(self.inner.games.lock().unwrap().len() as i64);
        }
    }

    pub(crate) fn socket_gauge(&self, delta: i64) {
        if let Some(g) = self.inner.gauges.get() {
            g.open_sockets.add(delta);
        }
    }

    /// A bot starts (+1) or ends (-1) a search (while it holds a [`Live::bot_thinkers`] permit).
    pub(crate) fn bot_thinking(&self, delta: i64) {
        let (now, peak) = &self.inner.thinking;
        let n = now.fetch_add(delta, Ordering::SeqCst) + delta;
        let most = peak.fetch_max(n, Ordering::SeqCst).max(n);
        if let Some(g) = self.inner.gauges.get() {
            g.bots_thinking.set(n);
            g.bots_thinking_peak.set(most);
        }
    }

    /// Cluster mode: this node is `lease.node` (call once, at start, before any game is made).
    pub fn set_node(&self, lease: crate::cluster::Lease) {
        let _ = self.inner.node.set(lease);
    }

    /// This node and its lease length, in cluster mode.
    pub fn lease(&self) -> Option<crate::cluster::Lease> {
        self.inner.node.get().cloned()
    }

    /// This node's id: its cluster id, or `"local"` on a single node.
    pub fn node_id(&self) -> &str {
        self.inner.node.get().map_or(LOCAL_NODE, |l| l.node.as_str())
    }

    /// Cluster mode: the node that owns unfinished game `id` (this one if it plays the game, or
    /// still shows it finished); `None` if no node does.
    pub async fn owner_elsewhere_or_here(&self, id: i64) -> AppResult<Option<String>> {
        let owner = self.db().run(move |c| crate::cluster::live_owner_of(c, id)).await?;
        Ok(owner.or_else(|| self.room_by_game(id).map(|_| self.node_id().to_string())))
    }

    /// The room `room` played here; in cluster mode else `moved`, naming the owner, when it is
    /// played on another node (a game `g<id>` by its lease, another room by the shared `rooms`
    /// table), or the game restored now when this node has just claimed it and not yet
    /// restored it; else `fallback`.
    pub async fn room_or_moved(
        &self,
        room: &str,
        fallback: ProtoError,
    ) -> Result<room::RoomHandle, ProtoError> {
        if let Some(h) = self.room(room) {
            return Ok(h);
        }
        if self.lease().is_none() {
            return Err(fallback);
        }
        let game = game_of_room(room);
        match (self.recorded_owner(room).await, game) {
            (Ok(Some(node)), _) if node != self.node_id() => {
                let room = game.is_none().then(|| room.to_string());
                Err(ProtoError::moved(MovedTo::new(&node, room, game)))
            }
            (Ok(Some(_)), Some(g)) => {
                self.restore_game(g).await?;
                self.room(room).ok_or(fallback)
            }
            (Ok(_), _) => Err(fallback),
            (Err(e), _) => Err(e.into()),
        }
    }

    /// Cluster mode: the node the database names for room `room` — a game `g<id>` by its lease,
    /// another room by the shared `rooms` table (live nodes only); `None` on a single node.
    async fn recorded_owner(&self, room: &str) -> AppResult<Option<String>> {
        let Some(l) = self.lease() else { return Ok(None) };
        if let Some(game) = game_of_room(room) {
            return self.owner_elsewhere_or_here(game).await;
        }
        let r = room.to_string();
        self.db().run(move |c| crate::cluster::rooms::owner(c, &r, l.grace_ms)).await
    }

    /// The node that runs room `room` (a room id, or `g<id>` for a game): this one if it runs it
    /// here; in cluster mode else the owner the database names; `None` if no node runs it.
    pub async fn room_node(&self, room: &str) -> AppResult<Option<String>> {
        if self.room(room).is_some() {
            return Ok(Some(self.node_id().to_string()));
        }
        self.recorded_owner(room).await
    }

    /// Cluster mode: write this node's rooms to the shared table through `writer` (call once, at
    /// start, before any room is made).
    pub fn share_rooms(&self, writer: crate::cluster::rooms::Writer) {
        let _ = self.inner.shared_rooms.set(writer);
    }

    /// Cluster mode: the writer of the shared `rooms` table (`None` on a single node).
    pub(crate) fn room_writer(&self) -> Option<&crate::cluster::rooms::Writer> {
        self.inner.shared_rooms.get()
    }

    /// The lobby's list of open public rooms: on a single node this node's own; in cluster mode
    /// those of every live node, from the shared table (so every node shows the same list).
    pub async fn listed_rooms(&self) -> AppResult<Vec<RoomSummary>> {
        match (self.lease(), self.room_writer()) {
            (Some(l), Some(_)) => {
                self.db().run(move |c| crate::cluster::rooms::listed(c, l.grace_ms)).await
            }
            _ => Ok(self.open_rooms()),
        }
    }

    pub fn db(&self) -> &Db {
        &self.inner.db
    }
    pub fn config(&self) -> &LiveConfig {
        &self.inner.config
    }

    /// Stop every room task (used when the server stops; games resume from the database).
    pub fn shutdown(&self) {
        let _ = self.inner.shutdown.send(true);
        self.inner.rooms.lock().unwrap().clear();
    }

    pub(crate) fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.inner.shutdown.subscribe()
    }

    pub(crate) fn spawn<F: std::future::Future<Output = ()> + Send + 'static>(&self, f: F) {
        self.inner.runtime.spawn(f);
    }

    pub fn next_conn_id(&self) -> u64 {
        self.inner.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    // ---- registry ----

    pub(crate) fn register(
        &self,
        id: &str,
        invite: Option<&str>,
        game: Option<i64>,
        h: room::RoomHandle,
    ) {
        self.inner.rooms.lock().unwrap().insert(id.to_string(), h);
        if let Some(inv) = invite {
            self.inner.invites.lock().unwrap().insert(inv.to_string(), id.to_string());
        }
        if let Some(g) = game {
            self.inner.games.lock().unwrap().insert(g, id.to_string());
        }
        self.count_games();
    }
    pub(crate) fn set_game(&self, id: &str, game: i64) {
        self.inner.games.lock().unwrap().insert(game, id.to_string());
        self.count_games();
    }
    /// A game that ended unplayed is no longer found by its id (its room waits again).
    pub(crate) fn forget_game(&self, game: i64) {
        self.inner.games.lock().unwrap().remove(&game);
        self.count_games();
    }
    /// Count room `id` against `account_id`'s rooms, or `too_many_rooms`.
    pub(crate) fn claim_room(&self, account_id: i64, id: &str) -> AppResult<()> {
        let mut owned = self.inner.owned.lock().unwrap();
        let mine = owned.entry(account_id).or_default();
        self.rooms_left(mine.len())?;
        mine.insert(id.to_string());
        Ok(())
    }
    /// Count room `id` against `account_id`'s rooms whatever their number (a game restored
    /// after a restart or a failover: it was counted when it was made).
    pub(crate) fn count_room(&self, account_id: i64, id: &str) {
        self.inner.owned.lock().unwrap().entry(account_id).or_default().insert(id.to_string());
    }
    /// Hold one of `account_id`'s rooms before the game is written, so that concurrent
    /// requests cannot pass the check together; the held place becomes the room's
    /// ([`Live::replace_room`]) or is given back when the reservation is dropped.
    pub(crate) fn reserve_room(&self, account_id: i64) -> AppResult<RoomReservation> {
        let key = format!("reserved-{}", uuid::Uuid::new_v4());
        self.claim_room(account_id, &key)?;
        Ok(RoomReservation { live: self.clone(), account_id, key })
    }
    /// The reserved place now counts as room `id`.
    pub(crate) fn replace_room(&self, r: RoomReservation, id: &str) {
        {
            let mut owned = self.inner.owned.lock().unwrap();
            let mine = owned.entry(r.account_id).or_default();
            mine.remove(&r.key);
            mine.insert(id.to_string());
        }
        drop(r); // takes the lock again: after the block above has let it go
    }
    /// Room `id` no longer counts against its owner (finished or closed).
    pub(crate) fn release_room(&self, account_id: i64, id: &str) {
        let mut owned = self.inner.owned.lock().unwrap();
        if let Some(m) = owned.get_mut(&account_id) {
            m.remove(id);
            if m.is_empty() {
                owned.remove(&account_id);
            }
        }
    }
    /// Does `account_id` have room for one more room?
    pub(crate) fn room_available(&self, account_id: i64) -> AppResult<()> {
        let n = self.inner.owned.lock().unwrap().get(&account_id).map_or(0, |m| m.len());
        self.rooms_left(n)
    }
    /// `too_many_rooms` when `n` rooms are already open.
    fn rooms_left(&self, n: usize) -> AppResult<()> {
        let max = self.inner.config.max_rooms_per_account;
        if n >= max {
            return Err(AppError::conflict(
                "too_many_rooms",
                format!("you already have {max} rooms or practice games open"),
            ));
        }
        Ok(())
    }
    pub(crate) fn bot_thinkers(&self) -> Arc<tokio::sync::Semaphore> {
        self.inner.bot_thinkers.clone()
    }

    pub(crate) fn unregister(&self, id: &str, invite: Option<&str>, game: Option<i64>) {
        self.inner.rooms.lock().unwrap().remove(id);
        self.inner.summaries.lock().unwrap().remove(id);
        self.inner.seated.lock().unwrap().remove(id);
        if let Some(inv) = invite {
            self.inner.invites.lock().unwrap().remove(inv);
        }
        if let Some(g) = game {
            self.inner.games.lock().unwrap().remove(&g);
        }
        if let Some(w) = self.room_writer() {
            w.remove(id);
        }
        self.count_games();
    }
    pub fn room(&self, id: &str) -> Option<room::RoomHandle> {
        self.inner.rooms.lock().unwrap().get(id).cloned()
    }
    pub fn room_by_invite(&self, invite: &str) -> Option<String> {
        self.inner.invites.lock().unwrap().get(&invite.to_uppercase()).cloned()
    }
    /// Resolve an invite code for `account_id` at `ip`, counting failures: after too many
    /// (per account or per IP) every look-up is refused with `rate_limited` for a while. In
    /// cluster mode a code of a room another node runs is answered `moved` (with the room).
    pub async fn lookup_invite(
        &self,
        account_id: i64,
        ip: IpAddr,
        invite: &str,
    ) -> Result<String, ProtoError> {
        let (per_account, per_ip) = &self.inner.invite_failures;
        let limited = |_| {
            ProtoError::new(ErrorCode::RateLimited, "too many wrong invite codes; wait a while")
        };
        per_account.check(&account_id).map_err(limited)?;
        per_ip.check(&ip).map_err(limited)?;
        if let Some(room) = self.room_by_invite(invite) {
            return Ok(room);
        }
        if let (Some(l), Some(_)) = (self.lease(), self.room_writer()) {
            let code = invite.to_string();
            let found =
                self.db().run(move |c| crate::cluster::rooms::by_invite(c, &code, l.grace_ms));
            if let Some((room, node)) = found.await? {
                if node != self.node_id() {
                    return Err(ProtoError::moved(MovedTo::new(&node, Some(room), None)));
                }
            }
        }
        per_account.fail(&account_id);
        per_ip.fail(&ip);
        Err(ProtoError::new(ErrorCode::NotFound, "no room with that invite code"))
    }
    /// Forget old failure counts (housekeeping).
    pub fn prune_limits(&self) {
        self.inner.invite_failures.0.retain_recent();
        self.inner.invite_failures.1.retain_recent();
    }
    pub fn room_by_game(&self, game: i64) -> Option<String> {
        self.inner.games.lock().unwrap().get(&game).cloned()
    }
    /// The live version of a game in play (`None` when no room plays it).
    pub async fn game_version(&self, game: i64) -> Option<u64> {
        let h = self.room(&self.room_by_game(game)?)?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        if !h.send(room::Cmd::Version(tx)).await {
            return None;
        }
        rx.await.ok()
    }
    /// Summary of a public waiting room for listings (`None` removes it).
    pub(crate) fn set_summary(&self, id: &str, summary: Option<RoomSummary>) {
        let mut s = self.inner.summaries.lock().unwrap();
        match summary {
            Some(v) => s.insert(id.to_string(), v),
            None => s.remove(id),
        };
    }
    /// Open public rooms (phase `waiting`), oldest first.
    pub fn open_rooms(&self) -> Vec<RoomSummary> {
        let mut v: Vec<RoomSummary> =
            self.inner.summaries.lock().unwrap().values().cloned().collect();
        v.sort_by_key(|r| r.created);
        v
    }

    // ---- accounts' sockets ----

    /// Room for one more socket of `account_id` from `ip`? (`too_many_sockets` otherwise.)
    pub fn socket_available(&self, account_id: i64, ip: IpAddr) -> AppResult<()> {
        let c = &self.inner.config;
        let mine = self.inner.accounts.lock().unwrap().get(&account_id).map_or(0, |v| v.len());
        let from_ip = self.inner.ips.lock().unwrap().get(&ip).copied().unwrap_or(0);
        if mine >= c.max_sockets_per_account || from_ip >= c.max_sockets_per_ip {
            return Err(AppError::TooMany {
                code: "too_many_sockets",
                message: "too many open connections; close some tabs".into(),
            });
        }
        Ok(())
    }

    pub(crate) fn add_socket(&self, tx: ClientTx, ip: IpAddr) {
        self.inner.accounts.lock().unwrap().entry(tx.account_id).or_default().push(tx);
        *self.inner.ips.lock().unwrap().entry(ip).or_default() += 1;
    }
    pub(crate) fn remove_ip(&self, ip: IpAddr) {
        let mut ips = self.inner.ips.lock().unwrap();
        if let Some(n) = ips.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                ips.remove(&ip);
            }
        }
    }
    pub(crate) fn remove_socket(&self, account_id: i64, conn_id: u64) {
        let mut a = self.inner.accounts.lock().unwrap();
        if let Some(v) = a.get_mut(&account_id) {
            v.retain(|t| t.conn_id != conn_id);
            if v.is_empty() {
                a.remove(&account_id);
            }
        }
    }
    /// Send a message to every socket of an account on this node.
    pub fn notify_account(&self, account_id: i64, msg: &ServerMsg) {
        self.deliver(account_id, msg.to_text());
    }
    /// Send a notice to every socket of an account, wherever it is (e.g. the ladder's
    /// `match_found`): on a single node, this node's; in cluster mode through the publisher.
    pub fn tell(&self, account_id: i64, msg: &ServerMsg) {
        match self.inner.publisher.get() {
            Some(publish) => publish(account_id, msg.to_text()),
            None => self.notify_account(account_id, msg),
        }
    }
    /// Cluster mode: send [`Live::tell`]'s notices through `publisher` (once, at start).
    pub fn set_publisher(&self, publisher: Publisher) {
        let _ = self.inner.publisher.set(publisher);
    }
    /// The accounts with a socket on this node.
    pub fn online_accounts(&self) -> Vec<i64> {
        self.inner.accounts.lock().unwrap().keys().copied().collect()
    }
    /// Send a message's text to every socket of an account on this node.
    pub fn deliver(&self, account_id: i64, text: ByteString) {
        if let Some(v) = self.inner.accounts.lock().unwrap().get(&account_id) {
            for t in v {
                t.send_text(text.clone());
            }
        }
    }
    /// Close every socket of an account (logout, password change) with [`CLOSE_SESSION_ENDED`].
    pub fn close_account(&self, account_id: i64) {
        if let Some(v) = self.inner.accounts.lock().unwrap().get(&account_id) {
            for t in v {
                t.close_with(CLOSE_SESSION_ENDED);
            }
        }
    }
    pub fn is_online(&self, account_id: i64) -> bool {
        self.inner.accounts.lock().unwrap().contains_key(&account_id)
    }

    // ---- idempotency ----

    /// The ack already sent for this (account, id), if any.
    pub fn seen_id(&self, account_id: i64, id: &Option<ClientId>) -> Option<Ack> {
        let id = id.as_ref()?;
        let r = self.inner.recent.lock().unwrap();
        let ack = r.get(&account_id)?.acks.get(id)?.clone();
        Some(Ack { duplicate: true, ..ack })
    }
    pub fn remember_id(&self, account_id: i64, id: &Option<ClientId>, ack: &Ack) {
        let Some(id) = id else { return };
        let mut r = self.inner.recent.lock().unwrap();
        let e = r.entry(account_id).or_default();
        if e.acks.insert(id.clone(), ack.clone()).is_none() {
            e.order.push_back(id.clone());
            if e.order.len() > RECENT_IDS {
                if let Some(old) = e.order.pop_front() {
                    e.acks.remove(&old);
                }
            }
        }
    }

    // ---- creating rooms and games ----

    /// Open a casual room of `variant` hosted by `host` (not seated).
    pub fn create_room(
        &self,
        host: &Who,
        public: bool,
        variant: Variant,
        options: Options,
    ) -> AppResult<(String, String)> {
        options.validate().map_err(|e| AppError::bad_request("invalid_options", e.to_string()))?;
        self.check_clocks(variant, public, &options)?;
        self.room_available(host.account_id)?;
        room::spawn_waiting(self, host, public, variant, options)
    }

    /// Hidden Front (hidden-front.md §6): a public room plays the standard clocks; a private
    /// room or a practice game may set longer ones (any, with `hidden_front_short_clocks`).
    fn check_clocks(&self, variant: Variant, public: bool, o: &Options) -> AppResult<()> {
        // the short-clock switch (tests) is for private and practice games only
        if variant.is_four_player() || (self.inner.config.hidden_front_short_clocks && !public) {
            return Ok(());
        }
        let d = Options::for_variant(variant);
        let clocks = [
            ("move_seconds", o.move_seconds, d.move_seconds),
            ("deploy_seconds", o.deploy_seconds, d.deploy_seconds),
            ("reconnect_seconds", o.reconnect_seconds, d.reconnect_seconds),
        ];
        for (name, given, standard) in clocks {
            if given < standard || (public && given != standard) {
                let rule = if public { "exactly" } else { "at least" };
                return Err(AppError::bad_request(
                    "invalid_options",
                    format!(
                        "{name} must be {rule} {standard} in a {} Hidden Front game, got {given}",
                        if public { "public" } else { "private or practice" }
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Create a four-player game directly in its deployment phase (ranked matches). Returns
    /// the game id and its room id (`"g<id>"`). The game row and seats are committed before this
    /// returns.
    pub async fn create_game(
        &self,
        kind: GameKind,
        seats: impl Into<BySeat<SeatOccupant>>,
        options: Options,
    ) -> AppResult<(i64, String)> {
        let seats = seats.into().map(|_, o| Some(o.clone()));
        self.create_game_of(kind, Variant::FourPlayer, seats, options).await
    }

    /// Create a game of `variant` in its deployment phase; `seats` fills exactly the variant's
    /// seats.
    pub async fn create_game_of(
        &self,
        kind: GameKind,
        variant: Variant,
        seats: BySeat<Option<SeatOccupant>>,
        options: Options,
    ) -> AppResult<(i64, String)> {
        options.validate().map_err(|e| AppError::bad_request("invalid_options", e.to_string()))?;
        if Seat::ALL.into_iter().any(|s| seats[s].is_some() != variant.has_seat(s)) {
            return Err(AppError::internal("a game's seats are those of its variant"));
        }
        room::spawn_game(self, (kind, variant), seats, options, None).await
    }

    /// A practice game of `variant`: `who` on `seat` (default South), a bot of `level` on every
    /// other seat (Hidden Front: one). Returns the game id and its room id.
    pub async fn start_practice(
        &self,
        who: &Who,
        variant: Variant,
        options: Option<Value>,
        level: Option<Level>,
        seat: Option<Seat>,
    ) -> Result<(i64, String), ProtoError> {
        let options = parse_options(variant, options)?;
        self.check_clocks(variant, false, &options)?;
        let seat = seat.unwrap_or(Seat::S);
        if !variant.has_seat(seat) {
            let m = format!("seat {} does not play in {}", seat.letter(), variant.name());
            return Err(ProtoError::new(ErrorCode::BadSeat, m));
        }
        // held before the game row is written; the room takes the place when it is made
        let reserved = self.reserve_room(who.account_id)?;
        let level = level.unwrap_or(Level::Standard);
        let person = SeatOccupant::Account {
            account_id: who.account_id,
            name: who.name.clone(),
            guest: who.guest,
        };
        let seats = BySeat::from_fn(|s| match (s == seat, variant.has_seat(s)) {
            (true, _) => Some(person.clone()),
            (false, true) => Some(SeatOccupant::Bot { level }),
            (false, false) => None,
        });
        options.validate().map_err(|e| AppError::bad_request("invalid_options", e.to_string()))?;
        let kind = (GameKind::Practice, variant);
        Ok(room::spawn_game(self, kind, seats, options, Some(reserved)).await?)
    }

    /// Reload every unfinished game from the database and resume it (clocks re-armed + grace).
    pub async fn restore(&self) -> AppResult<usize> {
        let stored = self.db().run(store::load_unfinished).await?;
        let n = stored.len();
        for g in stored {
            let id = g.id;
            if let Err(e) = room::spawn_restored(self, g) {
                tracing::error!(game = id, error = %e, "could not restore game");
            }
        }
        Ok(n)
    }

    /// Reload one unfinished game and resume it (cluster mode: a game this node has just
    /// claimed or kept). `false` if it is already played here or is no longer unfinished.
    pub async fn restore_game(&self, id: i64) -> AppResult<bool> {
        let _one_at_a_time = self.inner.restoring.lock().await;
        if self.room_by_game(id).is_some() {
            return Ok(false);
        }
        let Some(g) = self.db().run(move |c| store::load_unfinished_game(c, id)).await? else {
            return Ok(false);
        };
        room::spawn_restored(self, g)?;
        Ok(true)
    }

    /// Record who sits in a room (`None`: nobody to list, e.g. finished).
    pub(crate) fn set_seated(&self, id: &str, seated: Option<Seated>) {
        let mut m = self.inner.seated.lock().unwrap();
        match seated {
            Some(x) => m.insert(id.to_string(), x),
            None => m.remove(id),
        };
    }

    /// Rooms where `account_id` holds a seat and the game is not finished (for `hello`).
    pub fn rooms_of(&self, account_id: i64) -> Vec<SeatedRoom> {
        let m = self.inner.seated.lock().unwrap();
        let mut out = vec![];
        for (seats, room) in m.values() {
            let mine: Vec<Seat> =
                seats.iter().filter(|(a, _)| *a == account_id).map(|(_, s)| *s).collect();
            if !mine.is_empty() {
                out.push(SeatedRoom { seats: mine, ..room.clone() });
            }
        }
        out
    }
}

/// Parse room options from a client's JSON (missing → the defaults of `variant`), validated.
pub fn parse_options(variant: Variant, v: Option<Value>) -> Result<Options, ProtoError> {
    let given = v.filter(|v| !v.is_null());
    let o = Options::from_json_for(variant, given).map_err(|e| {
        ProtoError::new(ErrorCode::InvalidOptions, crate::error::plain_serde_message(&e))
    })?;
    o.validate().map_err(|e| ProtoError::new(ErrorCode::InvalidOptions, e.to_string()))?;
    Ok(o)
}

/// The game of a room named after it (`g<id>`, as restored and ranked rooms are).
fn game_of_room(room: &str) -> Option<i64> {
    room.strip_prefix('g').and_then(|g| g.parse::<i64>().ok())
}
