//! Issue 28, around a game: 再来一局 (rematch) in the same room with the same seats, the lobby's
//! list of games in progress to watch, 托管 (the computer plays a person's seat, asked for or
//! while they are away; ranked games keep their rules), and the game's past events on join.
use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};
use siguo::live::{GameKind, SeatOccupant};
use std::time::Duration;

fn has_event(u: &Value, f: impl Fn(&Value) -> bool) -> bool {
    u["events"].as_array().is_some_and(|e| e.iter().any(f))
}

/// North and South give up: East–West win (every client sees it, nobody escaped).
async fn end_by_surrender(room: &str, cs: &mut [Client]) {
    for i in [0, 2] {
        cs[i].act(json!({"type": "surrender", "room": room})).await.expect("surrender");
    }
    for c in cs.iter_mut() {
        let end = wait_over(c).await;
        let won = json!({"state": "won", "winner": "EW", "reason": "elimination"});
        assert_ended(c, &end, won, &[]);
    }
}

/// The next `snapshot` of a new deployment on `c`; returns it.
async fn next_deployment(c: &mut Client, old_game: i64) -> Value {
    c.wait_for(move |m| {
        m["type"] == "snapshot" && m["phase"] == "deploying" && m["game"].as_i64() != Some(old_game)
    })
    .await
}

/// Everyone asks for another game: the same room deploys a new game with the same seats.
async fn rematch_when_all_agree(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    let old = cs[0].last_state()["game"].as_i64().unwrap();
    end_by_surrender(&room, &mut cs).await;
    for (i, c) in cs.iter_mut().enumerate() {
        c.act(json!({"type": "rematch", "room": room})).await.expect("rematch");
        if i < 3 {
            let asked: Vec<&str> = ["N", "E", "S", "W"][..=i].to_vec();
            let own = json!(asked[i]);
            let r = c
                .wait_for(move |m| {
                    m["type"] == "room" && m["rematch"].as_array().is_some_and(|a| a.contains(&own))
                })
                .await;
            assert_eq!(r["phase"], "finished");
            let seats: Vec<&str> =
                r["rematch"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
            assert!(asked.iter().all(|s| seats.contains(s)), "{r}");
        }
    }
    for c in cs.iter_mut() {
        let snap = next_deployment(c, old).await;
        assert_eq!(snap["room"], room.as_str(), "the same room");
        assert_eq!(my_seats(&snap), c.seats, "the same seats");
        assert!(snap["past_events"].is_null(), "a new game has no past yet");
    }
    // the new game is played like the first
    confirm_all(&room, &mut cs).await;
    end_by_surrender(&room, &mut cs).await;
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

/// West leaves after the game and East does not answer: the host starts another with those who
/// asked (North and South); bots take East's and West's seats.
async fn rematch_host_starts_with_those_who_stayed(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    let old = cs[0].last_state()["game"].as_i64().unwrap();
    end_by_surrender(&room, &mut cs).await;
    let mut west = cs.pop().unwrap();
    west.act(json!({"type": "leave_room", "room": room})).await.expect("leave");
    cs[2].act(json!({"type": "rematch", "room": room})).await.expect("south asks");
    // only the host may start without the others
    cs[2].expect_err(json!({"type": "rematch", "room": room, "start": true}), "not_host").await;
    cs[0].act(json!({"type": "rematch", "room": room, "start": true})).await.expect("start");
    for i in [0, 2] {
        let snap = next_deployment(&mut cs[i], old).await;
        assert_eq!(my_seats(&snap), cs[i].seats);
        assert_eq!(snap["seats"]["E"]["bot"], "standard", "{snap}");
        assert_eq!(snap["seats"]["W"]["bot"], "standard", "{snap}");
    }
    // East watches the new game
    let snap = next_deployment(&mut cs[1], old).await;
    assert!(my_seats(&snap).is_empty());
    // North and South play it to its end
    for i in [0, 2] {
        cs[i].act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    }
    for i in [0, 2] {
        cs[i].act(json!({"type": "surrender", "room": room})).await.expect("surrender");
    }
    let end = wait_over(&mut cs[0]).await;
    let won = json!({"state": "won", "winner": "EW", "reason": "elimination"});
    assert_ended(&cs[0], &end, won, &[]);
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

/// A ranked game (default options) of four new accounts named after `prefixes`: the accounts
/// and the game's room.
async fn ranked_game(
    app: &support::TestApp,
    prefixes: [&str; 4],
) -> (Vec<(String, i64, String)>, String) {
    let mut whos = vec![];
    for n in prefixes {
        whos.push(account(app, n).await);
    }
    let seats: [SeatOccupant; 4] = std::array::from_fn(|i| SeatOccupant::Account {
        account_id: whos[i].1,
        name: whos[i].0.clone(),
        guest: false,
    });
    let live = &app.state().live;
    let (_, ranked) =
        live.create_game(GameKind::Ranked, seats, siguo_rules::Options::default()).await.unwrap();
    (whos, ranked)
}

fn listed<'a>(rooms: &'a Value, room: &str) -> Option<&'a Value> {
    rooms["games"].as_array().and_then(|g| g.iter().find(|g| g["room"] == room))
}

/// The lobby lists the games anyone may watch (a public casual room's, a ranked one) with
/// their players and step; not a private room's or a practice game. One opens it as a
/// spectator.
async fn live_games_in_the_lobby(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.bot_move_delay_ms = 0).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    // a private room with bots, and a practice game
    let mut p = Client::new(&app, "pv").await;
    let private = p.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let private = private["room"].as_str().unwrap().to_string();
    p.act(json!({"type": "take_seat", "room": private, "seat": "S"})).await.unwrap();
    for s in ["N", "E", "W"] {
        p.act(json!({"type": "add_bot", "room": private, "seat": s, "level": "random"}))
            .await
            .unwrap();
    }
    p.act(json!({"type": "ready", "room": private, "ready": true})).await.unwrap();
    p.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
    let mut q = Client::new(&app, "pq").await;
    let practice = q.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let practice = practice["room"].as_str().unwrap().to_string();
    // a ranked game
    let (whos, ranked) = ranked_game(&app, ["rn", "re", "rs", "rw"]).await;
    let mut watcher = Client::new(&app, "wa").await;
    watcher.send(&json!({"type": "list_rooms", "id": "l1"})).await;
    let rooms = watcher.wait_for(|m| m["type"] == "rooms" && m["id"] == "l1").await;
    let casual = listed(&rooms, &room).unwrap_or_else(|| panic!("casual game listed: {rooms}"));
    assert_eq!(
        (&casual["kind"], &casual["phase"], &casual["steps"]),
        (&json!("casual"), &json!("deploying"), &json!(0))
    );
    assert_eq!(casual["seats"]["N"]["name"], cs[0].name.as_str());
    let r = listed(&rooms, &ranked).unwrap_or_else(|| panic!("ranked game listed: {rooms}"));
    assert_eq!(r["kind"], "ranked");
    assert_eq!(r["seats"]["W"]["name"], whos[3].0.as_str());
    assert!(listed(&rooms, &private).is_none(), "a private room's game is not listed");
    assert!(listed(&rooms, &practice).is_none(), "a practice game is not listed");
    assert!(
        !rooms["rooms"].as_array().unwrap().iter().any(|r| r["room"] == room.as_str()),
        "a started game is not an open room"
    );
    // the game moves on: its step in the list follows
    confirm_all(&room, &mut cs).await;
    let u = cs[0].last_state();
    let (from, to) = pick_move(&u["legal_moves"], 0).unwrap();
    cs[0].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
    watcher.send(&json!({"type": "list_rooms", "id": "l2"})).await;
    let rooms = watcher.wait_for(|m| m["type"] == "rooms" && m["id"] == "l2").await;
    let casual = listed(&rooms, &room).unwrap();
    assert_eq!((&casual["phase"], &casual["steps"]), (&json!("battle"), &json!(1)));
    // one click: joined as a spectator
    watcher.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let snap = watcher.next_of("snapshot").await;
    assert!(my_seats(&snap).is_empty());
    assert!(snap["view"].is_object());
    // over: no longer listed
    end_by_surrender(&room, &mut cs).await;
    watcher.send(&json!({"type": "list_rooms", "id": "l3"})).await;
    let rooms = watcher.wait_for(|m| m["type"] == "rooms" && m["id"] == "l3").await;
    assert!(listed(&rooms, &room).is_none(), "a finished game is not listed");
    watcher.assert_no_hidden_ranks();
}

/// The seat's `auto` in the last `room` frame `c` got.
async fn auto_of(c: &mut Client, seat: &'static str, want: Value) -> Value {
    c.wait_for(move |m| m["type"] == "room" && m["seats"][seat]["auto"] == want).await
}

/// 托管: a practice player hands the seat to the computer, which moves for it (on its own
/// view), then takes it back; a ranked game refuses.
async fn auto_play_hand_over_and_take_back(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.bot_move_delay_ms = 0).await;
    let mut c = Client::new(&app, "ap").await;
    c.seats.insert('S');
    let ack = c.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    c.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut c).await;
    c.act(json!({"type": "auto_play", "room": room, "on": true})).await.unwrap();
    auto_of(&mut c, "S", json!("asked")).await;
    // the computer moves for South
    for _ in 0..2 {
        wait_event(&mut c, |e| e["type"] == "moved" && e["seat"] == "S").await;
    }
    c.act(json!({"type": "auto_play", "room": room, "on": false})).await.unwrap();
    let r = c.wait_for(|m| m["type"] == "room" && m["seats"]["S"]["auto"].is_null()).await;
    assert_eq!(r["seats"]["S"]["online"], true);
    // South's turn waits for South again (the bots answer at once)
    tokio::time::sleep(Duration::from_millis(1500)).await;
    c.clear();
    c.act(json!({"type": "resync", "room": room})).await.unwrap();
    let snap = c.next_of("snapshot").await;
    assert_eq!(snap["view"]["turn"], "S", "{snap}");
    let v = snap["v"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let ack = c.act(json!({"type": "resync", "room": room, "v": v})).await.unwrap();
    assert_eq!(ack["v"].as_u64(), Some(v), "nobody moved for South");
    c.act(json!({"type": "surrender", "room": room})).await.unwrap();
    let g = leave_until_finished(&app, &mut c, &room).await;
    assert_eq!(g["result"], json!({"state": "won", "winner": "EW", "reason": "elimination"}));
    assert_escaped(&c, &[]);
    c.assert_no_hidden_ranks();
    // a ranked game keeps its rules
    let (whos, ranked) = ranked_game(&app, ["kn", "ke", "ks", "kw"]).await;
    let mut n = Client::connect(&app, &whos[0]).await;
    n.act(json!({"type": "join_room", "room": ranked})).await.unwrap();
    n.expect_err(json!({"type": "auto_play", "room": ranked, "on": true}), "casual_only").await;
}

/// A casual four-player seat whose person is away past the reconnect grace is played by the
/// computer (no skip, no escape) until the person comes back.
async fn away_seat_is_played_by_the_computer(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.bot_move_delay_ms = 0).await;
    let mut host = Client::new(&app, "aw").await;
    host.seats.insert('S');
    let options = json!({"reconnect_seconds": 15, "move_seconds": 60});
    let ack = host.act(json!({"type": "create_room", "public": true, "options": options})).await;
    let room = ack.unwrap()["room"].as_str().unwrap().to_string();
    host.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    for s in ["N", "E", "W"] {
        host.act(json!({"type": "add_bot", "room": room, "seat": s, "level": "random"}))
            .await
            .unwrap();
    }
    host.act(json!({"type": "ready", "room": room, "ready": true})).await.unwrap();
    host.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut host).await;
    let mut spectator = Client::new(&app, "sp").await;
    spectator.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let who = (host.name.clone(), host.account_id, host.token.clone());
    host.close().await;
    // past the grace: the computer plays South
    let r =
        tokio::time::timeout(Duration::from_secs(40), auto_of(&mut spectator, "S", json!("away")))
            .await
            .expect("South handed to the computer");
    assert_eq!(r["seats"]["S"]["online"], false);
    for _ in 0..2 {
        wait_event(&mut spectator, |e| e["type"] == "moved" && e["seat"] == "S").await;
    }
    let skipped = spectator.frames.iter().any(|f| has_event(f, |e| e["type"] == "skipped"));
    assert!(!skipped, "no seat was skipped");
    // South comes back and plays again
    let mut back = Client::connect(&app, &who).await;
    back.seats.insert('S');
    back.act(json!({"type": "join_room", "room": room})).await.unwrap();
    spectator.wait_for(|m| m["type"] == "room" && m["seats"]["S"]["auto"].is_null()).await;
    // the snapshot of the returning player carries the log of the game so far
    let snap = back.next_of("snapshot").await;
    let past = snap["past_events"].as_array().expect("past events");
    assert!(past.iter().any(|e| e["type"] == "moved" && e["seat"] == "S"), "{snap}");
    back.act(json!({"type": "surrender", "room": room})).await.unwrap();
    // its person gone, the bots give up (issue 38 §12: while the person watched, they played on)
    back.act(json!({"type": "leave_room", "room": room})).await.unwrap();
    let end = wait_over(&mut spectator).await;
    let won = json!({"state": "won", "winner": "EW", "reason": "elimination"});
    assert_ended(&spectator, &end, won, &[]);
    back.assert_no_hidden_ranks();
    spectator.assert_no_hidden_ranks();
}

/// A late spectator and a player who reloads get the game's past events in their snapshot (the
/// public events every receiver got, no hidden rank), from the battle's start on.
async fn past_events_on_join(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    for k in 0..6 {
        let u = cs[0].last_state();
        let turn = u["view"]["turn"].as_str().unwrap().chars().next().unwrap();
        let i = cs.iter().position(|c| c.seats.contains(&turn)).unwrap();
        let mine = cs[i].last_state();
        let (from, to) = pick_move(&mine["legal_moves"], k).unwrap();
        let ack = cs[i].act(json!({"type": "move", "room": room, "from": from, "to": to})).await;
        let v = ack.unwrap()["v"].as_u64().unwrap();
        for c in cs.iter_mut() {
            c.wait_for(move |m| m["type"] == "update" && m["v"].as_u64() == Some(v)).await;
        }
    }
    // what the players saw in their updates, from the battle's start
    let seen: Vec<Value> = cs[0]
        .frames
        .iter()
        .filter(|f| f["type"] == "update")
        .flat_map(|f| f["events"].as_array().unwrap().clone())
        .skip_while(|e| e["type"] != "battle_started")
        .collect();
    let mut late = Client::new(&app, "late").await;
    late.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let snap = late.next_of("snapshot").await;
    let past = snap["past_events"].as_array().expect("past events").clone();
    assert_eq!(past.iter().filter(|e| e["type"] == "moved").count(), 6);
    let from_battle: Vec<Value> =
        past.iter().skip_while(|e| e["type"] != "battle_started").cloned().collect();
    assert_eq!(from_battle, seen, "the same events as the updates");
    // North reloads
    let north = cs.remove(0);
    let who = (north.name.clone(), north.account_id, north.token.clone());
    north.close().await;
    let mut north = Client::connect(&app, &who).await;
    north.seats.insert('N');
    north.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let snap = north.next_of("snapshot").await;
    assert_eq!(snap["past_events"].as_array().unwrap().len(), past.len());
    late.assert_no_hidden_ranks();
    north.assert_no_hidden_ranks();
    cs.insert(0, north);
    end_by_surrender(&room, &mut cs).await;
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

both_backends!(
    rematch_when_all_agree,
    rematch_host_starts_with_those_who_stayed,
    live_games_in_the_lobby,
    auto_play_hand_over_and_take_back,
    away_seat_is_played_by_the_computer,
    past_events_on_join
);
