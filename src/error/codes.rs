//! Every error code the server answers with, over HTTP (`{"error": {"code"}}`, docs/api.md) and
//! over WebSockets (`{"type": "error", "code"}`, docs/protocol.md): one vocabulary. The engine
//! protocol (`crates/bots`, docs/engine-protocol.md) keeps its own small list, and the referee
//! command (`siguo rules`) answers with the rules engine's codes.
use serde::{Deserialize, Serialize};
use strum::{IntoStaticStr, VariantNames};

/// A stable snake_case error code. JSON and `as_str`: `"not_your_turn"`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, VariantNames, IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    // ---- malformed input (HTTP and WebSocket) ----
    InvalidJson,
    /// JSON of the wrong shape (HTTP body): a missing or unknown field, a wrong type
    InvalidBody,
    /// a request the server cannot read (HTTP, no better code)
    BadRequest,
    UnsupportedContentType,
    InvalidPath,
    InvalidQuery,
    InvalidPaging,
    PayloadTooLarge,
    MethodNotAllowed,
    LengthRequired,
    Timeout,
    UnknownType,
    BadMessage,
    BinaryNotSupported,
    // ---- who is asking ----
    Unauthorized,
    InvalidToken,
    TokenExpired,
    TokenRevoked,
    /// a WebSocket ticket that is unknown, used or expired (`/api/ws?ticket=`)
    InvalidTicket,
    /// an access token in a WebSocket URL (`?token=`): use the cookie or a ticket
    TokenInUrl,
    /// a WebSocket asked for a protocol version this server does not speak (`?protocol=`)
    UnsupportedProtocol,
    RefreshReused,
    InvalidCredentials,
    Forbidden,
    CrossSiteRequest,
    OriginNotAllowed,
    GuestNotAllowed,
    /// a logged-out visitor's socket only watches public games: log in (or play as a guest)
    LoginRequired,
    // ---- accounts and names ----
    InvalidUsername,
    UsernameTaken,
    UsernameConfusable,
    PasswordTooShort,
    PasswordTooLong,
    PasswordTooCommon,
    PasswordIsUsername,
    PasswordInvalid,
    InvalidName,
    FormationNameTaken,
    TooManyFormations,
    // ---- rooms and seats ----
    NotFound,
    NotInRoom,
    WrongPhase,
    SeatTaken,
    SeatEmpty,
    NotYourSeat,
    /// a seat that does not play in the room's game (Hidden Front has only `S` and `N`)
    BadSeat,
    NotHost,
    InvalidOptions,
    AlreadyConfirmed,
    Escaped,
    ChatTooLong,
    ChatEmpty,
    ChatRateLimited,
    TooManyRooms,
    TooManySockets,
    /// too many requests or failed attempts (e.g. wrong invite codes); wait and try again
    RateLimited,
    /// the room has as many spectators as it admits (`live.max_spectators`)
    RoomFull,
    /// the host removed you from this room a short while ago
    KickedRecently,
    /// rematch and 托管 are for casual rooms and practice games (a ranked game keeps its rules)
    CasualOnly,
    // ---- the ladder ----
    UnknownLadder,
    AlreadyQueued,
    MatchPending,
    QueueCooldown,
    InRankedGame,
    /// `hf_ranked`: the account holds a seat in a game not yet over (any kind)
    InGame,
    NotConnected,
    // ---- the rules engine's refusals (`RuleError`) ----
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
    // ---- deployment refusals (`DeployError`), with a `detail` ----
    FlagNotInHeadquarters,
    MineOutsideBackRows,
    MineInHeadquarters,
    BombInFrontRow,
    PieceInCamp,
    WrongCount,
    OutsideRegion,
    EmptyStation,
    NoPieceThere,
    // ---- several nodes ----
    /// the room is played on another node (the answer names it); connect to `/ws/n/{node}`
    Moved,
    /// an HTTP request for a room sent to a node that does not play it
    WrongNode,
    // ---- the server ----
    /// the database is not reachable
    Unavailable,
    /// too many password checks are waiting; send the same request again shortly
    ServerBusy,
    /// a server bug or a failed write; nothing was applied
    Internal,
}

impl ErrorCode {
    /// The stable name (`"not_your_turn"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tests and logs compare a code with its name.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&siguo_rules::RuleError> for ErrorCode {
    fn from(e: &siguo_rules::RuleError) -> ErrorCode {
        use siguo_rules::RuleError::*;
        match e {
            GameOver => ErrorCode::GameOver,
            NotYourTurn => ErrorCode::NotYourTurn,
            NoPiece => ErrorCode::NoPiece,
            NotYourPiece => ErrorCode::NotYourPiece,
            Immovable => ErrorCode::Immovable,
            IllegalMove => ErrorCode::IllegalMove,
            SeatEliminated => ErrorCode::SeatEliminated,
            NoDrawOffer => ErrorCode::NoDrawOffer,
            DrawOfferPending => ErrorCode::DrawOfferPending,
            DrawOfferTooSoon => ErrorCode::DrawOfferTooSoon,
            OwnDrawOffer => ErrorCode::OwnDrawOffer,
        }
    }
}

impl From<&siguo_rules::DeployError> for ErrorCode {
    fn from(e: &siguo_rules::DeployError) -> ErrorCode {
        use siguo_rules::DeployError::*;
        match e {
            FlagNotInHeadquarters { .. } => ErrorCode::FlagNotInHeadquarters,
            MineOutsideBackRows { .. } => ErrorCode::MineOutsideBackRows,
            MineInHeadquarters { .. } => ErrorCode::MineInHeadquarters,
            BombInFrontRow { .. } => ErrorCode::BombInFrontRow,
            PieceInCamp { .. } => ErrorCode::PieceInCamp,
            WrongCount { .. } => ErrorCode::WrongCount,
            OutsideRegion { .. } => ErrorCode::OutsideRegion,
            EmptyStation { .. } => ErrorCode::EmptyStation,
            NoPieceThere { .. } => ErrorCode::NoPieceThere,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;
    use strum::VariantNames;

    /// Every code is documented: in docs/api.md (HTTP) or docs/protocol.md (WebSockets).
    #[test]
    fn every_code_is_documented() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/");
        let docs: String = ["api.md", "protocol.md"]
            .iter()
            .map(|d| std::fs::read_to_string(format!("{root}{d}")).unwrap())
            .collect();
        let undocumented: Vec<&str> = ErrorCode::VARIANTS
            .iter()
            .copied()
            .filter(|c| !docs.contains(&format!("`{c}`")))
            .collect();
        assert_eq!(undocumented, Vec::<&str>::new(), "error codes missing from the docs");
    }

    #[test]
    fn names_round_trip() {
        for name in ErrorCode::VARIANTS {
            let code: ErrorCode = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(code.as_str(), *name);
            assert_eq!(code, *name);
        }
    }
}
