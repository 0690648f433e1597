//! Server → client: every message the server sends, as types (docs/protocol.md §2–§10).
use super::*;
use crate::ladder::{LadderKind, Outcome};
use crate::live::GameKind;
use bytestring::ByteString;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use siguo_bots::Level;
use siguo_rules::{
    DeployError, Deployment, Rank, Seat, SeenPiece, ShownOptions, Station, Variant, View, ViewDelta,
};
use std::borrow::Cow;
use std::collections::BTreeMap;
use strum::{IntoStaticStr, VariantNames};

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
        /// the protocol version this socket speaks (`?protocol=`; 1 when absent)
        #[serde(default = "protocol_default")]
        protocol: u8,
        rooms: Vec<SeatedRoom>,
    },
    Pong {
        id: Option<ClientId>,
        server_time: i64,
    },
    /// Open public rooms (`list_rooms`), and the games being played that anyone may watch.
    Rooms {
        id: Option<ClientId>,
        rooms: Vec<RoomSummary>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        games: Vec<LiveGameSummary>,
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

fn protocol_default() -> u8 {
    super::PROTOCOL_DEFAULT
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

/// A game in progress that anyone may watch (a public casual room's, or a ranked one), in the
/// lobby's list: its players and how far it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveGameSummary {
    pub room: String,
    pub game: i64,
    pub kind: GameKind,
    pub variant: Variant,
    pub phase: PhaseName,
    /// battle steps so far (0 while deploying)
    pub steps: u32,
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
    /// 托管: the computer plays this person's seat (`asked`: they handed it over; `away`: they
    /// are away past the reconnect grace, until they come back). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoPlay>,
}

/// Why the computer plays a person's seat (托管).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AutoPlay {
    Asked,
    Away,
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
    /// a finished casual or practice game: the seats whose people asked for another (再来一局)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Vec<Seat>>,
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
    /// every public event of the game so far, oldest first (the log after a reload or for a
    /// late spectator; the same events every receiver got in its updates, without ranks)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub past_events: Option<Events<'a>>,
    /// with `past_events`: each of its `moved` events' moving piece and the piece it met, as the
    /// receiver saw them when the move was made (`["S9","E?"]`, `["N?",null]`): the log reads
    /// after a reload as it read live, own ranks included and nothing more
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub past_seen: Option<Vec<(SeenPiece, Option<SeenPiece>)>>,
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
    /// the receiver's whole view (null: no game yet); absent when the update has a `delta`
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "siguo_rules::delta::present"
    )]
    pub view: Option<Option<Cow<'a, View>>>,
    /// protocol 2: what changed in the receiver's view since `from_v` (docs/protocol.md §5)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<Box<ViewDelta>>,
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatResult {
    pub outcome: Outcome,
    /// the change of the account's ladder points (+3 win, +1 draw, 0 loss or surrender, −2 escape;
    /// always 0 on `hf_ranked`, which has a rating instead)
    pub points: i32,
    /// `hf_ranked` only: the account's rating after the game
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<ShownRating>,
    /// `hf_ranked` only: how much this game changed the rating (after − before; shown rounded,
    /// "1338 (−12)")
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<f64>,
}

/// A Glicko-2 rating as the ladder shows it (`hf_ranked`): exact values, whether it is
/// provisional (RD above 110: shown with a `?`, no title) and its title (军衔).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ShownRating {
    pub rating: f64,
    pub rd: f64,
    pub provisional: bool,
    pub title: Option<crate::ladder::title::Title>,
}

impl From<crate::ladder::glicko::Rating> for ShownRating {
    fn from(r: crate::ladder::glicko::Rating) -> Self {
        ShownRating {
            rating: r.rating,
            rd: r.rd,
            provisional: r.is_provisional(),
            title: crate::ladder::title::Title::for_rating(r),
        }
    }
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
