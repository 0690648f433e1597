//! Where bots think: a few threads of their own at low priority, shared fairly.
//!
//! A bot's search costs up to `live.bot_budget_ms` of CPU. On the runtime's blocking pool, first
//! come first served, one client holding many bot games (practice games started and abandoned)
//! made every other game's bot wait behind all of them. So:
//!
//! - **own threads, low priority**: `live.bot_threads` threads (0: one per core) at nice 10, so
//!   the threads that run games, sockets and writes get a core first;
//! - **fair between clients**: searches wait in one queue per owner — the client address of the
//!   game's people (else the game) — and the threads take the owners in turn, one search each.
//!   However many bot games one client holds, another client's bot waits for at most one search
//!   of each other owner.
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Who a search is counted for: a client address (bucketed), or one game.
pub type Owner = String;

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queues {
    /// the owners with searches waiting, in turn order
    turn: VecDeque<Owner>,
    waiting: HashMap<Owner, VecDeque<Job>>,
    stopped: bool,
}

struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
}

/// The bot threads and their fair queue.
#[derive(Clone)]
pub struct BotPool {
    shared: Arc<Shared>,
}

impl BotPool {
    /// Start `threads` bot threads (at least one).
    pub fn start(threads: usize) -> BotPool {
        let shared =
            Arc::new(Shared { queues: Mutex::new(Queues::default()), ready: Condvar::new() });
        for i in 0..threads.max(1) {
            let shared = shared.clone();
            let spawned =
                std::thread::Builder::new().name(format!("siguo-bot-{i}")).spawn(move || {
                    crate::auth::hasher::lower_priority();
                    while let Some(job) = next(&shared) {
                        job();
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "could not start a bot thread");
            }
        }
        BotPool { shared }
    }

    fn queues(&self) -> MutexGuard<'_, Queues> {
        self.shared.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a search for `owner`.
    pub fn submit(&self, owner: Owner, job: impl FnOnce() + Send + 'static) {
        let mut q = self.queues();
        let mine = q.waiting.entry(owner.clone()).or_default();
        let first = mine.is_empty();
        mine.push_back(Box::new(job));
        if first {
            q.turn.push_back(owner);
        }
        drop(q);
        self.shared.ready.notify_one();
    }

    /// Stop the threads once the searches already queued are done.
    pub fn stop(&self) {
        self.queues().stopped = true;
        self.shared.ready.notify_all();
    }
}

/// The next search: the first of the owner whose turn it is (that owner then goes last).
fn next(shared: &Shared) -> Option<Job> {
    let mut q = shared.queues.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(owner) = q.turn.pop_front() {
            let Some(mine) = q.waiting.get_mut(&owner) else { continue };
            let job = mine.pop_front();
            if mine.is_empty() {
                q.waiting.remove(&owner);
            } else {
                q.turn.push_back(owner);
            }
            if let Some(job) = job {
                return Some(job);
            }
            continue;
        }
        if q.stopped {
            return None;
        }
        q = shared.ready.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// With one thread held busy, a burst of one owner's searches and then one search of
    /// another: the other's runs second, not after the whole burst.
    #[test]
    fn owners_take_turns() {
        let pool = BotPool::start(1);
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<String>();
        pool.submit("busy".into(), move || {
            let _ = gate_rx.recv();
        });
        for i in 0..20 {
            let d = done_tx.clone();
            pool.submit("many".into(), move || d.send(format!("many {i}")).unwrap());
        }
        let d = done_tx.clone();
        pool.submit("one".into(), move || d.send("one".into()).unwrap());
        gate_tx.send(()).unwrap();
        let order: Vec<String> = (0..21).map(|_| done_rx.recv().unwrap()).collect();
        assert_eq!(order[0], "many 0");
        assert_eq!(order[1], "one", "{order:?}");
        assert_eq!(order[20], "many 19");
        pool.stop();
    }
}
