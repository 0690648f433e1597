//! The ranked ladder end to end, through real sockets: queue (HTTP) → match → `match_found`
//! (WebSocket) → deployment → battle → surrender or escape → points on the leaderboard and in
//! the profile, applied once. Both backends.

use crate::support;
use crate::support::live::*;
use crate::support::{spawn_app, Backend, TestApp};
use serde_json::{json, Value};
use std::net::IpAddr;

/// An HTTP client for `who` (bearer token) connecting from loopback address `ip`.
pub fn http_from(ip: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder().local_address(IpAddr::from(ip)).build().unwrap()
}

pub async fn join_queue(app: &TestApp, c: &Client, ladder: &str, ip: [u8; 4]) -> Value {
    let r = http_from(ip)
        .post(app.url(&format!("/api/queue/{ladder}")))
        .bearer_auth(&c.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

pub async fn get_json(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let mut req = reqwest::Client::new().get(app.url(path));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

/// Wait for `match_proposed` and accept it; returns the proposal.
pub async fn accept_proposal(c: &mut Client, ladder: &str) -> Value {
    let p = c.next_of("match_proposed").await;
    assert_eq!(p["ladder"], ladder);
    assert!(p["deadline"].as_i64() > p["server_time"].as_i64(), "{p}");
    c.act(json!({"type": "accept_match", "match_id": p["match_id"]})).await.expect("accept");
    p
}

/// Wait for `match_found`, join its room, check the snapshot; returns (room, game id).
pub async fn enter_match(c: &mut Client, kind: &str, n_seats: usize) -> (String, i64) {
    let m = c.next_of("match_found").await;
    assert_eq!(m["kind"], kind);
    let seats = m["seats"].as_array().unwrap();
    assert_eq!(seats.len(), n_seats);
    c.seats = seats.iter().map(|s| s.as_str().unwrap().chars().next().unwrap()).collect();
    let room = m["room"].as_str().unwrap().to_string();
    c.act(json!({"type": "join_room", "room": room})).await.expect("join the ranked room");
    let info = c.wait_for(|v| v["type"] == "room").await;
    assert_eq!(info["kind"], kind);
    assert_eq!(
        info["options"],
        serde_json::to_value(siguo_rules::Options::default()).unwrap(),
        "ranked games use the default options"
    );
    assert_eq!(info["options"]["info_mode"], "four_dark");
    for s in ["N", "E", "S", "W"] {
        assert!(info["seats"][s]["bot"].is_null(), "no bots in ranked games");
        assert_eq!(info["seats"][s]["guest"], false);
    }
    let snap = c.wait_for(|v| v["type"] == "snapshot").await;
    assert_eq!(snap["phase"], "deploying");
    assert_eq!(my_seats(&snap), c.seats);
    (room, m["game"].as_i64().unwrap())
}

async fn confirm_seats(c: &mut Client, room: &str) {
    let seats: Vec<char> = c.seats.iter().copied().collect();
    for s in seats {
        c.act(json!({"type": "confirm", "room": room, "seat": s.to_string()}))
            .await
            .expect("confirm");
    }
}

async fn ranked_dual_through_the_queue_with_a_dual_control_surrender(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut a = Client::new(&app, "dq").await;
    let mut b = Client::new(&app, "dq").await;
    let st = join_queue(&app, &a, "ranked_dual", [127, 0, 0, 41]).await;
    assert_eq!(st["state"], "waiting");
    let st = join_queue(&app, &b, "ranked_dual", [127, 0, 0, 42]).await;
    assert_eq!((st["state"].as_str(), st["accepted"].as_bool()), (Some("proposed"), Some(false)));
    let pa = accept_proposal(&mut a, "ranked_dual").await;
    let st = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!((st["state"].as_str(), st["accepted"].as_bool()), (Some("proposed"), Some(true)));
    assert_eq!(st["match_id"], pa["match_id"]);
    assert_eq!(accept_proposal(&mut b, "ranked_dual").await["match_id"], pa["match_id"]);
    let (room, game) = enter_match(&mut a, "ranked_dual", 2).await;
    let (room_b, game_b) = enter_match(&mut b, "ranked_dual", 2).await;
    assert_eq!((&room, game), (&room_b, game_b));
    assert!(a.seats.is_disjoint(&b.seats));
    let a_status = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!(
        (a_status["state"].as_str(), a_status["game_id"].as_i64()),
        (Some("matched"), Some(game))
    );

    // while the ranked game is on, neither may queue again
    let r = http_from([127, 0, 0, 41])
        .post(app.url("/api/queue/ranked"))
        .bearer_auth(&a.token)
        .send()
        .await
        .unwrap();
    assert_eq!(support::error_code(r).await, (409, "in_ranked_game".into()));
    confirm_seats(&mut a, &room).await;
    confirm_seats(&mut b, &room).await;
    wait_battle(&mut a).await;
    wait_battle(&mut b).await;
    // a surrenders (no seat given: both of its seats)
    a.act(json!({"type": "surrender", "room": room})).await.expect("surrender");
    let over = wait_over(&mut b).await;
    let b_team = if b.seats.contains(&'N') { "NS" } else { "EW" };
    let won = json!({"state": "won", "winner": b_team, "reason": "elimination"});
    assert_ended(&b, &over, won, &[]);
    // the update that ends the game says what it gave each seat: a surrendered (0) with both of
    // its seats, b won (+3) with both; a's own last update says the same
    let mut expected = serde_json::Map::new();
    for (c, result) in [
        (&a, json!({"outcome": "surrender", "points": 0})),
        (&b, json!({"outcome": "win", "points": 3})),
    ] {
        for s in &c.seats {
            expected.insert(s.to_string(), result.clone());
        }
    }
    assert_eq!(over["results"], Value::Object(expected), "{over}");
    assert_eq!(wait_over(&mut a).await["results"], over["results"]);
    // a snapshot of the finished room carries them too (a reloaded page)
    a.act(json!({"type": "resync", "room": room})).await.expect("resync");
    let snap = a.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "finished").await;
    assert_eq!(snap["results"], over["results"]);
    a.assert_no_hidden_ranks();
    b.assert_no_hidden_ranks();

    let board = get_json(&app, "/api/leaderboard/ranked_dual", None).await;
    let rows = board["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0]["account_id"].as_i64(), rows[0]["points"].as_i64(), rows[0]["wins"].as_i64()),
        (Some(b.account_id), Some(3), Some(1))
    );
    assert_eq!(
        (
            rows[1]["account_id"].as_i64(),
            rows[1]["points"].as_i64(),
            rows[1]["surrenders"].as_i64()
        ),
        (Some(a.account_id), Some(0), Some(1))
    );
    assert_eq!(get_json(&app, "/api/leaderboard/ranked", None).await["total"], 0);
    let prof = get_json(&app, &format!("/api/profiles/{}", a.name), None).await;
    let g = &prof["recent_games"][0];
    assert_eq!(
        (g["game_id"].as_i64(), g["outcome"].as_str(), g["points"].as_i64()),
        (Some(game), Some("surrender"), Some(0))
    );
    let replay = get_json(&app, g["replay"].as_str().unwrap(), None).await;
    assert_eq!(replay["state"], "finished");
    // after the game, queueing works again
    assert_eq!(join_queue(&app, &a, "ranked", [127, 0, 0, 41]).await["state"], "waiting");

    // a restart re-runs nothing twice: the standings are the same afterwards
    let mut app = app;
    app.restart().await;
    let again = get_json(&app, "/api/leaderboard/ranked_dual", None).await;
    assert_eq!(again["rows"], board["rows"]);
}

async fn ranked_escape_then_the_partner_plays_on(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut cs = vec![];
    for i in 0..4u8 {
        let c = Client::new(&app, "rq").await;
        let st = join_queue(&app, &c, "ranked", [127, 0, 0, 50 + i]).await;
        assert_eq!(st["state"], if i < 3 { "waiting" } else { "proposed" }, "{st}");
        cs.push(c);
    }
    for c in cs.iter_mut() {
        assert_eq!(accept_proposal(c, "ranked").await["players"], 4);
    }
    let mut room = String::new();
    for c in cs.iter_mut() {
        room = enter_match(c, "ranked", 1).await.0;
    }
    let mut all: Vec<char> = cs.iter().flat_map(|c| c.seats.iter().copied()).collect();
    all.sort();
    assert_eq!(all, vec!['E', 'N', 'S', 'W'], "four accounts, one seat each");
    for c in cs.iter_mut() {
        confirm_seats(c, &room).await;
    }
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
    // the player on W leaves the ranked game: an escape; then the E-W team surrenders with E,
    // and N-S win. W: escape (−2), E: surrender (0), N and S: win (+3).
    let w = cs.iter().position(|c| c.seats.contains(&'W')).unwrap();
    let e = cs.iter().position(|c| c.seats.contains(&'E')).unwrap();
    cs[w].act(json!({"type": "leave_room", "room": room})).await.expect("leave");
    cs[e]
        .wait_for(|m| {
            m["type"] == "update"
                && m["events"]
                    .as_array()
                    .is_some_and(|ev| ev.iter().any(|x| x["type"] == "escaped"))
        })
        .await;
    cs[e].act(json!({"type": "surrender", "room": room})).await.expect("surrender");
    // N and S play on (W's turns are skipped at once) until W has skipped itself out.
    let n = cs.iter().position(|c| c.seats.contains(&'N')).unwrap();
    let s = cs.iter().position(|c| c.seats.contains(&'S')).unwrap();
    let mut k = 3usize;
    let mut latest_s = json!({"v": -1});
    let over = loop {
        let un = cs[n].next_of("update").await;
        if is_over(&un) {
            break un;
        }
        let (who, u) = match un["view"]["turn"].as_str() {
            Some("N") => (n, un.clone()),
            Some("S") => {
                // S's own update for the same version carries S's legal moves
                while latest_s["v"].as_i64() < un["v"].as_i64() {
                    latest_s = cs[s].next_of("update").await;
                }
                (s, latest_s.clone())
            }
            _ => continue,
        };
        let Some((from, to)) = pick_move(&u["legal_moves"], k) else { continue };
        k = k.wrapping_mul(31).wrapping_add(7);
        // an update read late may be stale: a refused move is simply retried on the next update
        let _ = cs[who].act(json!({"type": "move", "room": room, "from": from, "to": to})).await;
    };
    // W escaped (the test made it leave) and skipped itself out; E surrendered: N–S win
    let won = json!({"state": "won", "winner": "NS", "reason": "elimination"});
    assert_ended(&cs[n], &over, won, &["W"]);
    let board = get_json(&app, "/api/leaderboard/ranked?per_page=10", None).await;
    let by_seat = |seat: char| {
        let id = cs.iter().find(|c| c.seats.contains(&seat)).unwrap().account_id;
        board["rows"].as_array().unwrap().iter().find(|r| r["account_id"] == id).unwrap().clone()
    };
    assert_eq!(by_seat('N')["points"], 3);
    assert_eq!(by_seat('S')["points"], 3);
    assert_eq!(
        (by_seat('E')["points"].as_i64(), by_seat('E')["surrenders"].as_i64()),
        (Some(0), Some(1))
    );
    assert_eq!(
        (by_seat('W')["points"].as_i64(), by_seat('W')["escapes"].as_i64()),
        (Some(-2), Some(1))
    );
    assert_eq!(board["rows"][3]["account_id"], by_seat('W')["account_id"], "the escaper is last");
    // the update that ended the game told everyone still there each seat's points, as the
    // leaderboard has them (one game each: its points are the account's)
    let results = json!({
        "N": {"outcome": "win", "points": 3}, "E": {"outcome": "surrender", "points": 0},
        "S": {"outcome": "win", "points": 3}, "W": {"outcome": "escape", "points": -2},
    });
    assert_eq!(over["results"], results, "{over}");
    for seat in ['N', 'E', 'S', 'W'] {
        assert_eq!(over["results"][seat.to_string()]["points"], by_seat(seat)["points"], "{seat}");
    }
    for i in [e, s] {
        assert_eq!(wait_over(&mut cs[i]).await["results"], results, "{}", cs[i].name);
    }
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

async fn same_ip_rule_holds_through_the_queue(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut a = Client::new(&app, "sip").await;
    let b = Client::new(&app, "sip").await;
    let mut c = Client::new(&app, "sip").await;
    join_queue(&app, &a, "ranked_dual", [127, 0, 0, 61]).await;
    assert_eq!(join_queue(&app, &b, "ranked_dual", [127, 0, 0, 61]).await["state"], "waiting");
    // c from another address is matched with a, the oldest compatible player; b keeps waiting
    assert_eq!(join_queue(&app, &c, "ranked_dual", [127, 0, 0, 62]).await["state"], "proposed");
    accept_proposal(&mut a, "ranked_dual").await;
    accept_proposal(&mut c, "ranked_dual").await;
    let (_, g1) = enter_match(&mut a, "ranked_dual", 2).await;
    let (_, g2) = enter_match(&mut c, "ranked_dual", 2).await;
    assert_eq!(g1, g2);
    let st = get_json(&app, "/api/queue/ranked_dual", Some(&b.token)).await;
    assert_eq!((st["state"].as_str(), st["waiting"].as_i64()), (Some("waiting"), Some(1)));
}

both_backends!(
    ranked_dual_through_the_queue_with_a_dual_control_surrender,
    ranked_escape_then_the_partner_plays_on,
    same_ip_rule_holds_through_the_queue,
);
