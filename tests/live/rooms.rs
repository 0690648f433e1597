//! Rooms and seats (create, list, invite, take/switch/leave seats, dual control, bots, kick,
//! ready), practice against bots played to its end, and saved formations over HTTP.

use crate::support;
use crate::support::live::*;
use crate::support::{error_code, Backend};
use serde_json::{json, Value};

async fn rooms_and_seats(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (hc, _) = app.new_account("host").await;
    let resp = hc
        .post(app.url("/api/rooms"))
        .json(&json!({"public": true, "options": {"move_seconds": 45}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let created: Value = resp.json().await.unwrap();
    let room = created["room"].as_str().unwrap().to_string();
    let rooms: Value = app.get("/api/rooms").await.json().await.unwrap();
    let listed = rooms
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["room"] == room.as_str())
        .expect("listed")
        .clone();
    assert_eq!(listed["options"]["move_seconds"], 45);
    let (st, code) = error_code(
        hc.post(app.url("/api/rooms"))
            .json(&json!({"options": {"max_skips": 0}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((st, code.as_str()), (400, "invalid_options"));
    let (st, _) =
        error_code(app.client.post(app.url("/api/rooms")).json(&json!({})).send().await.unwrap())
            .await;
    assert_eq!(st, 401);

    // a private room over the socket, joined by invite
    let mut a = Client::new(&app, "ra").await;
    let ack = a.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    let invite = ack["invite"].as_str().unwrap().to_string();
    let rooms: Value = app.get("/api/rooms").await.json().await.unwrap();
    assert!(
        !rooms.as_array().unwrap().iter().any(|r| r["room"] == room.as_str()),
        "private rooms are not listed"
    );
    let mut b = Client::new(&app, "rb").await;
    let g = guest(&app).await;
    let mut c = Client::connect(&app, &g).await;
    b.act(json!({"type": "join_room", "invite": invite})).await.unwrap();
    c.act(json!({"type": "join_room", "invite": invite.to_lowercase()})).await.unwrap();

    a.act(json!({"type": "take_seat", "room": room, "seat": "N"})).await.unwrap();
    b.expect_err(json!({"type": "take_seat", "room": room, "seat": "N"}), "seat_taken").await;
    b.act(json!({"type": "take_seat", "room": room, "seat": "E"})).await.unwrap();
    // switch to the other team: E → S
    b.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    let r = b.wait_for(|m| m["type"] == "room" && m["seats"]["S"]["name"].is_string()).await;
    assert!(r["seats"]["E"].is_null(), "switching frees the old seat");
    // dual control: B also takes N's partner... S's partner is N (taken); take W? W is other team → switch again
    b.act(json!({"type": "leave_seat", "room": room, "seat": "S"})).await.unwrap();
    a.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    let r = a
        .wait_for(|m| {
            m["type"] == "room" && m["you"]["seats"].as_array().is_some_and(|s| s.len() == 2)
        })
        .await;
    assert_eq!(r["you"]["seats"], json!(["N", "S"]), "dual control");
    // bots and kick: host only
    b.expect_err(
        json!({"type": "add_bot", "room": room, "seat": "E", "level": "random"}),
        "not_host",
    )
    .await;
    a.act(json!({"type": "add_bot", "room": room, "seat": "E", "level": "random"})).await.unwrap();
    a.expect_err(json!({"type": "add_bot", "room": room, "seat": "E"}), "seat_taken").await;
    c.act(json!({"type": "take_seat", "room": room, "seat": "W"})).await.unwrap();
    a.act(json!({"type": "kick", "room": room, "seat": "W"})).await.unwrap();
    c.next_of("kicked").await;
    c.expect_err(json!({"type": "take_seat", "room": room, "seat": "W"}), "not_in_room").await;
    a.act(json!({"type": "remove_bot", "room": room, "seat": "E"})).await.unwrap();
    a.expect_err(json!({"type": "remove_bot", "room": room, "seat": "E"}), "seat_empty").await;
    // fill with bots, ready: the game starts
    a.act(json!({"type": "add_bot", "room": room, "seat": "E", "level": "random"})).await.unwrap();
    a.act(json!({"type": "add_bot", "room": room, "seat": "W", "level": "random"})).await.unwrap();
    b.expect_err(json!({"type": "ready", "room": room, "ready": true}), "not_your_seat").await;
    a.act(json!({"type": "ready", "room": room, "ready": true})).await.unwrap();
    let snap = a.next_of("snapshot").await;
    assert_eq!(snap["phase"], "deploying");
    assert_eq!(snap["deployments"].as_object().unwrap().len(), 2, "dual control: both deployments");
    a.expect_err(json!({"type": "confirm", "room": room}), "bad_message").await;
    b.expect_err(json!({"type": "take_seat", "room": room, "seat": "E"}), "wrong_phase").await;
    a.act(json!({"type": "confirm", "room": room, "seat": "N"})).await.unwrap();
    a.act(json!({"type": "confirm", "room": room, "seat": "S"})).await.unwrap();
    wait_battle(&mut a).await;
    a.seats = ['N', 'S'].into_iter().collect();
    b.seats.clear();
    // dual-control surrender ends the game for the team
    a.act(json!({"type": "surrender", "room": room})).await.unwrap();
    let over = wait_over(&mut b).await;
    assert_ended(&b, &over, json!({"state": "won", "winner": "EW", "reason": "elimination"}), &[]);
    a.assert_no_hidden_ranks();
    b.assert_no_hidden_ranks();
}

async fn practice_to_the_end(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let g = guest(&app).await;
    let mut p = Client::connect(&app, &g).await;
    p.seats.insert('S');
    let ack = p
        .act(json!({"type": "start_practice", "level": "random", "options": {"max_steps": 50}}))
        .await
        .unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    let snap = p.next_of("snapshot").await;
    assert_eq!(snap["phase"], "deploying");
    assert_eq!(snap["confirmed"], json!(["N", "E", "W"]), "bots confirm at once");
    p.act(json!({"type": "confirm", "room": room})).await.unwrap();
    let mut k = 0;
    loop {
        let u = p.next_of("update").await;
        if u["view"].is_null() {
            continue; // deployment phase
        }
        if is_over(&u) {
            assert_eq!(u["clock"]["phase"], "finished");
            // random play: elimination, or the step limit of 50
            assert_rule_ending(&p, &u);
            break;
        }
        if u["view"]["turn"] == "S" {
            if let Some((from, to)) = pick_move(&u["legal_moves"], k) {
                k += 1;
                p.act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
            }
        }
    }
    p.assert_no_hidden_ranks();
    let game = ack["game"].as_i64().unwrap();
    let g: Value = app.get_as(&format!("/api/games/{game}"), &p.token).await.json().await.unwrap();
    assert_eq!(g["state"], "finished");
    assert_eq!(g["kind"], "practice");
}

async fn formations(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (client, session) = app.new_account("fm").await;
    // a valid formation, taken from a random deployment
    let opts = siguo_rules::Options::default();
    let mut rng = rand::rng();
    let d = siguo_rules::Deployment::random(siguo_rules::Seat::S, &opts, &mut rng);
    let f = d.to_formation();
    let resp = client
        .post(app.url("/api/formations"))
        .json(&json!({"name": "rush", "formation": f}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let saved: Value = resp.json().await.unwrap();
    let id = saved["id"].as_i64().unwrap();
    let (st, code) = error_code(
        client
            .post(app.url("/api/formations"))
            .json(&json!({"name": "rush", "formation": f}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((st, code.as_str()), (409, "formation_name_taken"));
    // an illegal one: flag out of headquarters
    let mut bad = serde_json::to_value(&f).unwrap();
    let flag_at = bad.as_object().unwrap().iter().find(|(_, r)| *r == "F").unwrap().0.clone();
    let other = if flag_at == "b6" { "d6" } else { "b6" };
    let mut m = bad.as_object().unwrap().clone();
    let r1 = m["a1"].clone();
    m.insert("a1".into(), json!("F"));
    m.insert(flag_at.clone(), r1);
    let _ = other;
    bad = Value::Object(m);
    let (st, code) = error_code(
        client
            .post(app.url("/api/formations"))
            .json(&json!({"name": "bad", "formation": bad}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((st, code.as_str()), (400, "flag_not_in_headquarters"));
    let list: Value =
        client.get(app.url("/api/formations")).send().await.unwrap().json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let resp = client
        .put(app.url(&format!("/api/formations/{id}")))
        .json(&json!({"name": "rush2", "formation": f}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // guests have none
    let (gc, _) = app.new_guest().await;
    let (st, code) = error_code(gc.get(app.url("/api/formations")).send().await.unwrap()).await;
    assert_eq!((st, code.as_str()), (403, "guest_not_allowed"));
    // load it in a practice game
    let who = (
        session["account"]["username"].as_str().unwrap().to_string(),
        session["account"]["id"].as_i64().unwrap(),
        session["access_token"].as_str().unwrap().to_string(),
    );
    let mut p = Client::connect(&app, &who).await;
    let ack =
        p.act(json!({"type": "start_practice", "level": "random", "seat": "E"})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    p.act(json!({"type": "load_formation", "room": room, "formation": id})).await.unwrap();
    let dep = p.next_of("deployment").await;
    assert_eq!(dep["seat"], "E");
    for (local, rank) in f.0.iter() {
        assert_eq!(dep["pieces"][format!("E{local}")], json!(rank), "formation placed for East");
    }
    p.expect_err(
        json!({"type": "load_formation", "room": room, "formation": id + 1000}),
        "not_found",
    )
    .await;
    let resp = client.delete(app.url(&format!("/api/formations/{id}"))).send().await.unwrap();
    assert_eq!(resp.status(), 204);
    let (st, _) =
        error_code(client.get(app.url(&format!("/api/formations/{id}"))).send().await.unwrap())
            .await;
    assert_eq!(st, 404);
}

/// The bots of a four-player practice game answer a draw offer at once: greedy never accepts, so
/// the first bot asked declines (North, the partner, unless it is thinking its move: then East),
/// the offer is gone and the game goes on.
async fn bots_answer_a_draw_offer(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let g = guest(&app).await;
    let mut p = Client::connect(&app, &g).await;
    p.seats.insert('S');
    let ack = p.act(json!({"type": "start_practice", "level": "greedy"})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    p.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut p).await;
    p.act(json!({"type": "offer_draw", "room": room})).await.expect("offer");
    let declined = wait_event(&mut p, |e| e["type"] == "draw_declined" && e["seat"] != "S").await;
    assert_eq!(declined["view"]["draw_offer"], Value::Null);
    assert_eq!(declined["view"]["status"]["state"], "ongoing");
    p.assert_no_hidden_ranks();
}

both_backends!(rooms_and_seats, practice_to_the_end, formations, bots_answer_a_draw_offer);
