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
    // finding 10: a kicked player cannot come back for a while, not even with the invite
    host.act(json!({"type": "kick", "room": room, "seat": "E"})).await.unwrap();
    other.next_of("kicked").await;
    other.expect_err(json!({"type": "join_room", "invite": invite}), "kicked_recently").await;
    other.expect_err(json!({"type": "join_room", "room": room}), "kicked_recently").await;

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

/// Finding 2: a socket ends with its access token (close 4001), and at once on logout and on a
/// password change; access tokens issued before a logout or password change are refused.
async fn sessions_end_with_their_token(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.auth.access_ttl_secs = 2).await;
    let who = account(&app, "exp").await;
    let mut c = Client::connect(&app, &who).await;
    let started = std::time::Instant::now();
    assert_eq!(c.wait_closed().await, 4001, "closed when the token expires");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));

    let app = support::spawn_app(backend).await;
    for how in ["logout", "password"] {
        let (http, s) = app.new_account("lo").await;
        let who = (
            s["account"]["username"].as_str().unwrap().to_string(),
            s["account"]["id"].as_i64().unwrap(),
            s["access_token"].as_str().unwrap().to_string(),
        );
        let mut a = Client::connect(&app, &who).await;
        let mut b = Client::connect(&app, &who).await;
        let resp = match how {
            "logout" => http.post(app.url("/api/auth/logout")).send().await.unwrap(),
            _ => http
                .post(app.url("/api/auth/password"))
                .json(&json!({"current_password": support::GOOD_PASSWORD,
                              "new_password": "Another-Long-Secret-77"}))
                .send()
                .await
                .unwrap(),
        };
        assert!(resp.status().is_success(), "{how}: {}", resp.status());
        assert_eq!(a.wait_closed().await, 4001, "{how} closes every socket");
        assert_eq!(b.wait_closed().await, 4001, "{how} closes every socket");
        // the old access token is refused over HTTP and at the upgrade
        let old = reqwest::Client::new()
            .get(app.url("/api/auth/me"))
            .bearer_auth(&who.2)
            .send()
            .await
            .unwrap();
        assert_eq!(support::error_code(old).await, (401, "token_revoked".to_string()), "{how}");
        let req = bearer_request(&app.ws_url("/api/ws"), &who.2);
        assert!(tokio_tungstenite::connect_async(req).await.is_err(), "{how}: upgrade refused");
        if how == "password" {
            // the new session works
            let me = http.get(app.url("/api/auth/me")).send().await.unwrap();
            assert_eq!(me.status(), 200);
        }
    }
}

/// Finding 8: wrong invite codes are counted per account and per client IP.
async fn invite_guessing_is_limited(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.live.invite_failures_per_account = 3;
        c.live.invite_failures_per_ip = 5;
    })
    .await;
    let mut host = Client::new(&app, "ih").await;
    let ack = host.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let invite = ack["invite"].as_str().unwrap().to_string();
    let mut a = Client::new(&app, "ia").await;
    for i in 0..3 {
        let guess = format!("AAAAAAAAAAA{i}");
        a.expect_err(json!({"type": "join_room", "invite": guess}), "not_found").await;
    }
    // now even the right code is refused for this account
    a.expect_err(json!({"type": "join_room", "invite": invite}), "rate_limited").await;
    // another account from the same IP has the IP's remaining two failures
    let mut b = Client::new(&app, "ib").await;
    for _ in 0..2 {
        b.expect_err(json!({"type": "join_room", "invite": "BBBBBBBBBBBB"}), "not_found").await;
    }
    b.expect_err(json!({"type": "join_room", "invite": invite}), "rate_limited").await;
}

/// Finding 7: spectators joining and leaving do not flood the seated players (no presence per
/// spectator; a throttled count), and a room admits at most `live.max_spectators`.
async fn spectators_cannot_flood(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.max_spectators = 12).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    let mut watchers = vec![];
    for _ in 0..12 {
        watchers.push(Client::new(&app, "sw").await);
    }
    let mut late = Client::new(&app, "sl").await;
    let start = cs[0].frames.len();
    for round in 0..3 {
        for w in watchers.iter_mut() {
            w.act(json!({"type": "join_room", "room": room})).await.unwrap();
        }
        if round == 0 {
            // the thirteenth spectator is refused
            late.expect_err(json!({"type": "join_room", "room": room}), "room_full").await;
        }
        for w in watchers.iter_mut() {
            w.act(json!({"type": "leave_room", "room": room})).await.unwrap();
        }
    }
    // after the throttle interval, a round trip: everything the room sent before is in
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    cs[0].act(json!({"type": "resync", "room": room, "v": 0})).await.unwrap();
    let got: Vec<&Value> = cs[0].frames[start..].iter().collect();
    let presence = got.iter().filter(|m| m["type"] == "presence" || m["type"] == "room").count();
    let counts = got.iter().filter(|m| m["type"] == "spectators").count();
    assert_eq!(presence, 0, "no presence/room message per spectator: {got:?}");
    assert!(counts <= 4, "spectator counts are throttled: {counts} in {got:?}");
    // whatever was sent, the last count is current (0); and a spectator who stays is counted
    if let Some(last) = got.iter().rev().find(|m| m["type"] == "spectators") {
        assert_eq!(last["count"], 0, "the last count is current");
    }
    watchers[0].act(json!({"type": "join_room", "room": room})).await.unwrap();
    let n = cs[0].wait_for(|m| m["type"] == "spectators").await;
    assert_eq!(n["count"], 1, "{n}");
}

/// Finding 3: rooms + practice games per account, sockets per account and per IP.
async fn per_account_limits(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.live.max_sockets_per_account = 2;
        c.live.max_sockets_per_ip = 5;
    })
    .await;
    let who = account(&app, "lim").await;
    let mut a = Client::connect(&app, &who).await;
    let mut rooms = vec![];
    for _ in 0..3 {
        let ack = a.act(json!({"type": "create_room", "public": false})).await.unwrap();
        rooms.push(ack["room"].as_str().unwrap().to_string());
    }
    a.expect_err(json!({"type": "create_room", "public": false}), "too_many_rooms").await;
    a.expect_err(json!({"type": "start_practice", "level": "random"}), "too_many_rooms").await;
    // a closed room frees its slot
    a.act(json!({"type": "leave_room", "room": rooms[0]})).await.unwrap();
    a.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    a.expect_err(json!({"type": "create_room"}), "too_many_rooms").await;

    // sockets: two per account, five per IP
    let _b = Client::connect(&app, &who).await;
    let url = ticket_url(&app.ws_url("/api/ws"), &who.2).await;
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("a third socket of one account was not refused: {:?}", other.is_ok()),
    }
    let mut others = vec![];
    for _ in 0..3 {
        others.push(Client::new(&app, "lo").await);
    }
    let who = account(&app, "lx").await;
    let url = ticket_url(&app.ws_url("/api/ws"), &who.2).await;
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("a sixth socket from one IP was not refused: {:?}", other.is_ok()),
    }
    // closing one makes room again
    others.pop().unwrap().close().await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    Client::connect(&app, &who).await;
}

/// Finding 3, the bots: at most `live.bot_threads` bots search at once across the server. Three
/// practice games whose players hand their seats to the computer (托管) leave twelve bots playing
/// on (a game whose people all surrendered ends now: issue 27 §4); with one thinking slot they
/// take turns (`siguo_bots_thinking_peak` stays 1) and every game still moves.
async fn bots_think_within_the_cap(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.live.bot_threads = 1;
        c.live.bot_move_delay_ms = 0;
        c.live.bot_budget_ms = 30;
    })
    .await;
    let mut players = vec![];
    for _ in 0..3 {
        let mut p = Client::new(&app, "bt").await;
        let ack = p.act(json!({"type": "start_practice", "level": "standard"})).await.unwrap();
        let room = ack["room"].as_str().unwrap().to_string();
        p.act(json!({"type": "confirm", "room": room})).await.unwrap();
        players.push((p, room));
    }
    for (p, room) in players.iter_mut() {
        wait_battle(p).await;
        p.act(json!({"type": "auto_play", "room": room, "on": true})).await.unwrap();
        p.clear();
    }
    // every game goes on: 20 more moves each (or its end)
    for (p, _) in players.iter_mut() {
        let mut moves = 0;
        while moves < 20 {
            let u = p.next_of("update").await;
            if is_over(&u) {
                // the computer played every seat to an ending of the rules
                assert_rule_ending(p, &u);
                break;
            }
            moves += 1;
        }
    }
    let m = app.get("/metrics").await.text().await.unwrap();
    let peak: i64 = m
        .lines()
        .find_map(|l| l.strip_prefix("siguo_bots_thinking_peak ")?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no siguo_bots_thinking_peak in\n{m}"));
    assert_eq!(peak, 1, "bots searching at once, with live.bot_threads = 1");
}

/// Finding 12: where the server disagreed with its docs: `public.v` of a game in progress, the
/// host's name in the first `room` message of a room created over HTTP, and an eliminated seat
/// answering a draw offer.
async fn server_matches_its_docs(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (http, s) = app.new_account("dh").await;
    let name = s["account"]["username"].as_str().unwrap().to_string();
    let who = (
        name.clone(),
        s["account"]["id"].as_i64().unwrap(),
        s["access_token"].as_str().unwrap().to_string(),
    );
    let created: Value = http
        .post(app.url("/api/rooms"))
        .json(&json!({"public": true}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut h = Client::connect(&app, &who).await;
    h.act(json!({"type": "join_room", "room": created["room"]})).await.unwrap();
    let first = h.next_of("room").await;
    assert_eq!(first["host"], name.as_str(), "the first room message names the host");

    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    let snap = cs[0].act(json!({"type": "join_room", "room": room})).await.unwrap();
    let (gid, v) = (snap["game"].as_i64().unwrap(), snap["v"].as_u64().unwrap());
    let g: Value = app.get(&format!("/api/games/{gid}")).await.json().await.unwrap();
    assert_eq!(g["public"]["v"], v, "public.v of a game in progress: {}", g["public"]);

    cs[0].act(json!({"type": "surrender", "room": room})).await.unwrap();
    cs[1].act(json!({"type": "offer_draw", "room": room})).await.unwrap();
    cs[0].expect_err(json!({"type": "accept_draw", "room": room}), "seat_eliminated").await;
    cs[0].expect_err(json!({"type": "decline_draw", "room": room}), "seat_eliminated").await;
    cs[1].expect_err(json!({"type": "accept_draw", "room": room}), "own_draw_offer").await;
}

both_backends!(
    server_matches_its_docs,
    bots_think_within_the_cap,
    per_account_limits,
    private_rooms_by_id,
    sessions_end_with_their_token,
    invite_guessing_is_limited,
    spectators_cannot_flood,
);
