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
use siguo_rules::{DeployError, Formation, RuleError, Seat, Station, Variant};
use strum::{IntoStaticStr, VariantNames};

/// The client's action id, echoed in `ack`/`error`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClientId {
    Num(u64),
    Str(String),
}

/// Every message a client may send (JSON tagged by `"type"`; `"id"` is taken off first).
/// `ClientMsg::VARIANTS` is the list of accepted types.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum ClientMsg {
    Ping {},
    ListRooms {},
    CreateRoom {
        #[serde(default)]
        public: Option<bool>,
        #[serde(default)]
        options: Option<Value>,
        /// which game (default `four_player`)
        #[serde(default)]
        variant: Option<Variant>,
    },
    StartPractice {
        #[serde(default)]
        options: Option<Value>,
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
    /// Accept a match the ladder proposed (`match_proposed`).
    AcceptMatch {
        match_id: u64,
    },
    /// Decline a proposed match (you leave the queue; the others go back to it).
    DeclineMatch {
        match_id: u64,
    },
}

impl ClientMsg {
    /// The room a message is addressed to, if it is a room message.
    pub fn room(&self) -> Option<&str> {
        use ClientMsg::*;
        match self {
            Ping {} | ListRooms {} | CreateRoom { .. } | StartPractice { .. } | JoinRoom { .. } => {
                None
            }
            AcceptMatch { .. } | DeclineMatch { .. } => None,
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

/// Every error code of the protocol (docs/protocol.md, "Error codes"). JSON: snake_case.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, VariantNames, IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    InvalidJson,
    UnknownType,
    BadMessage,
    BinaryNotSupported,
    NotFound,
    NotInRoom,
    WrongPhase,
    SeatTaken,
    SeatEmpty,
    NotYourSeat,
    /// a seat that does not play in the room's game (Hidden Front has only `S` and `N`)
    BadSeat,
    NotHost,
    GuestNotAllowed,
    InvalidOptions,
    AlreadyConfirmed,
    Escaped,
    ChatTooLong,
    ChatEmpty,
    ChatRateLimited,
    TooManyRooms,
    /// too many failed attempts (e.g. wrong invite codes); wait and try again
    RateLimited,
    /// the room has as many spectators as it admits (`live.max_spectators`)
    RoomFull,
    /// the host removed you from this room a short while ago
    KickedRecently,
    // the rules engine's refusals (`RuleError`)
    GameOver,
    NotYourTurn,
    NoPiece,
    NotYourPiece,
    Immovable,
    IllegalMove,
    SeatEliminated,
    NoDrawOffer,
    DrawOfferPending,
    DrawOfferTooSoon,
    OwnDrawOffer,
    // deployment refusals (`DeployError`), with a `detail`
    FlagNotInHeadquarters,
    MineOutsideBackRows,
    MineInHeadquarters,
    BombInFrontRow,
    PieceInCamp,
    WrongCount,
    OutsideRegion,
    EmptyStation,
    NoPieceThere,
    /// cluster mode: the room is played on another node (the message names it); connect to
    /// `/ws/n/{node}`
    Moved,
    /// the database is not reachable
    Unavailable,
    /// a server bug or a failed write; nothing was applied
    Internal,
}

impl ErrorCode {
    /// The stable name (`"not_your_turn"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl From<&RuleError> for ErrorCode {
    fn from(e: &RuleError) -> ErrorCode {
        match e {
            RuleError::GameOver => ErrorCode::GameOver,
            RuleError::NotYourTurn => ErrorCode::NotYourTurn,
            RuleError::NoPiece => ErrorCode::NoPiece,
            RuleError::NotYourPiece => ErrorCode::NotYourPiece,
            RuleError::Immovable => ErrorCode::Immovable,
            RuleError::IllegalMove => ErrorCode::IllegalMove,
            RuleError::SeatEliminated => ErrorCode::SeatEliminated,
            RuleError::NoDrawOffer => ErrorCode::NoDrawOffer,
            RuleError::DrawOfferPending => ErrorCode::DrawOfferPending,
            RuleError::DrawOfferTooSoon => ErrorCode::DrawOfferTooSoon,
            RuleError::OwnDrawOffer => ErrorCode::OwnDrawOffer,
        }
    }
}

impl From<&DeployError> for ErrorCode {
    fn from(e: &DeployError) -> ErrorCode {
        match e {
            DeployError::FlagNotInHeadquarters { .. } => ErrorCode::FlagNotInHeadquarters,
            DeployError::MineOutsideBackRows { .. } => ErrorCode::MineOutsideBackRows,
            DeployError::MineInHeadquarters { .. } => ErrorCode::MineInHeadquarters,
            DeployError::BombInFrontRow { .. } => ErrorCode::BombInFrontRow,
            DeployError::PieceInCamp { .. } => ErrorCode::PieceInCamp,
            DeployError::WrongCount { .. } => ErrorCode::WrongCount,
            DeployError::OutsideRegion { .. } => ErrorCode::OutsideRegion,
            DeployError::EmptyStation { .. } => ErrorCode::EmptyStation,
            DeployError::NoPieceThere { .. } => ErrorCode::NoPieceThere,
        }
    }
}

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
    /// An error of the HTTP/database layer: its code when the protocol has the same one
    /// (`not_found`, `invalid_options`, `too_many_rooms`, ...), else `internal` (logged).
    fn from(e: crate::error::AppError) -> Self {
        if let crate::error::AppError::Moved { game, node } = &e {
            return ProtoError::moved(MovedTo::new(node, None, Some(*game)));
        }
        use serde::de::value::{Error, StrDeserializer};
        use serde::de::IntoDeserializer;
        let same: Result<ErrorCode, Error> =
            ErrorCode::deserialize::<StrDeserializer<Error>>(e.code().into_deserializer());
        let code = same.unwrap_or_else(|_| {
            tracing::error!(code = e.code(), error = %e, "unexpected error in live play");
            ErrorCode::Internal
        });
        if let crate::error::AppError::Internal(context) = &e {
            tracing::error!(error = %context, "live play");
        }
        ProtoError::new(code, e.public_message())
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
    match obj.get("type") {
        Some(Value::String(t)) if ClientMsg::VARIANTS.contains(&t.as_str()) => {}
        Some(Value::String(t)) => {
            let t: String = t.chars().take(40).collect();
            return Err((id, unknown(format!("unknown message type {t:?}"))));
        }
        _ => return Err((id, unknown("the message has no \"type\"".into()))),
    }
    match serde_json::from_value::<ClientMsg>(Value::Object(obj)) {
        Ok(msg) => Ok((id, msg)),
        Err(e) => Err((
            id,
            ProtoError::new(
                ErrorCode::BadMessage,
                crate::error::plain_serde_message(&e.to_string()),
            ),
        )),
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
