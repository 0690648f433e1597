//! Server-side clocks and escapes: a turn that times out is a skip; `max_skips` skips eliminate;
//! in a ranked game leaving is an escape and the seat's turns are then skipped at once.

use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};
use siguo::live::{GameKind, SeatOccupant};

fn has_event(u: &Value, f: impl Fn(&Value) -> bool) -> bool {
    u["events"].as_array().is_some_and(|e| e.iter().any(f))
}

async fn timeout_skips_and_eliminates(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({"move_seconds": 10, "max_skips": 1})).await;
    confirm_all(&room, &mut cs).await;
    let start = cs[1].frames.iter().rev().find(|m| m["type"] == "update").unwrap().clone();
    assert_eq!(start["clock"]["seat"], "N");
    let remaining = start["clock"]["remaining_ms"].as_i64().unwrap();
    assert!(remaining > 0 && remaining <= 10_000);
    assert_eq!(
        start["clock"]["deadline"].as_i64().unwrap()
            - start["clock"]["server_time"].as_i64().unwrap(),
        remaining
    );
    // nobody moves: North times out, which is its first and last allowed skip
    let u =
        cs[1].wait_for(|m| m["type"] == "update" && has_event(m, |e| e["type"] == "skipped")).await;
    assert!(has_event(&u, |e| e["type"] == "skipped" && e["seat"] == "N" && e["skips"] == 1));
    assert!(has_event(&u, |e| e["type"] == "eliminated"
        && e["seat"] == "N"
        && e["reason"] == "too_many_skips"));
    assert_eq!(u["view"]["turn"], "E");
    assert_eq!(u["view"]["skips"]["N"], 1);
    assert!(
        !u["view"]["pieces"]
            .as_object()
            .unwrap()
            .values()
            .any(|p| p.as_str().unwrap().starts_with('N')),
        "an eliminated seat's pieces vanish"
    );
    // North can no longer act
    cs[0].expect_err(json!({"type": "surrender", "room": room}), "seat_eliminated").await;
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

async fn ranked_leave_is_escape(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut whos = vec![];
    for p in ["rn", "re", "rs", "rw"] {
        whos.push(account(&app, p).await);
    }
    let seats: [SeatOccupant; 4] = std::array::from_fn(|i| SeatOccupant::Account {
        account_id: whos[i].1,
        name: whos[i].0.clone(),
        guest: false,
    });
    let mut cs = vec![];
    for w in &whos {
        cs.push(Client::connect(&app, w).await);
    }
    let (game, room) = app
        .state()
        .live
        .create_game(GameKind::Ranked, seats, siguo_rules::Options::default())
        .await
        .expect("create ranked game");
    for (i, c) in cs.iter_mut().enumerate() {
        let m = c.next_of("match_found").await;
        assert_eq!(m["game"].as_i64(), Some(game));
        assert_eq!(m["kind"], "ranked");
        c.act(json!({"type": "join_room", "game": game})).await.expect("join by game id");
        c.seats.insert(['N', 'E', 'S', 'W'][i]);
        let snap = c.next_of("snapshot").await;
        assert_eq!(snap["phase"], "deploying");
    }
    confirm_all(&room, &mut cs).await;
    // East leaves the ranked game: an escape
    cs[1].act(json!({"type": "leave_room", "room": room})).await.unwrap();
    let u =
        cs[0].wait_for(|m| m["type"] == "update" && has_event(m, |e| e["type"] == "escaped")).await;
    assert!(has_event(&u, |e| e["seat"] == "E"));
    let snap = cs[0].frames.iter().rev().find(|m| m["type"] == "update").unwrap().clone();
    let (from, to) = pick_move(&snap["legal_moves"], 3).unwrap();
    cs[0].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
    // East's turn is skipped at once: South is to move
    let u = cs[2]
        .wait_for(|m| {
            m["type"] == "update" && has_event(m, |e| e["type"] == "skipped" && e["seat"] == "E")
        })
        .await;
    assert_eq!(u["view"]["turn"], "S");
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    let east = g["players"].as_array().unwrap().iter().find(|p| p["seat"] == "E").unwrap().clone();
    assert_eq!(east["escaped"], true);
    assert_eq!(g["kind"], "ranked");
}

/// A ranked player who never comes (past `reconnect_seconds`) has escaped; the deployment timer
/// starts the battle with the deployments the others have; the escaped seat's turns are skipped.
async fn ranked_absent_escapes_and_deploy_timer(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut whos = vec![];
    for p in ["an", "ae", "as", "aw"] {
        whos.push(account(&app, p).await);
    }
    let seats: [SeatOccupant; 4] = std::array::from_fn(|i| SeatOccupant::Account {
        account_id: whos[i].1,
        name: whos[i].0.clone(),
        guest: false,
    });
    let options =
        siguo_rules::Options { reconnect_seconds: 15, deploy_seconds: 30, ..Default::default() };
    let (game, room) =
        app.state().live.create_game(GameKind::Ranked, seats, options).await.unwrap();
    let mut cs = vec![];
    for (i, w) in whos.iter().take(3).enumerate() {
        let mut c = Client::connect(&app, w).await;
        c.seats.insert(['N', 'E', 'S'][i]);
        let rooms = c.frames[0]["rooms"].clone();
        assert_eq!(rooms[0]["game"].as_i64(), Some(game), "hello lists the new game");
        c.act(json!({"type": "join_room", "room": room})).await.unwrap();
        cs.push(c);
    }
    // West never connects: escaped after the grace, during deployment
    let u =
        cs[0].wait_for(|m| m["type"] == "update" && has_event(m, |e| e["type"] == "escaped")).await;
    assert!(has_event(&u, |e| e["seat"] == "W"));
    // nobody confirms: the deployment timer starts the battle
    for c in cs.iter_mut() {
        let u = c
            .wait_for(|m| m["type"] == "update" && has_event(m, |e| e["type"] == "battle_started"))
            .await;
        assert_eq!(u["view"]["turn"], "N");
    }
    let first = cs[0].frames.iter().rev().find(|m| m["type"] == "update").unwrap().clone();
    for (i, seat) in [(0usize, "N"), (1, "E"), (2, "S")] {
        let u = if i == 0 {
            first.clone()
        } else {
            cs[i].wait_for(move |m| m["type"] == "update" && m["view"]["turn"] == seat).await
        };
        let (from, to) = pick_move(&u["legal_moves"], i + 1).unwrap();
        cs[i].act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
    }
    // West's turn was skipped at once
    let u = cs[0]
        .wait_for(|m| {
            m["type"] == "update" && has_event(m, |e| e["type"] == "skipped" && e["seat"] == "W")
        })
        .await;
    assert_eq!(u["view"]["turn"], "N");
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

both_backends!(
    timeout_skips_and_eliminates,
    ranked_leave_is_escape,
    ranked_absent_escapes_and_deploy_timer
);
