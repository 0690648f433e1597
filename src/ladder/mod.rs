//! The ranked ladder (排位): which games count, points applied exactly once, the hidden Glicko-2
//! matchmaking rating, the matchmaking queues and the leaderboard queries.
//!
//! Rules: `shared/spec/ladder.md`. Live play hands every finished game to [`record_result`]
//! (inside the transaction that writes the game's final state); the ladder decides whether it
//! counts and applies it once per (game, account), enforced by the `ladder_results` primary key.
pub mod glicko;
pub mod leaderboard;
pub mod points;
pub mod profile;
pub mod queue;
pub mod record;
pub mod service;

pub use points::{Outcome, PlayerResult};
pub use queue::{LadderConfig, Match, QueueStatus, Queues};
pub use record::record_result;
pub use service::{Ladder, MatchStarter};

use serde::{Deserialize, Serialize};
use siguo_rules::{Seat, Status};

/// The two ladders, each with its own leaderboard. Stored as text (`ranked`, `ranked_dual`)
/// in `games.kind`, `ladder_stats.ladder` and `ladder_results.ladder`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LadderKind {
    /// 排位标准对局: four accounts, two teams.
    Ranked,
    /// 排位 1v1 双控对局: two accounts, each controls both seats of one team.
    RankedDual,
}

impl LadderKind {
    pub const ALL: [LadderKind; 2] = [LadderKind::Ranked, LadderKind::RankedDual];

    pub fn as_str(self) -> &'static str {
        match self {
            LadderKind::Ranked => "ranked",
            LadderKind::RankedDual => "ranked_dual",
        }
    }

    pub fn parse(s: &str) -> Option<LadderKind> {
        match s {
            "ranked" => Some(LadderKind::Ranked),
            "ranked_dual" => Some(LadderKind::RankedDual),
            _ => None,
        }
    }

    /// Parse a path segment, or a 404-style error with a stable code.
    pub fn from_path(s: &str) -> crate::error::AppResult<LadderKind> {
        LadderKind::parse(s).ok_or_else(|| {
            crate::error::AppError::bad_request("unknown_ladder", format!("unknown ladder {s:?}: use ranked or ranked_dual"))
        })
    }
}

/// Who sat in one seat of a finished game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatRecord {
    /// The account in this seat (also for guests, which are account rows with `is_guest`);
    /// `None` for a bot.
    pub account_id: Option<i64>,
    /// Bot level for a bot seat.
    pub bot: Option<String>,
    /// The account is a guest.
    pub guest: bool,
    /// This seat surrendered (投降).
    pub surrendered: bool,
    /// This seat escaped (逃跑): left on purpose or exceeded the reconnect grace.
    pub escaped: bool,
}

/// What live play hands to [`record_result`] when a game ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    pub game_id: i64,
    /// `games.kind`: `ranked` | `ranked_dual` | `casual` | `practice`.
    pub kind: String,
    /// Indexed by `Seat::index()` (N, E, S, W).
    pub seats: [SeatRecord; 4],
    /// The final status (`Won` or `Draw`; `Ongoing` means aborted and never counts).
    pub status: Status,
    /// The game reached the battle phase (a game aborted during deployment never counts).
    pub reached_battle: bool,
}

impl FinishedGame {
    pub fn seat(&self, seat: Seat) -> &SeatRecord {
        &self.seats[seat.index()]
    }
}
