//! Reconnection (resync by replay of missed events, and by snapshot) and a server restart in the
//! middle of a game: the game continues from the same state, nothing lost or doubled.

use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};

/// The seat to move makes a legal move; returns its new version.
async fn one_move(room: &str, cs: &mut [Client], k: usize) -> u64 {
    let u = cs[0].last_state();
    let turn = u["view"]["turn"].as_str().unwrap().chars().next().unwrap();
    let i = cs.iter().position(|c| c.seats.contains(&turn)).unwrap();
    let mine = cs[i].last_state();
    assert_eq!(mine["v"], u["v"]);
    let (from, to) = pick_move(&mine["legal_moves"], k).unwrap();
    let ack =
        cs[i].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
    let v = ack["v"].as_u64().unwrap();
    for c in cs.iter_mut() {
        let vv = v;
        c.wait_for(move |m| m["type"] == "update" && m["v"].as_u64() == Some(vv)).await;
    }
    v
}

async fn reconnect_and_resync(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.resync_log = 4).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    one_move(&room, &mut cs, 1).await;
    // South drops
    let south = cs.remove(2);
    let v0 = south.last_state()["v"].as_u64().unwrap();
    let who = (south.name.clone(), south.account_id, south.token.clone());
    south.close().await;
    let p = cs[0].wait_for(|m| m["type"] == "presence" && m["seats"]["S"] == false).await;
    assert_eq!(p["seats"]["N"], true);
    // North and East move while South is away
    let mut s_idx_cs: Vec<Client> = vec![];
    {
        let u = cs[0].last_state();
        assert_eq!(u["view"]["turn"], "E");
    }
    // East moves (S is away; the others play on)
    let u = cs[1].last_state();
    let (from, to) = pick_move(&u["legal_moves"], 2).unwrap();
    let v1 =
        cs[1].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap()
            ["v"]
            .as_u64()
            .unwrap();
    // South reconnects and resyncs from v0: the missed events, then its current view
    let mut south = Client::connect(&app, &who).await;
    south.seats.insert('S');
    let hello_rooms = south.frames[0]["rooms"].as_array().unwrap().clone();
    assert!(hello_rooms.iter().any(|r| r["room"] == room.as_str()), "hello lists the running game");
    south.act(json!({"type": "join_room", "room": room, "v": v0})).await.unwrap();
    let up = south.next_of("update").await;
    assert_eq!(up["from_v"].as_u64(), Some(v0));
    assert_eq!(up["v"].as_u64(), Some(v1));
    assert!(up["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "moved" && e["seat"] == "E"));
    assert_eq!(up["view"]["turn"], "S");
    assert!(!up["legal_moves"].as_object().unwrap().is_empty(), "South gets its legal moves back");
    let p = cs[0].wait_for(|m| m["type"] == "presence" && m["seats"]["S"] == true).await;
    assert_eq!(p["type"], "presence");
    // resync when current: just an ack
    let a = south.act(json!({"type": "resync", "room": room, "v": v1})).await.unwrap();
    assert_eq!(a["v"].as_u64(), Some(v1));
    cs.insert(2, south);
    // play past the kept log (4 versions), then resync from v0: a snapshot
    for k in 0..6 {
        one_move(&room, &mut cs, k).await;
    }
    let a = cs[2].act(json!({"type": "resync", "room": room, "v": v0})).await.unwrap();
    let snap = cs[2].next_of("snapshot").await;
    assert_eq!(snap["v"], a["v"]);
    assert_eq!(snap["phase"], "battle");
    assert_eq!(snap["you"]["seats"], json!(["S"]));
    // the events of the newest version ride along (the client marks the last move with them)
    let last = snap["last_events"].as_array().expect("last_events");
    assert!(last.iter().any(|e| e["type"] == "moved"), "{last:?}");
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
    s_idx_cs.clear();
}

async fn restart_mid_game(backend: Backend) {
    let mut app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    for k in 0..5 {
        one_move(&room, &mut cs, k).await;
    }
    let before: Vec<Value> = cs.iter().map(Client::last_state).collect();
    let game = before[0]["game"].as_i64().unwrap();
    let whos: Vec<(String, i64, String)> =
        cs.iter().map(|c| (c.name.clone(), c.account_id, c.token.clone())).collect();
    let seats: Vec<_> = cs.iter().map(|c| c.seats.clone()).collect();
    for c in cs.drain(..) {
        c.close().await;
    }
    app.restart().await;
    let mut cs = vec![];
    for (i, w) in whos.iter().enumerate() {
        let mut c = Client::connect(&app, w).await;
        c.seats = seats[i].clone();
        let rooms = c.frames[0]["rooms"].as_array().unwrap().clone();
        assert!(
            rooms.iter().any(|r| r["game"].as_i64() == Some(game)),
            "hello lists the restored game: {rooms:?}"
        );
        c.act(json!({"type": "join_room", "game": game, "v": before[i]["v"]})).await.unwrap();
        let snap = c.next_of("snapshot").await;
        assert_eq!(snap["view"], before[i]["view"], "the same state after the restart");
        assert!(snap["clock"]["remaining_ms"].as_i64().unwrap() > 0);
        cs.push(c);
    }
    let room2 = cs[0].frames.iter().find(|m| m["type"] == "snapshot").unwrap()["room"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(room2, format!("g{game}"));
    let _ = room;
    for k in 0..4 {
        one_move(&room2, &mut cs, k + 10).await;
    }
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    assert_eq!(g["public"]["actions"].as_array().unwrap().len(), 9, "no action lost or doubled");
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

both_backends!(reconnect_and_resync, restart_mid_game);
