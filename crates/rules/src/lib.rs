//! siguo-rules: military chess as a pure library, for two games on one engine: the four-player
//! team game (四国军棋, rules.md) and Hidden Front (两人军棋, hidden-front.md).
//!
//! No I/O, no async, no clock, no global RNG. The public API (this file's re-exports) is the
//! contract used by the server, the bots and the referee command (docs/rules-engine.md):
//!
//! * [`Variant`]: which game; [`Board`]: its board as data.
//! * [`board`]: stations, seats, teams, links, rail lines (precomputed tables, both boards).
//! * [`Rank`], [`Piece`]: the twelve kinds of piece.
//! * [`Options`]: room options (rules.md §10).
//! * [`Deployment`]: one seat's secret set-up; validation, swap, random generation, formations.
//! * [`Game`]: the battle phase; `apply(&Action) -> Result<Vec<Event>, RuleError>`.
//! * [`View`]: what one viewer may see; the only rank-bearing type sent to clients.
//! * [`GameRecord`]: variant + deployments + actions, replayable.
//! * [`Position`]: the referee's JSON position (rules.md §11).

#![forbid(unsafe_code)]

mod bits;
pub mod board;
pub mod by_seat;
pub mod delta;
pub mod deploy;
pub mod game;
pub mod options;
pub mod piece;
pub mod position;
pub mod record;
pub mod view;

pub use board::{Board, Seat, Station, StationKind, Team, Variant};
pub use by_seat::BySeat;
pub use delta::ViewDelta;
pub use deploy::{DeployError, Deployment, Formation};
pub use game::{
    Action, CombatOutcome, DrawReason, ElimReason, Event, Game, Move, RuleError, Status, WinReason,
};
pub use options::{
    FlagCapture, InfoMode, MineRule, OptionChanges, Options, OptionsError, ShownOptions,
};
pub use piece::{Piece, Rank};
pub use position::{Position, PositionError};
pub use record::{GameRecord, ReplayError};
pub use view::{MoveWitness, SeatSet, SeenPiece, View, Viewer};
