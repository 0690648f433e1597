//! Cross-node notices (cluster mode): a message for an account (`match_proposed`,
//! `match_cancelled`, `queue_left`, `match_found`, …) is sent with PostgreSQL `NOTIFY` on channel
//! [`CHANNEL`], payload `"<account id> <message JSON>"`. Every node keeps one connection that
//! `LISTEN`s on it ([`start`], a `tokio-postgres` client: diesel has no `LISTEN`) and hands each
//! notice to [`Live::deliver`], which sends it to that node's sockets of the account (none: the
//! notice is for another node's sockets).
//!
//! The same connection listens on [`super::sessions::CHANNEL`] for token-generation changes
//! (logouts and the like on any node: [`super::sessions`]).
//!
//! A notice published inside a transaction ([`publish`]) is delivered when, and only if, that
//! transaction commits, in commit order. The listening connection reconnects when it drops; a
//! notice sent while it was down is lost for that node's sockets (the client still learns its
//! state from `GET /api/queue`; sessions are checked against the database meanwhile).
use super::sessions::SessionEnds;
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use crate::live::Live;
use bytestring::ByteString;
use diesel::prelude::*;
use diesel::sql_types::Text;
use std::sync::Arc;
use std::time::Duration;

/// The channel every node listens on.
pub const CHANNEL: &str = "siguo_account";

/// The notice's payload: the account id, a space, the message's JSON text.
pub fn payload(account_id: i64, text: &str) -> String {
    format!("{account_id} {text}")
}

/// Split a payload into (account id, message text); `None` if it is not one.
pub fn parse(payload: &str) -> Option<(i64, &str)> {
    let (id, text) = payload.split_once(' ')?;
    Some((id.parse().ok()?, text))
}

/// The PostgreSQL connection behind `conn` (cluster mode runs only on PostgreSQL).
pub fn pg(conn: &mut DbConn) -> AppResult<&mut diesel::PgConnection> {
    match conn {
        DbConn::Pg(c) => Ok(c),
        DbConn::Sqlite(_) => Err(AppError::internal("cluster mode needs PostgreSQL")),
    }
}

/// Send `text` to every socket of `account_id` on every node, when the current transaction (if
/// any) commits.
pub fn publish(conn: &mut diesel::PgConnection, account_id: i64, text: &str) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_notify($1, $2)")
        .bind::<Text, _>(CHANNEL)
        .bind::<Text, _>(payload(account_id, text))
        .execute(conn)?;
    Ok(())
}

/// Send `text` to every socket of `account_id` on every node, from outside a transaction (the
/// cluster directory's [`crate::live::directory::Directory::publish`]): on a task of its own.
pub fn publish_later(db: &crate::db::Db, account_id: i64, text: ByteString) {
    let db = db.clone();
    tokio::spawn(async move {
        let sent = db.run(move |c| Ok(publish(pg(c)?, account_id, &text)?)).await;
        if let Err(e) = sent {
            tracing::warn!(account_id, error = %e, "cluster: a notice could not be sent");
        }
    });
}

/// Start this node's listening connection to `url` (reconnecting until the server stops): every
/// account notice is delivered to this node's sockets of its account, every session notice to
/// `sessions`.
pub fn start(live: &Live, url: &str, sessions: Arc<SessionEnds>) {
    super::sessions::watch(sessions.clone());
    live.spawn(listen(live.clone(), url.to_string(), sessions));
}

/// Listen, deliver, and reconnect (backing off up to 5 s) whenever the connection ends.
async fn listen(live: Live, url: String, sessions: Arc<SessionEnds>) {
    let mut stop = live.shutdown_signal();
    let mut backoff = Duration::from_millis(100);
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            r = listen_once(&live, &url, &sessions) => match r {
                Ok(()) => tracing::warn!("cluster: the notice connection closed; reconnecting"),
                Err(e) => tracing::warn!(error = %e, "cluster: notice connection failed; reconnecting"),
            },
        }
        sessions.notices_up(false);
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// One listening connection: `LISTEN`, then deliver every notice until the connection ends.
async fn listen_once(live: &Live, url: &str, sessions: &SessionEnds) -> Result<(), String> {
    let connecting = tokio_postgres::connect(url, tokio_postgres::NoTls);
    let (client, mut conn) = tokio::time::timeout(Duration::from_secs(5), connecting)
        .await
        .map_err(|_| "connecting took more than 5 s".to_string())?
        .map_err(said)?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(bool, String)>();
    // the connection's messages (notices among them) come only by polling it
    let driver = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| conn.poll_message(cx)).await {
                Some(Ok(tokio_postgres::AsyncMessage::Notification(n))) => {
                    let session = n.channel() == super::sessions::CHANNEL;
                    if tx.send((session, n.payload().to_string())).is_err() {
                        return Ok(());
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(said(e)),
                None => return Ok(()),
            }
        }
    });
    let sessions_channel = super::sessions::CHANNEL;
    let listen = format!("LISTEN {CHANNEL}; LISTEN {sessions_channel}");
    client.batch_execute(&listen).await.map_err(said)?;
    sessions.notices_up(true);
    tracing::info!(channel = CHANNEL, "cluster: listening for notices");
    while let Some((session, p)) = rx.recv().await {
        if session {
            sessions.notice(&p);
            continue;
        }
        match parse(&p) {
            Some((account_id, text)) => live.deliver(account_id, ByteString::from(text)),
            None => tracing::warn!(payload = %p, "cluster: a notice that is not one"),
        }
    }
    drop(client);
    driver.await.map_err(|e| e.to_string())?
}

/// What went wrong, with the server's own message when it sent one.
fn said(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("{e}: {}", d.message()),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip() {
        let p = payload(42, r#"{"type":"x","a":"b c"}"#);
        assert_eq!(parse(&p), Some((42, r#"{"type":"x","a":"b c"}"#)));
        assert_eq!(parse("x {}"), None);
        assert_eq!(parse("42"), None);
    }
}
