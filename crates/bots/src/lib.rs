//! siguo-bots: bots that play from the redacted view their seat would get.
//!
//! Contract used by the server (a bot is a seat driver going through the same command path as a
//! person) and by `siguo-tools selfplay`:
//! * [`make_bot`] builds a bot of a [`Level`];
//! * [`Bot::deploy_for`] proposes a deployment for a seat of either game ([`Bot::deploy`]: the
//!   four-player game);
//! * [`Bot::observe`] is fed every public event of the game, in order (events carry no ranks);
//! * [`Bot::choose`] gets the bot's own [`View`] (never the true game) and the legal moves of the
//!   seat to move, and returns one of them. Every bot plays both games (the view names its game);
//! * [`Bot::accept_draw`] answers a draw offer.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use siguo_rules::{Deployment, Event, Move, Options, Seat, Variant, View};
use std::time::Duration;

mod deploy;
pub mod engine;
pub mod engine_protocol;
mod geo;
mod greedy;
pub mod knowledge;
mod search;
mod standard;

pub use deploy::sensible as sensible_deployment;
pub use greedy::GreedyBot;
pub use standard::StandardBot;

/// The default thinking time per move.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(1);
/// No bot ever thinks longer than this per move, whatever budget it is given.
pub const MAX_BUDGET: Duration = Duration::from_secs(2);

/// Bot strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A random legal move.
    Random,
    /// One-ply heuristic.
    Greedy,
    /// Bookkeeping + weighted sampling + alpha-beta with quiescence and a richer evaluation.
    Standard,
    /// The first standard bot (no mobility, quiescence or sample weighting), kept for comparison.
    #[serde(rename = "standard-v1")]
    StandardV1,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Greedy => "greedy",
            Level::Standard => "standard",
            Level::StandardV1 => "standard-v1",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "random" => Ok(Level::Random),
            "greedy" => Ok(Level::Greedy),
            "standard" => Ok(Level::Standard),
            "standard-v1" => Ok(Level::StandardV1),
            other => {
                Err(format!("unknown bot level {other:?} (random, greedy, standard, standard-v1)"))
            }
        }
    }
}

pub trait Bot: Send + Sync {
    /// A deployment for `seat` of `variant`'s game.
    fn deploy_for(&mut self, variant: Variant, seat: Seat, options: &Options) -> Deployment;
    /// A deployment for `seat` of the four-player game.
    fn deploy(&mut self, seat: Seat, options: &Options) -> Deployment {
        self.deploy_for(Variant::FourPlayer, seat, options)
    }
    /// Every public event, in order, from the start of the battle.
    fn observe(&mut self, event: &Event);
    /// Pick one of `moves` (non-empty, all legal for the seat to move) seeing only `view`.
    fn choose(&mut self, view: &View, moves: &[Move]) -> Move;
    /// Change the thinking time per move (capped at [`MAX_BUDGET`]); bots that do not search
    /// ignore it.
    fn set_budget(&mut self, _budget: Duration) {}
    /// Whether to accept the draw the other side offers, seeing `view` (the bot's own). Bots
    /// without an opinion refuse.
    fn accept_draw(&mut self, _view: &View) -> bool {
        false
    }
    /// What the last [`Bot::choose`] did (depth, samples, ...), for the engine protocol's `info`.
    fn info(&self) -> Option<engine_protocol::Info> {
        None
    }
}

/// Build a bot. `seed` makes it deterministic; `budget` bounds thinking time per move.
/// The budget is capped at [`MAX_BUDGET`].
pub fn make_bot(level: Level, seed: u64, budget: Duration) -> Box<dyn Bot> {
    make_bot_with(level, seed, budget, None)
}

/// Like [`make_bot`], but with `node_limit` the search stops after that many search nodes
/// instead of on the clock: the bot's choices then depend only on its seed, its view and the
/// events it saw (used by tests and for reproducible analysis).
pub fn make_bot_with(
    level: Level,
    seed: u64,
    budget: Duration,
    node_limit: Option<u64>,
) -> Box<dyn Bot> {
    match level {
        Level::Random => Box::new(RandomBot {
            rng: <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed),
        }),
        Level::Greedy => Box::new(GreedyBot::new(seed)),
        Level::Standard => Box::new(StandardBot::new(seed, budget.min(MAX_BUDGET), node_limit)),
        Level::StandardV1 => Box::new(StandardBot::v1(seed, budget.min(MAX_BUDGET), node_limit)),
    }
}

/// Plays a uniformly random legal move and a random legal deployment.
pub struct RandomBot {
    rng: rand_chacha::ChaCha8Rng,
}

impl Bot for RandomBot {
    fn deploy_for(&mut self, variant: Variant, seat: Seat, options: &Options) -> Deployment {
        Deployment::random_for(variant, seat, options, &mut self.rng)
    }
    fn observe(&mut self, _event: &Event) {}
    fn choose(&mut self, _view: &View, moves: &[Move]) -> Move {
        use rand::seq::IndexedRandom;
        moves.choose(&mut self.rng).expect("choose() needs at least one legal move").clone()
    }
}
