//! The referee's JSON position (rules.md §11; Hidden Front: hidden-front.md §8). May be sparse
//! (not a full deployment).
//!
//! JSON: `{"variant"?, "turn", "pieces", "options"?, "eliminated"?, "skips"?, "steps"?}` for the
//! four-player game (`"variant"` absent or `"siguo"`/`"four_player"`); Hidden Front writes
//! `"variant": "hidden_front"`, its timeouts as `"timeouts"` and adds `"quiet_steps"`. Missing
//! options take the game's defaults ([`Options::for_variant`]: Hidden Front's `mines` is
//! `mutual`).
use crate::board::{Seat, Station, Variant};
use crate::options::Options;
use crate::piece::Piece;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawPosition", into = "RawPosition")]
pub struct Position {
    pub variant: Variant,
    pub turn: Seat,
    pub pieces: BTreeMap<Station, Piece>,
    pub options: Options,
    pub eliminated: Vec<Seat>,
    /// Skips per seat (Hidden Front: timeouts, written `"timeouts"`).
    pub skips: BTreeMap<Seat, u32>,
    pub steps: u32,
    /// Steps since the last combat (Hidden Front only; `None` for the four-player game).
    pub quiet_steps: Option<u32>,
}

/// The wire form of [`Position`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPosition {
    #[serde(default, skip_serializing_if = "Variant::is_four_player")]
    variant: Variant,
    turn: Seat,
    pieces: BTreeMap<Station, Piece>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<crate::options::OptionChanges>,
    #[serde(default)]
    eliminated: Vec<Seat>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    skips: BTreeMap<Seat, u32>,
    #[serde(default)]
    steps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quiet_steps: Option<u32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    timeouts: BTreeMap<Seat, u32>,
}

impl TryFrom<RawPosition> for Position {
    type Error = String;
    fn try_from(r: RawPosition) -> Result<Position, String> {
        let (options, skips) =
            crate::options::read_shown(r.variant, r.options, r.skips, r.timeouts)?;
        let hidden_front = r.variant == Variant::HiddenFront;
        Ok(Position {
            variant: r.variant,
            turn: r.turn,
            pieces: r.pieces,
            options,
            eliminated: r.eliminated,
            skips,
            steps: r.steps,
            quiet_steps: if hidden_front {
                Some(r.quiet_steps.unwrap_or(0))
            } else {
                r.quiet_steps
            },
        })
    }
}

impl From<Position> for RawPosition {
    fn from(p: Position) -> RawPosition {
        let (skips, timeouts) = crate::options::counters_shown(p.variant, p.skips);
        RawPosition {
            variant: p.variant,
            turn: p.turn,
            pieces: p.pieces,
            options: Some(p.options.shown(p.variant).into()),
            eliminated: p.eliminated,
            skips: skips.unwrap_or_default(),
            steps: p.steps,
            quiet_steps: p.quiet_steps,
            timeouts: timeouts.unwrap_or_default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("invalid options: {0}")]
    Options(#[from] crate::options::OptionsError),
    #[error("the seat to move is eliminated")]
    TurnEliminated,
    #[error("an eliminated seat still has pieces on the board")]
    EliminatedHasPieces,
    #[error("station {0} is not on this game's board")]
    StationNotOnBoard(Station),
    #[error("seat {} does not play in this game", .0.letter())]
    SeatNotInGame(Seat),
    #[error("Hidden Front has no eliminated seats")]
    NoEliminations,
}

impl PositionError {
    pub fn code(&self) -> &'static str {
        match self {
            PositionError::Options(_) => "invalid_options",
            PositionError::TurnEliminated => "turn_eliminated",
            PositionError::EliminatedHasPieces => "eliminated_has_pieces",
            PositionError::StationNotOnBoard(_) => "station_not_on_board",
            PositionError::SeatNotInGame(_) => "seat_not_in_game",
            PositionError::NoEliminations => "no_eliminations",
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
    /// won by the other team; if `steps >= max_steps` it is a step-limit draw. Hidden Front: a
    /// seat with 3 timeouts has lost; 100 quiet steps are a draw; nothing is eliminated.
    pub fn from_position(p: &Position) -> Result<crate::game::Game, PositionError> {
        use crate::game::{
            DrawReason, ElimReason, Game, Status, WinReason, HF_QUIET_LIMIT, HF_TIMEOUT_LIMIT,
        };
        p.options.validate()?;
        let board = p.variant.board();
        if let Some(&st) = p.pieces.keys().find(|s| !board.contains(**s)) {
            return Err(PositionError::StationNotOnBoard(st));
        }
        let seats = p.pieces.values().map(|pc| pc.owner).chain([p.turn]);
        let seats = seats.chain(p.eliminated.iter().copied()).chain(p.skips.keys().copied());
        if let Some(s) = seats.into_iter().find(|s| !p.variant.has_seat(*s)) {
            return Err(PositionError::SeatNotInGame(s));
        }
        if p.eliminated.contains(&p.turn) {
            return Err(PositionError::TurnEliminated);
        }
        if p.pieces.values().any(|pc| p.eliminated.contains(&pc.owner)) {
            return Err(PositionError::EliminatedHasPieces);
        }
        let mut g = Game::empty(p.variant, p.options);
        for (&st, &pc) in &p.pieces {
            g.put(st, pc);
        }
        for (&s, &n) in &p.skips {
            g.skips[s.index()] = n;
        }
        g.steps = p.steps;
        g.quiet = p.quiet_steps.unwrap_or(0);
        g.turn = p.turn;
        if p.variant == Variant::HiddenFront {
            if !p.eliminated.is_empty() {
                return Err(PositionError::NoEliminations);
            }
            if let Some(&loser) =
                p.variant.seats().iter().find(|s| g.skips(**s) >= HF_TIMEOUT_LIMIT)
            {
                let winner = loser.partner();
                g.status = Status::SeatWon { winner, reason: WinReason::Timeouts };
            } else if g.quiet >= HF_QUIET_LIMIT {
                g.status = Status::Draw { reason: DrawReason::NoCombat };
            }
            return Ok(g);
        }
        for &s in &p.eliminated {
            g.elim[s.index()] = Some(ElimReason::Surrendered);
        }
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
        let seats = self.variant.seats();
        let hidden_front = self.variant == Variant::HiddenFront;
        Position {
            variant: self.variant,
            turn: self.turn,
            pieces: self
                .variant
                .board()
                .stations()
                .filter_map(|s| self.piece_at(s).map(|p| (s, p)))
                .collect(),
            options: self.options,
            eliminated: seats.iter().copied().filter(|&s| self.is_eliminated(s)).collect(),
            skips: seats.iter().map(|&s| (s, self.skips(s))).collect(),
            steps: self.steps,
            quiet_steps: hidden_front.then_some(self.quiet),
        }
    }
}
