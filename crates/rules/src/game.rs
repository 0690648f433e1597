//! The battle phase (rules.md §1, §5–§7).
use crate::board::{Seat, Station, Team};
use crate::deploy::{DeployError, Deployment};
use crate::options::Options;
use crate::piece::Piece;
use serde::{Deserialize, Serialize};

/// A move of the seat to move, with the stations it passes (`path[0] == from`, last == `to`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    pub from: Station,
    pub to: Station,
    pub path: Vec<Station>,
}

impl Move {
    /// `"Sa1-Ca1"`
    pub fn notation(&self) -> String {
        format!("{}-{}", self.from, self.to)
    }
}

/// Something a seat (or the clock, or the table) does. JSON is internally tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// The seat to move moves `from` → `to` (the path is chosen by the engine: a shortest legal one).
    Move { from: Station, to: Station },
    /// The seat to move timed out: a skip.
    Timeout,
    /// A live seat surrenders (any time).
    Surrender { seat: Seat },
    /// A live seat offers a draw.
    OfferDraw { seat: Seat },
    /// A live seat accepts the pending offer; when every other live seat has accepted, it is a draw.
    AcceptDraw { seat: Seat },
    /// A live seat refuses the pending offer; the offer ends.
    DeclineDraw { seat: Seat },
    /// All live players agreed to a draw (the referee's `"draw"`).
    AgreedDraw,
}

impl Action {
    /// Parse the referee's notation: `"Sa1-Ca1"`, `"timeout"`, `"surrender N"`, `"draw"`.
    pub fn parse_referee(s: &str) -> Option<Action> {
        todo!()
    }
}

/// Outcome of a combat, as everyone sees it (never a rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CombatOutcome {
    AttackerWon,
    DefenderWon,
    BothRemoved,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElimReason {
    FlagCaptured,
    NoLegalMove,
    Surrendered,
    TooManySkips,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    /// Both seats of the other team were eliminated.
    Elimination,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    StepLimit,
    Agreement,
}

/// The state of the game. JSON: `{"state": "ongoing"|"won"|"draw", "winner": "NS"|"EW"|null, "reason": "..."|null}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Won { winner: Team, reason: WinReason },
    Draw { reason: DrawReason },
}

/// What happened. Events carry **no ranks**: they are public and may go to every receiver.
/// (A flag revealed is public by rule.) JSON is internally tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Moved { seat: Seat, from: Station, to: Station, path: Vec<Station>, combat: Option<CombatOutcome> },
    Skipped { seat: Seat, skips: u32 },
    FlagRevealed { seat: Seat, station: Station },
    Eliminated { seat: Seat, reason: ElimReason },
    DrawOffered { seat: Seat },
    DrawAccepted { seat: Seat },
    DrawDeclined { seat: Seat },
    DrawOfferExpired { seat: Seat },
    /// The next seat to move and the battle-step counter.
    Turn { seat: Seat, steps: u32 },
    GameOver { status: Status },
}

/// Why an action is refused. Stable snake_case `code()`; the game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("the game is over")]
    GameOver,
    #[error("it is not this seat's turn")]
    NotYourTurn,
    #[error("no piece at the starting station")]
    NoPiece,
    #[error("that piece does not belong to the seat to move")]
    NotYourPiece,
    #[error("that piece cannot move")]
    Immovable,
    #[error("illegal move")]
    IllegalMove,
    #[error("that seat is eliminated")]
    SeatEliminated,
    #[error("no draw offer is pending")]
    NoDrawOffer,
    #[error("a draw offer is already pending")]
    DrawOfferPending,
    #[error("this seat may not offer a draw again yet")]
    DrawOfferTooSoon,
    #[error("a seat cannot answer its own offer")]
    OwnDrawOffer,
}

impl RuleError {
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::GameOver => "game_over",
            RuleError::NotYourTurn => "not_your_turn",
            RuleError::NoPiece => "no_piece",
            RuleError::NotYourPiece => "not_your_piece",
            RuleError::Immovable => "immovable",
            RuleError::IllegalMove => "illegal_move",
            RuleError::SeatEliminated => "seat_eliminated",
            RuleError::NoDrawOffer => "no_draw_offer",
            RuleError::DrawOfferPending => "draw_offer_pending",
            RuleError::DrawOfferTooSoon => "draw_offer_too_soon",
            RuleError::OwnDrawOffer => "own_draw_offer",
        }
    }
}

/// A game in its battle phase. Cloneable, comparable; changed only by [`Game::apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    // private; the implementation chooses its representation
}

impl Game {
    /// Start the battle from four validated deployments (index = `Seat::index()`); North moves first.
    /// Seats with no legal move at the start are eliminated at once (see `initial_events`).
    pub fn new(options: Options, deployments: &[Deployment; 4]) -> Result<Game, DeployError> {
        todo!()
    }
    /// Events produced while starting (eliminations of seats without a legal move; the first `Turn`).
    pub fn initial_events(&self) -> Vec<Event> {
        todo!()
    }
    pub fn options(&self) -> &Options {
        todo!()
    }
    /// The seat to move, `None` once the game is over.
    pub fn turn(&self) -> Option<Seat> {
        todo!()
    }
    pub fn status(&self) -> Status {
        todo!()
    }
    pub fn is_over(&self) -> bool {
        self.status() != Status::Ongoing
    }
    pub fn steps(&self) -> u32 {
        todo!()
    }
    pub fn skips(&self, seat: Seat) -> u32 {
        todo!()
    }
    pub fn is_eliminated(&self, seat: Seat) -> bool {
        todo!()
    }
    /// Elimination reason per seat.
    pub fn elimination(&self, seat: Seat) -> Option<ElimReason> {
        todo!()
    }
    /// Seats whose flag is public (commander removed).
    pub fn flag_revealed(&self, seat: Seat) -> bool {
        todo!()
    }
    /// The seat with a pending draw offer, and the seats that accepted it.
    pub fn draw_offer(&self) -> Option<(Seat, Vec<Seat>)> {
        todo!()
    }
    /// Whether `seat` may offer a draw now (live, no offer pending, 10-own-turn rule).
    pub fn can_offer_draw(&self, seat: Seat) -> bool {
        todo!()
    }
    /// The true piece on a station. Server-internal: never send this to a client; use [`Game::view`].
    pub fn piece_at(&self, s: Station) -> Option<Piece> {
        todo!()
    }
    /// Every legal move of the seat to move, sorted by (from, to); one entry per destination.
    pub fn legal_moves(&self) -> Vec<Move> {
        todo!()
    }
    /// Legal moves of the seat to move starting at `from`.
    pub fn legal_moves_from(&self, from: Station) -> Vec<Move> {
        todo!()
    }
    /// Apply one action. On error the game is unchanged.
    pub fn apply(&mut self, action: &Action) -> Result<Vec<Event>, RuleError> {
        todo!()
    }
}

#[derive(Serialize, Deserialize)]
struct StatusJson {
    state: String,
    winner: Option<Team>,
    reason: Option<String>,
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let j = match self {
            Status::Ongoing => StatusJson { state: "ongoing".into(), winner: None, reason: None },
            Status::Won { winner, reason } => StatusJson {
                state: "won".into(),
                winner: Some(*winner),
                reason: Some(match reason {
                    WinReason::Elimination => "elimination".into(),
                }),
            },
            Status::Draw { reason } => StatusJson {
                state: "draw".into(),
                winner: None,
                reason: Some(match reason {
                    DrawReason::StepLimit => "step_limit".into(),
                    DrawReason::Agreement => "agreement".into(),
                }),
            },
        };
        j.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let j = StatusJson::deserialize(d)?;
        match (j.state.as_str(), j.winner, j.reason.as_deref()) {
            ("ongoing", None, _) => Ok(Status::Ongoing),
            ("won", Some(winner), _) => Ok(Status::Won { winner, reason: WinReason::Elimination }),
            ("draw", None, Some("step_limit")) => Ok(Status::Draw { reason: DrawReason::StepLimit }),
            ("draw", None, Some("agreement")) => Ok(Status::Draw { reason: DrawReason::Agreement }),
            _ => Err(D::Error::custom("invalid status")),
        }
    }
}
