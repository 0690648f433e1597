//! The referee's JSON position (rules.md §11). May be sparse (not a full deployment).
use crate::board::{Seat, Station};
use crate::options::Options;
use crate::piece::Piece;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub turn: Seat,
    pub pieces: BTreeMap<Station, Piece>,
    #[serde(default)]
    pub options: Options,
    #[serde(default)]
    pub eliminated: Vec<Seat>,
    #[serde(default)]
    pub skips: BTreeMap<Seat, u32>,
    #[serde(default)]
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("invalid options: {0}")]
    Options(#[from] crate::options::OptionsError),
    #[error("the seat to move is eliminated")]
    TurnEliminated,
    #[error("an eliminated seat still has pieces on the board")]
    EliminatedHasPieces,
}

impl PositionError {
    pub fn code(&self) -> &'static str {
        match self {
            PositionError::Options(_) => "invalid_options",
            PositionError::TurnEliminated => "turn_eliminated",
            PositionError::EliminatedHasPieces => "eliminated_has_pieces",
        }
    }
}

impl crate::game::Game {
    /// Build a game from a (possibly sparse) position. Flags of seats without a commander on the
    /// board count as revealed only if the position's commander was removed in play, which a
    /// position cannot say: the implementation documents its choice.
    pub fn from_position(p: &Position) -> Result<crate::game::Game, PositionError> {
        todo!()
    }
    /// The current position (after the game ends, `turn` is the seat that would have moved).
    pub fn to_position(&self) -> Position {
        todo!()
    }
}
