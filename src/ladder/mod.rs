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
pub mod shared;
pub mod title;

pub use points::{Outcome, PlayerResult};
pub use queue::{LadderConfig, Match, QueueStatus, Queues};
pub use record::record_result;
pub use service::{Ladder, MatchStarter};

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};

/// The three ladders, each with its own leaderboard. Stored as text (`ranked`, `ranked_dual`,
/// `hf_ranked`) in `games.kind`, `ladder_stats.ladder` and `ladder_results.ladder`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LadderKind {
    /// 排位标准对局: four accounts, two teams.
    Ranked,
    /// 排位 1v1 双控对局: two accounts, each controls both seats of one team.
    RankedDual,
    /// 排位 · 两人军棋: two accounts play Hidden Front, rated by Glicko-2 (no points).
    HfRanked,
}

impl LadderKind {
    pub const ALL: [LadderKind; 3] =
        [LadderKind::Ranked, LadderKind::RankedDual, LadderKind::HfRanked];

    pub fn as_str(self) -> &'static str {
        match self {
            LadderKind::Ranked => "ranked",
            LadderKind::RankedDual => "ranked_dual",
            LadderKind::HfRanked => "hf_ranked",
        }
    }

    pub fn parse(s: &str) -> Option<LadderKind> {
        match s {
            "ranked" => Some(LadderKind::Ranked),
            "ranked_dual" => Some(LadderKind::RankedDual),
            "hf_ranked" => Some(LadderKind::HfRanked),
            _ => None,
        }
    }

    /// Rated by Glicko-2 alone (Hidden Front), not by points.
    pub fn is_rated(self) -> bool {
        self == LadderKind::HfRanked
    }

    /// The kind of game a match of this ladder plays.
    pub fn game_kind(self) -> crate::live::GameKind {
        use crate::live::GameKind;
        match self {
            LadderKind::Ranked => GameKind::Ranked,
            LadderKind::RankedDual => GameKind::RankedDual,
            LadderKind::HfRanked => GameKind::HfRanked,
        }
    }

    /// Parse a path segment, or a 404-style error with a stable code.
    pub fn from_path(s: &str) -> crate::error::AppResult<LadderKind> {
        LadderKind::parse(s).ok_or_else(|| {
            crate::error::AppError::bad_request(
                ErrorCode::UnknownLadder,
                format!("unknown ladder {s:?}: use ranked, ranked_dual or hf_ranked"),
            )
        })
    }
}

/// What live play hands to [`record_result`] when a game ends (defined by live play, in
/// `crate::live::finish`, the contract between the two).
pub use crate::live::finish::{FinishedGame, FinishedSeat};
