//! WebSocket tickets: an access token never travels in a WebSocket URL (URLs land in proxy
//! logs). A browser's upgrade carries the `siguo_access` cookie; another client asks
//! `POST /api/ws/ticket` (with its bearer token) for a ticket and opens `/api/ws?ticket=...`.
//!
//! A ticket is 256 random bits, kept only as its SHA-256, usable once, within
//! [`TICKET_SECONDS`]. It lives in the database (`ws_tickets`), so that in cluster mode any node
//! accepts a ticket another one issued. It carries the access token's expiry (the socket is
//! closed when the token would have expired) and token generation (a ticket of a session that
//! ended since — logout, password change — is refused).
use super::Who;
use crate::auth::refresh::{new_token, token_hash};
use crate::auth::Verified;
use crate::db::schema::{accounts, ws_tickets};
use crate::db::DbConn;
use crate::error::{AppError, AppResult, ErrorCode};
use chrono::{NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;

/// How long a ticket may be used, seconds.
pub const TICKET_SECONDS: u64 = 30;

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

/// A new ticket for the session `v` (and expired tickets are deleted).
pub fn issue(conn: &mut DbConn, v: &Verified) -> AppResult<String> {
    let ticket = new_token();
    let now = now();
    prune(conn)?;
    diesel::insert_into(ws_tickets::table)
        .values((
            ws_tickets::ticket_hash.eq(token_hash(&ticket)),
            ws_tickets::account_id.eq(v.identity.account_id),
            ws_tickets::token_exp.eq(v.exp as i64),
            ws_tickets::token_gen.eq(v.gen),
            ws_tickets::expires_at.eq(now + TimeDelta::seconds(TICKET_SECONDS as i64)),
        ))
        .execute(conn)?;
    Ok(ticket)
}

/// Delete the tickets that can no longer be used (expired; a used one is deleted when used).
/// Returns how many.
pub fn prune(conn: &mut DbConn) -> AppResult<usize> {
    Ok(diesel::delete(ws_tickets::table.filter(ws_tickets::expires_at.lt(now()))).execute(conn)?)
}

/// Use a ticket: who it is for and until when (Unix seconds) their socket may live. Unknown,
/// used or expired tickets, and those of a session that has ended, are `401 invalid_ticket`.
pub fn redeem(conn: &mut DbConn, ticket: &str) -> AppResult<(Who, (u64, i64))> {
    let refused =
        || AppError::unauthorized(ErrorCode::InvalidTicket, "unknown, used or expired ticket");
    let hash = token_hash(ticket);
    conn.transaction(|c| {
        let row: Option<(i64, i64, i64, NaiveDateTime)> = ws_tickets::table
            .find(&hash)
            .select((
                ws_tickets::account_id,
                ws_tickets::token_exp,
                ws_tickets::token_gen,
                ws_tickets::expires_at,
            ))
            .first(c)
            .optional()?;
        let (account_id, token_exp, token_gen, expires_at) = row.ok_or_else(refused)?;
        // only one use deletes the row: a concurrent second one finds nothing to delete
        if diesel::delete(ws_tickets::table.find(&hash)).execute(c)? != 1 || expires_at <= now() {
            return Err(refused());
        }
        let account: Option<(String, bool, i64)> = accounts::table
            .find(account_id)
            .select((accounts::username, accounts::is_guest, accounts::token_generation))
            .first(c)
            .optional()?;
        let (name, guest, generation) = account.ok_or_else(refused)?;
        if token_gen < generation || token_exp <= Utc::now().timestamp() {
            return Err(refused());
        }
        Ok((Who { account_id, name, guest }, (token_exp as u64, token_gen)))
    })
}
