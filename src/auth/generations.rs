//! The token generations a node knows ([`Generations`]).
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The token generations this node knows, and how far it may trust them. On one node the cache
/// is the truth ([`super::Auth::revoke_tokens`] is the only writer). In a cluster another node may
/// revoke: every change is announced (`NOTIFY siguo_session`, src/cluster/notify.rs), so an
/// entry read while this node's notice connection is up stays true as long as that connection
/// does; otherwise it is trusted for `trust` only, then read again.
pub(super) struct Generations {
    known: Mutex<HashMap<i64, KnownGeneration>>,
    /// cluster mode: how long an entry is trusted without the notices; `None` on one node
    trust: Option<Duration>,
    /// the notice connection's current session: 0 while it is down
    epoch: AtomicU64,
}

#[derive(Clone, Copy)]
struct KnownGeneration {
    generation: i64,
    at: Instant,
    /// the notice connection's session when it was read or told (0: none)
    epoch: u64,
}

/// How long an unused entry of the generation cache is kept (a token lives at most 15 minutes;
/// an entry dropped earlier is read again).
const GENERATION_KEEP: Duration = Duration::from_secs(20 * 60);

impl Generations {
    pub fn new(trust: Option<Duration>) -> Generations {
        Generations { known: Default::default(), trust, epoch: AtomicU64::new(0) }
    }

    fn known(&self) -> MutexGuard<'_, HashMap<i64, KnownGeneration>> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cached generation of `account_id` if it may be trusted now.
    pub fn trusted(&self, account_id: i64) -> Option<i64> {
        let k = *self.known().get(&account_id)?;
        let Some(trust) = self.trust else { return Some(k.generation) };
        let epoch = self.epoch.load(Ordering::Acquire);
        let told = epoch != 0 && k.epoch == epoch;
        (told || k.at.elapsed() < trust).then_some(k.generation)
    }

    /// `generation` is the account's (read now, or announced): the cache never goes back.
    pub fn learn(&self, account_id: i64, generation: i64) -> i64 {
        let epoch = self.epoch.load(Ordering::Acquire);
        let mut m = self.known();
        let now = Instant::now();
        let e = m.entry(account_id).or_insert(KnownGeneration { generation, at: now, epoch });
        *e = KnownGeneration { generation: e.generation.max(generation), at: now, epoch };
        e.generation
    }

    /// The notice connection is up (a new session of it) or down.
    pub fn notices_up(&self, up: bool) {
        static SESSIONS: AtomicU64 = AtomicU64::new(1);
        let epoch = if up { SESSIONS.fetch_add(1, Ordering::Relaxed) } else { 0 };
        self.epoch.store(epoch, Ordering::Release);
    }

    /// Forget entries not read or told for [`GENERATION_KEEP`].
    pub fn prune(&self) {
        self.known().retain(|_, k| k.at.elapsed() < GENERATION_KEEP);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(g: &Generations, account: i64, by: Duration) {
        let mut m = g.known();
        let k = m.get_mut(&account).unwrap();
        k.at = k.at.checked_sub(by).unwrap();
    }

    #[test]
    fn one_node_trusts_its_cache_and_never_goes_back() {
        let g = Generations::new(None);
        assert_eq!(g.trusted(1), None, "read first");
        assert_eq!(g.learn(1, 3), 3);
        assert_eq!(g.learn(1, 2), 3, "an older read does not undo a revocation");
        age(&g, 1, Duration::from_secs(600));
        assert_eq!(g.trusted(1), Some(3));
    }

    #[test]
    fn without_notices_an_entry_is_trusted_for_a_while_only() {
        let g = Generations::new(Some(Duration::from_secs(1)));
        g.learn(1, 0);
        assert_eq!(g.trusted(1), Some(0));
        age(&g, 1, Duration::from_millis(1500));
        assert_eq!(g.trusted(1), None, "read again");
        // read while the notices come: trusted as long as that connection lasts
        g.notices_up(true);
        g.learn(1, 0);
        age(&g, 1, Duration::from_secs(60));
        assert_eq!(g.trusted(1), Some(0));
        g.notices_up(false);
        assert_eq!(g.trusted(1), None, "the connection dropped: notices may be missed");
        g.notices_up(true);
        assert_eq!(g.trusted(1), None, "a new connection: what came before may be stale");
    }

    #[test]
    fn unused_entries_are_forgotten() {
        let g = Generations::new(None);
        for a in 0..100 {
            g.learn(a, 1);
        }
        for a in 0..99 {
            age(&g, a, GENERATION_KEEP + Duration::from_secs(1));
        }
        g.prune();
        assert_eq!(g.known().len(), 1);
        assert_eq!(g.trusted(99), Some(1));
    }
}
