//! Where rooms and games live, and how a notice reaches an account: the one thing live play asks
//! of the deployment. A single node answers everything itself ([`SingleNode`]); a cluster
//! (`crate::cluster::directory`) answers from the shared PostgreSQL tables. The directory is
//! handed to [`super::Live::new`] once, at start: live play never asks which of the two it has,
//! and never imports the cluster.
use super::protocol::{LiveGameSummary, RoomSummary};
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use bytestring::ByteString;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A boxed future, for the directory's look-ups (the trait is used as `dyn Directory`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The node id of a single server (`GET /api/games/{id}/node` answers it).
pub const LOCAL_NODE: &str = "local";

/// Where rooms and games live.
pub trait Directory: Send + Sync {
    /// This node's id: its cluster id, or [`LOCAL_NODE`].
    fn node_id(&self) -> &str;
    /// The lease of this node's games, checked by every write of a game (`None`: nothing to
    /// check, one node owns everything).
    fn leases(&self) -> Option<Arc<dyn Leases>>;
    /// The node the shared records name as playing unfinished game `game` (`None`: none known).
    fn game_owner(&self, game: i64) -> BoxFuture<'_, AppResult<Option<String>>>;
    /// The node the shared records name as running room `room`, if `viewer` may learn of it
    /// (a private room only to its members: [`may_learn_of`]).
    fn room_owner(
        &self,
        room: String,
        viewer: Option<i64>,
    ) -> BoxFuture<'_, AppResult<Option<String>>>;
    /// The lobby of every node (`None`: this node's own list is the lobby).
    fn listed_rooms(&self) -> BoxFuture<'_, AppResult<Option<Vec<RoomSummary>>>>;
    /// The games in progress anyone may watch, on every node (`None`: this node's own list).
    fn listed_games(&self) -> BoxFuture<'_, AppResult<Option<Vec<LiveGameSummary>>>>;
    /// The room of an invite code and the node that runs it, from the shared records.
    fn room_by_invite(&self, code: String) -> BoxFuture<'_, AppResult<Option<(String, String)>>>;
    /// A room of this node changed: what other nodes may know of it.
    fn share_room(&self, room: SharedRoom);
    /// A room of this node ended here.
    fn unshare_room(&self, id: &str);
    /// Send a notice to every socket of an account, on every node; `false` when this node's
    /// sockets are all there is (the caller delivers it).
    fn publish(&self, account_id: i64, text: &ByteString) -> bool;
    /// Where per-account and per-address limits are counted for every node together (`None`:
    /// this node counts alone, in memory).
    fn shared_counts(&self) -> Option<crate::db::Db>;
    /// Hold `place` if its account (and address) hold fewer than `max` places of its kind on
    /// every node together: `here` on this node (the caller's count), the others' from the
    /// shared records (cluster).
    fn hold(
        &self,
        place: HeldPlace,
        here: (usize, usize),
        max: (usize, usize),
    ) -> BoxFuture<'_, AppResult<bool>>;
    /// A change to what this node holds, applied in order (nothing on a single node).
    fn places(&self, op: PlaceOp);
}

/// One server: every room and game is here, and so is every socket.
pub struct SingleNode;

impl Directory for SingleNode {
    fn node_id(&self) -> &str {
        LOCAL_NODE
    }
    fn leases(&self) -> Option<Arc<dyn Leases>> {
        None
    }
    fn game_owner(&self, _game: i64) -> BoxFuture<'_, AppResult<Option<String>>> {
        Box::pin(async { Ok(None) })
    }
    fn room_owner(
        &self,
        _room: String,
        _viewer: Option<i64>,
    ) -> BoxFuture<'_, AppResult<Option<String>>> {
        Box::pin(async { Ok(None) })
    }
    fn listed_rooms(&self) -> BoxFuture<'_, AppResult<Option<Vec<RoomSummary>>>> {
        Box::pin(async { Ok(None) })
    }
    fn listed_games(&self) -> BoxFuture<'_, AppResult<Option<Vec<LiveGameSummary>>>> {
        Box::pin(async { Ok(None) })
    }
    fn room_by_invite(&self, _code: String) -> BoxFuture<'_, AppResult<Option<(String, String)>>> {
        Box::pin(async { Ok(None) })
    }
    fn share_room(&self, _room: SharedRoom) {}
    fn unshare_room(&self, _id: &str) {}
    fn publish(&self, _account_id: i64, _text: &ByteString) -> bool {
        false
    }
    fn shared_counts(&self) -> Option<crate::db::Db> {
        None
    }
    fn hold(
        &self,
        place: HeldPlace,
        here: (usize, usize),
        max: (usize, usize),
    ) -> BoxFuture<'_, AppResult<bool>> {
        let fits = here.0 < max.0 && (place.ip.is_none() || here.1 < max.1);
        Box::pin(async move { Ok(fits) })
    }
    fn places(&self, _op: PlaceOp) {}
}

/// What a node holds for an account (and a client address), counted against its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceKind {
    /// an open WebSocket (`live.max_sockets_per_account`, `live.max_sockets_per_ip`)
    Socket,
    /// a waiting room or a practice game (`live.max_rooms_per_account`)
    Room,
}

impl PlaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PlaceKind::Socket => "socket",
            PlaceKind::Room => "room",
        }
    }
}

/// One place held: its kind, its name (a connection id, a room id), whose it is.
#[derive(Clone, Debug)]
pub struct HeldPlace {
    pub kind: PlaceKind,
    pub place: String,
    pub account_id: i64,
    pub ip: Option<std::net::IpAddr>,
}

/// A change to the places a node holds.
#[derive(Clone, Debug)]
pub enum PlaceOp {
    /// held whatever the count (a game restored here)
    Keep(HeldPlace),
    Rename {
        kind: PlaceKind,
        from: String,
        to: String,
    },
    Release {
        kind: PlaceKind,
        place: String,
    },
}

/// The lease of a node's games (cluster mode), as a write sees it.
pub trait Leases: Send + Sync {
    /// This node.
    fn node(&self) -> &str;
    /// The node recorded as owning `game`, read inside the write's transaction (and, where the
    /// database can, locked until it ends, so that no claim slips in between).
    fn owner(&self, conn: &mut DbConn, game: i64) -> AppResult<Option<String>>;
    /// Record that this node owns a game it has just created.
    fn own(&self, conn: &mut DbConn, game: i64) -> AppResult<()>;
}

/// The lease check of one room's writes: every write transaction first checks that this node
/// still owns the game; a refusal (`moved`, naming the owner) is remembered so that the room
/// stops. With no leases (one node) it checks nothing.
#[derive(Clone, Default)]
pub struct Guard {
    leases: Option<Arc<dyn Leases>>,
    lost: Arc<AtomicBool>,
}

impl Guard {
    pub fn new(leases: Option<Arc<dyn Leases>>) -> Guard {
        Guard { leases, lost: Default::default() }
    }

    /// `moved` (and remembered) unless this node owns `game`; call inside the write's transaction.
    pub fn check(&self, conn: &mut DbConn, game: i64) -> AppResult<()> {
        let Some(l) = &self.leases else { return Ok(()) };
        let owner = l.owner(conn, game)?;
        if owner.as_deref() == Some(l.node()) {
            return Ok(());
        }
        self.lost.store(true, Ordering::Relaxed);
        match owner {
            Some(node) => Err(AppError::Moved { game, node }),
            // a game row of a cluster always names its owner; without one it is not ours
            None => Err(AppError::NotFound { what: "game" }),
        }
    }

    /// This node's id when writes are leased (a cluster), else `None`.
    pub fn node(&self) -> Option<&str> {
        self.leases.as_ref().map(|l| l.node())
    }

    /// Record that this node owns a game it has just created (nothing on a single node).
    pub fn own(&self, conn: &mut DbConn, game: i64) -> AppResult<()> {
        match &self.leases {
            Some(l) => l.own(conn, game),
            None => Ok(()),
        }
    }

    /// Whether a write was refused because another node owns the game now.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }
}

/// A room as this node shares it with the others (cluster mode: a row of the `rooms` table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedRoom {
    pub id: String,
    pub game_id: Option<i64>,
    pub kind: &'static str,
    pub variant: &'static str,
    pub public: bool,
    /// `waiting`, `deploying` or `battle`
    pub status: &'static str,
    pub seats_filled: i32,
    pub invite_hash: Option<String>,
    /// the lobby entry (JSON [`RoomSummary`]) of a public waiting room
    pub summary: Option<String>,
    /// the entry (JSON [`LiveGameSummary`]) of a game in progress anyone may watch
    pub live_entry: Option<String>,
    pub created_ms: i64,
    /// JSON array of the accounts that may enter a private room (host, seated, admitted by the
    /// invite code); `None` for a room open to all
    pub members: Option<String>,
}

/// May `viewer` learn of a room whose shared `members` are these ([`SharedRoom::members`])?
pub fn may_learn_of(members: Option<&str>, viewer: Option<i64>) -> bool {
    let Some(m) = members else { return true };
    let Some(v) = viewer else { return false };
    serde_json::from_str::<Vec<i64>>(m).is_ok_and(|m| m.contains(&v))
}

/// The stored form of an invite code: SHA-256 (hex) of its upper-case form (codes are
/// case-insensitive), so that the shared records never hold a usable code.
pub fn invite_hash(code: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(code.trim().to_uppercase().as_bytes()))
}
