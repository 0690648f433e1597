//! Cluster mode: the rooms people may join from any node, in the shared `rooms` table.
//!
//! The node that runs a room is the only one that writes its row: a casual room from its
//! creation to its end (its lobby entry while it is public and waiting), and a practice game,
//! which its player may share by invite code. Room tasks never wait for the database: they hand
//! each change to this node's [`Writer`], a task that writes the latest state of every changed
//! room in one transaction. Readers (the lobby list, `join_room` for a room or an invite code this
//! node does not run, `GET /api/rooms/{room}/node`) only see rows of live nodes; the rows of a
//! node whose heartbeat stopped are deleted by the others ([`sweep`]) and by the node itself when
//! it starts again. A single node (cluster mode off) never writes or reads this table.
use super::{ClusterConfig, Lease};
use crate::db::schema::{nodes, rooms};
use crate::db::{Db, DbConn};
use crate::error::AppResult;
use crate::live::protocol::{LiveGameSummary, RoomSummary};
use crate::live::Live;
use chrono::{NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::mpsc;

pub use crate::live::directory::{invite_hash, SharedRoom};

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

/// Heartbeats younger than this are live nodes.
fn live_since(grace_ms: u64) -> NaiveDateTime {
    now() - TimeDelta::milliseconds(grace_ms.min(i64::MAX as u64) as i64)
}

/// Write `room` as run by `node` (the row is taken over if a dead node left one of that id).
pub fn put(conn: &mut DbConn, node: &str, r: &SharedRoom) -> AppResult<()> {
    let values = (
        rooms::node_id.eq(node),
        rooms::game_id.eq(r.game_id),
        rooms::kind.eq(r.kind),
        rooms::variant.eq(r.variant),
        rooms::public.eq(r.public),
        rooms::status.eq(r.status),
        rooms::seats_filled.eq(r.seats_filled),
        rooms::invite_hash.eq(&r.invite_hash),
        rooms::summary.eq(&r.summary),
        rooms::live_entry.eq(&r.live_entry),
        rooms::created_ms.eq(r.created_ms),
        rooms::members.eq(&r.members),
        rooms::updated_at.eq(now()),
    );
    let updated = diesel::update(rooms::table.find(&r.id)).set(values).execute(conn)?;
    if updated == 0 {
        diesel::insert_into(rooms::table).values((rooms::id.eq(&r.id), values)).execute(conn)?;
    }
    Ok(())
}

/// Delete `node`'s row of room `id` (the room ended, or this node no longer runs it).
pub fn remove(conn: &mut DbConn, node: &str, id: &str) -> AppResult<()> {
    diesel::delete(rooms::table.find(id).filter(rooms::node_id.eq(node))).execute(conn)?;
    Ok(())
}

/// Delete every row of `node` (a node starting again: the rooms of its previous run are gone).
pub fn remove_node(conn: &mut DbConn, node: &str) -> AppResult<usize> {
    Ok(diesel::delete(rooms::table.filter(rooms::node_id.eq(node))).execute(conn)?)
}

/// Delete the rows of nodes whose heartbeat is older than `grace_ms` (their rooms died with
/// them; a started game among them is taken over by failover and found by its game id).
pub fn sweep(conn: &mut DbConn, grace_ms: u64) -> AppResult<usize> {
    let live = nodes::table.filter(nodes::heartbeat_at.ge(live_since(grace_ms))).select(nodes::id);
    Ok(diesel::delete(rooms::table.filter(diesel::dsl::not(rooms::node_id.eq_any(live))))
        .execute(conn)?)
}

/// The public waiting rooms of the live nodes, oldest first: the lobby's list on every node.
pub fn listed(conn: &mut DbConn, grace_ms: u64) -> AppResult<Vec<RoomSummary>> {
    let live = nodes::table.filter(nodes::heartbeat_at.ge(live_since(grace_ms))).select(nodes::id);
    let rows: Vec<(String, Option<String>, i64)> = rooms::table
        .filter(rooms::summary.is_not_null())
        .filter(rooms::node_id.eq_any(live))
        .order((rooms::created_ms, rooms::id))
        .select((rooms::id, rooms::summary, rooms::created_ms))
        .load(conn)?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, summary, created) in rows {
        match serde_json::from_str::<RoomSummary>(summary.as_deref().unwrap_or_default()) {
            Ok(s) => out.push(RoomSummary { created, ..s }),
            Err(e) => tracing::warn!(room = %id, error = %e, "cluster: unreadable room summary"),
        }
    }
    Ok(out)
}

/// The games in progress anyone may watch, on the live nodes, oldest first: the lobby's list of
/// games on every node.
pub fn listed_games(conn: &mut DbConn, grace_ms: u64) -> AppResult<Vec<LiveGameSummary>> {
    let live = nodes::table.filter(nodes::heartbeat_at.ge(live_since(grace_ms))).select(nodes::id);
    let rows: Vec<(String, Option<String>, i64)> = rooms::table
        .filter(rooms::live_entry.is_not_null())
        .filter(rooms::node_id.eq_any(live))
        .order((rooms::created_ms, rooms::id))
        .select((rooms::id, rooms::live_entry, rooms::created_ms))
        .load(conn)?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, entry, created) in rows {
        match serde_json::from_str::<LiveGameSummary>(entry.as_deref().unwrap_or_default()) {
            Ok(g) => out.push(LiveGameSummary { created, ..g }),
            Err(e) => tracing::warn!(room = %id, error = %e, "cluster: unreadable game entry"),
        }
    }
    Ok(out)
}

/// The live node that runs room `id`, if any and if `viewer` may learn of it (a private room
/// only its members: to anyone else it does not exist).
pub fn owner(
    conn: &mut DbConn,
    id: &str,
    grace_ms: u64,
    viewer: Option<i64>,
) -> AppResult<Option<String>> {
    let live = nodes::table.filter(nodes::heartbeat_at.ge(live_since(grace_ms))).select(nodes::id);
    let row: Option<(String, Option<String>)> = rooms::table
        .find(id)
        .filter(rooms::node_id.eq_any(live))
        .select((rooms::node_id, rooms::members))
        .first(conn)
        .optional()?;
    Ok(row.and_then(|(node, members)| {
        crate::live::directory::may_learn_of(members.as_deref(), viewer).then_some(node)
    }))
}

/// The room of invite code `code` and the live node that runs it, if any.
pub fn by_invite(
    conn: &mut DbConn,
    code: &str,
    grace_ms: u64,
) -> AppResult<Option<(String, String)>> {
    let live = nodes::table.filter(nodes::heartbeat_at.ge(live_since(grace_ms))).select(nodes::id);
    Ok(rooms::table
        .filter(rooms::invite_hash.eq(invite_hash(code)))
        .filter(rooms::node_id.eq_any(live))
        .select((rooms::id, rooms::node_id))
        .first(conn)
        .optional()?)
}

/// A change of one of this node's rooms: its new state, or its end.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Put(SharedRoom),
    Remove,
}

/// The channel from room tasks to this node's writer task (cheap to clone; never blocks).
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::UnboundedSender<(String, Change)>,
}

impl Writer {
    /// Start the writer task of `node` on `db`.
    pub fn spawn(db: Db, node: String) -> Writer {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(db, node, rx));
        Writer { tx }
    }

    /// The room's current state (written unless unchanged since the last write).
    pub fn put(&self, room: SharedRoom) {
        let _ = self.tx.send((room.id.clone(), Change::Put(room)));
    }

    /// The room ended here (closed, finished, or another node runs it now).
    pub fn remove(&self, id: &str) {
        let _ = self.tx.send((id.to_string(), Change::Remove));
    }
}

/// Take every queued change (the latest per room), drop those already written, write the rest
/// in one transaction; on a failure wait a little and try again with whatever came meanwhile.
async fn write_loop(db: Db, node: String, mut rx: mpsc::UnboundedReceiver<(String, Change)>) {
    let mut written: HashMap<String, SharedRoom> = HashMap::new();
    let mut pending: HashMap<String, Change> = HashMap::new();
    loop {
        if pending.is_empty() {
            let Some((id, c)) = rx.recv().await else { return };
            pending.insert(id, c);
        }
        while let Ok((id, c)) = rx.try_recv() {
            pending.insert(id, c);
        }
        pending.retain(|id, c| match c {
            Change::Put(r) => written.get(id) != Some(r),
            Change::Remove => true,
        });
        if pending.is_empty() {
            continue;
        }
        let batch: Vec<(String, Change)> = pending.drain().collect();
        let (n, b) = (node.clone(), batch.clone());
        let done = db
            .run(move |c| {
                c.transaction(|c| {
                    for (id, change) in &b {
                        match change {
                            Change::Put(r) => put(c, &n, r)?,
                            Change::Remove => remove(c, &n, id)?,
                        }
                    }
                    Ok(())
                })
            })
            .await;
        match done {
            Ok(()) => {
                for (id, change) in batch {
                    match change {
                        Change::Put(r) => written.insert(id, r),
                        Change::Remove => written.remove(&id),
                    };
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, rooms = batch.len(), "cluster: cannot write rooms");
                for (id, change) in batch {
                    pending.entry(id).or_insert(change);
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

/// At a node's start (before it accepts sockets): forget the rows of its previous run and sweep
/// the rows of dead nodes every `grace_ms` (its writer is the directory's, made before).
pub async fn start(live: &Live, lease: &Lease, config: &ClusterConfig) -> Result<(), String> {
    let node = lease.node.clone();
    live.db()
        .run(move |c| remove_node(c, &node))
        .await
        .map_err(|e| format!("cannot clear this node's rooms: {e}"))?;
    let (db, grace) = (live.db().clone(), config.grace_ms);
    let mut stop = live.shutdown_signal();
    live.spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(grace.max(1)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = stop.changed() => return,
                _ = tick.tick() => {}
            }
            if let Err(e) = db.run(move |c| sweep(c, grace)).await {
                tracing::warn!(error = %e, "cluster: cannot sweep the rooms of dead nodes");
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invite_hashes_ignore_case_and_hide_the_code() {
        let h = invite_hash("abcd2345efgh");
        assert_eq!(h, invite_hash("ABCD2345EFGH"));
        assert_ne!(h, invite_hash("ABCD2345EFGJ"));
        assert_eq!(h.len(), 64);
        assert!(!h.to_uppercase().contains("ABCD2345"));
    }
}
