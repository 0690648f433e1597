//! The engine protocol (docs/engine.md): JSON lines between a driver (the referee of
//! `siguo-tools selfplay`, or a server) and an engine (any program that plays seats).
//!
//! Both directions are typed here, once, and shared by the engine side (`siguo engine`,
//! [`crate::engine`]) and the driver side (`siguo-tools selfplay --a-engine`). A request never
//! carries a hidden rank: the only rank-bearing type in it is [`View`], which only
//! `siguo_rules::Game::view` makes, and [`Go::for_seats`] is the one place a driver builds it.
//! The engine's answers carry ranks only in the deployment of its own seats.
use serde::{Deserialize, Serialize};
pub use siguo_rules::Variant;
use siguo_rules::{
    Deployment, Event, Game, Move, Options, Seat, SeatSet, ShownOptions, Station, View, Viewer,
};
use std::collections::BTreeMap;
use strum::VariantNames;

/// The largest seed a driver sends (2^53 − 1): every seed is exactly representable as an IEEE
/// double, so engines whose JSON numbers are doubles (JavaScript's `JSON.parse`, Lua, …) read the
/// seed they were given. Drivers reduce larger seeds with [`wire_seed`].
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A 64-bit seed reduced to the range every JSON reader represents exactly (`0..=MAX_SEED`).
pub fn wire_seed(seed: u64) -> u64 {
    seed & MAX_SEED
}

/// The protocol version this crate speaks. A driver says which version it speaks in `hello`;
/// an engine that does not speak it answers `error` `unsupported_protocol`.
pub const PROTOCOL_VERSION: u32 = 2;

/// The public events of the game, as the WebSocket sends them (docs/protocol.md §4): the rules
/// engine's [`Event`]s and the live-play [`LiveEvent`]s. Neither carries a rank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireEvent {
    Game(Event),
    Live(LiveEvent),
}

/// Events of live play that are not the rules engine's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LiveEvent {
    DeployConfirmed { seat: Seat },
    BattleStarted,
    Escaped { seat: Seat },
}

impl From<Event> for WireEvent {
    fn from(e: Event) -> Self {
        WireEvent::Game(e)
    }
}

impl From<LiveEvent> for WireEvent {
    fn from(e: LiveEvent) -> Self {
        WireEvent::Live(e)
    }
}

/// Origin → destinations, as the WebSocket's `legal_moves`.
pub type LegalMoves = BTreeMap<Station, Vec<Station>>;

/// Driver → engine: one JSON object per line, tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum Request {
    /// First message. Answer: `ready` (or `error` `unsupported_protocol`).
    Hello { protocol: u32 },
    /// A new game. Answer: `deployment` (empty unless `deploy` was true).
    NewGame {
        /// `four_player` (also `siguo`) or `hidden_front`.
        variant: Variant,
        /// Room options (rules.md §10) as the game shows them (Hidden Front: its own, with its
        /// fixed limits); missing fields take the defaults of the variant (Hidden Front:
        /// `mines = mutual`).
        #[serde(default)]
        options: ShownOptions,
        /// The seats the engine plays: one, or (four-player only) the two seats of a team
        /// (dual control).
        seats: Vec<Seat>,
        /// Whether the engine should deploy its seats (else the driver deploys them).
        #[serde(default)]
        deploy: bool,
        /// When the driver deploys (`deploy` false): the deployments of the engine's seats, so
        /// that the engine knows its own pieces before the first event. Empty when `deploy` is
        /// true (and for drivers that do not send them).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        deployments: Vec<Deployment>,
        /// A seed for the engine's randomness (optional; drivers keep it at most [`MAX_SEED`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<u64>,
    },
    /// A public event, in order. No answer.
    Event { event: WireEvent },
    /// One of the engine's seats is to move. Answer: `move`, `draw` or `surrender`, after any
    /// number of `info` lines.
    Go(Go),
    /// End of session: the engine exits. No answer.
    Quit,
}

/// The `go` request: everything the seat to move may know now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Go {
    /// The engine's redacted view (its seats' ranks only, as the WebSocket's `view`).
    pub view: View,
    /// Every legal move of the seat to move (`view.turn`), never empty.
    pub legal_moves: LegalMoves,
    /// Thinking time the engine should use for this move, in milliseconds.
    pub budget_ms: u64,
    /// Time left on the turn clock, when there is one (a live game), in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_ms: Option<u64>,
}

impl Go {
    /// The `go` for the seats `seats` of `game` (the seat to move must be one of them): the view
    /// the game makes for those seats and their legal moves.
    pub fn for_seats(game: &Game, seats: SeatSet, budget_ms: u64, remaining_ms: Option<u64>) -> Go {
        Go {
            view: game.view(Viewer::Seats(seats)),
            legal_moves: legal_moves_map(&game.legal_moves()),
            budget_ms,
            remaining_ms,
        }
    }

    /// The legal moves as [`Move`]s (path: just the two ends; engines choose by `from`/`to`).
    pub fn moves(&self) -> Vec<Move> {
        self.legal_moves
            .iter()
            .flat_map(|(&from, tos)| {
                tos.iter().map(move |&to| Move { from, to, path: vec![from, to] })
            })
            .collect()
    }
}

/// Moves as origin → sorted destinations.
pub fn legal_moves_map(moves: &[Move]) -> LegalMoves {
    let mut map = LegalMoves::new();
    for m in moves {
        map.entry(m.from).or_default().push(m.to);
    }
    for v in map.values_mut() {
        v.sort();
        v.dedup();
    }
    map
}

/// Engine → driver: one JSON object per line, tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum Answer {
    /// Answer to `hello`.
    Ready {
        protocol: u32,
        /// The engine's name, e.g. `"siguo standard"`.
        name: String,
        /// Options the engine supports, with their current values (e.g. `budget_ms`, `seed`).
        #[serde(default)]
        options: BTreeMap<String, serde_json::Value>,
    },
    /// Answer to `new_game`: one deployment per seat asked for (rules.md §11), else none.
    Deployment { deployments: Vec<Deployment> },
    /// Answer to `go`: the move (one of `legal_moves`).
    Move { from: Station, to: Station },
    /// Answer to `go`: offer a draw. The seat still has to move: the driver sends `go` again.
    Draw,
    /// Answer to `go`: the seat to move surrenders.
    Surrender,
    /// Optional, before the answer to `go`: what the search did (like UCI's `info`).
    Info(Info),
    /// A request the engine could not take; the engine keeps running.
    Error { code: ErrorCode, message: String },
}

/// Search information (every field optional).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Info {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// The chosen move's value for the engine's team (search units: 100 ≈ a lieutenant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The expected line, in `"Sa1-Ca1"` notation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
}

/// Stable error codes of `error` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    /// The line is not JSON, or not an object.
    InvalidJson,
    /// `"type"` missing or not a request type.
    UnknownType,
    /// A field is missing, has the wrong type, or is unknown.
    BadMessage,
    /// `hello` with a protocol version the engine does not speak.
    UnsupportedProtocol,
    /// `new_game` with a variant the engine does not play.
    UnsupportedVariant,
    /// `new_game` seats are not one seat or the two seats of one team.
    BadSeats,
    /// `event` or `go` before `new_game`.
    NoGame,
    /// `go` where the seat to move is not one of the engine's seats.
    NotYourSeat,
    /// `go` with no legal move.
    NoLegalMoves,
}

impl Request {
    /// Parse one line. Errors carry the stable code an engine answers with.
    pub fn parse(line: &str) -> Result<Request, (ErrorCode, String)> {
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| (ErrorCode::InvalidJson, format!("not valid JSON: {e}")))?;
        let Some(obj) = value.as_object() else {
            return Err((ErrorCode::InvalidJson, "a request must be a JSON object".into()));
        };
        match obj.get("type").and_then(|t| t.as_str()) {
            Some(t) if Request::VARIANTS.contains(&t) => {}
            Some(t) => {
                let t: String = t.chars().take(40).collect();
                return Err((ErrorCode::UnknownType, format!("unknown request type {t:?}")));
            }
            None => return Err((ErrorCode::UnknownType, "the request has no \"type\"".into())),
        }
        if let Some(v) = obj.get("variant").filter(|_| obj.get("type") == Some(&"new_game".into()))
        {
            if serde_json::from_value::<Variant>(v.clone()).is_err() {
                let v: String = v.to_string().chars().take(40).collect();
                let message = format!("unknown variant {v} (four_player, hidden_front)");
                return Err((ErrorCode::UnsupportedVariant, message));
            }
        }
        let options = obj.get("options").cloned();
        let mut req: Request =
            serde_json::from_value(value).map_err(|e| (ErrorCode::BadMessage, e.to_string()))?;
        if let Request::NewGame { variant, options: o, .. } = &mut req {
            // The options given, over the defaults of the game (not of the four-player game).
            let given = Options::from_json_for(*variant, options)
                .map_err(|e| (ErrorCode::BadMessage, format!("options: {e}")))?;
            *o = given.shown(*variant);
        }
        Ok(req)
    }
}

/// One line of JSON (no newline).
pub fn to_line<T: Serialize>(msg: &T) -> String {
    serde_json::to_string(msg).expect("protocol messages serialize")
}

/// Check `new_game` seats: one seat of the game, or (four-player only) the two seats of one team.
pub fn seat_set(variant: Variant, seats: &[Seat]) -> Option<SeatSet> {
    if !seats.iter().all(|&s| variant.has_seat(s)) {
        return None;
    }
    match (variant, seats) {
        (_, [a]) => Some(SeatSet::one(*a)),
        (Variant::FourPlayer, [a, b]) if a.partner() == *b => Some(SeatSet::one(*a).with(*b)),
        _ => None,
    }
}
