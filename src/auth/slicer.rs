//! Short slices for the `SCHED_IDLE` hashing threads (Linux).
//!
//! `SCHED_IDLE` is not a strict "only when nothing else runs": in the kernel's fair scheduler
//! (EEVDF) an idle-policy thread is an entity of very low weight that can still be *picked* ahead
//! of a runnable game thread (one that was just preempted, or whose virtual runtime is ahead), and
//! then keeps the core until the next scheduler tick, up to 4 ms on a 250 Hz kernel. `perf sched`
//! on a 2-core VM during a 20 logins/s burst showed exactly that: the database writer and the
//! runtime workers waiting up to 3.9 ms while `siguo-hash-0` ran, against at most 0.26 ms before
//! the burst.
//!
//! So while a hashing thread computes, a POSIX timer (monotonic clock, high resolution) sends it a
//! signal every [`Slicer`] period, and the signal handler sleeps for a few microseconds. Sleeping
//! takes the thread off the run queue: whatever game thread is runnable on that core runs at once,
//! and a woken idle-policy thread never preempts it. A game thread then waits for a hashing thread
//! at most about one period instead of one tick. The cost is a little hashing throughput (a
//! signal and a short sleep per period).
use std::sync::OnceLock;
use std::time::Duration;

/// How long the handler steps off the core.
const PAUSE: Duration = Duration::from_micros(10);

fn signal() -> libc::c_int {
    // glibc keeps the first real-time signals for itself; SIGRTMIN() is past those
    libc::SIGRTMIN() + 7
}

extern "C" fn pause_handler(_: libc::c_int) {
    // SAFETY: nanosleep is async-signal-safe; errno is saved and restored around it so the
    // interrupted code sees no change.
    unsafe {
        let errno = *libc::__errno_location();
        let ts = libc::timespec { tv_sec: 0, tv_nsec: PAUSE.as_nanos() as libc::c_long };
        libc::nanosleep(&ts, std::ptr::null_mut());
        *libc::__errno_location() = errno;
    }
}

static INSTALLED: OnceLock<bool> = OnceLock::new();

/// A timer bound to the thread that created it; [`Slicer::slices`] arms it for a stretch of work.
pub struct Slicer {
    timer: libc::timer_t,
    period: Duration,
}

impl Slicer {
    /// A timer that will interrupt the calling thread every `period` while armed. `None` if the
    /// system refuses (the thread then simply runs unsliced).
    pub fn for_this_thread(period: Duration) -> Option<Slicer> {
        if period.is_zero() {
            return None;
        }
        let sig = signal();
        // installed once per process; if that failed, no thread may arm a timer for the signal
        // (its default action would end the process)
        let installed = *INSTALLED.get_or_init(|| {
            // SAFETY: a zeroed sigaction is valid; the handler only calls async-signal-safe code.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = pause_handler as *const () as libc::sighandler_t;
                sa.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut()) == 0
            }
        });
        if !installed {
            return None;
        }
        // SAFETY: plain syscalls on the calling thread with fully initialised arguments.
        unsafe {
            // the handler's sleep should last microseconds, not the default 50 µs of timer slack
            libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            let mut ev: libc::sigevent = std::mem::zeroed();
            ev.sigev_notify = libc::SIGEV_THREAD_ID;
            ev.sigev_signo = sig;
            ev.sigev_notify_thread_id = libc::syscall(libc::SYS_gettid) as libc::c_int;
            let mut timer: libc::timer_t = std::mem::zeroed();
            if libc::timer_create(libc::CLOCK_MONOTONIC, &mut ev, &mut timer) != 0 {
                return None;
            }
            Some(Slicer { timer, period })
        }
    }

    fn set(&self, every: Duration) {
        let ts = libc::timespec {
            tv_sec: every.as_secs() as libc::time_t,
            tv_nsec: every.subsec_nanos() as libc::c_long,
        };
        let spec = libc::itimerspec { it_interval: ts, it_value: ts };
        // SAFETY: the timer was created by timer_create and not deleted yet.
        unsafe {
            libc::timer_settime(self.timer, 0, &spec, std::ptr::null_mut());
        }
    }

    /// Arm the timer until the returned guard is dropped.
    pub fn slices(&self) -> Armed<'_> {
        self.set(self.period);
        Armed(self)
    }
}

impl Drop for Slicer {
    fn drop(&mut self) {
        // SAFETY: deletes the timer this value owns, once.
        unsafe {
            libc::timer_delete(self.timer);
        }
    }
}

/// The timer is armed while this lives.
pub struct Armed<'a>(&'a Slicer);

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.0.set(Duration::ZERO);
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use std::time::Duration;

    /// Voluntary context switches of the calling thread (each handler sleep is one).
    pub fn voluntary_switches() -> u64 {
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        let status = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap()
    }

    fn thread_cpu() -> Duration {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    /// Compute until this thread has had `d` of CPU time (however loaded the machine is).
    pub fn spin(d: Duration) {
        let t = thread_cpu();
        let mut x = 0u64;
        while thread_cpu() - t < d {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;
    use std::time::Instant;

    #[test]
    fn an_armed_thread_steps_off_its_core_every_period_and_an_unarmed_one_does_not() {
        std::thread::spawn(|| {
            let s = Slicer::for_this_thread(Duration::from_micros(500)).expect("a timer");
            let before = voluntary_switches();
            {
                let _on = s.slices();
                spin(Duration::from_millis(100));
            }
            let armed = voluntary_switches() - before;
            // 200 periods in 100 ms of CPU; a loaded machine that preempts the thread often
            // merges some of them, so ask for a tenth
            assert!(armed >= 20, "only {armed} pauses in 100 ms of computing, armed");
            let before = voluntary_switches();
            spin(Duration::from_millis(100));
            let unarmed = voluntary_switches() - before;
            assert!(unarmed < 5, "{unarmed} pauses in 100 ms of computing, disarmed");
            // a sleep interrupted by the signal still lasts as long as asked
            let _on = s.slices();
            let t = Instant::now();
            std::thread::sleep(Duration::from_millis(20));
            assert!(t.elapsed() >= Duration::from_millis(20));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_zero_period_means_no_slicing() {
        assert!(Slicer::for_this_thread(Duration::ZERO).is_none());
    }
}
