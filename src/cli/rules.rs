//! `siguo rules moves|play|view <seat>|deploy <seat>`: the referee command (rules.md §11), for
//! both games: a position with `"variant": "hidden_front"` is a Hidden Front position
//! (hidden-front.md §8: stations `"C7"`, seats `S` and `N`).
//!
//! Reads JSON on stdin, prints JSON on stdout. Any bad input or illegal action prints
//! `{"error": {"code", "index"?, "message"}}` and returns exit status 2.
use serde::{Deserialize, Serialize};
use serde_json::Value;
use siguo_rules::{
    Action, Deployment, Event, Game, Options, Piece, Position, Rank, Seat, SeatSet, Station,
    Status, Variant, View, Viewer,
};
use std::collections::BTreeMap;
use std::io::Read;

/// A referee failure: stable code, optional action index, human message.
#[derive(Debug)]
pub struct RefereeError {
    pub code: &'static str,
    pub index: Option<usize>,
    pub message: String,
}

impl RefereeError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        RefereeError { code, index: None, message: message.into() }
    }
    /// `{"error": {"code", "index"?, "message"}}`
    pub fn answer(&self) -> ErrorAnswer<'_> {
        ErrorAnswer {
            error: ErrorBody { code: self.code, index: self.index, message: &self.message },
        }
    }
}

/// What a failing referee command prints.
#[derive(Debug, Serialize)]
pub struct ErrorAnswer<'a> {
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    pub code: &'static str,
    /// the action that failed (`play`)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub message: &'a str,
}

/// What a successful referee command prints, one shape per subcommand.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// `moves`
    Moves { moves: Vec<String> },
    /// `play`
    Played { position: Box<Position>, events: Vec<Event>, status: Status },
    /// `view`
    View(Box<View>),
    /// `deploy`: always `true` (a broken rule is an error)
    Deployed { ok: bool },
}

fn json_error(e: serde_json::Error) -> RefereeError {
    use serde_json::error::Category;
    let code = match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => "malformed_json",
        Category::Data => "invalid_position",
    };
    RefereeError::new(code, e.to_string())
}

fn load(p: &Position) -> Result<Game, RefereeError> {
    Game::from_position(p).map_err(|e| RefereeError::new(e.code(), e.to_string()))
}

/// Legal moves of the seat to move, as sorted `"<from>-<to>"` strings.
pub fn moves(input: &str) -> Result<Answer, RefereeError> {
    let p: Position = serde_json::from_str(input).map_err(json_error)?;
    let g = load(&p)?;
    let mut v: Vec<String> = g.legal_moves().iter().map(|m| m.notation()).collect();
    v.sort();
    Ok(Answer::Moves { moves: v })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayInput {
    position: Position,
    #[serde(default)]
    actions: Vec<String>,
}

/// Apply actions to a position; the resulting position, the events and the status.
pub fn play(input: &str) -> Result<Answer, RefereeError> {
    let inp: PlayInput = serde_json::from_str(input).map_err(json_error)?;
    let mut g = load(&inp.position)?;
    let mut events = Vec::new();
    for (i, a) in inp.actions.iter().enumerate() {
        let action = Action::parse_referee(a).ok_or_else(|| RefereeError {
            code: "invalid_action",
            index: Some(i),
            message: format!("cannot read action {a:?}"),
        })?;
        let ev = g.apply(&action).map_err(|e| RefereeError {
            code: e.code(),
            index: Some(i),
            message: format!("{a}: {e}"),
        })?;
        events.extend(ev);
    }
    Ok(Answer::Played { position: Box::new(g.to_position()), events, status: g.status() })
}

/// A seat letter of `variant` (`N E S W`; `S N` for Hidden Front).
fn parse_seat(s: &str, variant: Variant) -> Result<Seat, RefereeError> {
    let mut cs = s.chars();
    match (cs.next().and_then(Seat::from_letter), cs.next()) {
        (Some(seat), None) if variant.has_seat(seat) => Ok(seat),
        _ => Err(RefereeError::new("invalid_seat", format!("unknown seat {s:?}"))),
    }
}

/// The position as `seat` sees it (hidden ranks as `"?"`).
pub fn view(input: &str, seat: &str) -> Result<Answer, RefereeError> {
    // An unknown seat is refused before the input is read.
    if seat != "spectator" {
        parse_seat(seat, Variant::FourPlayer)?;
    }
    let p: Position = serde_json::from_str(input).map_err(json_error)?;
    let viewer = match seat {
        "spectator" => Viewer::Spectator,
        s => Viewer::Seats(SeatSet::one(parse_seat(s, p.variant)?)),
    };
    let g = load(&p)?;
    Ok(Answer::View(Box::new(g.view(viewer))))
}

/// A deployment piece: a rank (`"9"`) or a piece of the deploying seat (`"S9"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum DeployPiece {
    Rank(Rank),
    Piece(Piece),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeployInput {
    #[serde(default)]
    variant: Variant,
    pieces: BTreeMap<Station, DeployPiece>,
    #[serde(default)]
    options: Option<Value>,
}

/// Check one seat's whole deployment (rules.md §4, hidden-front.md §3): `{"ok": true}`, or the
/// first broken rule as an error with the deployment error's code.
pub fn deploy(input: &str, seat: &str) -> Result<Answer, RefereeError> {
    let inp: DeployInput = serde_json::from_str(input).map_err(json_error)?;
    let seat = parse_seat(seat, inp.variant)?;
    let options = Options::from_json_for(inp.variant, inp.options)
        .map_err(|e| RefereeError::new("invalid_options", e))?;
    options.validate().map_err(|e| RefereeError::new("invalid_options", e.to_string()))?;
    let mut pieces = BTreeMap::new();
    for (station, p) in inp.pieces {
        let rank = match p {
            DeployPiece::Rank(r) => r,
            DeployPiece::Piece(p) if p.owner == seat => p.rank,
            DeployPiece::Piece(p) => {
                return Err(RefereeError::new(
                    "wrong_owner",
                    format!("{station}: {p} does not belong to seat {}", seat.letter()),
                ))
            }
        };
        pieces.insert(station, rank);
    }
    Deployment { seat, pieces }
        .validate_for(inp.variant, &options)
        .map_err(|e| RefereeError::new(e.code(), deploy_message(&e)))?;
    Ok(Answer::Deployed { ok: true })
}

/// The deployment error's message, naming the station or the rank.
fn deploy_message(e: &siguo_rules::DeployError) -> String {
    match serde_json::to_value(e).ok().and_then(|v| v.get("station").cloned()) {
        Some(Value::String(st)) => format!("{e} ({st})"),
        _ => e.to_string(),
    }
}

/// Run one referee subcommand on `input`.
pub fn run_on(sub: &str, seat: Option<&str>, input: &str) -> Result<Answer, RefereeError> {
    match sub {
        "moves" => moves(input),
        "play" => play(input),
        "view" => match seat {
            Some(s) => view(input, s),
            None => Err(RefereeError::new("missing_seat", "usage: siguo rules view <seat>")),
        },
        "deploy" => match seat {
            Some(s) => deploy(input, s),
            None => Err(RefereeError::new("missing_seat", "usage: siguo rules deploy <seat>")),
        },
        _ => Err(RefereeError::new(
            "unknown_command",
            format!("unknown rules command {sub:?} (moves, play, view, deploy)"),
        )),
    }
}

/// Entry point for `siguo rules <sub> [seat]`: stdin → stdout; returns the exit status.
pub fn run(sub: &str, seat: Option<&str>) -> i32 {
    let mut input = String::new();
    let result = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => run_on(sub, seat, &input),
        Err(e) => Err(RefereeError::new("malformed_json", e.to_string())),
    };
    let (text, code) = match &result {
        Ok(answer) => (serde_json::to_string(answer), 0),
        Err(e) => (serde_json::to_string(&e.answer()), 2),
    };
    match text {
        Ok(text) => {
            println!("{text}");
            code
        }
        Err(e) => {
            let internal = RefereeError::new("internal", e.to_string());
            println!("{}", serde_json::to_string(&internal.answer()).unwrap_or_default());
            2
        }
    }
}
