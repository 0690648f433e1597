//! The WebSocket protocol (docs/protocol.md), both directions, as types.
//!
//! Client messages are parsed here, in one place, into [`ClientMsg`]; every server message is a
//! [`ServerMsg`]; error codes are [`ErrorCode`] values. Nothing else in the server builds JSON for
//! a socket. Server messages never carry a rank except inside a `siguo_rules::View` made by the
//! engine for that receiver, or the receiver's own deployment. The doc's examples are parsed as
//! these types by a test (`doc_examples`), so the doc and the code cannot drift apart.
pub use crate::ladder::queue::CancelReason;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use siguo_bots::Level;
use siguo_rules::{DeployError, Formation, OptionChanges, RuleError, Seat, Station, Variant};
use strum::VariantNames;

/// The client's action id, echoed in `ack`/`error`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClientId {
    Num(u64),
    Str(String),
}

/// Every message a client may send, by scope: a lobby message, or a room message with the room
/// it is for. On the wire both are one flat JSON object tagged by `"type"` (a room message has a
/// `"room"` field); `"id"` is taken off first. [`ClientMsg::types`] lists the accepted types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMsg {
    Lobby(LobbyRequest),
    Room { room: String, msg: RoomRequest },
}

impl ClientMsg {
    /// Every accepted `"type"`: the lobby's, then the rooms'.
    pub fn types() -> impl Iterator<Item = &'static str> {
        LobbyRequest::VARIANTS.iter().chain(RoomRequest::VARIANTS).copied()
    }
}

/// A message for the socket's own session and the lobby (handled where it arrives).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum LobbyRequest {
    Ping {},
    ListRooms {},
    CreateRoom {
        #[serde(default)]
        public: Option<bool>,
        /// read (and refused with `invalid_options`) when the message arrives
        #[serde(default)]
        options: Option<OptionChanges>,
        /// which game (default `four_player`)
        #[serde(default)]
        variant: Option<Variant>,
    },
    StartPractice {
        #[serde(default)]
        options: Option<OptionChanges>,
        #[serde(default)]
        level: Option<Level>,
        #[serde(default)]
        seat: Option<Seat>,
        /// which game (default `four_player`)
        #[serde(default)]
        variant: Option<Variant>,
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
    /// Accept a match the ladder proposed (`match_proposed`).
    AcceptMatch {
        match_id: u64,
    },
    /// Decline a proposed match (you leave the queue; the others go back to it).
    DeclineMatch {
        match_id: u64,
    },
}

/// A message for one room's task (its `"room"` is taken off and carried beside it).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum RoomRequest {
    LeaveRoom {},
    TakeSeat {
        seat: Seat,
    },
    LeaveSeat {
        seat: Seat,
    },
    AddBot {
        seat: Seat,
        #[serde(default)]
        level: Option<Level>,
    },
    RemoveBot {
        seat: Seat,
    },
    Ready {
        ready: bool,
    },
    Kick {
        seat: Seat,
    },
    Resync {
        #[serde(default)]
        v: Option<u64>,
    },
    Swap {
        #[serde(default)]
        seat: Option<Seat>,
        a: Station,
        b: Station,
    },
    Randomize {
        #[serde(default)]
        seat: Option<Seat>,
    },
    LoadFormation {
        #[serde(default)]
        seat: Option<Seat>,
        formation: i64,
    },
    SetDeployment {
        #[serde(default)]
        seat: Option<Seat>,
        formation_data: Formation,
    },
    Confirm {
        #[serde(default)]
        seat: Option<Seat>,
    },
    Move {
        from: Station,
        to: Station,
    },
    Surrender {
        #[serde(default)]
        seat: Option<Seat>,
    },
    OfferDraw {
        #[serde(default)]
        seat: Option<Seat>,
    },
    AcceptDraw {},
    DeclineDraw {},
    LegalMoves {},
    Chat {
        text: String,
        #[serde(default)]
        team: Option<bool>,
    },
    /// 再来一局: after a casual or practice game, ask for another at the same table; the host's
    /// `start: true` starts it with those who asked (bots take the other seats).
    Rematch {
        #[serde(default)]
        start: Option<bool>,
    },
    /// 托管: hand a seat to the computer (`on: true`) or take it back (casual and practice).
    AutoPlay {
        on: bool,
        #[serde(default)]
        seat: Option<Seat>,
    },
}

/// The error codes: one vocabulary for HTTP and WebSocket answers (docs/protocol.md, "Error
/// codes"; docs/api.md).
pub use crate::error::ErrorCode;

/// The protocol versions a socket may ask for (`/api/ws?protocol=`): 1, every `update` carries
/// the receiver's whole view; 2, an `update` carries a `delta` of it instead (docs/protocol.md §1).
pub const PROTOCOLS: std::ops::RangeInclusive<u8> = 1..=2;
/// The version of a socket that does not say.
pub const PROTOCOL_DEFAULT: u8 = 1;

/// A protocol-level error: stable code + message (+ the deployment error as detail).
#[derive(Clone, Debug, PartialEq)]
pub struct ProtoError {
    pub code: ErrorCode,
    pub message: String,
    pub detail: Option<DeployError>,
    /// `moved`: where the room is played (boxed: errors stay small)
    pub moved: Option<Box<MovedTo>>,
}

impl ProtoError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ProtoError {
        ProtoError { code, message: message.into(), detail: None, moved: None }
    }

    /// `moved`: the room (or game) is played on `to.node`; connect to `to.path` and join there.
    pub fn moved(to: MovedTo) -> ProtoError {
        let what = match (&to.room, to.game) {
            (Some(r), _) => format!("room {r}"),
            (None, Some(g)) => format!("game {g}"),
            (None, None) => "the room".into(),
        };
        let message = format!("{what} is played on node {}: connect to {}", to.node, to.path);
        ProtoError { moved: Some(Box::new(to)), ..ProtoError::new(ErrorCode::Moved, message) }
    }
}

/// The WebSocket path of node `node`, by which the load balancer routes to it.
pub fn node_path(node: &str) -> String {
    format!("/ws/n/{node}")
}

/// Where a room is played (cluster mode), in a `moved` error: the node, the WebSocket path the
/// load balancer routes to it, and the room or game id when the server knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedTo {
    pub node: String,
    /// `/ws/n/{node}`
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<i64>,
}

impl MovedTo {
    pub fn new(node: &str, room: Option<String>, game: Option<i64>) -> MovedTo {
        MovedTo { node: node.to_string(), path: node_path(node), room, game }
    }
}

impl From<RuleError> for ProtoError {
    fn from(e: RuleError) -> Self {
        ProtoError::new((&e).into(), e.to_string())
    }
}

impl From<DeployError> for ProtoError {
    fn from(e: DeployError) -> Self {
        ProtoError { code: (&e).into(), message: e.to_string(), detail: Some(e), moved: None }
    }
}

impl From<crate::error::AppError> for ProtoError {
    /// An error of the HTTP/database layer, with its own code (`internal` ones are logged).
    fn from(e: crate::error::AppError) -> Self {
        if let crate::error::AppError::Moved { game, node } = &e {
            return ProtoError::moved(MovedTo::new(node, None, Some(*game)));
        }
        if let crate::error::AppError::Internal(context) = &e {
            tracing::error!(error = %context, "live play");
        }
        ProtoError::new(e.code(), e.public_message())
    }
}

/// Parse one text frame. On failure returns the id (if one could be read) and the error.
pub fn parse(text: &str) -> Result<(Option<ClientId>, ClientMsg), (Option<ClientId>, ProtoError)> {
    let invalid = |m: String| (None, ProtoError::new(ErrorCode::InvalidJson, m));
    let value: Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
    let Value::Object(mut obj) = value else {
        return Err(invalid("a message must be a JSON object".into()));
    };
    let id = match obj.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= 64 => Some(ClientId::Str(s)),
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().map(ClientId::Num),
        Some(_) => {
            return Err((
                None,
                ProtoError::new(
                    ErrorCode::BadMessage,
                    "id must be a string of at most 64 characters or a non-negative integer",
                ),
            ))
        }
    };
    let unknown = |m: String| ProtoError::new(ErrorCode::UnknownType, m);
    let bad = |e: serde_json::Error| {
        ProtoError::new(ErrorCode::BadMessage, crate::error::plain_serde_message(&e.to_string()))
    };
    let t = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        _ => return Err((id, unknown("the message has no \"type\"".into()))),
    };
    if LobbyRequest::VARIANTS.contains(&t.as_str()) {
        // room options are read now, and refused with their own code
        if let Some(given) = obj.get("options").filter(|o| !o.is_null()) {
            if let Err(e) = OptionChanges::deserialize(given) {
                let m = crate::error::plain_serde_message(&e.to_string());
                return Err((id, ProtoError::new(ErrorCode::InvalidOptions, m)));
            }
        }
        return match LobbyRequest::deserialize(Value::Object(obj)) {
            Ok(msg) => Ok((id, ClientMsg::Lobby(msg))),
            Err(e) => Err((id, bad(e))),
        };
    }
    if !RoomRequest::VARIANTS.contains(&t.as_str()) {
        let t: String = t.chars().take(40).collect();
        return Err((id, unknown(format!("unknown message type {t:?}"))));
    }
    let room = match obj.remove("room") {
        Some(Value::String(room)) => room,
        None => return Err((id, ProtoError::new(ErrorCode::BadMessage, "missing field `room`"))),
        Some(_) => {
            let e = ProtoError::new(ErrorCode::BadMessage, "room must be a string");
            return Err((id, e));
        }
    };
    match RoomRequest::deserialize(Value::Object(obj)) {
        Ok(msg) => Ok((id, ClientMsg::Room { room, msg })),
        Err(e) => Err((id, bad(e))),
    }
}

/// Server time in ms since the epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

mod server;
pub use server::*;

#[cfg(test)]
mod tests;
