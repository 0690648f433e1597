//! Rate limits, in memory. Beyond a limit: 429 `rate_limited` with `Retry-After`.
//!
//! * Failed logins ([`FailureLimiter`], a sliding window that only failures fill): per
//!   (account, client IP) and, looser, per account from everywhere, so a stranger cannot lock
//!   the owner out; a successful login costs nothing. Failed current passwords at password
//!   change have a window of their own, per account.
//! * Login attempts, registrations and guest sessions per client IP, and WebSocket tickets per
//!   account and per client IP (governor, GCRA).
//!
//! Client IPs are bucketed by [`ip_bucket`]: an IPv6 client by its /64 (one subscriber's
//! network), an IPv4 client by its address.
//!
//! In cluster mode every count is kept in PostgreSQL instead ([`RateLimits::share`],
//! src/db/limits.rs), so that a limit holds for the whole cluster, not per node.
use crate::config::LimitsConfig;
use crate::error::{AppError, AppResult};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The key of a client IP for limits: IPv6 by its /64 network, IPv4 (and IPv4-mapped IPv6) by
/// its address.
pub fn ip_bucket(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(v6.to_bits() & !((1u128 << 64) - 1))),
        },
    }
}

/// At most `limit` failures per key within `window` (a sliding window of failure times).
pub struct FailureLimiter<K> {
    limit: usize,
    window: Duration,
    failures: Mutex<HashMap<K, VecDeque<Instant>>>,
}

impl<K: Hash + Eq + Clone> FailureLimiter<K> {
    pub fn new(limit: u32, window_secs: u64) -> Self {
        FailureLimiter {
            limit: limit.max(1) as usize,
            window: Duration::from_secs(window_secs.max(1)),
            failures: Mutex::default(),
        }
    }

    /// `429` while `key` has used up its failures (nothing is counted).
    pub fn check(&self, key: &K) -> AppResult<()> {
        let now = Instant::now();
        let mut m = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let Some(q) = m.get_mut(key) else { return Ok(()) };
        while q.front().is_some_and(|t| now.duration_since(*t) >= self.window) {
            q.pop_front();
        }
        match q.front() {
            Some(oldest) if q.len() >= self.limit => {
                let wait = self.window.saturating_sub(now.duration_since(*oldest));
                Err(AppError::RateLimited { retry_after_secs: wait.as_secs() + 1 })
            }
            _ => Ok(()),
        }
    }

    /// Count one failure for `key`.
    pub fn fail(&self, key: &K) {
        let mut m = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let q = m.entry(key.clone()).or_default();
        q.push_back(Instant::now());
        while q.len() > self.limit {
            q.pop_front();
        }
    }

    /// Forget keys without a failure in the window.
    pub fn retain_recent(&self) {
        let now = Instant::now();
        let window = self.window;
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < window));
    }
}

/// How a limit's key is written in the shared table.
pub trait LimitKey {
    fn limit_key(&self) -> String;
}
impl LimitKey for String {
    fn limit_key(&self) -> String {
        self.clone()
    }
}
impl LimitKey for i64 {
    fn limit_key(&self) -> String {
        self.to_string()
    }
}
impl LimitKey for IpAddr {
    fn limit_key(&self) -> String {
        self.to_string()
    }
}
impl LimitKey for (String, IpAddr) {
    fn limit_key(&self) -> String {
        format!("{} {}", self.0, self.1)
    }
}

/// A count of one kind kept in PostgreSQL for the whole cluster.
#[derive(Clone)]
struct Shared {
    db: crate::db::Db,
    kind: &'static str,
    limit: u32,
    window_ms: i64,
}

impl Shared {
    fn wait(secs: u64) -> AppError {
        AppError::RateLimited { retry_after_secs: secs }
    }
}

/// At most `limit` failures per key within a window: counted here, or for the cluster.
pub struct Failures<K> {
    local: FailureLimiter<K>,
    shared: Option<Shared>,
}

impl<K: Hash + Eq + Clone + LimitKey + Send + 'static> Failures<K> {
    pub fn new(limit: u32, window_secs: u64) -> Self {
        Failures { local: FailureLimiter::new(limit, window_secs), shared: None }
    }

    /// Count in the cluster's database from now on, as `kind`.
    pub fn share(&mut self, db: &crate::db::Db, kind: &'static str) {
        let (limit, window_ms) = (self.local.limit as u32, self.local.window.as_millis() as i64);
        self.shared = Some(Shared { db: db.clone(), kind, limit, window_ms });
    }

    /// `429` while `key` has used up its failures (nothing is counted).
    pub async fn check(&self, key: &K) -> AppResult<()> {
        let Some(s) = self.shared.clone() else { return self.local.check(key) };
        let key = key.limit_key();
        let (kind, limit, window) = (s.kind, s.limit, s.window_ms);
        let r = s.db.run(move |c| crate::db::limits::check(c, (kind, &key), limit, window)).await?;
        r.map_err(Shared::wait)
    }

    /// Count one failure for `key`.
    pub async fn fail(&self, key: &K) -> AppResult<()> {
        let Some(s) = self.shared.clone() else {
            self.local.fail(key);
            return Ok(());
        };
        let key = key.limit_key();
        s.db.run(move |c| crate::db::limits::hit(c, (s.kind, &key))).await
    }

    pub fn retain_recent(&self) {
        self.local.retain_recent();
    }
}

/// `count` requests per key per window (all usable at once, refilled evenly): counted here, or
/// for the cluster (then as a sliding window of `count`).
pub struct Rates<K: Hash + Eq + Clone> {
    local: DefaultKeyedRateLimiter<K>,
    shared: Option<Shared>,
    count: u32,
    window_secs: u64,
}

impl<K: Hash + Eq + Clone + LimitKey + Send + 'static> Rates<K> {
    pub fn new(count: u32, window_secs: u64) -> Self {
        let local = DefaultKeyedRateLimiter::keyed(quota(count, window_secs));
        Rates { local, shared: None, count, window_secs }
    }

    /// Count in the cluster's database from now on, as `kind`.
    pub fn share(&mut self, db: &crate::db::Db, kind: &'static str) {
        let window_ms = (self.window_secs.max(1) * 1000) as i64;
        self.shared = Some(Shared { db: db.clone(), kind, limit: self.count, window_ms });
    }

    /// Take one request for `key`, or `429` with the seconds until the next one.
    pub async fn take(&self, key: &K) -> AppResult<()> {
        let Some(s) = self.shared.clone() else { return check(&self.local, key) };
        let key = key.limit_key();
        let (kind, limit, window) = (s.kind, s.limit, s.window_ms);
        let r = s.db.run(move |c| crate::db::limits::take(c, (kind, &key), limit, window)).await?;
        r.map_err(Shared::wait)
    }

    pub fn retain_recent(&self) {
        self.local.retain_recent();
    }
}

pub struct RateLimits {
    /// failed logins per (username key, client IP bucket)
    pub login_failures: Failures<(String, IpAddr)>,
    /// failed logins per username key from all IPs
    pub login_failures_total: Failures<String>,
    /// wrong current passwords at password change, per account id
    pub password_failures: Failures<i64>,
    pub login_ip: Rates<IpAddr>,
    pub register_ip: Rates<IpAddr>,
    pub guest_ip: Rates<IpAddr>,
    /// WebSocket tickets per account, and per client IP bucket
    pub ticket_account: Rates<i64>,
    pub ticket_ip: Rates<IpAddr>,
}

/// `count` per `window`, all usable at once, refilled evenly over the window.
fn quota(count: u32, window_secs: u64) -> Quota {
    let count = NonZeroU32::new(count.max(1)).expect("nonzero");
    let period = Duration::from_secs(window_secs.max(1)) / count.get();
    Quota::with_period(period.max(Duration::from_nanos(1)))
        .expect("positive period")
        .allow_burst(count)
}

impl RateLimits {
    pub fn new(c: &LimitsConfig) -> RateLimits {
        RateLimits {
            login_failures: Failures::new(c.login_per_account, c.login_window_secs),
            login_failures_total: Failures::new(c.login_per_account_total, c.login_window_secs),
            password_failures: Failures::new(c.login_per_account, c.login_window_secs),
            login_ip: Rates::new(c.login_per_ip, c.login_window_secs),
            register_ip: Rates::new(c.register_per_ip, c.register_window_secs),
            guest_ip: Rates::new(c.guest_per_ip, c.register_window_secs),
            ticket_account: Rates::new(c.ticket_per_account, c.ticket_window_secs),
            ticket_ip: Rates::new(c.ticket_per_ip, c.ticket_window_secs),
        }
    }

    /// Cluster mode: count every limit in `db`, for all nodes together.
    pub fn share(&mut self, db: &crate::db::Db) {
        self.login_failures.share(db, "login_failure");
        self.login_failures_total.share(db, "login_failure_total");
        self.password_failures.share(db, "password_failure");
        self.login_ip.share(db, "login_ip");
        self.register_ip.share(db, "register_ip");
        self.guest_ip.share(db, "guest_ip");
        self.ticket_account.share(db, "ticket_account");
        self.ticket_ip.share(db, "ticket_ip");
    }

    /// Forget keys whose budget is full again (call now and then to bound memory).
    pub fn retain_recent(&self) {
        self.login_failures.retain_recent();
        self.login_failures_total.retain_recent();
        self.password_failures.retain_recent();
        self.login_ip.retain_recent();
        self.register_ip.retain_recent();
        self.guest_ip.retain_recent();
        self.ticket_account.retain_recent();
        self.ticket_ip.retain_recent();
    }
}

/// Take one cell for `key`, or `429` with the seconds until the next one.
pub fn check<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> AppResult<()> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        AppError::RateLimited { retry_after_secs: wait.as_secs() + 1 }
    })
}
