//! Issue 19 (hardening), live-play side: private rooms and practice games are not entered by
//! id, sessions end with their token, per-account limits, spectators cannot flood players,
//! invite codes, and the places where the server disagreed with its docs.

use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};

/// Finding 1: a private room or a practice game cannot be entered by its room or game id; the
/// invite code goes to the host and the seated people only.
async fn private_rooms_by_id(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut host = Client::new(&app, "ph").await;
    let mut other = Client::new(&app, "po").await;
    let ack = host.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    let invite = ack["invite"].as_str().unwrap().to_string();
    assert!(invite.len() >= 10, "invite codes are at least 10 characters: {invite}");
    let r = host.next_of("room").await;
    assert_eq!(r["invite"], invite.as_str(), "the host sees the invite");
    other.expect_err(json!({"type": "join_room", "room": room}), "not_found").await;

    // by invite: admitted, but the invite is not shown to a spectator
    other.act(json!({"type": "join_room", "invite": invite})).await.unwrap();
    let r = other.next_of("room").await;
    assert!(r["invite"].is_null(), "a spectator does not get the invite: {r}");
    // once admitted, the room id is enough (reconnects)
    other.act(json!({"type": "join_room", "room": room})).await.unwrap();
    other.act(json!({"type": "take_seat", "room": room, "seat": "E"})).await.unwrap();
    let r = other.wait_for(|m| m["type"] == "room" && m["you"]["seats"] == json!(["E"])).await;
    assert_eq!(r["invite"], invite.as_str(), "a seated player sees the invite");

    // practice: only its player, by room or game id; others only with its code
    let mut p = Client::new(&app, "pp").await;
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let (proom, game) = (ack["room"].as_str().unwrap().to_string(), ack["game"].clone());
    let r = p.next_of("room").await;
    let code = r["invite"].as_str().expect("the player gets a code to share").to_string();
    let mut snoop = Client::new(&app, "ps").await;
    snoop.expect_err(json!({"type": "join_room", "game": game}), "not_found").await;
    snoop.expect_err(json!({"type": "join_room", "room": proom}), "not_found").await;
    snoop.act(json!({"type": "join_room", "invite": code})).await.unwrap();
    let r: Value = snoop.next_of("room").await;
    assert!(r["invite"].is_null());
    // the player can still come back by game id
    p.act(json!({"type": "join_room", "game": game})).await.unwrap();
}

both_backends!(private_rooms_by_id);
