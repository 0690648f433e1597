//! Password hashing off the async runtime: a small pool of threads of its own, at low priority,
//! with a bounded queue.
//!
//! An Argon2id hash costs tens of milliseconds of CPU. On the runtime's blocking pool (one thread
//! per core) a burst of logins competed as an equal with the threads that serve live games and
//! raised the latency of every move (`docs/performance.md`, steps 7–10). So:
//!
//! - **few threads**: half the cores, at least one (`auth.hash_threads`, 0 = that default), so a
//!   burst of logins leaves the other cores to live play;
//! - **low priority**: the threads run at nice 10, so the kernel gives a runnable game thread the
//!   core first, yet a hash still gets CPU on a saturated machine;
//! - **a bounded queue**: at most `auth.hash_queue` hashes wait for a thread. Beyond that the
//!   request is refused at once with 503 `server_busy` and `Retry-After` instead of waiting
//!   without limit; a client that has gone away meanwhile costs no hash (its job is skipped).
//!
//! Each thread keeps its Argon2 work area between the hashes of a burst and frees it after
//! [`RELEASE_AFTER`] without work ([`super::password::release_memory`]).
use crate::error::{AppError, AppResult};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// A hashing thread that has had no work for this long frees its Argon2 work area.
const RELEASE_AFTER: Duration = Duration::from_secs(3);

/// Nice value of the hashing threads.
const NICE: i32 = 10;

/// What a refused request is told to wait before trying again. A queued hash is answered within
/// tens of milliseconds on a machine with spare CPU, so a second is enough for the queue to move.
pub const RETRY_AFTER_SECS: u64 = 1;

/// A queued hash: its work and where to send the answer.
type Job = Box<dyn FnOnce() + Send>;

pub struct Hasher {
    queue: mpsc::SyncSender<Job>,
}

/// Lower the calling thread's priority to nice [`NICE`] (on Linux nice is per thread). Failure
/// leaves it unchanged.
#[allow(unsafe_code)] // the two libc calls below; there is no safe wrapper for a thread's nice
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls about the calling thread (its own thread id).
    let ok = unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, NICE) == 0
    };
    #[cfg(not(target_os = "linux"))]
    let ok = false;
    if !ok {
        tracing::warn!("could not lower the priority of a password-hashing thread");
    }
}

/// The default size of the pool: half the cores, at least one.
pub fn default_threads(cores: usize) -> usize {
    (cores / 2).max(1)
}

impl Hasher {
    /// Start `threads` hashing threads (at least one) with room for `queue` waiting hashes.
    pub fn start(threads: usize, queue: usize) -> Result<Hasher, String> {
        let (tx, rx) = mpsc::sync_channel::<Job>(queue);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("siguo-hash-{i}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let job = match rx.lock() {
                            Ok(r) => r.recv_timeout(RELEASE_AFTER),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(mpsc::RecvTimeoutError::Timeout) => {
                                super::password::release_memory()
                            }
                            Err(mpsc::RecvTimeoutError::Disconnected) => return, // Hasher dropped
                        }
                    }
                })
                .map_err(|e| format!("password hashing thread: {e}"))?;
        }
        Ok(Hasher { queue: tx })
    }

    /// Run `work` on a hashing thread and wait for its result; `server_busy` at once if the
    /// queue is full.
    pub async fn run<R: Send + 'static>(
        &self,
        work: impl FnOnce() -> AppResult<R> + Send + 'static,
    ) -> AppResult<R> {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move || {
            // nobody waits any more (the request was dropped): save the CPU
            if !reply.is_closed() {
                let _ = reply.send(work());
            }
        });
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(mpsc::TrySendError::Full(_)) => {
                return Err(AppError::Busy { retry_after_secs: RETRY_AFTER_SECS })
            }
            Err(mpsc::TrySendError::Disconnected(_)) => {
                return Err(AppError::internal("password hashing stopped"))
            }
        }
        answer.await.map_err(|_| AppError::internal("password hashing job lost"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn half_the_cores_by_default() {
        assert_eq!([1, 2, 3, 4, 16].map(default_threads), [1, 1, 1, 2, 8]);
    }

    #[tokio::test]
    #[allow(unsafe_code)] // reads the thread's nice value with libc
    async fn answers_each_job_on_a_low_priority_hashing_thread() {
        let h = Hasher::start(2, 4).unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        let v = h.run(move || Ok(r.fetch_add(1, Ordering::SeqCst) + 41)).await.unwrap();
        assert_eq!(v, 41);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "computed once");
        let name = h.run(|| Ok(std::thread::current().name().map(String::from))).await.unwrap();
        assert!(name.is_some_and(|n| n.starts_with("siguo-hash-")));
        #[cfg(target_os = "linux")]
        {
            // SAFETY: reads the calling thread's nice value; errno is reset first because -1
            // is also a valid answer.
            let nice = h
                .run(|| unsafe {
                    *libc::__errno_location() = 0;
                    let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                    Ok(libc::getpriority(libc::PRIO_PROCESS, tid))
                })
                .await
                .unwrap();
            // at least NICE: a test process may already run niced
            assert!(nice >= NICE, "hashing thread at nice {nice}");
        }
        let errors = h.run(|| Err::<(), _>(AppError::internal("boom"))).await.unwrap_err();
        assert_eq!(errors.code(), "internal", "the job's own error comes back");
    }

    /// Occupy the pool's (one) thread with a job that runs until the returned sender is used;
    /// returns once the job runs.
    async fn hold_the_thread(
        h: &Arc<Hasher>,
    ) -> (tokio::task::JoinHandle<AppResult<u8>>, mpsc::Sender<()>) {
        let (release, wait) = mpsc::channel::<()>();
        let (started_tx, started) = oneshot::channel::<()>();
        let h = h.clone();
        let job = tokio::spawn(async move {
            h.run(move || {
                let _ = started_tx.send(());
                let _ = wait.recv();
                Ok(1)
            })
            .await
        });
        started.await.unwrap();
        (job, release)
    }

    #[tokio::test]
    async fn a_full_queue_is_refused_at_once_and_accepts_again_when_drained() {
        let h = Arc::new(Hasher::start(1, 1).unwrap());
        // the thread is held by the first job...
        let (first, release) = hold_the_thread(&h).await;
        // ...the second waits in the queue (one place)...
        let h2 = h.clone();
        let second = tokio::spawn(async move { h2.run(|| Ok(2)).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        // ...and the third is refused without waiting
        let t0 = std::time::Instant::now();
        let third = h.run(|| Ok(3)).await.unwrap_err();
        assert!(t0.elapsed() < Duration::from_millis(100));
        assert!(
            matches!(third, AppError::Busy { retry_after_secs: RETRY_AFTER_SECS }),
            "{third:?}"
        );
        assert_eq!(third.code(), "server_busy");
        // once the thread is free, both accepted jobs are answered and the pool takes work again
        release.send(()).unwrap();
        assert_eq!(first.await.unwrap().unwrap(), 1);
        assert_eq!(second.await.unwrap().unwrap(), 2);
        assert_eq!(h.run(|| Ok(4)).await.unwrap(), 4);
    }

    #[tokio::test]
    async fn a_job_nobody_waits_for_is_skipped() {
        let h = Arc::new(Hasher::start(1, 1).unwrap());
        let (first, release) = hold_the_thread(&h).await;
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        // queued, then abandoned (as when a client disconnects)
        let abandoned = tokio::time::timeout(
            Duration::from_millis(50),
            h.run(move || {
                r.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }),
        )
        .await;
        assert!(abandoned.is_err(), "still queued behind the first job");
        release.send(()).unwrap();
        first.await.unwrap().unwrap();
        // a job queued after it is answered, so the abandoned one has been taken off the queue
        // (until the thread takes it, the queue may still be full)
        while let Err(e) = h.run(|| Ok(())).await {
            assert_eq!(e.code(), "server_busy");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(runs.load(Ordering::SeqCst), 0, "the abandoned job was not computed");
    }

    #[tokio::test]
    async fn the_work_area_is_kept_during_a_burst_and_freed_when_idle() {
        use crate::auth::password;
        let h = Hasher::start(1, 4).unwrap();
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
}
