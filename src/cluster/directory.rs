//! The cluster's answer to live play's [`Directory`]: where a room or game lives comes from the
//! shared PostgreSQL tables (game leases, the `rooms` table of live nodes), this node's rooms are
//! written there by its [`Writer`], and a notice for an account goes to every node by `NOTIFY`.
use super::rooms::{self, Writer};
use super::Lease;
use crate::db::{Db, DbConn};
use crate::error::AppResult;
use crate::live::directory::{BoxFuture, Directory, Leases, SharedRoom};
use crate::live::protocol::RoomSummary;
use bytestring::ByteString;
use std::sync::Arc;

/// This node of a cluster.
pub struct ClusterDirectory {
    lease: Lease,
    db: Db,
    writer: Writer,
}

impl ClusterDirectory {
    /// The directory of node `lease.node` on `db`; starts its rooms writer (call inside the
    /// runtime, before any room is made).
    pub fn new(lease: Lease, db: Db) -> ClusterDirectory {
        let writer = Writer::spawn(db.clone(), lease.node.clone());
        ClusterDirectory { lease, db, writer }
    }
}

/// The lease check of this node's writes.
struct NodeLeases(Lease);

impl Leases for NodeLeases {
    fn node(&self) -> &str {
        &self.0.node
    }
    fn owner(&self, conn: &mut DbConn, game: i64) -> AppResult<Option<String>> {
        super::locked_owner(conn, game)
    }
    fn own(&self, conn: &mut DbConn, game: i64) -> AppResult<()> {
        super::own(conn, game, &self.0.node, self.0.grace_ms)
    }
}

impl Directory for ClusterDirectory {
    fn node_id(&self) -> &str {
        &self.lease.node
    }
    fn leases(&self) -> Option<Arc<dyn Leases>> {
        Some(Arc::new(NodeLeases(self.lease.clone())))
    }
    fn game_owner(&self, game: i64) -> BoxFuture<'_, AppResult<Option<String>>> {
        Box::pin(self.db.run(move |c| super::live_owner_of(c, game)))
    }
    fn room_owner(&self, room: String) -> BoxFuture<'_, AppResult<Option<String>>> {
        let grace = self.lease.grace_ms;
        Box::pin(self.db.run(move |c| rooms::owner(c, &room, grace)))
    }
    fn listed_rooms(&self) -> BoxFuture<'_, AppResult<Option<Vec<RoomSummary>>>> {
        let grace = self.lease.grace_ms;
        Box::pin(async move { self.db.run(move |c| rooms::listed(c, grace)).await.map(Some) })
    }
    fn room_by_invite(&self, code: String) -> BoxFuture<'_, AppResult<Option<(String, String)>>> {
        let grace = self.lease.grace_ms;
        Box::pin(self.db.run(move |c| rooms::by_invite(c, &code, grace)))
    }
    fn share_room(&self, room: SharedRoom) {
        self.writer.put(room);
    }
    fn unshare_room(&self, id: &str) {
        self.writer.remove(id);
    }
    fn publish(&self, account_id: i64, text: &ByteString) -> bool {
        super::notify::publish_later(&self.db, account_id, text.clone());
        true
    }
}
