//! Sessions across nodes (cluster mode): a logout, a password change or a reused refresh token on
//! any node changes the account's token generation in PostgreSQL, and the database announces it
//! (`NOTIFY siguo_session`, a trigger: migrations/postgres/…_session_notices). Every node's
//! notice connection ([`super::notify`]) hands the notice to [`SessionEnds::changed`]: the node
//! refuses the older access tokens from then on and closes the account's sockets opened with
//! them (4001).
//!
//! A node whose notice connection is down misses notices. It then trusts a cached generation for
//! `cluster.session_trust_ms` only (`Auth`), and [`watch`] compares every local socket's token
//! generation with the database each second, and once whenever the connection comes back.
use crate::auth::Auth;
use crate::error::AppResult;
use crate::live::Live;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The channel of token-generation notices (payload `"<account id> <generation>"`).
pub const CHANNEL: &str = "siguo_session";

/// Where a node's sessions end when another node says so.
pub struct SessionEnds {
    auth: Arc<Auth>,
    live: Live,
    /// the notice connection is up now
    up: AtomicBool,
    /// times it came up (a check follows each)
    ups: AtomicU64,
}

impl SessionEnds {
    pub fn new(auth: Arc<Auth>, live: Live) -> Arc<SessionEnds> {
        Arc::new(SessionEnds { auth, live, up: AtomicBool::new(false), ups: AtomicU64::new(0) })
    }

    /// The account's token generation is now `generation`.
    pub fn changed(&self, account_id: i64, generation: i64) {
        self.auth.generation_changed(account_id, generation);
        self.live.close_older_sessions(account_id, generation);
    }

    /// A notice payload: `"<account id> <generation>"`.
    pub fn notice(&self, payload: &str) {
        match parse(payload) {
            Some((account_id, generation)) => self.changed(account_id, generation),
            None => tracing::warn!(payload, "cluster: a session notice that is not one"),
        }
    }

    /// The notice connection is up (listening) or down.
    pub fn notices_up(&self, up: bool) {
        self.auth.notices_up(up);
        self.up.store(up, Ordering::Release);
        if up {
            self.ups.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Compare the token generation of every socket on this node with the database's.
    async fn check_sockets(&self) -> AppResult<()> {
        let oldest: HashMap<i64, i64> = self.live.socket_generations().into_iter().collect();
        if oldest.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = oldest.keys().copied().collect();
        let now =
            self.live.db().run(move |c| crate::db::accounts::token_generations(c, &ids)).await?;
        for (account_id, generation) in now {
            if oldest.get(&account_id).is_some_and(|o| *o < generation) {
                self.changed(account_id, generation);
            }
        }
        Ok(())
    }
}

/// Parse a session notice's payload.
pub fn parse(payload: &str) -> Option<(i64, i64)> {
    let (a, g) = payload.split_once(' ')?;
    Some((a.parse().ok()?, g.parse().ok()?))
}

/// Each second while the notice connection is down, and once each time it comes back, check
/// the sockets of this node against the database (until the server stops).
pub fn watch(sessions: Arc<SessionEnds>) {
    let live = sessions.live.clone();
    live.spawn(async move {
        let mut stop = sessions.live.shutdown_signal();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut checked_ups = 0;
        loop {
            tokio::select! {
                _ = stop.changed() => return,
                _ = tick.tick() => {}
            }
            let ups = sessions.ups.load(Ordering::Acquire);
            if sessions.up.load(Ordering::Acquire) && ups == checked_ups {
                continue;
            }
            match sessions.check_sockets().await {
                Ok(()) => checked_ups = ups,
                Err(e) => tracing::warn!(error = %e, "cluster: sessions could not be checked"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn payloads() {
        assert_eq!(super::parse("42 7"), Some((42, 7)));
        assert_eq!(super::parse("42"), None);
        assert_eq!(super::parse("x 7"), None);
    }
}
