//! The sessions of this node: each account's open sockets, how many come from each client
//! address, and the action ids each account used recently (idempotency), under one lock.
//!
//! The remembered ids are bounded: at most [`RecentLimits::per_account`] per account, each for
//! [`RecentLimits::max_age`], and those of an account without a socket here only for
//! [`RecentLimits::offline`] (a reconnecting client resends within seconds). Old entries are
//! swept at most once a second, on the way of the calls that touch the map.
use super::conn::ClientTx;
use super::protocol::{Ack, ClientId};
use crate::error::AppError;
use crate::error::ErrorCode;
use bytestring::ByteString;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the remembered ids of every account are swept at most.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// How many action ids are remembered, and how long (`live.recent_ids_*`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecentLimits {
    pub per_account: usize,
    pub max_age: Duration,
    /// an account without a socket on this node keeps its ids this long
    pub offline: Duration,
}

/// Remembered action ids of one account (idempotency), oldest first.
#[derive(Default)]
struct RecentIds {
    order: VecDeque<(ClientId, Instant)>,
    acks: HashMap<ClientId, Ack>,
    /// since when the account has had no socket on this node
    offline_since: Option<Instant>,
}

impl RecentIds {
    /// Forget the ids older than `max_age` and the oldest beyond `per_account`.
    fn prune(&mut self, limits: &RecentLimits, now: Instant) {
        while let Some((id, at)) = self.order.front() {
            if self.order.len() <= limits.per_account && now.duration_since(*at) < limits.max_age {
                break;
            }
            self.acks.remove(id);
            self.order.pop_front();
        }
    }

    /// Nothing left to remember (no ids, or the account has been away too long).
    fn expired(&self, limits: &RecentLimits, now: Instant) -> bool {
        self.order.is_empty()
            || self.offline_since.is_some_and(|t| now.duration_since(t) >= limits.offline)
    }
}

#[derive(Default)]
struct State {
    accounts: HashMap<i64, Vec<ClientTx>>,
    /// open sockets per client IP (bucketed)
    ips: HashMap<IpAddr, usize>,
    recent: HashMap<i64, RecentIds>,
    /// when the remembered ids were last swept
    swept_at: Option<Instant>,
}

impl State {
    /// Drop every expired entry of `recent`, at most once per [`SWEEP_EVERY`].
    fn sweep(&mut self, limits: &RecentLimits, now: Instant) {
        if self.swept_at.is_some_and(|t| now.duration_since(t) < SWEEP_EVERY) {
            return;
        }
        self.swept_at = Some(now);
        self.recent.retain(|_, r| {
            r.prune(limits, now);
            !r.expired(limits, now)
        });
    }

    /// The account's remembered ids, unless they have expired (then they are dropped now).
    fn recent_of(&mut self, account_id: i64, limits: &RecentLimits) -> Option<&mut RecentIds> {
        let now = Instant::now();
        let r = self.recent.get_mut(&account_id)?;
        r.prune(limits, now);
        if r.expired(limits, now) {
            self.recent.remove(&account_id);
            return None;
        }
        self.recent.get_mut(&account_id)
    }
}

/// `too_many_sockets`: the account or the client address has as many sockets as allowed.
pub(crate) fn too_many_sockets() -> AppError {
    AppError::TooMany {
        code: ErrorCode::TooManySockets,
        message: "too many open connections; close some tabs".into(),
    }
}

/// The sessions of this node.
pub(crate) struct Sessions {
    state: Mutex<State>,
    recent: RecentLimits,
}

impl Sessions {
    pub fn new(recent: RecentLimits) -> Sessions {
        Sessions { state: Mutex::default(), recent }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // a panic while holding this lock leaves plain maps behind: keep serving them
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sockets open here of `account_id`, and from `ip`.
    pub fn counts(&self, account_id: i64, ip: IpAddr) -> (usize, usize) {
        let s = self.state();
        let mine = s.accounts.get(&account_id).map_or(0, |v| v.len());
        (mine, s.ips.get(&ip).copied().unwrap_or(0))
    }
    pub fn add_socket(&self, tx: ClientTx, ip: IpAddr) {
        let mut s = self.state();
        s.sweep(&self.recent, Instant::now());
        if let Some(r) = s.recent_of(tx.account_id, &self.recent) {
            r.offline_since = None;
        }
        s.accounts.entry(tx.account_id).or_default().push(tx);
        *s.ips.entry(ip).or_default() += 1;
    }
    pub fn remove_ip(&self, ip: IpAddr) {
        let mut s = self.state();
        if let Some(n) = s.ips.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                s.ips.remove(&ip);
            }
        }
    }
    pub fn remove_socket(&self, account_id: i64, conn_id: u64) {
        let mut s = self.state();
        if let Some(v) = s.accounts.get_mut(&account_id) {
            v.retain(|t| t.conn_id != conn_id);
            if v.is_empty() {
                s.accounts.remove(&account_id);
                if let Some(r) = s.recent.get_mut(&account_id) {
                    r.offline_since = Some(Instant::now());
                }
            }
        }
        s.sweep(&self.recent, Instant::now());
    }
    /// The accounts with a socket on this node.
    pub fn online_accounts(&self) -> Vec<i64> {
        self.state().accounts.keys().copied().collect()
    }
    pub fn is_online(&self, account_id: i64) -> bool {
        self.state().accounts.contains_key(&account_id)
    }
    /// Send a message's text to every socket of an account on this node.
    pub fn deliver(&self, account_id: i64, text: ByteString) {
        if let Some(v) = self.state().accounts.get(&account_id) {
            for t in v {
                t.send_text(text.clone());
            }
        }
    }
    /// Close the sockets of an account opened with a token older than `generation`
    /// ([`super::CLOSE_SESSION_ENDED`]).
    pub fn close_older(&self, account_id: i64, generation: i64) {
        if let Some(v) = self.state().accounts.get(&account_id) {
            for t in v.iter().filter(|t| t.generation < generation) {
                t.close_with(super::CLOSE_SESSION_ENDED);
            }
        }
    }
    /// Each account with a socket here, and the oldest token generation among its sockets.
    pub fn oldest_generations(&self) -> Vec<(i64, i64)> {
        let s = self.state();
        let oldest = |v: &Vec<ClientTx>| v.iter().map(|t| t.generation).min();
        s.accounts.iter().filter_map(|(a, v)| Some((*a, oldest(v)?))).collect()
    }

    /// The ack already sent for this (account, id), if it is still remembered.
    pub fn seen_id(&self, account_id: i64, id: &Option<ClientId>) -> Option<Ack> {
        let id = id.as_ref()?;
        let mut s = self.state();
        let ack = s.recent_of(account_id, &self.recent)?.acks.get(id)?.clone();
        Some(Ack { duplicate: true, ..ack })
    }
    /// Remember the ack of (account, id) (within [`RecentLimits`]).
    pub fn remember_id(&self, account_id: i64, id: &Option<ClientId>, ack: &Ack) {
        let Some(id) = id else { return };
        let mut s = self.state();
        let now = Instant::now();
        s.sweep(&self.recent, now);
        let online = s.accounts.contains_key(&account_id);
        let e = s.recent.entry(account_id).or_default();
        if !online && e.offline_since.is_none() {
            e.offline_since = Some(now);
        }
        if e.acks.insert(id.clone(), ack.clone()).is_none() {
            e.order.push_back((id.clone(), now));
        }
        e.prune(&self.recent, now);
    }
}
