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
    ///
    /// Choice: a position says nothing about revealed flags, so no flag is revealed; seats
    /// listed as eliminated report [`crate::ElimReason::Surrendered`]. The position is taken as
    /// it is: the seat to move is not checked for legal moves (a move action will be refused if
    /// it has none; `"timeout"` still works). If both seats of a team are eliminated the game is
    /// won by the other team; if `steps >= max_steps` it is a step-limit draw.
    pub fn from_position(p: &Position) -> Result<crate::game::Game, PositionError> {
        use crate::game::{DrawReason, ElimReason, Game, Status, WinReason};
        p.options.validate()?;
        if p.eliminated.contains(&p.turn) {
            return Err(PositionError::TurnEliminated);
        }
        if p.pieces.values().any(|pc| p.eliminated.contains(&pc.owner)) {
            return Err(PositionError::EliminatedHasPieces);
        }
        let mut g = Game::empty(p.options);
        for (&st, &pc) in &p.pieces {
            g.put(st, pc);
        }
        for &s in &p.eliminated {
            g.elim[s.index()] = Some(ElimReason::Surrendered);
        }
        for (&s, &n) in &p.skips {
            g.skips[s.index()] = n;
        }
        g.steps = p.steps;
        g.turn = p.turn;
        for team in [crate::Team::NS, crate::Team::EW] {
            let [a, b] = team.other().seats();
            if g.is_eliminated(a) && g.is_eliminated(b) {
                g.status = Status::Won { winner: team, reason: WinReason::Elimination };
            }
        }
        if g.status == Status::Ongoing && g.steps >= g.options.max_steps {
            g.status = Status::Draw { reason: DrawReason::StepLimit };
        }
        Ok(g)
    }
    /// The current position (after the game ends, `turn` is the seat that would have moved).
    pub fn to_position(&self) -> Position {
        Position {
            turn: self.turn,
            pieces: Station::all().filter_map(|s| self.piece_at(s).map(|p| (s, p))).collect(),
            options: self.options,
            eliminated: Seat::ALL.into_iter().filter(|&s| self.is_eliminated(s)).collect(),
            skips: Seat::ALL.into_iter().map(|s| (s, self.skips(s))).collect(),
            steps: self.steps,
        }
    }
}
