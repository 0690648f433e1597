//! Several `siguo serve` nodes on one PostgreSQL (docs/deployment.md, docs/architecture.md).
//!
//! Each unfinished game has one owner node, which runs its room. Ownership is a lease in the
//! `games` row (`node_id`, `lease_until`), renewed by the owner's heartbeat together with its own
//! row in `nodes`. When a node's heartbeat stops, its leases run out after `cluster.grace_ms` and
//! the other nodes race to claim its games with one conditional `UPDATE` each: exactly one wins.
//! Every commit of a game checks, in its own transaction, that this node still owns the game
//! (live play's write guard, through [`directory::ClusterDirectory`]'s leases: [`owns`]), so a
//! node that comes back after losing its lease cannot write to it.
//!
//! Everything here is plain SQL on the shared connection type, so the single-node default
//! (embedded SQLite) keeps working with the columns left empty. [`runtime`] is what a node runs:
//! registration, the heartbeat and failover.
pub mod directory;
pub mod notify;
pub mod rooms;
pub mod runtime;
pub mod sessions;

use crate::db::schema::{games, nodes};
use crate::db::DbConn;
use crate::error::AppResult;
use chrono::{NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};

/// The `[cluster]` section of the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterConfig {
    /// several nodes on one PostgreSQL; off: one node (the default)
    pub enabled: bool,
    /// this node's name; empty: generated at start
    pub node_id: String,
    /// `host:port` at which the load balancer reaches this node; empty: `server.listen`
    pub advertise: String,
    /// how often the node renews its row and its leases, milliseconds
    pub heartbeat_ms: u64,
    /// how long a lease holds after its last renewal, milliseconds; then another node may claim
    /// the game
    pub grace_ms: u64,
    /// the PostgreSQL address of the connection that listens for notices (`LISTEN` needs a
    /// session of its own: give a direct address when `database.url` goes through a
    /// transaction-pooling proxy); empty: `database.url`
    pub listen_url: String,
    /// how long, milliseconds, a token generation read from the database is trusted while the
    /// notice connection is down (a logout elsewhere then reaches this node within this time)
    pub session_trust_ms: u64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            enabled: false,
            node_id: String::new(),
            advertise: String::new(),
            heartbeat_ms: 1000,
            grace_ms: 5000,
            listen_url: String::new(),
            session_trust_ms: 1000,
        }
    }
}

impl ClusterConfig {
    /// Refuse what cannot work: cluster mode on SQLite, a node id HAProxy cannot route by path,
    /// a grace shorter than two heartbeats.
    pub fn validate(&self, database_url: &str) -> Result<(), String> {
        if !self.enabled {
            return Ok(());
        }
        if crate::db::Backend::of_url(database_url)? != crate::db::Backend::Postgres {
            return Err("invalid configuration: cluster.enabled needs PostgreSQL (database.url = postgres://…); the embedded SQLite database serves one node only".into());
        }
        if !self.node_id.is_empty() && !valid_node_id(&self.node_id) {
            return Err("invalid configuration: cluster.node_id must be 1 to 32 ASCII letters, digits, '-' or '_'".into());
        }
        if self.heartbeat_ms == 0 || self.grace_ms < 2 * self.heartbeat_ms {
            return Err("invalid configuration: cluster.heartbeat_ms must be at least 1 and cluster.grace_ms at least twice it".into());
        }
        Ok(())
    }

    /// The configured node id, or a new random one (`n-` and 8 hex digits).
    pub fn node_id_or_generated(&self) -> String {
        if self.node_id.is_empty() {
            format!("n-{:08x}", rand::random::<u32>())
        } else {
            self.node_id.clone()
        }
    }
}
pub use crate::live::protocol::node_path;

/// A node id is used in paths (`/ws/n/{node}`) and HAProxy rules: keep it plain.
pub fn valid_node_id(id: &str) -> bool {
    (1..=32).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

fn later(ms: u64) -> NaiveDateTime {
    now() + TimeDelta::milliseconds(ms.min(i64::MAX as u64) as i64)
}

/// The states of a game that has an owner (a room runs for it).
const LIVE_STATES: [&str; 2] = ["deploying", "battle"];

/// Add or refresh this node's row (only this node writes it, so update-or-insert is enough).
pub fn register(conn: &mut DbConn, node: &str, advertise: &str) -> AppResult<()> {
    let at = now();
    let updated = diesel::update(nodes::table.find(node))
        .set((nodes::advertise.eq(advertise), nodes::started_at.eq(at), nodes::heartbeat_at.eq(at)))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(nodes::table)
            .values((
                nodes::id.eq(node),
                nodes::advertise.eq(advertise),
                nodes::started_at.eq(at),
                nodes::heartbeat_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// One heartbeat: the node's row, and the lease of every unfinished game it owns, for
/// `grace_ms` more. Returns how many leases were renewed.
///
/// On PostgreSQL the renewal skips the rows locked at that instant (`FOR UPDATE SKIP LOCKED`):
/// those are games whose moves this node is committing (each commit locks its game's row to check
/// the lease, and a group commit locks several in the order the moves came). A plain multi-row
/// `UPDATE` would wait for them in its own order and deadlock with the group commit — measured:
/// at 1,000 games on three nodes, heartbeats failed with "deadlock detected" for seconds and
/// leases of live games ran out. A skipped game is renewed at the next heartbeat; its lease
/// would run out only if it were being committed at every heartbeat for `grace_ms`.
pub fn heartbeat(conn: &mut DbConn, node: &str, grace_ms: u64) -> AppResult<usize> {
    diesel::update(nodes::table.find(node)).set(nodes::heartbeat_at.eq(now())).execute(conn)?;
    let until = later(grace_ms);
    let renewed = match conn {
        DbConn::Pg(c) => {
            use diesel::sql_types::{Text, Timestamp};
            diesel::sql_query(
                "UPDATE games SET lease_until = $1 WHERE id IN (SELECT id FROM games \
                 WHERE node_id = $2 AND state IN ('deploying', 'battle') FOR UPDATE SKIP LOCKED)",
            )
            .bind::<Timestamp, _>(until)
            .bind::<Text, _>(node)
            .execute(c)?
        }
        DbConn::Sqlite(c) => diesel::update(
            games::table.filter(games::node_id.eq(node)).filter(games::state.eq_any(LIVE_STATES)),
        )
        .set(games::lease_until.eq(until))
        .execute(c)?,
    };
    Ok(renewed)
}

/// Record that `node` owns a game it has just created, with a fresh lease.
pub fn own(conn: &mut DbConn, game: i64, node: &str, grace_ms: u64) -> AppResult<()> {
    diesel::update(games::table.find(game))
        .set((games::node_id.eq(node), games::lease_until.eq(later(grace_ms))))
        .execute(conn)?;
    Ok(())
}

/// Try to take over an unfinished game whose lease has run out: one conditional `UPDATE`, so of
/// several nodes racing for the same game exactly one gets `true`.
pub fn claim(conn: &mut DbConn, game: i64, node: &str, grace_ms: u64) -> AppResult<bool> {
    let at = now();
    let won = diesel::update(
        games::table
            .find(game)
            .filter(games::state.eq_any(LIVE_STATES))
            .filter(games::lease_until.lt(at).or(games::lease_until.is_null())),
    )
    .set((games::node_id.eq(node), games::lease_until.eq(later(grace_ms))))
    .execute(conn)?;
    Ok(won == 1)
}

/// Unfinished games whose owner's lease has run out (candidates for [`claim`]), oldest first.
pub fn orphans(conn: &mut DbConn) -> AppResult<Vec<i64>> {
    Ok(games::table
        .filter(games::state.eq_any(LIVE_STATES))
        .filter(games::node_id.is_not_null())
        .filter(games::lease_until.lt(now()))
        .order(games::id)
        .select(games::id)
        .load(conn)?)
}

/// Whether `node` owns `game` — called inside the transaction of every commit. On PostgreSQL the
/// row is locked until that transaction ends, so a claim cannot slip in between the check and the
/// write: either the commit comes first (and the claimer's restore reads it) or the claim does
/// (and the commit is refused).
pub fn owns(conn: &mut DbConn, game: i64, node: &str) -> AppResult<bool> {
    Ok(locked_owner(conn, game)?.as_deref() == Some(node))
}

/// The node recorded as owning `game` (locked for the transaction on PostgreSQL).
pub(crate) fn locked_owner(conn: &mut DbConn, game: i64) -> AppResult<Option<String>> {
    let owner: Option<Option<String>> = match conn {
        DbConn::Pg(c) => {
            games::table.find(game).select(games::node_id).for_update().first(c).optional()?
        }
        DbConn::Sqlite(c) => games::table.find(game).select(games::node_id).first(c).optional()?,
    };
    Ok(owner.flatten())
}

/// The unfinished games recorded as owned by `node` (a restarted node's own games).
pub fn owned_by(conn: &mut DbConn, node: &str) -> AppResult<Vec<i64>> {
    Ok(games::table
        .filter(games::state.eq_any(LIVE_STATES))
        .filter(games::node_id.eq(node))
        .order(games::id)
        .select(games::id)
        .load(conn)?)
}

/// Renew `node`'s lease on `game` if it still owns it (a restarted node taking its own games
/// back before anyone claimed them). One conditional `UPDATE`, like [`claim`].
pub fn keep(conn: &mut DbConn, game: i64, node: &str, grace_ms: u64) -> AppResult<bool> {
    let kept = diesel::update(
        games::table
            .find(game)
            .filter(games::state.eq_any(LIVE_STATES))
            .filter(games::node_id.eq(node)),
    )
    .set(games::lease_until.eq(later(grace_ms)))
    .execute(conn)?;
    Ok(kept == 1)
}

/// The owner of an unfinished game (`None`: unknown, finished, or not owned yet).
pub fn live_owner_of(conn: &mut DbConn, game: i64) -> AppResult<Option<String>> {
    Ok(games::table
        .find(game)
        .filter(games::state.eq_any(LIVE_STATES))
        .select(games::node_id)
        .first::<Option<String>>(conn)
        .optional()?
        .flatten())
}

/// This node in cluster mode: its id and how long a lease holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub node: String,
    pub grace_ms: u64,
}

/// A node as others see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Queryable)]
pub struct NodeRow {
    pub id: String,
    pub advertise: String,
    pub started_at: NaiveDateTime,
    pub heartbeat_at: NaiveDateTime,
}

/// The nodes whose heartbeat is younger than `grace_ms`.
pub fn live_nodes(conn: &mut DbConn, grace_ms: u64) -> AppResult<Vec<NodeRow>> {
    let since = now() - TimeDelta::milliseconds(grace_ms.min(i64::MAX as u64) as i64);
    Ok(nodes::table.filter(nodes::heartbeat_at.ge(since)).order(nodes::id).load(conn)?)
}

/// The owner of a game (its node id), if it has one.
pub fn owner_of(conn: &mut DbConn, game: i64) -> AppResult<Option<String>> {
    Ok(games::table
        .find(game)
        .select(games::node_id)
        .first::<Option<String>>(conn)
        .optional()?
        .flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_are_plain() {
        assert!(valid_node_id("node-1"));
        assert!(valid_node_id("a_B9"));
        assert!(!valid_node_id(""));
        assert!(!valid_node_id("a/b"));
        assert!(!valid_node_id("ноде"));
        assert!(!valid_node_id(&"x".repeat(33)));
    }

    #[test]
    fn cluster_needs_postgres_and_a_sane_grace() {
        let on = ClusterConfig { enabled: true, ..ClusterConfig::default() };
        assert!(on.validate("postgres://x@h/db").is_ok());
        assert!(on.validate("sqlite://data/siguo.db").unwrap_err().contains("PostgreSQL"));
        assert!(ClusterConfig::default().validate("sqlite://data/siguo.db").is_ok());
        let tight = ClusterConfig { grace_ms: 1500, ..on.clone() };
        assert!(tight.validate("postgres://x@h/db").is_err());
        let bad = ClusterConfig { node_id: "a b".into(), ..on };
        assert!(bad.validate("postgres://x@h/db").is_err());
    }

    #[test]
    fn generated_ids_are_valid() {
        let id = ClusterConfig::default().node_id_or_generated();
        assert!(valid_node_id(&id), "{id}");
    }
}
