//! `siguo rules moves|play|view <seat>`: the referee command (rules.md §11).
//!
//! Reads JSON on stdin, prints JSON on stdout. Any bad input or illegal action prints
//! `{"error": {"code", "index"?, "message"}}` and returns exit status 2.
use serde::Deserialize;
use serde_json::{json, Value};
use siguo_rules::{Action, Game, Position, Seat, SeatSet, Viewer};
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
    pub fn to_json(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(i) = self.index {
            e["index"] = json!(i);
        }
        json!({ "error": e })
    }
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
pub fn moves(input: &str) -> Result<Value, RefereeError> {
    let p: Position = serde_json::from_str(input).map_err(json_error)?;
    let g = load(&p)?;
    let mut v: Vec<String> = g.legal_moves().iter().map(|m| m.notation()).collect();
    v.sort();
    Ok(json!({ "moves": v }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayInput {
    position: Position,
    #[serde(default)]
    actions: Vec<String>,
}

/// Apply actions to a position; the resulting position, the events and the status.
pub fn play(input: &str) -> Result<Value, RefereeError> {
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
    Ok(json!({
        "position": g.to_position(),
        "events": events,
        "status": g.status(),
    }))
}

/// The position as `seat` sees it (hidden ranks as `"?"`).
pub fn view(input: &str, seat: &str) -> Result<Value, RefereeError> {
    let viewer = match seat {
        "spectator" => Viewer::Spectator,
        s => {
            let mut cs = s.chars();
            let seat = match (cs.next().and_then(Seat::from_letter), cs.next()) {
                (Some(seat), None) => seat,
                _ => return Err(RefereeError::new("invalid_seat", format!("unknown seat {s:?}"))),
            };
            Viewer::Seats(SeatSet::one(seat))
        }
    };
    let p: Position = serde_json::from_str(input).map_err(json_error)?;
    let g = load(&p)?;
    serde_json::to_value(g.view(viewer)).map_err(|e| RefereeError::new("internal", e.to_string()))
}

/// Run one referee subcommand on `input`.
pub fn run_on(sub: &str, seat: Option<&str>, input: &str) -> Result<Value, RefereeError> {
    match sub {
        "moves" => moves(input),
        "play" => play(input),
        "view" => match seat {
            Some(s) => view(input, s),
            None => Err(RefereeError::new("missing_seat", "usage: siguo rules view <seat>")),
        },
        _ => Err(RefereeError::new(
            "unknown_command",
            format!("unknown rules command {sub:?} (moves, play, view)"),
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
    match result {
        Ok(v) => {
            println!("{v}");
            0
        }
        Err(e) => {
            println!("{}", e.to_json());
            2
        }
    }
}
