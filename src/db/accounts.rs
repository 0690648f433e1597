//! Account rows (registered accounts and guests).
use crate::db::schema::accounts;
use crate::db::DbConn;
use crate::error::AppResult;
use chrono::NaiveDateTime;
use diesel::prelude::*;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = accounts)]
pub struct Account {
    pub id: i64,
    pub username: String,
    pub username_key: String,
    pub password_hash: Option<String>,
    pub is_guest: bool,
    pub created_at: NaiveDateTime,
    pub token_generation: i64,
}

impl Account {
    pub fn identity(&self) -> crate::auth::Identity {
        crate::auth::Identity {
            account_id: self.id,
            name: self.username.clone(),
            guest: self.is_guest,
        }
    }
}

pub fn by_id(conn: &mut DbConn, id: i64) -> AppResult<Option<Account>> {
    Ok(accounts::table.find(id).select(Account::as_select()).first(conn).optional()?)
}

/// Is a name that looks like `username` (same UTS #39 skeleton) taken?
pub fn skeleton_taken(conn: &mut DbConn, username: &str) -> AppResult<bool> {
    let sk = crate::auth::password::username_skeleton(username);
    let n: i64 =
        accounts::table.filter(accounts::username_skeleton.eq(sk)).count().get_result(conn)?;
    Ok(n > 0)
}

/// Compute the canonical key and skeleton of rows that have no skeleton yet (rows from before
/// the keys were canonical). A row whose new key or skeleton collides with another's keeps its
/// old key and no skeleton (logged); returns how many rows were updated.
pub fn backfill_username_keys(conn: &mut DbConn) -> AppResult<usize> {
    let rows: Vec<(i64, String)> = accounts::table
        .filter(accounts::username_skeleton.is_null())
        .select((accounts::id, accounts::username))
        .load(conn)?;
    let mut n = 0;
    for (id, name) in rows {
        let key = crate::auth::password::username_key(&name);
        let sk = crate::auth::password::username_skeleton(&name);
        let r = conn.transaction(|c| {
            diesel::update(accounts::table.find(id))
                .set((accounts::username_key.eq(&key), accounts::username_skeleton.eq(&sk)))
                .execute(c)
        });
        match r {
            Ok(_) => n += 1,
            Err(e) => {
                tracing::warn!(account_id = id, error = %e, "username key not canonical (collides)")
            }
        }
    }
    Ok(n)
}

/// Look up by the case-insensitive key (see `auth::password::username_key`).
pub fn by_key(conn: &mut DbConn, key: &str) -> AppResult<Option<Account>> {
    Ok(accounts::table
        .filter(accounts::username_key.eq(key))
        .select(Account::as_select())
        .first(conn)
        .optional()?)
}

/// Insert a row; a unique violation comes back as the diesel error (name taken).
pub fn insert(
    conn: &mut DbConn,
    username: &str,
    key: &str,
    password_hash: Option<&str>,
    is_guest: bool,
) -> Result<Account, diesel::result::Error> {
    diesel::insert_into(accounts::table)
        .values((
            accounts::username.eq(username),
            accounts::username_key.eq(key),
            accounts::username_skeleton.eq(crate::auth::password::username_skeleton(username)),
            accounts::password_hash.eq(password_hash),
            accounts::is_guest.eq(is_guest),
            accounts::created_at.eq(chrono::Utc::now().naive_utc()),
        ))
        .execute(conn)?;
    accounts::table.filter(accounts::username_key.eq(key)).select(Account::as_select()).first(conn)
}

pub fn set_password_hash(conn: &mut DbConn, id: i64, hash: &str) -> AppResult<()> {
    diesel::update(accounts::table.find(id))
        .set(accounts::password_hash.eq(Some(hash)))
        .execute(conn)?;
    Ok(())
}

/// The account's token generation (`None`: no such account).
pub fn token_generation(conn: &mut DbConn, id: i64) -> AppResult<Option<i64>> {
    Ok(accounts::table.find(id).select(accounts::token_generation).first(conn).optional()?)
}

/// The token generations of accounts `ids` (those that exist).
pub fn token_generations(conn: &mut DbConn, ids: &[i64]) -> AppResult<Vec<(i64, i64)>> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        let rows: Vec<(i64, i64)> = accounts::table
            .filter(accounts::id.eq_any(chunk))
            .select((accounts::id, accounts::token_generation))
            .load(conn)?;
        out.extend(rows);
    }
    Ok(out)
}

/// Refuse every access token issued so far: increment the generation; returns the new one.
pub fn bump_token_generation(conn: &mut DbConn, id: i64) -> AppResult<i64> {
    diesel::update(accounts::table.find(id))
        .set(accounts::token_generation.eq(accounts::token_generation + 1))
        .execute(conn)?;
    Ok(token_generation(conn, id)?.unwrap_or(0))
}
