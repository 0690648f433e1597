//! The WebSocket protocol (docs/protocol.md): client messages are parsed here, in one place, into
//! typed commands; server messages are built here. Server messages never carry a rank except
//! inside a `siguo_rules::View` made by the engine for that receiver, or the receiver's own
//! `Deployment`.
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use siguo_bots::Level;
use siguo_rules::{Formation, Seat, Station};

/// The client's action id, echoed in `ack`/`error`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClientId {
    Num(u64),
    Str(String),
}

/// Every message a client may send (JSON tagged by `"type"`; `"id"` is taken off first).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    Ping {},
    ListRooms {},
    CreateRoom {
        #[serde(default)]
        public: Option<bool>,
        #[serde(default)]
        options: Option<Value>,
    },
    StartPractice {
        #[serde(default)]
        options: Option<Value>,
        #[serde(default)]
        level: Option<Level>,
        #[serde(default)]
        seat: Option<Seat>,
    },
    JoinRoom {
        #[serde(default)]
        room: Option<String>,
        #[serde(default)]
        invite: Option<String>,
        #[serde(default)]
        game: Option<i64>,
        /// the last version this client applied (reconnection): missed events or a snapshot
        #[serde(default)]
        v: Option<u64>,
    },
    LeaveRoom {
        room: String,
    },
    TakeSeat {
        room: String,
        seat: Seat,
    },
    LeaveSeat {
        room: String,
        seat: Seat,
    },
    AddBot {
        room: String,
        seat: Seat,
        #[serde(default)]
        level: Option<Level>,
    },
    RemoveBot {
        room: String,
        seat: Seat,
    },
    Ready {
        room: String,
        ready: bool,
    },
    Kick {
        room: String,
        seat: Seat,
    },
    Resync {
        room: String,
        #[serde(default)]
        v: Option<u64>,
    },
    Swap {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
        a: Station,
        b: Station,
    },
    Randomize {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
    },
    LoadFormation {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
        formation: i64,
    },
    SetDeployment {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
        formation_data: Formation,
    },
    Confirm {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
    },
    Move {
        room: String,
        from: Station,
        to: Station,
    },
    Surrender {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
    },
    OfferDraw {
        room: String,
        #[serde(default)]
        seat: Option<Seat>,
    },
    AcceptDraw {
        room: String,
    },
    DeclineDraw {
        room: String,
    },
    LegalMoves {
        room: String,
    },
    Chat {
        room: String,
        text: String,
        #[serde(default)]
        team: Option<bool>,
    },
}

const TYPES: &[&str] = &[
    "ping",
    "list_rooms",
    "create_room",
    "start_practice",
    "join_room",
    "leave_room",
    "take_seat",
    "leave_seat",
    "add_bot",
    "remove_bot",
    "ready",
    "kick",
    "resync",
    "swap",
    "randomize",
    "load_formation",
    "set_deployment",
    "confirm",
    "move",
    "surrender",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "legal_moves",
    "chat",
];

impl ClientMsg {
    /// The room a message is addressed to, if it is a room message.
    pub fn room(&self) -> Option<&str> {
        use ClientMsg::*;
        match self {
            Ping {} | ListRooms {} | CreateRoom { .. } | StartPractice { .. } | JoinRoom { .. } => {
                None
            }
            LeaveRoom { room }
            | TakeSeat { room, .. }
            | LeaveSeat { room, .. }
            | AddBot { room, .. }
            | RemoveBot { room, .. }
            | Ready { room, .. }
            | Kick { room, .. }
            | Resync { room, .. }
            | Swap { room, .. }
            | Randomize { room, .. }
            | LoadFormation { room, .. }
            | SetDeployment { room, .. }
            | Confirm { room, .. }
            | Move { room, .. }
            | Surrender { room, .. }
            | OfferDraw { room, .. }
            | AcceptDraw { room }
            | DeclineDraw { room }
            | LegalMoves { room }
            | Chat { room, .. } => Some(room),
        }
    }
}

/// A protocol-level error: stable code + message (+ optional detail object).
#[derive(Clone, Debug, PartialEq)]
pub struct ProtoError {
    pub code: &'static str,
    pub message: String,
    pub detail: Option<Value>,
}

impl ProtoError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ProtoError {
        ProtoError { code, message: message.into(), detail: None }
    }
    pub fn with_detail(mut self, detail: Value) -> ProtoError {
        self.detail = Some(detail);
        self
    }
}

impl From<siguo_rules::RuleError> for ProtoError {
    fn from(e: siguo_rules::RuleError) -> Self {
        ProtoError::new(e.code(), e.to_string())
    }
}

impl From<siguo_rules::DeployError> for ProtoError {
    fn from(e: siguo_rules::DeployError) -> Self {
        let detail = serde_json::to_value(&e).ok();
        ProtoError { code: e.code(), message: e.to_string(), detail }
    }
}

impl From<crate::error::AppError> for ProtoError {
    fn from(e: crate::error::AppError) -> Self {
        ProtoError::new(e.code(), e.public_message())
    }
}

/// Parse one text frame. On failure returns the id (if one could be read) and the error.
pub fn parse(text: &str) -> Result<(Option<ClientId>, ClientMsg), (Option<ClientId>, ProtoError)> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| (None, ProtoError::new("invalid_json", format!("not valid JSON: {e}"))))?;
    let Value::Object(mut obj) = value else {
        return Err((None, ProtoError::new("invalid_json", "a message must be a JSON object")));
    };
    let id = match obj.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= 64 => Some(ClientId::Str(s)),
        Some(Value::Number(n)) if n.as_u64().is_some() => Some(ClientId::Num(n.as_u64().unwrap())),
        Some(_) => {
            return Err((
                None,
                ProtoError::new(
                    "bad_message",
                    "id must be a string of at most 64 characters or a non-negative integer",
                ),
            ))
        }
    };
    match obj.get("type") {
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::String(t)) => {
            let t: String = t.chars().take(40).collect();
            return Err((
                id,
                ProtoError::new("unknown_type", format!("unknown message type {t:?}")),
            ));
        }
        _ => return Err((id, ProtoError::new("unknown_type", "the message has no \"type\""))),
    }
    match serde_json::from_value::<ClientMsg>(Value::Object(obj)) {
        Ok(msg) => Ok((id, msg)),
        Err(e) => Err((id, ProtoError::new("bad_message", e.to_string()))),
    }
}

/// Server time in ms since the epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

pub fn ack(id: &Option<ClientId>, extra: Value) -> Value {
    let mut m = json!({"type": "ack", "id": id});
    if let (Value::Object(m), Value::Object(extra)) = (&mut m, extra) {
        m.extend(extra);
    }
    m
}

pub fn error(id: &Option<ClientId>, e: &ProtoError) -> Value {
    let mut m = json!({"type": "error", "id": id, "code": e.code, "message": e.message});
    if let Some(d) = &e.detail {
        m["detail"] = d.clone();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        let (id, m) =
            parse(r#"{"type":"move","id":3,"room":"r","from":"Sa1","to":"Ca1"}"#).unwrap();
        assert_eq!(id, Some(ClientId::Num(3)));
        assert!(matches!(m, ClientMsg::Move { .. }));
        assert_eq!(parse("{").unwrap_err().1.code, "invalid_json");
        assert_eq!(parse("[1]").unwrap_err().1.code, "invalid_json");
        assert_eq!(parse(r#"{"type":"fly","id":"x"}"#).unwrap_err().1.code, "unknown_type");
        let (id, e) = parse(r#"{"type":"move","id":"x","room":"r","from":"Sa1"}"#).unwrap_err();
        assert_eq!((id, e.code), (Some(ClientId::Str("x".into())), "bad_message"));
        assert_eq!(parse(r#"{"type":"ping","extra":1}"#).unwrap_err().1.code, "bad_message");
        assert_eq!(
            parse(r#"{"type":"chat","room":"r","text":"x","colour":1}"#).unwrap_err().1.code,
            "bad_message"
        );
        assert!(parse(r#"{"type":"ping"}"#).is_ok());
        assert_eq!(
            parse(r#"{"type":"move","room":"r","from":"Zz9","to":"Ca1"}"#).unwrap_err().1.code,
            "bad_message"
        );
    }
}
