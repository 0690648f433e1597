//! The load generator's own view of the live-play protocol (docs/protocol.md): only the messages
//! and fields it sends or reads. Deliberately independent of the server's `live` module, so that
//! the tool tests the wire format rather than sharing the server's types.
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A server → client message; everything the load generator does not look at is `Other`.
#[derive(Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    Hello {},
    Ack(Ack),
    Error(ErrorReply),
    Snapshot(Snapshot),
    Update(Update),
    Room(RoomState),
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Debug, Clone, Default)]
pub struct Ack {
    pub id: Option<u64>,
    pub room: Option<String>,
    pub invite: Option<String>,
    /// set when the server had already applied this action id
    #[serde(default)]
    pub duplicate: bool,
}

#[derive(Deserialize, Debug, Clone, Default)]
pub struct ErrorReply {
    pub id: Option<u64>,
    #[serde(default)]
    pub code: String,
    #[serde(default)]
    pub message: String,
}

/// Legal moves: station → the stations it may move to.
pub type LegalMoves = HashMap<String, Vec<String>>;

#[derive(Deserialize, Debug, Default)]
pub struct Snapshot {
    pub room: Option<String>,
    pub game: Option<i64>,
    pub v: Option<u64>,
    pub legal_moves: Option<LegalMoves>,
}

#[derive(Deserialize, Debug, Default)]
pub struct Update {
    pub room: Option<String>,
    pub v: Option<u64>,
    pub from_v: Option<u64>,
    #[serde(default)]
    pub events: Vec<Event>,
    pub legal_moves: Option<LegalMoves>,
}

#[derive(Deserialize, Debug, Default)]
pub struct RoomState {
    pub room: Option<String>,
    pub game: Option<i64>,
}

/// The game events the load generator counts or checks.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Moved {
        seat: String,
        from: String,
        to: String,
    },
    Skipped {},
    GameOver {},
    #[serde(other)]
    Other,
}

/// A client → server action, sent with its `id`.
#[derive(Serialize, Debug)]
pub struct Outgoing<'a> {
    pub id: u64,
    #[serde(flatten)]
    pub action: Action<'a>,
}

#[derive(Serialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action<'a> {
    CreateRoom {
        public: bool,
        options: RoomOptions,
    },
    JoinRoom {
        #[serde(skip_serializing_if = "Option::is_none")]
        room: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        invite: Option<&'a str>,
    },
    TakeSeat {
        room: &'a str,
        seat: &'a str,
    },
    Ready {
        room: &'a str,
        ready: bool,
    },
    Confirm {
        room: &'a str,
    },
    Move {
        room: &'a str,
        from: &'a str,
        to: &'a str,
    },
    LeaveRoom {
        room: &'a str,
    },
}

#[derive(Serialize, Debug, Clone, Copy)]
pub struct RoomOptions {
    pub move_seconds: u64,
    pub deploy_seconds: u64,
    pub max_steps: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_documented_messages() {
        let ack: ServerMsg =
            serde_json::from_str(r#"{"type":"ack","id":2,"room":"k3m9x2qa"}"#).unwrap();
        assert!(matches!(ack, ServerMsg::Ack(Ack { id: Some(2), duplicate: false, .. })));
        let update: ServerMsg = serde_json::from_value(json!({
            "type": "update", "room": "k3m9x2qa", "game": 17, "v": 42, "from_v": 41,
            "events": [
                {"type": "moved", "seat": "E", "from": "Ea1", "to": "Cc1", "path": ["Ea1", "Cc1"],
                 "combat": null},
                {"type": "turn", "seat": "S", "steps": 37},
                {"type": "game_over", "status": {"state": "won", "winner": "NS"}}],
            "view": {}, "clock": null, "legal_moves": {"Sa1": ["Ca1", "Sa2"]}
        }))
        .unwrap();
        let ServerMsg::Update(u) = update else { panic!("not an update") };
        assert_eq!((u.v, u.from_v), (Some(42), Some(41)));
        assert_eq!(u.events[1], Event::Other);
        assert_eq!(u.events[2], Event::GameOver {});
        assert_eq!(u.legal_moves.unwrap()["Sa1"].len(), 2);
        let other: ServerMsg =
            serde_json::from_str(r#"{"type":"presence","room":"r","seats":{}}"#).unwrap();
        assert!(matches!(other, ServerMsg::Other));
    }

    #[test]
    fn writes_actions_with_their_id() {
        let msg = Outgoing { id: 7, action: Action::Move { room: "r", from: "Sa1", to: "Ca1" } };
        assert_eq!(
            serde_json::to_value(&msg).unwrap(),
            json!({"type": "move", "id": 7, "room": "r", "from": "Sa1", "to": "Ca1"})
        );
        let join = Outgoing { id: 1, action: Action::JoinRoom { room: None, invite: Some("Q7") } };
        assert_eq!(
            serde_json::to_value(&join).unwrap(),
            json!({"type": "join_room", "id": 1, "invite": "Q7"})
        );
    }
}
