//! Password hashing off the hot path: a small pool of threads of their own, at the lowest CPU
//! priority, that run the Argon2id computations of logins and registrations.
//!
//! An Argon2id hash costs tens of milliseconds of CPU. On the async runtime's blocking pool it
//! competes as an equal with the threads that serve live games, so a burst of logins raised the
//! latency of every move. The hashing threads run under `SCHED_IDLE` on Linux (nice 19 where
//! that is refused): a waking game thread preempts them at once (at nice 19 the scheduler still
//! lets the running hash finish its slice, ~3 ms), and logins use the CPU that is left. When the
//! machine is saturated logins wait longer, which is the right trade: a login may take a second,
//! a move may not.
use crate::error::{AppError, AppResult};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

pub struct Hasher {
    tx: Mutex<mpsc::Sender<Job>>,
}

/// Put the calling thread at the lowest priority: `SCHED_IDLE`, else nice 19 (Linux: both are
/// per thread).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; failure only leaves the priority unchanged.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0 {
            return;
        }
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, tid, 19) != 0 {
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
                    lowest_priority();
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
        Ok(Hasher { tx: Mutex::new(tx) })
    }

    /// Run `f` on a hashing thread and wait for its result.
    pub async fn run<R: Send + 'static>(&self, f: impl FnOnce() -> AppResult<R> + Send + 'static) -> AppResult<R> {
        let (reply, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = reply.send(f());
        });
        self.tx
            .lock()
            .map_err(|_| AppError::internal("hasher lock"))?
            .send(job)
            .map_err(|_| AppError::internal("password hashing stopped"))?;
        rx.await.map_err(|_| AppError::internal("password hashing task lost"))?
    }
}
