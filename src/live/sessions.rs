//! The sockets of this node: each account's open sockets, how many come from each client
//! address, and the action ids each account used recently (idempotency), under one lock.
use super::conn::ClientTx;
use super::protocol::{Ack, ClientId};
use crate::error::AppError;
use crate::error::ErrorCode;
use bytestring::ByteString;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

/// Action ids remembered per account.
const RECENT_IDS: usize = 256;

/// Remembered action ids of one account (idempotency).
#[derive(Default)]
struct RecentIds {
    order: VecDeque<ClientId>,
    acks: HashMap<ClientId, Ack>,
}

#[derive(Default)]
struct State {
    accounts: HashMap<i64, Vec<ClientTx>>,
    /// open sockets per client IP (bucketed)
    ips: HashMap<IpAddr, usize>,
    recent: HashMap<i64, RecentIds>,
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
}

impl Sessions {
    pub fn new() -> Sessions {
        Sessions { state: Mutex::default() }
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
            }
        }
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

    /// The ack already sent for this (account, id), if any.
    pub fn seen_id(&self, account_id: i64, id: &Option<ClientId>) -> Option<Ack> {
        let id = id.as_ref()?;
        let s = self.state();
        let ack = s.recent.get(&account_id)?.acks.get(id)?.clone();
        Some(Ack { duplicate: true, ..ack })
    }
    /// Remember the ack of (account, id) (the oldest of [`RECENT_IDS`] is forgotten).
    pub fn remember_id(&self, account_id: i64, id: &Option<ClientId>, ack: &Ack) {
        let Some(id) = id else { return };
        let mut s = self.state();
        let e = s.recent.entry(account_id).or_default();
        if e.acks.insert(id.clone(), ack.clone()).is_none() {
            e.order.push_back(id.clone());
            if e.order.len() > RECENT_IDS {
                if let Some(old) = e.order.pop_front() {
                    e.acks.remove(&old);
                }
            }
        }
    }
}
