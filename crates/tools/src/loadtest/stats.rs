//! Counters shared by every simulated client, and the measurement window.
use super::histogram::Histogram;
use super::report::Failures;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// How many error descriptions the report keeps.
const ERROR_SAMPLES: usize = 20;

/// The latency histograms of a run.
#[derive(Default)]
pub struct Latencies {
    /// move sent → its `ack`
    pub ack: Histogram,
    /// move sent → the last of the four seats received its `update`
    pub all: Histogram,
    pub all_before_burst: Histogram,
    pub all_during_burst: Histogram,
    /// password login request → response
    pub login: Histogram,
    /// move → all four seats, per second of the window (by the second the move was sent)
    pub per_second: Vec<Histogram>,
}

#[derive(Default)]
pub struct Stats {
    pub sockets: AtomicI64,
    pub games_playing: AtomicI64,
    pub games_started: AtomicU64,
    pub games_finished: AtomicU64,
    pub setups_failed: AtomicU64,
    pub moves_sent: AtomicU64,
    pub moves_acked: AtomicU64,
    pub moves_done: AtomicU64,
    pub moves_in_window: AtomicU64,
    pub skips: AtomicU64,
    pub lost: AtomicU64,
    pub duplicated: AtomicU64,
    pub errors: AtomicU64,
    pub logins: AtomicU64,
    error_samples: Mutex<Vec<String>>,
    error_codes: Mutex<BTreeMap<String, u64>>,
    pub lat: Mutex<Latencies>,
    /// set when the run must end now (the hard stop)
    pub stopping: AtomicBool,
}

/// Read a counter.
pub fn get(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

/// Add one to a counter.
pub fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Stats {
    /// Count an error under `code`, keeping the first descriptions as samples.
    pub fn error(&self, code: &str, detail: String) {
        bump(&self.errors);
        *self
            .error_codes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(code.to_string())
            .or_default() += 1;
        let mut samples = self.error_samples.lock().unwrap_or_else(|e| e.into_inner());
        if samples.len() < ERROR_SAMPLES {
            samples.push(detail);
        }
    }

    pub fn socket_opened(&self) {
        self.sockets.fetch_add(1, Ordering::Relaxed);
    }

    pub fn socket_closed(&self) {
        self.sockets.fetch_sub(1, Ordering::Relaxed);
    }

    /// Sockets open now.
    pub fn open_sockets(&self) -> i64 {
        self.sockets.load(Ordering::Relaxed)
    }

    /// Games in their battle now.
    pub fn games_in_play(&self) -> i64 {
        self.games_playing.load(Ordering::Relaxed)
    }

    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    /// What went wrong so far, as reported.
    pub fn failures(&self) -> Failures {
        Failures {
            lost: get(&self.lost),
            duplicated: get(&self.duplicated),
            errors: get(&self.errors),
            error_codes: self.error_codes.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            error_samples: self.error_samples.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
}

/// The measurement timeline of games mode.
#[derive(Clone, Copy)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
    /// start of the login burst (`end` when there is none)
    pub burst: Instant,
}

impl Window {
    pub fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

impl Latencies {
    /// Record a completed move sent at `sent` whose last seat received it `micros` later.
    pub fn record_move(&mut self, window: &Window, sent: Instant, micros: u64) {
        self.all.record(micros);
        let second = sent.duration_since(window.start).as_secs() as usize;
        if self.per_second.len() <= second {
            self.per_second.resize_with(second + 1, Histogram::default);
        }
        self.per_second[second].record(micros);
        if sent < window.burst {
            self.all_before_burst.record(micros);
        } else {
            self.all_during_burst.record(micros);
        }
    }
}
