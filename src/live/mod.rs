//! Live play: rooms, games in progress, the WebSocket protocol (docs/protocol.md).
//!
//! Shape: every room (a table: seats, options, spectators, chat and, once started, its game) is
//! owned by one tokio task ([`room`]) with an mpsc command channel; nothing else touches it. A
//! socket ([`socket`]) parses frames into typed commands ([`protocol`]) and sends them to the room
//! task; the room task applies them with the rules engine, commits the change to the database
//! ([`store`]) and only then sends each receiver its own redacted view. Bots are seat drivers that
//! go through the same command channel. At start-up [`Live::restore`] reloads unfinished games.
pub mod bots;
mod config;
mod conn;
mod create;
mod places;
pub(crate) use places::RoomReservation;
pub mod directory;
pub mod finish;
pub mod protocol;
mod registry;
pub mod room;
mod sessions;
pub mod socket;
pub mod store;
pub mod tickets;
mod watching;

pub use config::LiveConfig;
pub use conn::{client_channel, ClientTx, Kill, CLOSE_MOVED, CLOSE_SESSION_ENDED, OUTBOUND_QUEUE};
pub use directory::LOCAL_NODE;

use crate::auth::limits::Failures;
use crate::db::Db;
use crate::error::AppResult;
use bytestring::ByteString;
use directory::Directory;
use protocol::{Ack, ClientId, ErrorCode, MovedTo, ProtoError, RoomSummary, SeatedRoom, ServerMsg};
use registry::Registry;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sessions::Sessions;
use siguo_bots::Level;
use siguo_rules::{OptionChanges, Options, Seat, Variant};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Kind of game (ladder.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Ranked,
    RankedDual,
    /// Hidden Front, two accounts paired by the `hf_ranked` queue.
    HfRanked,
    Casual,
    Practice,
}

impl GameKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Ranked => "ranked",
            GameKind::RankedDual => "ranked_dual",
            GameKind::HfRanked => "hf_ranked",
            GameKind::Casual => "casual",
            GameKind::Practice => "practice",
        }
    }
    pub fn parse(s: &str) -> Option<GameKind> {
        Some(match s {
            "ranked" => GameKind::Ranked,
            "ranked_dual" => GameKind::RankedDual,
            "hf_ranked" => GameKind::HfRanked,
            "casual" => GameKind::Casual,
            "practice" => GameKind::Practice,
            _ => return None,
        })
    }
    /// Anyone may watch a game of this kind (and read its record): a ranked game, or a casual
    /// game of a public room (`room_public`); else only its players (private room, practice).
    pub fn open_to_all(self, room_public: bool) -> bool {
        self.is_ranked() || (self == GameKind::Casual && room_public)
    }
    pub fn is_ranked(self) -> bool {
        matches!(self, GameKind::Ranked | GameKind::RankedDual | GameKind::HfRanked)
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

impl Who {
    /// A logged-out visitor who only watches public games (`/api/ws?visitor=1`): no account, a
    /// negative id of its own socket, so that it is counted and redacted as any spectator and
    /// can never be a seat's account (accounts have positive ids).
    pub fn visitor(n: u64) -> Who {
        let id = -1 - (n.min(i64::MAX as u64 - 1) as i64);
        Who { account_id: id, name: VISITOR_NAME.into(), guest: true }
    }
    pub fn is_visitor(&self) -> bool {
        self.account_id < 0
    }
}

/// The name a visitor's socket goes by (it may not chat: nobody sees it).
pub const VISITOR_NAME: &str = "visitor";
/// How long a visitor's socket may live before it reconnects (it has no token to expire).
pub const VISITOR_SECONDS: u64 = 6 * 3600;

/// The seated accounts of a room with their seats, and the room as `hello` lists it.
pub(crate) type Seated = (Vec<(i64, Seat)>, SeatedRoom);

pub(crate) struct Inner {
    pub db: Db,
    pub config: LiveConfig,
    /// where rooms and games live (this node alone, or a cluster), given at construction
    directory: Arc<dyn Directory>,
    /// this node's rooms, under one lock
    registry: Registry,
    /// this node's sockets, under one lock
    sessions: Sessions,
    /// failed invite look-ups per account and per client IP (bucketed)
    invite_failures: (Failures<i64>, Failures<IpAddr>),
    /// the bot threads, shared fairly between clients (bots.rs)
    bots: bots::BotPool,
    /// held while a game is restored, so that a join and the heartbeat never restore it twice
    restoring: tokio::sync::Mutex<()>,
    next_conn: AtomicU64,
    shutdown: watch::Sender<bool>,
    runtime: tokio::runtime::Handle,
    /// the room tasks, so that a stop waits for the writes they have begun
    tasks: tokio_util::task::TaskTracker,
    /// bots searching a move now, and the most at once since the start
    thinking: (std::sync::atomic::AtomicI64, std::sync::atomic::AtomicI64),
    /// the gauges live play moves
    gauges: LiveGauges,
}

/// The gauges live play moves (see [`crate::metrics::Metrics`]).
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
    /// Must be called inside a tokio runtime; room tasks are spawned on it. `directory` says
    /// where rooms and games live (a single node, or a cluster); `gauges` are the metrics.
    pub fn new(
        db: Db,
        config: LiveConfig,
        directory: Arc<dyn Directory>,
        gauges: LiveGauges,
    ) -> Live {
        let (shutdown, _) = watch::channel(false);
        let window = config.invite_failure_window_secs;
        let mut invite_failures = (
            Failures::new(config.invite_failures_per_account, window),
            Failures::new(config.invite_failures_per_ip, window),
        );
        if let Some(db) = directory.shared_counts() {
            invite_failures.0.share(&db, "invite_failure_account");
            invite_failures.1.share(&db, "invite_failure_ip");
        }
        let thinkers = match config.bot_threads {
            0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            n => n,
        };
        Live {
            inner: Arc::new(Inner {
                db,
                directory,
                registry: Registry::new((config.max_rooms_per_account, config.max_rooms_per_ip)),
                sessions: Sessions::new(sessions::RecentLimits {
                    per_account: config.recent_ids_per_account,
                    max_age: Duration::from_secs(config.recent_ids_seconds),
                    offline: Duration::from_secs(config.recent_ids_offline_seconds),
                }),
                invite_failures,
                bots: bots::BotPool::start(thinkers),
                restoring: tokio::sync::Mutex::new(()),
                next_conn: AtomicU64::new(1),
                config,
                shutdown,
                runtime: tokio::runtime::Handle::current(),
                tasks: tokio_util::task::TaskTracker::new(),
                thinking: Default::default(),
                gauges,
            }),
        }
    }

    fn count_games(&self, games: usize) {
        self.inner.gauges.live_games.set(games as i64);
    }

    pub(crate) fn socket_gauge(&self, delta: i64) {
        self.inner.gauges.open_sockets.add(delta);
    }

    /// A bot starts (+1) or ends (-1) a search (while it holds a [`Live::bot_thinkers`] permit).
    pub(crate) fn bot_thinking(&self, delta: i64) {
        let (now, peak) = &self.inner.thinking;
        let n = now.fetch_add(delta, Ordering::SeqCst) + delta;
        let most = peak.fetch_max(n, Ordering::SeqCst).max(n);
        self.inner.gauges.bots_thinking.set(n);
        self.inner.gauges.bots_thinking_peak.set(most);
    }

    /// Where rooms and games live.
    pub(crate) fn directory(&self) -> &dyn Directory {
        self.inner.directory.as_ref()
    }

    /// This node's id: its cluster id, or `"local"` on a single node.
    pub fn node_id(&self) -> &str {
        self.inner.directory.node_id()
    }

    /// The node that plays unfinished game `id`: the one the shared records name (cluster), else
    /// this one if it plays the game here (or still shows it finished); `None` if no node does.
    pub async fn owner_elsewhere_or_here(&self, id: i64) -> AppResult<Option<String>> {
        let owner = self.directory().game_owner(id).await?;
        Ok(owner.or_else(|| self.room_by_game(id).map(|_| self.node_id().to_string())))
    }

    /// The room `room` played here; else `moved`, naming the owner, when the shared records say
    /// another node plays it (a game `g<id>` by its lease, another room by the shared `rooms`
    /// table), or the game restored now when they name this node (it has just claimed the game
    /// and not yet restored it); else `fallback`.
    ///
    /// A game is named to `viewer` only if they may see it ([`Live::may_view_game`]): anyone
    /// else gets `fallback` (`not_found`), as for a game that does not exist.
    pub async fn room_or_moved(
        &self,
        room: &str,
        viewer: i64,
        fallback: ProtoError,
    ) -> Result<room::RoomHandle, ProtoError> {
        if let Some(h) = self.room(room) {
            return Ok(h);
        }
        let game = game_of_room(room);
        if let Some(g) = game {
            if !self.may_view_game(g, Some(viewer)).await? {
                return Err(fallback);
            }
        }
        // a private room of another node is named only to its members (an invited person
        // presents the code, `lookup_invite`): to anyone else it does not exist
        match (self.recorded_owner(room, Some(viewer)).await, game) {
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

    /// The node the shared records name for room `room` — a game `g<id>` by its lease, another
    /// room by the shared `rooms` table (live nodes only); `None` on a single node.
    /// A room that is not a game's `g<id>` only if `viewer` may learn of it (a private room
    /// only its members).
    async fn recorded_owner(&self, room: &str, viewer: Option<i64>) -> AppResult<Option<String>> {
        match game_of_room(room) {
            Some(game) => match self.directory().game_owner(game).await? {
                Some(node) => Ok(Some(node)),
                None => Ok(None),
            },
            None => self.directory().room_owner(room.to_string(), viewer).await,
        }
    }

    /// May `viewer` (an account, or anyone without one) see game `game` — watch it, read it,
    /// learn where it is played? A public game anyone, a private one (private room, practice)
    /// only its players; nobody a game that does not exist.
    pub async fn may_view_game(&self, game: i64, viewer: Option<i64>) -> AppResult<bool> {
        self.db().run(move |c| store::may_view_game(c, game, viewer)).await
    }

    /// The node that runs room `room` (a room id, or `g<id>` for a game): this one if it runs it
    /// here; else the owner the shared records name; `None` if no node runs it.
    /// A game's room (`g<id>`) only if `viewer` may see the game, a private room (by its room
    /// id) only if `viewer` is one of its members: else `None`, as for a room no node runs.
    pub async fn room_node(&self, room: &str, viewer: Option<i64>) -> AppResult<Option<String>> {
        if let Some(g) = game_of_room(room) {
            if !self.may_view_game(g, viewer).await? {
                return Ok(None);
            }
        }
        if let Some(h) = self.room(room) {
            // a private room here: only to its members (the room itself answers)
            let (tx, rx) = tokio::sync::oneshot::channel();
            let known = h.send(room::Cmd::MayLearn { viewer, tx }).await && rx.await == Ok(true);
            return Ok(known.then(|| self.node_id().to_string()));
        }
        self.recorded_owner(room, viewer).await
    }

    /// The lobby's list of open public rooms: the directory's (every node's, in a cluster), else
    /// this node's own.
    pub async fn listed_rooms(&self) -> AppResult<Vec<RoomSummary>> {
        match self.directory().listed_rooms().await? {
            Some(all) => Ok(all),
            None => Ok(self.open_rooms()),
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
        self.inner.registry.clear_rooms();
        self.inner.bots.stop();
    }

    /// After [`Live::shutdown`]: wait (at most `limit`) until every room task has ended, so that
    /// a write a room had begun is committed before another process restores its game.
    pub async fn stopped(&self, limit: std::time::Duration) {
        self.inner.tasks.close();
        if tokio::time::timeout(limit, self.inner.tasks.wait()).await.is_err() {
            tracing::warn!(rooms = self.inner.tasks.len(), "room tasks still running at stop");
        }
    }

    pub(crate) fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.inner.shutdown.subscribe()
    }

    pub(crate) fn spawn<F: std::future::Future<Output = ()> + Send + 'static>(&self, f: F) {
        self.inner.tasks.spawn_on(f, &self.inner.runtime);
    }

    pub fn next_conn_id(&self) -> u64 {
        self.inner.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    // ---- the registry of rooms (registry.rs) ----

    pub(crate) fn register(
        &self,
        id: &str,
        invite: Option<&str>,
        game: Option<i64>,
        h: room::RoomHandle,
    ) {
        self.count_games(self.inner.registry.register(id, invite, game, h));
    }
    pub(crate) fn set_game(&self, id: &str, game: i64) {
        self.count_games(self.inner.registry.set_game(id, game));
    }
    /// A game that ended unplayed is no longer found by its id (its room waits again).
    pub(crate) fn forget_game(&self, game: i64) {
        self.count_games(self.inner.registry.forget_game(game));
    }
    pub(crate) fn unregister(&self, id: &str, invite: Option<&str>, game: Option<i64>) {
        self.count_games(self.inner.registry.unregister(id, invite, game));
        self.directory().unshare_room(id);
    }
    pub(crate) fn bots(&self) -> &bots::BotPool {
        &self.inner.bots
    }
    pub fn room(&self, id: &str) -> Option<room::RoomHandle> {
        self.inner.registry.room(id)
    }
    pub fn room_by_invite(&self, invite: &str) -> Option<String> {
        self.inner.registry.room_by_invite(invite)
    }
    /// Resolve an invite code for `account_id` at `ip`, counting failures: after too many
    /// (per account or per IP) every look-up is refused with `rate_limited` for a while. A code
    /// of a room another node runs is answered `moved` (with the room).
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
        per_account.check(&account_id).await.map_err(limited)?;
        per_ip.check(&ip).await.map_err(limited)?;
        if let Some(room) = self.room_by_invite(invite) {
            return Ok(room);
        }
        if let Some((room, node)) = self.directory().room_by_invite(invite.to_string()).await? {
            if node != self.node_id() {
                return Err(ProtoError::moved(MovedTo::new(&node, Some(room), None)));
            }
        }
        per_account.fail(&account_id).await?;
        per_ip.fail(&ip).await?;
        Err(ProtoError::new(ErrorCode::NotFound, "no room with that invite code"))
    }
    /// Forget old failure counts (housekeeping).
    pub fn prune_limits(&self) {
        self.inner.invite_failures.0.retain_recent();
        self.inner.invite_failures.1.retain_recent();
    }
    pub fn room_by_game(&self, game: i64) -> Option<String> {
        self.inner.registry.room_by_game(game)
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
        self.inner.registry.set_summary(id, summary)
    }
    /// Open public rooms of this node (phase `waiting`), oldest first.
    pub fn open_rooms(&self) -> Vec<RoomSummary> {
        self.inner.registry.open_rooms()
    }
    /// Record who sits in a room (`None`: nobody to list, e.g. finished).
    pub(crate) fn set_seated(&self, id: &str, seated: Option<Seated>) {
        self.inner.registry.set_seated(id, seated)
    }
    /// Rooms where `account_id` holds a seat and the game is not finished (for `hello`).
    pub fn rooms_of(&self, account_id: i64) -> Vec<SeatedRoom> {
        self.inner.registry.rooms_of(account_id)
    }

    // ---- accounts' sockets (sessions.rs) ----

    /// Room for one more socket of `account_id` from `ip`? (`too_many_sockets` otherwise.)
    pub(crate) fn add_socket(&self, tx: ClientTx, ip: IpAddr) {
        self.inner.sessions.add_socket(tx, ip)
    }
    pub(crate) fn remove_ip(&self, ip: IpAddr) {
        self.inner.sessions.remove_ip(ip)
    }
    pub(crate) fn remove_socket(&self, account_id: i64, conn_id: u64) {
        self.inner.sessions.remove_socket(account_id, conn_id)
    }
    /// Send a message to every socket of an account on this node.
    pub fn notify_account(&self, account_id: i64, msg: &ServerMsg) {
        self.deliver(account_id, msg.to_text());
    }
    /// Send a notice to every socket of an account, wherever it is (e.g. the ladder's
    /// `match_found`): through the directory to every node, or to this node's sockets.
    pub fn tell(&self, account_id: i64, msg: &ServerMsg) {
        let text = msg.to_text();
        if !self.directory().publish(account_id, &text) {
            self.deliver(account_id, text);
        }
    }
    /// The accounts with a socket on this node.
    pub fn online_accounts(&self) -> Vec<i64> {
        self.inner.sessions.online_accounts()
    }
    /// Send a message's text to every socket of an account on this node.
    pub fn deliver(&self, account_id: i64, text: ByteString) {
        self.inner.sessions.deliver(account_id, text)
    }
    /// Close every socket of an account (logout, password change) with [`CLOSE_SESSION_ENDED`].
    /// The account's token generation is now `generation`: its sockets opened with older
    /// tokens close (4001), on this node.
    pub fn close_older_sessions(&self, account_id: i64, generation: i64) {
        self.inner.sessions.close_older(account_id, generation)
    }
    /// Each account with a socket on this node, and the oldest token generation of its sockets.
    pub fn socket_generations(&self) -> Vec<(i64, i64)> {
        self.inner.sessions.oldest_generations()
    }
    pub fn is_online(&self, account_id: i64) -> bool {
        self.inner.sessions.is_online(account_id)
    }
    /// The ack already sent for this (account, id), if any.
    pub fn seen_id(&self, account_id: i64, id: &Option<ClientId>) -> Option<Ack> {
        self.inner.sessions.seen_id(account_id, id)
    }
    pub fn remember_id(&self, account_id: i64, id: &Option<ClientId>, ack: &Ack) {
        self.inner.sessions.remember_id(account_id, id, ack)
    }
}

/// Room options from a client's changes (none: the defaults of `variant`), validated.
pub fn parse_options(
    variant: Variant,
    given: Option<OptionChanges>,
) -> Result<Options, ProtoError> {
    let invalid = |m: String| ProtoError::new(ErrorCode::InvalidOptions, m);
    let o = given.unwrap_or_default().apply(variant).map_err(invalid)?;
    o.validate().map_err(|e| invalid(e.to_string()))?;
    Ok(o)
}

/// Room options read from JSON (an HTTP body), as [`parse_options`]; JSON that is not a set of
/// option changes is refused with `invalid_options` too.
pub fn options_from_json(variant: Variant, v: Option<Value>) -> Result<Options, ProtoError> {
    let given = v
        .filter(|v| !v.is_null())
        .map(|v| serde::Deserialize::deserialize(&v))
        .transpose()
        .map_err(|e: serde_json::Error| {
            let m = crate::error::plain_serde_message(&e.to_string());
            ProtoError::new(ErrorCode::InvalidOptions, m)
        })?;
    parse_options(variant, given)
}

/// The game of a room named after it (`g<id>`, as restored and ranked rooms are).
fn game_of_room(room: &str) -> Option<i64> {
    room.strip_prefix('g').and_then(|g| g.parse::<i64>().ok())
}
