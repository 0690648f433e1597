//! Protocol hygiene: authentication and Origin at the upgrade, malformed JSON, unknown and bad
//! messages, unknown rooms, oversize frames, floods. Each gets its error and changes nothing.

use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

async fn upgrade_needs_auth_and_origin(backend: Backend) {
    let app = support::spawn_app(backend).await;
    // no token
    let err = tokio_tungstenite::connect_async(app.ws_url("/api/ws")).await.unwrap_err();
    match err {
        tokio_tungstenite::tungstenite::Error::Http(r) => assert_eq!(r.status(), 401),
        e => panic!("expected HTTP 401, got {e}"),
    }
    // bad token
    let err =
        tokio_tungstenite::connect_async(bearer_request(&app.ws_url("/api/ws"), "nope")).await;
    match err.unwrap_err() {
        tokio_tungstenite::tungstenite::Error::Http(r) => assert_eq!(r.status(), 401),
        e => panic!("expected HTTP 401, got {e}"),
    }
    // foreign origin
    let who = account(&app, "org").await;
    let mut req = bearer_request(&app.ws_url("/api/ws"), &who.2);
    req.headers_mut().insert("Origin", "https://evil.example".parse().unwrap());
    let err = tokio_tungstenite::connect_async(req).await.unwrap_err();
    match err {
        tokio_tungstenite::tungstenite::Error::Http(r) => assert_eq!(r.status(), 403),
        e => panic!("expected HTTP 403, got {e}"),
    }
    // own origin and bearer header work
    let mut req = app.ws_url("/api/ws").into_client_request().unwrap();
    req.headers_mut().insert("Origin", format!("http://{}", app.addr).parse().unwrap());
    req.headers_mut().insert("Authorization", format!("Bearer {}", who.2).parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("own origin allowed");
    drop(ws);
    // guests may connect
    let g = guest(&app).await;
    let c = Client::connect(&app, &g).await;
    c.close().await;
}

async fn bad_messages(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut c = Client::new(&app, "bad").await;
    c.send_raw(Message::text("{not json")).await;
    let e = c.next_of("error").await;
    assert_eq!((e["code"].as_str(), e["id"].is_null()), (Some("invalid_json"), true));
    c.send_raw(Message::text("[1,2]")).await;
    assert_eq!(c.next_of("error").await["code"], "invalid_json");
    c.expect_err(json!({"type": "teleport", "room": "x"}), "unknown_type").await;
    c.expect_err(json!({"room": "x"}), "unknown_type").await;
    c.expect_err(json!({"type": "move", "room": "x", "from": "Sa1"}), "bad_message").await;
    c.expect_err(json!({"type": "take_seat", "room": "x", "seat": "Q"}), "bad_message").await;
    c.expect_err(
        json!({"type": "chat", "room": "x", "text": "hi", "colour": "red"}),
        "bad_message",
    )
    .await;
    c.expect_err(json!({"type": "join_room", "room": "nosuchroom"}), "not_found").await;
    c.expect_err(json!({"type": "join_room", "invite": "ZZZZZZ"}), "not_found").await;
    c.expect_err(
        json!({"type": "move", "room": "nosuchroom", "from": "Sa1", "to": "Ca1"}),
        "not_found",
    )
    .await;
    c.expect_err(json!({"type": "create_room", "options": {"move_seconds": 5}}), "invalid_options")
        .await;
    c.expect_err(json!({"type": "create_room", "options": {"speed": 5}}), "invalid_options").await;
    c.send_raw(Message::binary(vec![1u8, 2, 3])).await;
    assert_eq!(c.next_of("error").await["code"], "binary_not_supported");
    // a room exists; acting without joining is refused
    let mut host = Client::new(&app, "host").await;
    let room = host.act(json!({"type": "create_room"})).await.unwrap()["room"]
        .as_str()
        .unwrap()
        .to_string();
    c.expect_err(json!({"type": "take_seat", "room": room, "seat": "N"}), "not_in_room").await;
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(metrics.contains("siguo_open_sockets 2"), "two sockets open:\n{metrics}");
    // nothing changed: the room has no seated player
    let rooms: serde_json::Value = app.get("/api/rooms").await.json().await.unwrap();
    let r = rooms.as_array().unwrap().iter().find(|r| r["room"] == room.as_str()).unwrap();
    assert!(r["seats"].as_object().unwrap().values().all(|s| s.is_null()));
    // ping
    c.send(&json!({"type": "ping", "id": 99})).await;
    let p = c.next_of("pong").await;
    assert_eq!(p["id"], 99);
}

async fn oversize_frame_closes(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut c = Client::new(&app, "big").await;
    let text = json!({"type": "chat", "room": "x", "text": "x".repeat(9000)}).to_string();
    c.send_raw(Message::text(text)).await;
    let code = c.wait_closed().await;
    assert_eq!(code, 1009, "oversize frame: close 1009");
}

async fn flood_closes(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut c = Client::new(&app, "flood").await;
    let mut sent = 0;
    for i in 0..150 {
        // the server may close before we are done sending
        if c.send_checked(&json!({"type": "ping", "id": i})).await.is_err() {
            break;
        }
        sent += 1;
    }
    assert!(sent > 100);
    let code = c.wait_closed().await;
    assert_eq!(code, 1008, "flood: close 1008");
    // a new connection of the same account works
    let who = (c.name.clone(), c.account_id, c.token.clone());
    let c2 = Client::connect(&app, &who).await;
    c2.close().await;
}

both_backends!(upgrade_needs_auth_and_origin, bad_messages, oversize_frame_closes, flood_closes);
