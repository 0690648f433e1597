//! The `[live]` section of the configuration.
use super::conn::OUTBOUND_QUEUE;
use serde::{Deserialize, Serialize};

/// Live-play settings (section `[live]` of the config; defaults here).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LiveConfig {
    /// Origins allowed to open a WebSocket besides the server's own (copied from
    /// `server.allowed_origins` at start).
    #[serde(skip)]
    pub allowed_origins: Vec<String>,
    /// Extra seconds added to every clock when a game is restored after a restart.
    pub restore_grace_seconds: u32,
    /// How long a finished room stays open (for its chat and last view).
    pub finished_room_seconds: u32,
    /// Bot thinking budget per move, ms.
    pub bot_budget_ms: u64,
    /// A bot's move is committed no sooner than this many ms after the change before it, so
    /// that people can follow the round (0: as soon as the bot has chosen).
    pub bot_move_delay_ms: u64,
    /// Events kept per game for resync.
    pub resync_log: usize,
    /// Messages queued for one socket before it counts as too slow and is closed (1013).
    pub outbound_queue: usize,
    /// Failed `join_room` invite look-ups allowed per account, and per client IP, within
    /// `invite_failure_window_secs` (beyond: `rate_limited`).
    pub invite_failures_per_account: u32,
    pub invite_failures_per_ip: u32,
    pub invite_failure_window_secs: u64,
    /// People watching one room without a seat (beyond: `room_full`).
    pub max_spectators: usize,
    /// Rooms an account may have open at once: waiting rooms it created and practice games
    /// (beyond: `too_many_rooms`), until they finish.
    pub max_rooms_per_account: usize,
    /// rooms and practice games made from one client address (IPv6 by /64) at once
    pub max_rooms_per_ip: usize,
    /// Open WebSockets per account and per client IP (beyond: HTTP 429 `too_many_sockets`).
    pub max_sockets_per_account: usize,
    pub max_sockets_per_ip: usize,
    /// Action ids remembered per account for idempotent acks (the oldest beyond are forgotten),
    /// how long each is remembered, and how long those of an account without a socket on this
    /// node are kept.
    pub recent_ids_per_account: usize,
    pub recent_ids_seconds: u64,
    pub recent_ids_offline_seconds: u64,
    /// Bots thinking at once across the server; 0 = one per CPU core.
    pub bot_threads: usize,
    /// Let private and practice Hidden Front games set clocks shorter than hidden-front.md §6
    /// (any value `Options::validate` allows). For tests; off in production.
    pub hidden_front_short_clocks: bool,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            allowed_origins: vec![],
            restore_grace_seconds: 15,
            finished_room_seconds: 300,
            bot_budget_ms: 300,
            bot_move_delay_ms: 800,
            resync_log: 128,
            outbound_queue: OUTBOUND_QUEUE,
            invite_failures_per_account: 10,
            invite_failures_per_ip: 30,
            invite_failure_window_secs: 600,
            max_spectators: 50,
            max_rooms_per_account: 3,
            max_rooms_per_ip: 12,
            max_sockets_per_account: 8,
            max_sockets_per_ip: 64,
            recent_ids_per_account: 64,
            recent_ids_seconds: 600,
            recent_ids_offline_seconds: 120,
            bot_threads: 0,
            hidden_front_short_clocks: false,
        }
    }
}
