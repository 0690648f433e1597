//! Refresh tokens: opaque random strings, stored as SHA-256 hex, rotated on every use. All tokens
//! descending from one login share a family; presenting a token that was already used (or
//! revoked) revokes the whole family.
use crate::db::schema::refresh_tokens as rt;
use crate::db::DbConn;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use base64::Engine;
use chrono::{NaiveDateTime, Utc};
use diesel::prelude::*;
use sha2::{Digest, Sha256};

/// A fresh random token (256 bits, base64url).
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

/// Store a new token for `account_id` in `family` (a new login passes a new family).
pub fn insert(
    conn: &mut DbConn,
    account_id: i64,
    family: &str,
    ttl_days: u64,
) -> AppResult<String> {
    let token = new_token();
    insert_token(conn, account_id, family, &token, ttl_days)?;
    Ok(token)
}

/// Store `token` (made by [`new_token`]) for `account_id` in `family`.
pub fn insert_token(
    conn: &mut DbConn,
    account_id: i64,
    family: &str,
    token: &str,
    ttl_days: u64,
) -> AppResult<()> {
    let created = now();
    diesel::insert_into(rt::table)
        .values((
            rt::account_id.eq(account_id),
            rt::family.eq(family),
            rt::token_hash.eq(token_hash(token)),
            rt::created_at.eq(created),
            rt::expires_at.eq(created + chrono::Duration::days(ttl_days as i64)),
            rt::revoked.eq(false),
        ))
        .execute(conn)?;
    Ok(())
}

pub fn new_family() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Rotate: consume `token` and return (account id, the new token). Reuse of a consumed token
/// revokes the family and fails with `refresh_reused`.
pub fn rotate(conn: &mut DbConn, token: &str, ttl_days: u64) -> AppResult<(i64, String)> {
    let hash = token_hash(token);
    conn.transaction::<_, AppError, _>(|conn| {
        let row: Option<(i64, i64, String, NaiveDateTime, Option<NaiveDateTime>, bool)> = rt::table
            .filter(rt::token_hash.eq(&hash))
            .select((rt::id, rt::account_id, rt::family, rt::expires_at, rt::used_at, rt::revoked))
            .first(conn)
            .optional()?;
        let Some((id, account_id, family, expires_at, used_at, revoked)) = row else {
            return Ok(Err(AppError::unauthorized(
                ErrorCode::InvalidToken,
                "the refresh token is not valid",
            )));
        };
        if revoked || used_at.is_some() {
            revoke_family(conn, &family)?;
            return Ok(Err(AppError::unauthorized(
                ErrorCode::RefreshReused,
                "this refresh token was already used; the session has been ended",
            )));
        }
        if expires_at <= now() {
            return Ok(Err(AppError::unauthorized(
                ErrorCode::TokenExpired,
                "the refresh token has expired",
            )));
        }
        // consume it only if nobody else did meanwhile
        let n = diesel::update(
            rt::table
                .filter(rt::id.eq(id))
                .filter(rt::used_at.is_null())
                .filter(rt::revoked.eq(false)),
        )
        .set(rt::used_at.eq(Some(now())))
        .execute(conn)?;
        if n != 1 {
            revoke_family(conn, &family)?;
            return Ok(Err(AppError::unauthorized(
                ErrorCode::RefreshReused,
                "this refresh token was already used; the session has been ended",
            )));
        }
        let fresh = insert(conn, account_id, &family, ttl_days)?;
        Ok(Ok((account_id, fresh)))
    })?
}

pub fn revoke_family(conn: &mut DbConn, family: &str) -> AppResult<()> {
    diesel::update(rt::table.filter(rt::family.eq(family)))
        .set(rt::revoked.eq(true))
        .execute(conn)?;
    Ok(())
}

/// Revoke the family of `token` (logout); returns its account. Unknown tokens are ignored.
pub fn revoke_by_token(conn: &mut DbConn, token: &str) -> AppResult<Option<i64>> {
    let row: Option<(String, i64)> = rt::table
        .filter(rt::token_hash.eq(token_hash(token)))
        .select((rt::family, rt::account_id))
        .first(conn)
        .optional()?;
    if let Some((f, _)) = &row {
        revoke_family(conn, f)?;
    }
    Ok(row.map(|(_, a)| a))
}

/// Revoke every refresh token of an account (password change).
pub fn revoke_account(conn: &mut DbConn, account_id: i64) -> AppResult<()> {
    diesel::update(rt::table.filter(rt::account_id.eq(account_id)))
        .set(rt::revoked.eq(true))
        .execute(conn)?;
    Ok(())
}

/// Delete refresh tokens that expired more than a day ago (housekeeping); returns how many.
pub fn purge_expired(conn: &mut DbConn) -> AppResult<usize> {
    let cutoff = now() - chrono::Duration::days(1);
    Ok(diesel::delete(rt::table.filter(rt::expires_at.lt(cutoff))).execute(conn)?)
}
