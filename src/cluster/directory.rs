//! The cluster's answer to live play's [`Directory`]: where a room or game lives comes from the
//! shared PostgreSQL tables (game leases, the `rooms` table of live nodes), this node's rooms are
//! written there by its [`Writer`], and a notice for an account goes to every node by `NOTIFY`.
use super::rooms::{self, Writer};
use super::Lease;
use crate::db::limits;
use crate::db::{Db, DbConn};
use crate::error::AppResult;
use crate::live::directory::{BoxFuture, Directory, HeldPlace, Leases, PlaceOp, SharedRoom};
use crate::live::protocol::{LiveGameSummary, RoomSummary};
use bytestring::ByteString;
use std::sync::Arc;
use tokio::sync::mpsc;

/// This node of a cluster.
pub struct ClusterDirectory {
    lease: Lease,
    db: Db,
    writer: Writer,
    /// changes to the places this node holds (sockets, rooms), applied in order
    places: mpsc::UnboundedSender<PlaceOp>,
}

impl ClusterDirectory {
    /// The directory of node `lease.node` on `db`; starts its rooms writer (call inside the
    /// runtime, before any room is made).
    pub fn new(lease: Lease, db: Db) -> ClusterDirectory {
        let writer = Writer::spawn(db.clone(), lease.node.clone());
        let (places, ops) = mpsc::unbounded_channel();
        apply_places(db.clone(), lease.node.clone(), ops);
        ClusterDirectory { lease, db, writer, places }
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
    fn room_owner(
        &self,
        room: String,
        viewer: Option<i64>,
    ) -> BoxFuture<'_, AppResult<Option<String>>> {
        let grace = self.lease.grace_ms;
        Box::pin(self.db.run(move |c| rooms::owner(c, &room, grace, viewer)))
    }
    fn listed_rooms(&self) -> BoxFuture<'_, AppResult<Option<Vec<RoomSummary>>>> {
        let grace = self.lease.grace_ms;
        Box::pin(async move { self.db.run(move |c| rooms::listed(c, grace)).await.map(Some) })
    }
    fn listed_games(&self) -> BoxFuture<'_, AppResult<Option<Vec<LiveGameSummary>>>> {
        let grace = self.lease.grace_ms;
        Box::pin(async move { self.db.run(move |c| rooms::listed_games(c, grace)).await.map(Some) })
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
    fn shared_counts(&self) -> Option<Db> {
        Some(self.db.clone())
    }
    fn hold(
        &self,
        place: HeldPlace,
        here: (usize, usize),
        max: (usize, usize),
    ) -> BoxFuture<'_, AppResult<bool>> {
        let (node, grace) = (self.lease.node.clone(), self.lease.grace_ms as i64);
        Box::pin(
            self.db.run(move |c| as_row(&place, &node, |p| limits::hold(c, p, here, max, grace))),
        )
    }
    fn places(&self, op: PlaceOp) {
        let _ = self.places.send(op);
    }
}

/// `place` of `node` as the shared table writes it.
fn as_row<R>(place: &HeldPlace, node: &str, f: impl FnOnce(&limits::Place) -> R) -> R {
    let ip = place.ip.map(|ip| ip.to_string());
    f(&limits::Place {
        kind: place.kind.as_str(),
        node,
        place: &place.place,
        account_id: place.account_id,
        ip: ip.as_deref(),
    })
}

/// Apply the changes to this node's places in order (until the directory is dropped).
fn apply_places(db: Db, node: String, mut ops: mpsc::UnboundedReceiver<PlaceOp>) {
    tokio::spawn(async move {
        while let Some(op) = ops.recv().await {
            let n = node.clone();
            let done = db
                .run(move |c| match op {
                    PlaceOp::Keep(p) => as_row(&p, &n, |p| limits::keep(c, p)),
                    PlaceOp::Rename { kind, from, to } => {
                        limits::rename(c, (kind.as_str(), &n), &from, &to)
                    }
                    PlaceOp::Release { kind, place } => {
                        limits::release(c, (kind.as_str(), &n), &place)
                    }
                })
                .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, "cluster: a held place could not be updated");
            }
        }
    });
}
