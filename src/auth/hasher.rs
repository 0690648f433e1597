//! Password hashing off the hot path: a small pool of threads of their own, at a lower CPU
//! priority (nice 10), that run the Argon2id computations of logins and registrations.
//!
//! An Argon2id hash costs tens of milliseconds of CPU. On the async runtime's blocking pool, one
//! per core, it competed as an equal with the threads that serve live games, so a burst of logins
//! raised the latency of every move. There is one hashing thread fewer than the cores (so one
//! core never hashes), and it runs at nice 10, so the game threads win the CPU when they want it.
//! It is not `SCHED_IDLE` (nor nice 19): on a saturated machine those starve logins for minutes
//! (seen in the test suite: ten logins took longer than the per-account rate-limit window),
//! while nice 10 still gives a hash about a tenth of a contended core.
use crate::error::{AppError, AppResult};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

pub struct Hasher {
    tx: mpsc::Sender<Job>,
}

/// Nice value of the hashing threads.
const HASH_NICE: i32 = 10;

/// Lower the calling thread's priority to [`HASH_NICE`] (Linux: per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; failure only leaves the priority unchanged.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, HASH_NICE) != 0 {
            tracing::warn!("could not lower the priority of a password-hashing thread");
        }
    }
}

impl Hasher {
    /// Start `threads` hashing threads.
    pub fn start(threads: usize) -> Result<Hasher, String> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("siguo-hash-{i}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return, // the Hasher was dropped
                        }
                    }
                })
                .map_err(|e| format!("password hashing thread: {e}"))?;
        }
        Ok(Hasher { tx })
    }

    /// Run `f` on a hashing thread and wait for its result.
    pub async fn run<R: Send + 'static>(&self, f: impl FnOnce() -> AppResult<R> + Send + 'static) -> AppResult<R> {
        let (reply, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = reply.send(f());
        });
        self.tx.send(job).map_err(|_| AppError::internal("password hashing stopped"))?;
        rx.await.map_err(|_| AppError::internal("password hashing task lost"))?
    }
}
