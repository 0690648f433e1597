//! The WebSocket protocol (docs/protocol.md), both directions, as types.
//!
//! Client messages are parsed here, in one place, into [`ClientMsg`]; every server message is a
//! [`ServerMsg`]; error codes are [`ErrorCode`] values. Nothing else in the server builds JSON for
//! a socket. Server messages never carry a rank except inside a `siguo_rules::View` made by the
//! engine for that receiver, or the receiver's own deployment. The doc's examples are parsed as
//! these types by a test (`doc_examples`), so the doc and the code cannot drift apart.
use super::GameKind;
pub use crate::ladder::queue::CancelReason;
use crate::ladder::{LadderKind, Outcome};
use bytestring::ByteString;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use siguo_bots::Level;
use siguo_rules::{
    DeployError, Deployment, Formation, Rank, RuleError, Seat, ShownOptions, Station, Variant, View,
};
use std::borrow::Cow;
use std::collections::BTreeMap;
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

// ---- server → client ----

/// Every message the server sends (JSON tagged by `"type"`). `Update` and `Snapshot` borrow
/// the room's events and views so that a message is serialized straight from them.
#[derive(Clone, Debug, Serialize, Deserialize, VariantNames)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ServerMsg<'a> {
    /// First message on every socket.
    Hello {
        account: Account,
        server_time: i64,
        rooms: Vec<SeatedRoom>,
    },
    Pong {
        id: Option<ClientId>,
        server_time: i64,
    },
    /// Open public rooms (`list_rooms`).
    Rooms {
        id: Option<ClientId>,
        rooms: Vec<RoomSummary>,
    },
    Ack(Ack),
    Error(ErrorMsg),
    /// The whole state of a room, to every subscriber when it changes.
    Room(Box<RoomMsg>),
    Snapshot(Box<Snapshot<'a>>),
    Update(Update<'a>),
    /// A seat's own deployment, to its owner only.
    Deployment(DeploymentMsg),
    /// Who is connected (not versioned).
    Presence {
        room: String,
        seats: SeatMap<bool>,
    },
    /// How many watch (people subscribed without a seat); at most every 2 s, when it changed.
    Spectators {
        room: String,
        count: usize,
    },
    LegalMoves {
        id: Option<ClientId>,
        room: String,
        game: Option<i64>,
        v: u64,
        moves: LegalMoves,
    },
    Chat(ChatMsg),
    /// The ladder matched this account (ranked). `node`: the node that plays the game (its
    /// socket is `/ws/n/{node}`; `local` on a single node).
    MatchFound {
        room: String,
        game: i64,
        kind: GameKind,
        seats: Vec<Seat>,
        node: String,
    },
    Kicked {
        room: String,
    },
    RoomClosed {
        room: String,
    },
    /// The ladder proposes a match to this account: `accept_match` before `deadline` (ms).
    MatchProposed {
        match_id: u64,
        ladder: LadderKind,
        deadline: i64,
        server_time: i64,
        /// how many accounts must accept
        players: usize,
    },
    /// A proposed match was called off; `requeued`: this account is back in the queue with its
    /// waiting time kept (else it declined or did not answer, and left the queue).
    MatchCancelled {
        match_id: u64,
        ladder: LadderKind,
        reason: CancelReason,
        requeued: bool,
    },
    /// This account left a ladder's queue without asking.
    QueueLeft {
        ladder: LadderKind,
        reason: QueueLeftReason,
    },
}

/// Why an account left a queue without asking (`queue_left`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueLeftReason {
    /// no socket of the account was connected for `ladder.queue_disconnect_grace_ms`
    Disconnected,
}

impl ServerMsg<'_> {
    /// The message as one text frame.
    pub fn to_text(&self) -> ByteString {
        ByteString::from(serde_json::to_string(self).expect("a server message serializes"))
    }

    pub fn error(id: &Option<ClientId>, e: &ProtoError) -> ServerMsg<'static> {
        ServerMsg::Error(ErrorMsg {
            id: id.clone(),
            code: e.code,
            message: e.message.clone(),
            detail: e.detail.clone(),
            moved: e.moved.as_deref().cloned(),
        })
    }

    pub fn ack(id: &Option<ClientId>, body: AckBody) -> Ack {
        Ack { id: id.clone(), body, duplicate: false }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub guest: bool,
}

/// A room where the receiver holds a seat and whose game is not finished (`hello`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatedRoom {
    pub room: String,
    pub variant: Variant,
    pub game: Option<i64>,
    pub phase: PhaseName,
    pub seats: Vec<Seat>,
}

/// The phase of a room, as the protocol names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PhaseName {
    Waiting,
    Deploying,
    Battle,
    Finished,
}

impl PhaseName {
    /// The protocol's name (`"deploying"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A public waiting room in the lobby's list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomSummary {
    pub room: String,
    pub variant: Variant,
    pub host: Option<String>,
    pub host_id: Option<i64>,
    /// as the room's game shows them (Hidden Front: its own options and fixed limits)
    pub options: ShownOptions,
    pub seats: SeatMap<Option<SummarySeat>>,
    pub spectators: usize,
    /// for ordering the list (oldest first); not sent
    #[serde(skip)]
    pub created: i64,
}

/// Who sits on a seat of a listed room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SummarySeat {
    Person { name: String },
    Bot { bot: Level },
}

/// `ack`: the action was applied (or had been: `duplicate`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub id: Option<ClientId>,
    #[serde(flatten)]
    pub body: AckBody,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duplicate: bool,
}

/// What an `ack` carries besides its id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AckBody {
    /// `join_room`: the room and its current version
    Joined {
        room: String,
        game: Option<i64>,
        v: u64,
    },
    /// `start_practice`
    Practice {
        room: String,
        game: i64,
    },
    /// `create_room`
    Created {
        room: String,
        invite: String,
    },
    /// battle actions and `resync`: the new version
    Version {
        v: u64,
    },
    Empty {},
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorMsg {
    pub id: Option<ClientId>,
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<DeployError>,
    /// `moved`: `node`, `path` and, when known, `room` or `game`
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<MovedTo>,
}

/// One seat as the `room` and `snapshot` messages show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub account_id: Option<i64>,
    pub name: String,
    pub guest: bool,
    pub bot: Option<Level>,
    pub ready: bool,
    pub online: bool,
    pub escaped: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomMsg {
    pub room: String,
    pub kind: GameKind,
    pub variant: Variant,
    pub public: bool,
    pub invite: Option<String>,
    pub host: Option<String>,
    /// as the room's game shows them (Hidden Front: its own options and fixed limits)
    pub options: ShownOptions,
    pub phase: PhaseName,
    pub game: Option<i64>,
    pub seats: SeatMap<Option<SeatInfo>>,
    pub spectators: usize,
    pub you: YouInRoom,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct YouInRoom {
    pub seats: Vec<Seat>,
    pub host: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct YouSeats {
    pub seats: Vec<Seat>,
}

/// The running deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub phase: PhaseName,
    pub seat: Option<Seat>,
    pub deadline: Option<i64>,
    pub remaining_ms: Option<i64>,
    pub server_time: i64,
}

/// One value per seat of the room's game: the keys are exactly `Variant::seats()` (N E S W for
/// the four-player game, S and N for Hidden Front).
pub type SeatMap<T> = BTreeMap<Seat, T>;

/// A [`SeatMap`] of `variant`'s seats.
pub fn seat_map<T>(variant: Variant, mut f: impl FnMut(Seat) -> T) -> SeatMap<T> {
    variant.seats().iter().map(|s| (*s, f(*s))).collect()
}

/// Origin → destinations; empty unless the receiver controls the seat to move.
pub type LegalMoves = BTreeMap<Station, Vec<Station>>;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot<'a> {
    pub room: String,
    pub game: Option<i64>,
    pub v: u64,
    pub phase: PhaseName,
    pub seats: SeatMap<Option<SeatInfo>>,
    pub you: YouSeats,
    pub view: Option<Cow<'a, View>>,
    /// during deployment: the receiver's own seats only
    pub deployments: Option<BTreeMap<Seat, Deployment>>,
    pub confirmed: Vec<Seat>,
    pub clock: Clock,
    pub legal_moves: LegalMoves,
    pub last_events: Events<'a>,
    /// a finished ranked game: what it gave each seat (absent otherwise)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<GameResults>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Update<'a> {
    pub room: String,
    pub game: Option<i64>,
    pub v: u64,
    pub from_v: u64,
    pub events: Events<'a>,
    pub view: Option<Cow<'a, View>>,
    pub clock: Clock,
    pub legal_moves: LegalMoves,
    /// once a ranked game is over (from the update that ends it on): what it gave each seat,
    /// as applied to the ladder; absent otherwise (casual and practice games, games going on).
    /// Boxed: an update is the most frequent message, and rarely has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Box<GameResults>>,
}

/// A finished ranked game's result for one seat, as the ladder applied it (the seat's
/// account's line of the points table; both seats of a team under dual control have their
/// account's). Public: every receiver gets every seat's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatResult {
    pub outcome: Outcome,
    /// the change of the account's ladder points (+3 win, +1 draw, 0 loss or surrender, −2 escape)
    pub points: i32,
}

/// The applied results of a finished ranked game, one per seat.
pub type GameResults = SeatMap<SeatResult>;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeploymentMsg {
    pub room: String,
    pub game: i64,
    pub seat: Seat,
    pub confirmed: bool,
    pub pieces: BTreeMap<Station, Rank>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMsg {
    pub room: String,
    pub from: String,
    pub seat: Option<Seat>,
    pub team: bool,
    pub text: String,
    pub at: i64,
}

/// The public events of a version: the engine's [`Event`]s and the live-play [`LiveEvent`]s.
/// Defined with the engine protocol (which sends the same events to engines).
pub use siguo_bots::engine_protocol::{LiveEvent, WireEvent};

/// One event as JSON text: events are serialized once and the text is shared by every
/// receiver's message and by the resync history.
pub type RawEvent = Box<RawValue>;

pub fn raw_event(e: &WireEvent) -> RawEvent {
    serde_json::value::to_raw_value(e).expect("an event serializes")
}

/// A list of events: borrowed JSON texts when sending, typed when read back.
#[derive(Clone, Debug)]
pub enum Events<'a> {
    Raw(&'a [RawEvent]),
    Typed(Vec<WireEvent>),
}

impl Serialize for Events<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Events::Raw(r) => r.serialize(s),
            Events::Typed(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Events<'_> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<WireEvent>::deserialize(d).map(Events::Typed)
    }
}

#[cfg(test)]
mod tests;
