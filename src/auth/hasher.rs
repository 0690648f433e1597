//! Password hashing off the hot path: threads of their own that run the Argon2id computations of
//! logins and registrations without slowing live play.
//!
//! An Argon2id hash costs tens of milliseconds of CPU. On the async runtime's blocking pool, one
//! per core, it competed as an equal with the threads that serve live games, so a burst of logins
//! raised the latency of every move. Two pools now share the work:
//!
//! - the *idle* pool (by default one thread per two cores, at least one: `auth.hash_threads`)
//!   runs under `SCHED_IDLE`: it only gets CPU time nothing else wants, and a game thread that
//!   wakes up takes the core from it at once. The kernel may still pick it ahead of a game thread
//!   that is already runnable, for up to a scheduler tick, so while it computes it steps off its
//!   core every `auth.hash_slice_us` (250 µs; see `slicer`). On a machine with spare CPU (the
//!   normal case) every hash runs here. Not one per core: even a core that is busy only with
//!   `SCHED_IDLE` work slows the rest of the machine (on the 2-core VM we measure on, two
//!   `SCHED_IDLE` busy loops made PostgreSQL transactions three times slower, one busy loop
//!   1.5–1.9 times), so a burst of logins keeps half the cores free of hashing.
//! - the *fallback* pool (one thread) runs at nice 10. A hash that has not finished on the idle
//!   pool after `auth.hash_fallback_after_ms` (1 s by default: the machine is saturated, so idle
//!   threads get no CPU) is handed to it as well, and the first of the two to finish answers.
//!   `SCHED_IDLE` alone would starve logins on a saturated machine for minutes; nice 10 still
//!   gets about a tenth of a contended core. Both compute the same answer (a verification is
//!   deterministic; a new hash has its own salt and either is valid), and a thread that picks up
//!   a job already answered skips it.
use crate::error::{AppError, AppResult};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// A hashing thread that has had no work for this long frees its Argon2 work area
/// ([`super::password::release_memory`]); while logins keep coming it reuses it.
const RELEASE_AFTER: Duration = Duration::from_secs(3);

/// Nice value of the fallback thread.
const FALLBACK_NICE: i32 = 10;

/// One hash request; run by whichever pool gets to it first, at most once per pool.
trait Job: Send + Sync {
    /// Compute and answer, unless it was answered already (or nobody waits any more).
    fn run(&self);
}

struct Hash<R, F> {
    work: F,
    reply: Mutex<Option<oneshot::Sender<AppResult<R>>>>,
}

impl<R: Send, F: Fn() -> AppResult<R> + Send + Sync> Job for Hash<R, F> {
    fn run(&self) {
        let waited_for = matches!(self.reply.lock().as_deref(), Ok(Some(tx)) if !tx.is_closed());
        if !waited_for {
            return;
        }
        let result = (self.work)();
        if let Some(tx) = self.reply.lock().ok().and_then(|mut s| s.take()) {
            let _ = tx.send(result);
        }
    }
}

type Queue = mpsc::Sender<Arc<dyn Job>>;

pub struct Hasher {
    idle: Queue,
    fallback: Queue,
    /// how long a hash may wait on the idle pool before the fallback pool computes it too
    hedge_after: Duration,
}

#[derive(Clone, Copy)]
enum Priority {
    /// `SCHED_IDLE`, stepping off the core every this long while computing (zero: never)
    Idle(Duration),
    Nice(i32),
}

/// Set the calling thread's scheduling (Linux: per thread). Failure leaves it unchanged.
fn set_priority(p: Priority) {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread (pid 0 / its own tid); the param struct is
    // fully initialised.
    unsafe {
        let ok = match p {
            Priority::Idle(_) => {
                let param = libc::sched_param { sched_priority: 0 };
                libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0
            }
            Priority::Nice(n) => {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::setpriority(libc::PRIO_PROCESS, tid, n) == 0
            }
        };
        if !ok {
            tracing::warn!("could not lower the priority of a password-hashing thread");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = p;
}

fn pool(name: &str, threads: usize, priority: Priority) -> Result<Queue, String> {
    let (tx, rx) = mpsc::channel::<Arc<dyn Job>>();
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..threads.max(1) {
        let rx = rx.clone();
        std::thread::Builder::new()
            .name(format!("siguo-{name}-{i}"))
            .spawn(move || {
                set_priority(priority);
                #[cfg(target_os = "linux")]
                let slicer = match priority {
                    Priority::Idle(period) => super::slicer::Slicer::for_this_thread(period),
                    Priority::Nice(_) => None,
                };
                loop {
                    let job = match rx.lock() {
                        Ok(r) => r.recv_timeout(RELEASE_AFTER),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => {
                            #[cfg(target_os = "linux")]
                            let _sliced = slicer.as_ref().map(|s| s.slices());
                            job.run()
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => super::password::release_memory(),
                        Err(mpsc::RecvTimeoutError::Disconnected) => return, // the Hasher was dropped
                    }
                }
            })
            .map_err(|e| format!("password hashing thread: {e}"))?;
    }
    Ok(tx)
}

/// The default size of the idle pool: half the cores, at least one (see the module notes).
pub fn default_threads(cores: usize) -> usize {
    (cores / 2).max(1)
}

impl Hasher {
    /// Start `idle_threads` `SCHED_IDLE` hashing threads, which step off their core every `slice`
    /// while computing (see `slicer`), and one fallback thread at nice 10 that takes over a hash
    /// still unanswered after `hedge_after`.
    pub fn start(
        idle_threads: usize,
        hedge_after: Duration,
        slice: Duration,
    ) -> Result<Hasher, String> {
        Ok(Hasher {
            idle: pool("hash", idle_threads, Priority::Idle(slice))?,
            fallback: pool("hash-fallback", 1, Priority::Nice(FALLBACK_NICE))?,
            hedge_after,
        })
    }

    /// Run `work` on a hashing thread and wait for its result (see the module notes: it may be
    /// computed twice, the first result wins).
    pub async fn run<R: Send + 'static>(
        &self,
        work: impl Fn() -> AppResult<R> + Send + Sync + 'static,
    ) -> AppResult<R> {
        let (reply, mut rx) = oneshot::channel();
        let job: Arc<dyn Job> = Arc::new(Hash { work, reply: Mutex::new(Some(reply)) });
        let stopped = || AppError::internal("password hashing stopped");
        self.idle.send(job.clone()).map_err(|_| stopped())?;
        let answer = match tokio::time::timeout(self.hedge_after, &mut rx).await {
            Ok(answer) => answer,
            Err(_) => {
                self.fallback.send(job).map_err(|_| stopped())?;
                rx.await
            }
        };
        answer.map_err(|_| AppError::internal("password hashing task lost"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    const HEDGE: Duration = Duration::from_millis(250);
    const SLICE: Duration = Duration::from_micros(250);

    #[test]
    fn half_the_cores_by_default() {
        assert_eq!([1, 2, 3, 4, 16].map(default_threads), [1, 1, 1, 2, 8]);
    }

    #[tokio::test]
    async fn the_work_area_is_kept_during_a_burst_and_freed_when_idle() {
        use crate::auth::password;
        let h = Hasher::start(1, Duration::from_secs(60), SLICE).unwrap();
        let phc = h.run(|| password::hash("a fine long passphrase")).await.unwrap();
        assert_eq!(
            h.run(|| Ok(password::work_area_blocks())).await.unwrap(),
            19 * 1024,
            "kept after a hash"
        );
        assert!(h
            .run(move || password::verify("a fine long passphrase", Some(&phc)))
            .await
            .unwrap());
        tokio::time::sleep(RELEASE_AFTER + Duration::from_millis(500)).await;
        assert_eq!(h.run(|| Ok(password::work_area_blocks())).await.unwrap(), 0, "freed when idle");
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn idle_threads_step_off_their_core_while_computing() {
        use crate::auth::slicer::test_support::{spin, voluntary_switches};
        /// Pauses of the idle thread that runs a job computing for 100 ms of its own CPU time.
        async fn pauses_in_a_job(slice: Duration) -> u64 {
            let h = Hasher::start(1, Duration::from_secs(60), slice).unwrap();
            h.run(|| {
                let before = voluntary_switches();
                spin(Duration::from_millis(100));
                Ok(voluntary_switches() - before)
            })
            .await
            .unwrap()
        }
        let pauses = pauses_in_a_job(Duration::from_micros(500)).await;
        assert!(pauses >= 20, "only {pauses} pauses in 100 ms of hashing-thread CPU");
        let pauses = pauses_in_a_job(Duration::ZERO).await;
        assert!(pauses < 5, "{pauses} pauses with slicing off");
    }

    #[tokio::test]
    async fn answers_once_and_skips_answered_jobs() {
        let h = Hasher::start(1, HEDGE, SLICE).unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        let v = h.run(move || Ok(r.fetch_add(1, Ordering::SeqCst) + 41)).await.unwrap();
        assert_eq!(v, 41);
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "a quick job is computed once, on the idle pool"
        );
    }

    #[tokio::test]
    async fn a_stuck_idle_pool_is_covered_by_the_fallback() {
        let h = Hasher::start(1, HEDGE, SLICE).unwrap();
        let on_idle_thread = || {
            std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("siguo-hash-") && !n.contains("fallback"))
        };
        // the first job holds the idle thread until released (as a starved idle thread would)
        let release = Arc::new(AtomicBool::new(false));
        let rel = release.clone();
        let first = h.run(move || {
            while on_idle_thread() && !rel.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(0)
        });
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        let t0 = std::time::Instant::now();
        let second = h.run(move || {
            r.fetch_add(1, Ordering::SeqCst);
            Ok(std::thread::current().name().unwrap_or("").to_string())
        });
        let (first, second) = tokio::join!(first, second);
        assert_eq!(first.unwrap(), 0);
        assert_eq!(second.unwrap(), "siguo-hash-fallback-0", "answered by the fallback thread");
        assert!(t0.elapsed() >= HEDGE, "after the hedge delay: {:?}", t0.elapsed());
        // once free, the idle thread skips the second job: it was answered already
        release.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // and the idle pool serves again (on a busy machine the fallback may still answer some
        // jobs first: the idle thread only gets spare CPU)
        let t1 = std::time::Instant::now();
        loop {
            let who = h
                .run(|| Ok(std::thread::current().name().unwrap_or("").to_string()))
                .await
                .unwrap();
            if who == "siguo-hash-0" {
                break;
            }
            assert!(
                t1.elapsed() < Duration::from_secs(30),
                "the idle thread answered nothing in 30 s"
            );
        }
    }
}
