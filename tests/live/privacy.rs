//! Issue 27, section 5 and three items of section 6: private games stay private over HTTP and
//! WebSocket; a seated person's join/leave churn reaches the others throttled; the remembered
//! action ids are bounded; access tokens stay out of WebSocket URLs (the cookie, or a ticket).
use crate::support;
use crate::support::live::*;
use crate::support::{Backend, TestApp};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request;

/// `GET path` as `token` (or anonymously): status and body.
async fn get(app: &TestApp, path: &str, token: Option<&str>) -> (u16, Value) {
    let r = match token {
        Some(t) => app.get_as(path, t).await,
        None => app.get(path).await,
    };
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// Every way to learn of game `game` over HTTP answers `viewer` exactly as for a game that
/// does not exist.
async fn hidden_from(app: &TestApp, game: i64, viewer: Option<&str>) {
    let missing = game + 1_000_000;
    for (path, other) in [
        (format!("/api/games/{game}"), format!("/api/games/{missing}")),
        (format!("/api/games/{game}/node"), format!("/api/games/{missing}/node")),
        (format!("/api/rooms/g{game}/node"), format!("/api/rooms/g{missing}/node")),
    ] {
        let (seen, absent) = (get(app, &path, viewer).await, get(app, &other, viewer).await);
        assert_eq!(seen.0, 404, "{path}: {}", seen.1);
        assert_eq!(seen, absent, "{path} answers as for a game that does not exist");
    }
}

/// Game `game` and its node are shown to `token` (a casual room's game keeps its room's id: no
/// `g<id>` room).
async fn shown_to(app: &TestApp, game: i64, token: Option<&str>) {
    for path in [format!("/api/games/{game}"), format!("/api/games/{game}/node")] {
        let (status, body) = get(app, &path, token).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
}

/// A Hidden Front room of `host` (a bot on N) whose game is deploying: (room, game).
async fn room_with_a_bot(host: &mut Client, public: bool) -> (String, i64) {
    let ack = host
        .act(json!({"type": "create_room", "public": public, "variant": "hidden_front"}))
        .await
        .unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    host.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    host.act(json!({"type": "add_bot", "room": room, "seat": "N", "level": "random"}))
        .await
        .unwrap();
    host.act(json!({"type": "ready", "room": room, "ready": true})).await.unwrap();
    let snap = host.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
    (room, snap["game"].as_i64().unwrap())
}

fn ids(list: &Value) -> Vec<i64> {
    list.as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect()
}

/// §5: a practice game and a private room's game are shown only to their players, in progress
/// and finished; sockets of others learn nothing either; public games stay public.
async fn private_games_stay_private(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let owner = account(&app, "pv").await;
    let stranger = account(&app, "px").await;
    let visitor = guest(&app).await;
    let mut p = Client::connect(&app, &owner).await;
    let ack = p
        .act(json!({"type": "start_practice", "variant": "hidden_front", "level": "random"}))
        .await
        .unwrap();
    let (room, game) = (ack["room"].as_str().unwrap().to_string(), ack["game"].as_i64().unwrap());
    hidden_from(&app, game, None).await;
    hidden_from(&app, game, Some(&stranger.2)).await;
    shown_to(&app, game, Some(&owner.2)).await;
    let (status, _) = get(&app, &format!("/api/rooms/g{game}/node"), Some(&owner.2)).await;
    assert_eq!(status, 200, "a practice game's room is g<id>");
    // a socket of a stranger: a room message to it is answered as for a missing room
    let mut s = Client::connect(&app, &stranger).await;
    let e = s.expect_err(json!({"type": "chat", "room": room, "text": "hi"}), "not_found").await;
    let absent = s
        .expect_err(json!({"type": "chat", "room": "g999999999", "text": "hi"}), "not_found")
        .await;
    assert_eq!(e["message"], absent["message"]);
    for by in [json!({"game": game}), json!({"room": room})] {
        let mut join = json!({"type": "join_room"});
        join.as_object_mut().unwrap().extend(by.as_object().unwrap().clone());
        let e = s.expect_err(join, "not_found").await;
        let absent =
            s.expect_err(json!({"type": "join_room", "game": game + 1_000_000}), "not_found");
        assert_eq!(e["message"], absent.await["message"], "{e}");
    }

    // a private room's game, hosted by a guest
    let mut h = Client::connect(&app, &visitor).await;
    let (_, private) = room_with_a_bot(&mut h, false).await;
    hidden_from(&app, private, None).await;
    hidden_from(&app, private, Some(&stranger.2)).await;
    shown_to(&app, private, Some(&visitor.2)).await;
    // a public room's game may be watched by anyone
    let mut o = Client::new(&app, "po").await;
    let (_, open) = room_with_a_bot(&mut o, true).await;
    shown_to(&app, open, None).await;

    // the lists: others do not see private games; the players do
    let of = |name: &str| format!("/api/accounts/{name}/games");
    let (_, list) = get(&app, &of(&owner.0), None).await;
    assert!(!ids(&list).contains(&game), "a practice game listed to others: {list}");
    let (_, list) = get(&app, &of(&visitor.0), Some(&stranger.2)).await;
    assert!(!ids(&list).contains(&private), "a guest's private game listed to others: {list}");
    let (_, list) = get(&app, &of(&owner.0), Some(&owner.2)).await;
    assert!(ids(&list).contains(&game), "the player sees their own game: {list}");
    let (_, list) = get(&app, &of(&visitor.0), Some(&visitor.2)).await;
    assert!(ids(&list).contains(&private), "{list}");
    let (_, list) = get(&app, &of(&o.name), None).await;
    assert!(ids(&list).contains(&open), "public games are listed: {list}");

    // finished: the record goes to its player only, and the profile does not list it
    p.act(json!({"type": "surrender", "room": room})).await.unwrap();
    p.act(json!({"type": "leave_room", "room": room})).await.unwrap();
    let started = Instant::now();
    loop {
        let (_, g) = get(&app, &format!("/api/games/{game}"), Some(&owner.2)).await;
        if g["state"] == "finished" {
            assert!(g["record"].is_object(), "the player reads the record: {g}");
            break;
        }
        assert!(started.elapsed() < WAIT, "the surrendered game ends: {g}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    hidden_from(&app, game, None).await;
    hidden_from(&app, game, Some(&stranger.2)).await;
    let (_, prof) = get(&app, &format!("/api/profiles/{}", owner.0), None).await;
    let recent: Vec<i64> = prof["recent_games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game_id"].as_i64().unwrap())
        .collect();
    assert!(!recent.contains(&game), "a practice game on a profile: {prof}");
}

/// §6: a seated person leaving and joining their room over and over reaches a spectator as at
/// most one `presence` frame a second (before: one per change), and the last one is true.
async fn presence_churn_is_throttled(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    let mut spec = Client::new(&app, "sp").await;
    spec.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let from = spec.frames.len();
    let started = Instant::now();
    for _ in 0..30 {
        cs[0].act(json!({"type": "leave_room", "room": room})).await.unwrap();
        cs[0].act(json!({"type": "join_room", "room": room})).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    // everything sent so far has arrived once the pong has
    spec.send(&json!({"type": "ping", "id": 99})).await;
    spec.wait_for(|m| m["type"] == "pong").await;
    let secs = started.elapsed().as_secs_f64();
    let presence: Vec<&Value> =
        spec.frames[from..].iter().filter(|m| m["type"] == "presence").collect();
    assert!(
        presence.len() as f64 <= secs + 2.0,
        "{} presence frames in {secs:.1} s: {presence:?}",
        presence.len()
    );
    let last = presence.last().expect("the churn is told");
    assert_eq!(last["seats"]["N"], true, "the last presence is the true state: {last}");
}

/// §6: the action ids remembered for idempotent acks are bounded per account, by age, and
/// dropped soon after the account's last socket closed (a quick reconnect still finds them).
async fn recent_ids_are_bounded(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.live.recent_ids_per_account = 4;
        c.live.recent_ids_seconds = 3;
        c.live.recent_ids_offline_seconds = 1;
    })
    .await;
    let who = account(&app, "ri").await;
    let mut c = Client::connect(&app, &who).await;
    let ack = c.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    c.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    let ready = json!({"type": "ready", "room": room, "ready": false});
    async fn duplicate(c: &mut Client, v: &Value, id: &str) -> bool {
        c.act_with_id(v.clone(), json!(id)).await.unwrap()["duplicate"] == true
    }
    for i in 1..=5 {
        assert!(!duplicate(&mut c, &ready, &format!("r{i}")).await);
    }
    assert!(duplicate(&mut c, &ready, "r5").await, "a resent id is acknowledged again");
    assert!(!duplicate(&mut c, &ready, "r1").await, "beyond 4 ids the oldest is forgotten");
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    assert!(!duplicate(&mut c, &ready, "r5").await, "an id older than 3 s is forgotten");

    // a quick reconnect resends and finds its id; after a while away it is forgotten
    assert!(!duplicate(&mut c, &ready, "k1").await);
    c.close().await;
    let mut c = Client::connect(&app, &who).await;
    c.act(json!({"type": "join_room", "room": room})).await.unwrap();
    assert!(duplicate(&mut c, &ready, "k1").await, "kept across a quick reconnect");
    assert!(!duplicate(&mut c, &ready, "o1").await);
    c.close().await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let mut c = Client::connect(&app, &who).await;
    c.act(json!({"type": "join_room", "room": room})).await.unwrap();
    assert!(!duplicate(&mut c, &ready, "o1").await, "dropped 1 s after the last socket");
}

/// The upgrade's refusal: HTTP status and error code.
async fn refused(req: Request) -> (u16, String) {
    match tokio_tungstenite::connect_async(req).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            let body: Value = serde_json::from_slice(r.body().as_deref().unwrap_or(b"null"))
                .unwrap_or(Value::Null);
            (r.status().as_u16(), body["error"]["code"].as_str().unwrap_or("").to_string())
        }
        Err(e) => panic!("expected an HTTP refusal, got {e}"),
        Ok(_) => panic!("the upgrade was accepted"),
    }
}

/// §6: no access token in a WebSocket URL. `?token=` is refused even when valid; a ticket opens
/// one socket, once, and not after the session ended; a browser's cookie works from its own
/// origin only.
async fn tokens_stay_out_of_urls(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let who = account(&app, "tu").await;
    let with_token = app.ws_url(&format!("/api/ws?token={}", who.2));
    let r = refused(with_token.into_client_request().unwrap()).await;
    assert_eq!(r, (400, "token_in_url".to_string()));

    let t = ticket(&app.url(""), &who.2).await;
    let url = app.ws_url(&format!("/api/ws?ticket={t}"));
    let (ws, _) = tokio_tungstenite::connect_async(url.as_str()).await.expect("a ticket opens");
    drop(ws);
    let r = refused(url.into_client_request().unwrap()).await;
    assert_eq!(r, (401, "invalid_ticket".to_string()), "a ticket opens one socket only");
    let made_up = app.ws_url("/api/ws?ticket=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assert_eq!(refused(made_up.into_client_request().unwrap()).await.0, 401);
    assert_eq!(
        support::error_code(app.post("/api/ws/ticket", &json!({})).await).await,
        (401, "unauthorized".to_string()),
        "a ticket needs a session"
    );

    // a browser: the access cookie the login set, from the page's own origin only
    let cookie = |origin: &str| {
        let mut req = app.ws_url("/api/ws").into_client_request().unwrap();
        let h = req.headers_mut();
        h.insert("Cookie", format!("siguo_access={}", who.2).parse().unwrap());
        h.insert("Origin", origin.parse().unwrap());
        req
    };
    let own = format!("http://{}", app.addr);
    let (ws, _) = tokio_tungstenite::connect_async(cookie(&own)).await.expect("cookie upgrade");
    drop(ws);
    let r = refused(cookie("https://evil.example")).await;
    assert_eq!(r, (403, "origin_not_allowed".to_string()));

    // a ticket issued before a logout is refused after it
    let (http, s) = app.new_account("tl").await;
    let token = s["access_token"].as_str().unwrap().to_string();
    let t = ticket(&app.url(""), &token).await;
    let out = http.post(app.url("/api/auth/logout")).send().await.unwrap();
    assert!(out.status().is_success());
    let url = app.ws_url(&format!("/api/ws?ticket={t}"));
    assert_eq!(refused(url.into_client_request().unwrap()).await, (401, "invalid_ticket".into()));
}

both_backends!(
    private_games_stay_private,
    presence_churn_is_throttled,
    recent_ids_are_bounded,
    tokens_stay_out_of_urls,
);
