//! Cluster-wide limit counts in PostgreSQL (cluster mode; one node alone counts in memory):
//! sliding windows of events per (kind, key) in `limit_events`, and what every live node holds
//! for an account or an address (sockets, rooms) in `held_places`. Each check-and-count holds a transaction-scoped advisory lock on
//! its key, so nodes racing for the last place cannot both take it.
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};

/// The PostgreSQL connection behind `conn` (these tables are used in cluster mode only).
fn pg(conn: &mut DbConn) -> AppResult<&mut diesel::PgConnection> {
    match conn {
        DbConn::Pg(c) => Ok(c),
        DbConn::Sqlite(_) => Err(AppError::internal("shared limits need PostgreSQL")),
    }
}

#[derive(QueryableByName)]
struct Window {
    #[diesel(sql_type = BigInt)]
    n: i64,
    /// milliseconds until the oldest event of the window leaves it
    #[diesel(sql_type = Nullable<BigInt>)]
    wait_ms: Option<i64>,
}

/// Serialize the counts of `(kind, key)` until the end of the current transaction.
fn lock(c: &mut diesel::PgConnection, kind: &str, key: &str) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1 || ':' || $2)::bigint)")
        .bind::<Text, _>(kind)
        .bind::<Text, _>(key)
        .execute(c)?;
    Ok(())
}

/// `Err(seconds to wait)` when `(kind, key)` has `limit` events within the last `window_ms`.
fn full(
    c: &mut diesel::PgConnection,
    (kind, key): (&str, &str),
    limit: u32,
    window_ms: i64,
) -> AppResult<Result<(), u64>> {
    let w: Window = diesel::sql_query(
        "SELECT count(*) AS n,
                (EXTRACT(EPOCH FROM (min(at) + $3 * interval '1 millisecond' - (now() AT TIME ZONE 'UTC')))
                 * 1000)::bigint AS wait_ms
         FROM limit_events
         WHERE kind = $1 AND key = $2 AND at > (now() AT TIME ZONE 'UTC') - $3 * interval '1 millisecond'",
    )
    .bind::<Text, _>(kind)
    .bind::<Text, _>(key)
    .bind::<BigInt, _>(window_ms)
    .get_result(c)?;
    if w.n < i64::from(limit.max(1)) {
        return Ok(Ok(()));
    }
    Ok(Err(w.wait_ms.unwrap_or(0).max(0) as u64 / 1000 + 1))
}

/// Count one event of `(kind, key)` now.
fn record(c: &mut diesel::PgConnection, kind: &str, key: &str) -> QueryResult<()> {
    diesel::sql_query(
        "INSERT INTO limit_events (kind, key, at) VALUES ($1, $2, (now() AT TIME ZONE 'UTC'))",
    )
    .bind::<Text, _>(kind)
    .bind::<Text, _>(key)
    .execute(c)?;
    Ok(())
}

/// `Err(seconds to wait)` while `(kind, key)` has used up its `limit` within `window_ms`.
pub fn check(
    conn: &mut DbConn,
    what: (&str, &str),
    limit: u32,
    window_ms: i64,
) -> AppResult<Result<(), u64>> {
    full(pg(conn)?, what, limit, window_ms)
}

/// Count one event (a failure).
pub fn hit(conn: &mut DbConn, (kind, key): (&str, &str)) -> AppResult<()> {
    Ok(record(pg(conn)?, kind, key)?)
}

/// Take one of `limit` places within `window_ms` for `(kind, key)`, or `Err(seconds to wait)`.
pub fn take(
    conn: &mut DbConn,
    (kind, key): (&str, &str),
    limit: u32,
    window_ms: i64,
) -> AppResult<Result<(), u64>> {
    pg(conn)?.transaction(|c| {
        lock(c, kind, key)?;
        let r = full(c, (kind, key), limit, window_ms)?;
        if r.is_ok() {
            record(c, kind, key)?;
        }
        Ok(r)
    })
}

/// Forget events older than `older_than_secs`; returns how many.
pub fn purge(conn: &mut DbConn, older_than_secs: i64) -> AppResult<usize> {
    Ok(diesel::sql_query(
        "DELETE FROM limit_events WHERE at < (now() AT TIME ZONE 'UTC') - $1 * interval '1 second'",
    )
    .bind::<BigInt, _>(older_than_secs)
    .execute(pg(conn)?)?)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A place a node holds for an account (and a client address): a socket or a room.
pub struct Place<'a> {
    /// `socket` or `room`
    pub kind: &'a str,
    pub node: &'a str,
    /// the connection id, or the room id
    pub place: &'a str,
    pub account_id: i64,
    pub ip: Option<&'a str>,
}

/// Hold `p` if the account, and the address if any, hold fewer than `max` places of its kind
/// on every live node together — `here` on this node (counted by the caller), the others' from
/// the table (a node is live while its heartbeat is younger than `grace_ms`); false otherwise.
pub fn hold(
    conn: &mut DbConn,
    p: &Place,
    here: (usize, usize),
    max: (usize, usize),
    grace_ms: i64,
) -> AppResult<bool> {
    pg(conn)?.transaction(|c| {
        lock(c, p.kind, &p.account_id.to_string())?;
        if let Some(ip) = p.ip {
            lock(c, p.kind, ip)?;
        }
        let elsewhere = |c: &mut diesel::PgConnection, column: &str, key: &str| {
            let q = format!(
                "SELECT count(*) AS n FROM held_places s JOIN nodes n ON n.id = s.node_id
                   AND n.heartbeat_at > (now() AT TIME ZONE 'UTC') - $4 * interval '1 millisecond'
                 WHERE s.kind = $1 AND s.node_id <> $2 AND s.{column} = $3"
            );
            diesel::sql_query(q)
                .bind::<Text, _>(p.kind)
                .bind::<Text, _>(p.node)
                .bind::<Text, _>(key)
                .bind::<BigInt, _>(grace_ms)
                .get_result::<Count>(c)
                .map(|n| n.n as usize)
        };
        let mine = here.0 + elsewhere(c, "account_id::text", &p.account_id.to_string())?;
        if mine >= max.0 {
            return Ok(false);
        }
        if let Some(ip) = p.ip {
            if here.1 + elsewhere(c, "ip", ip)? >= max.1 {
                return Ok(false);
            }
        }
        keep_pg(c, p)?;
        Ok(true)
    })
}

fn keep_pg(c: &mut diesel::PgConnection, p: &Place) -> QueryResult<()> {
    diesel::sql_query(
        "INSERT INTO held_places (kind, node_id, place, account_id, ip) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (kind, node_id, place) DO NOTHING",
    )
    .bind::<Text, _>(p.kind)
    .bind::<Text, _>(p.node)
    .bind::<Text, _>(p.place)
    .bind::<BigInt, _>(p.account_id)
    .bind::<Nullable<Text>, _>(p.ip)
    .execute(c)?;
    Ok(())
}

/// Hold `p` whatever the counts (a game restored here after a restart or a failover).
pub fn keep(conn: &mut DbConn, p: &Place) -> AppResult<()> {
    Ok(keep_pg(pg(conn)?, p)?)
}

/// The place `from` of `node` is now called `to`.
pub fn rename(
    conn: &mut DbConn,
    (kind, node): (&str, &str),
    from: &str,
    to: &str,
) -> AppResult<()> {
    diesel::sql_query(
        "UPDATE held_places SET place = $4 WHERE kind = $1 AND node_id = $2 AND place = $3",
    )
    .bind::<Text, _>(kind)
    .bind::<Text, _>(node)
    .bind::<Text, _>(from)
    .bind::<Text, _>(to)
    .execute(pg(conn)?)?;
    Ok(())
}

/// `node` no longer holds `place`.
pub fn release(conn: &mut DbConn, (kind, node): (&str, &str), place: &str) -> AppResult<()> {
    diesel::sql_query("DELETE FROM held_places WHERE kind = $1 AND node_id = $2 AND place = $3")
        .bind::<Text, _>(kind)
        .bind::<Text, _>(node)
        .bind::<Text, _>(place)
        .execute(pg(conn)?)?;
    Ok(())
}

/// Forget what `node` held (at its start: an earlier run's), and what nodes no longer live held.
pub fn forget_node(conn: &mut DbConn, node: &str, grace_ms: i64) -> AppResult<usize> {
    Ok(diesel::sql_query(
        "DELETE FROM held_places s WHERE s.node_id = $1 OR NOT EXISTS (
             SELECT 1 FROM nodes n WHERE n.id = s.node_id
             AND n.heartbeat_at > (now() AT TIME ZONE 'UTC') - $2 * interval '1 millisecond')",
    )
    .bind::<Text, _>(node)
    .bind::<BigInt, _>(grace_ms)
    .execute(pg(conn)?)?)
}
