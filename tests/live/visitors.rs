//! Issue 38 §9: a logged-out visitor watches a public game over its own socket
//! (`/api/ws?visitor=1`): as any spectator (the same redaction, counted among the 观众), but it
//! cannot act, enter a private room or a practice game, or use an invite; its sockets count
//! against its address's socket limit; `GET /api/games/live` lists the games for anyone.
use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};

async fn a_visitor_watches_read_only(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;

    // the list of games to watch, over HTTP without a session
    let list: Value = support::new_client()
        .get(app.url("/api/games/live"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        list.as_array().unwrap().iter().any(|g| g["room"] == room.as_str()),
        "the game is listed to a visitor: {list}"
    );

    // without `visitor=1` and without credentials, still 401
    let r = tokio_tungstenite::connect_async(app.ws_url("/api/ws")).await;
    match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status().as_u16(), 401)
        }
        other => panic!("an anonymous socket opened: {:?}", other.map(|_| ())),
    }

    // what the players were told before the visitor came is read and dropped (a ping's pong
    // comes after it)
    cs[0].send(&json!({"type": "ping", "id": 99})).await;
    cs[0].next_of("pong").await;
    cs[0].clear();
    let mut v = Client::visitor(&app.ws_url("/api/ws")).await.expect("a visitor's socket");
    assert!(v.account_id < 0, "a visitor has no account: {}", v.account_id);
    v.act(json!({"type": "join_room", "room": room})).await.expect("the visitor watches");
    let snap = v.wait_for(|m| m["type"] == "snapshot" && m["room"] == room.as_str()).await;
    assert_eq!(snap["you"]["seats"], json!([]), "{}", snap["you"]);
    // the players see one more spectator
    cs[0].wait_for(|m| m["type"] == "spectators" && m["count"] == 1).await;
    // moves go on and reach the visitor, redacted (North moves first: its moves came with the
    // update that started the battle)
    let legal = cs[0].last_state()["legal_moves"].clone();
    let (from, to) = pick_move(&legal, 0).expect("North has a move");
    cs[0].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
    v.wait_for(|m| m["type"] == "update" && m["events"].as_array().is_some_and(|e| !e.is_empty()))
        .await;
    v.assert_no_hidden_ranks();

    // read-only: every action is refused with `login_required`, and changes nothing
    for msg in [
        json!({"type": "chat", "room": room, "text": "hi"}),
        json!({"type": "take_seat", "room": room, "seat": "N"}),
        json!({"type": "legal_moves", "room": room}),
        json!({"type": "surrender", "room": room}),
        json!({"type": "create_room"}),
        json!({"type": "start_practice", "level": "random"}),
        json!({"type": "join_room", "invite": "ABCDEFGHJKLM"}),
        json!({"type": "accept_match", "match_id": 1}),
    ] {
        let e = v.expect_err(msg.clone(), "login_required").await;
        assert!(e["message"].as_str().unwrap().contains("log in"), "{msg} → {e}");
    }
    assert!(!cs[0].frames.iter().any(|f| f["type"] == "chat"), "no chat line reached the players");

    // a private room and a practice game do not exist for a visitor
    let mut host = Client::new(&app, "vh").await;
    let private = host.act(json!({"type": "create_room", "public": false})).await.unwrap()["room"]
        .as_str()
        .unwrap()
        .to_string();
    v.expect_err(json!({"type": "join_room", "room": private}), "not_found").await;
    let practice = host.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let g = practice["game"].as_i64().unwrap();
    v.expect_err(json!({"type": "join_room", "game": g}), "not_found").await;
    let node = support::new_client().get(app.url(&format!("/api/rooms/{private}/node"))).send();
    assert_eq!(node.await.unwrap().status(), 404);

    // the visitor leaves: the count goes back (a notice at most once a second)
    v.close().await;
    cs[0].wait_for(|m| m["type"] == "spectators" && m["count"] == 0).await;

    // visitors' sockets count against their address's socket limit
    let small = support::spawn_app_with(backend, |c| c.live.max_sockets_per_ip = 2).await;
    let url = small.ws_url("/api/ws");
    let (a, b) = (Client::visitor(&url).await, Client::visitor(&url).await);
    assert!(a.is_ok() && b.is_ok(), "two visitors from one address");
    assert_eq!(Client::visitor(&url).await.err(), Some(429), "a third is refused");
}

both_backends!(a_visitor_watches_read_only);
