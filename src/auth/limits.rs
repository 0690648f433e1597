//! Rate limits (governor, GCRA, in memory): login attempts per account and per client IP,
//! registrations and guest sessions per client IP. Beyond a limit: 429 `rate_limited` with
//! `Retry-After`.
use crate::config::LimitsConfig;
use crate::error::{AppError, AppResult};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

pub struct RateLimits {
    pub login_account: DefaultKeyedRateLimiter<String>,
    pub login_ip: DefaultKeyedRateLimiter<IpAddr>,
    pub register_ip: DefaultKeyedRateLimiter<IpAddr>,
    pub guest_ip: DefaultKeyedRateLimiter<IpAddr>,
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
            login_account: DefaultKeyedRateLimiter::keyed(quota(
                c.login_per_account,
                c.login_window_secs,
            )),
            login_ip: DefaultKeyedRateLimiter::keyed(quota(c.login_per_ip, c.login_window_secs)),
            register_ip: DefaultKeyedRateLimiter::keyed(quota(
                c.register_per_ip,
                c.register_window_secs,
            )),
            guest_ip: DefaultKeyedRateLimiter::keyed(quota(c.guest_per_ip, c.register_window_secs)),
        }
    }

    /// Forget keys whose budget is full again (call now and then to bound memory).
    pub fn retain_recent(&self) {
        self.login_account.retain_recent();
        self.login_ip.retain_recent();
        self.register_ip.retain_recent();
        self.guest_ip.retain_recent();
    }
}

/// Take one cell for `key`, or `429` with the seconds until the next one.
pub fn check<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> AppResult<()> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        AppError::RateLimited { retry_after_secs: wait.as_secs() + 1 }
    })
}
