//! Whole four-player games over real WebSockets: every frame scanned for hidden ranks, turn
//! order, out-of-turn and illegal moves, idempotent ids, surrender, agreed draw, step limit,
//! deployment (swap/randomize/confirm), chat, replays and history.

use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};

/// Read the next update on every client (they all get the same versions in the same order).
async fn next_updates(cs: &mut [Client]) -> Vec<Value> {
    let mut ups = vec![];
    for c in cs.iter_mut() {
        ups.push(c.next_of("update").await);
    }
    let v = &ups[0]["v"];
    assert!(ups.iter().all(|u| &u["v"] == v), "clients disagree on the version");
    ups
}

fn turn_of(u: &Value) -> Option<char> {
    u["view"]["turn"].as_str().and_then(|s| s.chars().next())
}

/// Play legal moves (chosen by `k`) until the game is over; returns the final updates.
async fn play_to_end(
    room: &str,
    cs: &mut [Client],
    mut ups: Vec<Value>,
    spectators: &mut [Client],
) -> Vec<Value> {
    let mut k = 7usize;
    let mut last_turn: Option<char> = None;
    loop {
        if ups[0]["view"]["status"]["state"] != "ongoing" {
            return ups;
        }
        let turn = turn_of(&ups[0]).expect("a seat to move");
        // turn order: the next live seat clockwise
        if let Some(prev) = last_turn {
            let order = ['N', 'E', 'S', 'W'];
            let eliminated: Vec<char> = ups[0]["view"]["eliminated"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().chars().next().unwrap())
                .collect();
            let mut i = order.iter().position(|c| *c == prev).unwrap();
            let expected = loop {
                i = (i + 1) % 4;
                if !eliminated.contains(&order[i]) || order[i] == prev {
                    break order[i];
                }
            };
            assert_eq!(turn, expected, "turn order");
        }
        let idx = cs.iter().position(|c| c.seats.contains(&turn)).unwrap();
        // only the seat to move gets legal moves
        for (j, u) in ups.iter().enumerate() {
            if j != idx {
                assert!(
                    u["legal_moves"].as_object().is_none_or(|m| m.is_empty()),
                    "legal moves leaked to another seat"
                );
            }
        }
        let (from, to) =
            pick_move(&ups[idx]["legal_moves"], k).expect("the seat to move has legal moves");
        k = k.wrapping_mul(31).wrapping_add(17);
        // somebody else tries to move first: refused
        let other = (idx + 1) % cs.len();
        cs[other]
            .expect_err(
                json!({"type": "move", "room": room, "from": from, "to": to}),
                "not_your_turn",
            )
            .await;
        cs[idx]
            .act(json!({"type": "move", "room": room, "from": from, "to": to}))
            .await
            .expect("legal move accepted");
        last_turn = Some(turn);
        for s in spectators.iter_mut() {
            s.next_of("update").await;
        }
        ups = next_updates(cs).await;
    }
}

async fn whole_game_no_hidden_ranks(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({"max_steps": 50})).await;
    let mut spec = Client::new(&app, "spec").await;
    spec.act(json!({"type": "join_room", "room": room})).await.unwrap();
    let snap = spec.next_of("snapshot").await;
    assert_eq!(snap["phase"], "deploying");
    assert_eq!(snap["deployments"], json!({}), "a spectator sees no deployment");

    // deployment: a swap of two of my pieces, an illegal swap (flag out of headquarters), randomize
    cs[2].act(json!({"type": "randomize", "room": room})).await.unwrap();
    let dep = cs[2].next_of("deployment").await;
    let pieces = dep["pieces"].as_object().unwrap().clone();
    let flag = pieces.iter().find(|(_, r)| *r == "F").unwrap().0.clone();
    let front = pieces.iter().find(|(s, r)| s.ends_with('1') && *r != "B").unwrap().0.clone();
    let e = cs[2]
        .expect_err(
            json!({"type": "swap", "room": room, "a": flag, "b": front}),
            "flag_not_in_headquarters",
        )
        .await;
    assert!(e["message"].as_str().unwrap().contains("headquarters"));
    let a = pieces.iter().find(|(s, _)| s.as_str() == "Sa1").unwrap().0.clone();
    let b = pieces.iter().find(|(s, _)| s.as_str() == "Sc1").unwrap().0.clone();
    cs[2].act(json!({"type": "swap", "room": room, "a": a, "b": b})).await.expect("a legal swap");
    let dep2 = cs[2].next_of("deployment").await;
    assert_eq!(dep2["pieces"]["Sa1"], pieces["Sc1"]);
    let e =
        cs[2].act(json!({"type": "swap", "room": room, "a": "Na1", "b": "Nc1"})).await.unwrap_err();
    assert!(e["code"] == "no_piece_there" || e["code"] == "outside_region", "{e}");
    cs[0]
        .expect_err(
            json!({"type": "move", "room": room, "from": "Na1", "to": "Ca3"}),
            "wrong_phase",
        )
        .await;

    confirm_all(&room, &mut cs).await;
    cs[0].expect_err(json!({"type": "confirm", "room": room}), "wrong_phase").await;
    spec.next_of("update").await; // battle_started
                                  // the battle_started update was consumed by confirm_all; ask everyone for a fresh state
    let mut ups = vec![];
    for c in cs.iter_mut() {
        c.clear();
        let v = c.frames.iter().rev().find(|m| m["type"] == "update").unwrap().clone();
        ups.push(v);
    }
    let final_ups = play_to_end(&room, &mut cs, ups, std::slice::from_mut(&mut spec)).await;
    // random play: an ending the rules allow (elimination, or the step limit of 50 here)
    let status = assert_rule_ending(&cs[0], &final_ups[0]);
    if status["state"] == "draw" {
        assert_eq!(status["reason"], "step_limit");
        assert_eq!(final_ups[0]["view"]["steps"], 50);
    }
    for c in cs.iter().chain([&spec]) {
        assert_escaped(c, &[]);
    }
    let events = final_ups[0]["events"].as_array().unwrap();
    assert_eq!(events.last().unwrap()["type"], "game_over");
    // the final view reveals everything: some other seat's rank is visible to North
    let pieces = final_ups[0]["view"]["pieces"].as_object().unwrap();
    assert!(pieces.values().all(|p| !p.as_str().unwrap().ends_with('?')), "full reveal at the end");

    for c in &cs {
        c.assert_no_hidden_ranks();
    }
    spec.assert_no_hidden_ranks();
    assert!(spec.frames.len() > 10);

    // replay: the whole record; history lists it
    let game = final_ups[0]["game"].as_i64().unwrap();
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    assert_eq!(g["state"], "finished");
    assert_eq!(g["record"]["deployments"].as_array().unwrap().len(), 4);
    let n_actions = g["record"]["actions"].as_array().unwrap().len();
    assert!(n_actions > 0);
    let list: Value = reqwest::Client::new()
        .get(app.url("/api/me/games"))
        .bearer_auth(&cs[0].token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list[0]["id"].as_i64(), Some(game));
    assert_eq!(list[0]["seat"], "N");
    // every seat of the table, with the names (the profile shows the opponents)
    let players = list[0]["players"].as_array().unwrap();
    let seats: Vec<&str> = players.iter().map(|p| p["seat"].as_str().unwrap()).collect();
    assert_eq!(seats, ["N", "E", "S", "W"]);
    for (p, c) in players.iter().zip(&cs) {
        assert_eq!(p["name"], c.name.as_str());
    }
    let list: Value =
        app.get(&format!("/api/accounts/{}/games", cs[1].name)).await.json().await.unwrap();
    assert_eq!(list[0]["id"].as_i64(), Some(game));
}

async fn surrender_and_draw(backend: Backend) {
    let app = support::spawn_app(backend).await;
    // agreed draw
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    cs[1].act(json!({"type": "offer_draw", "room": room})).await.unwrap();
    cs[1].expect_err(json!({"type": "accept_draw", "room": room}), "own_draw_offer").await;
    cs[0].act(json!({"type": "accept_draw", "room": room})).await.unwrap();
    cs[2].act(json!({"type": "accept_draw", "room": room})).await.unwrap();
    cs[3].act(json!({"type": "accept_draw", "room": room})).await.unwrap();
    let over = wait_over(&mut cs[0]).await;
    assert_ended(
        &cs[0],
        &over,
        json!({"state": "draw", "winner": null, "reason": "agreement"}),
        &[],
    );
    assert_eq!(over["clock"]["phase"], "finished");
    assert!(over.get("results").is_none(), "a casual game gives no points: {over}");
    cs[0].expect_err(json!({"type": "offer_draw", "room": room}), "game_over").await;

    // declined draw, then surrender of a whole team
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    cs[0].act(json!({"type": "offer_draw", "room": room})).await.unwrap();
    cs[3].act(json!({"type": "decline_draw", "room": room})).await.unwrap();
    cs[2].expect_err(json!({"type": "accept_draw", "room": room}), "no_draw_offer").await;
    cs[1].act(json!({"type": "surrender", "room": room})).await.unwrap();
    let u = wait_event(&mut cs[0], |e| e["type"] == "eliminated").await;
    assert!(u["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "eliminated" && e["seat"] == "E" && e["reason"] == "surrendered"));
    cs[1].expect_err(json!({"type": "surrender", "room": room}), "seat_eliminated").await;
    cs[3].act(json!({"type": "surrender", "room": room, "seat": "W"})).await.unwrap();
    let over = wait_over(&mut cs[0]).await;
    let won = json!({"state": "won", "winner": "NS", "reason": "elimination"});
    assert_ended(&cs[0], &over, won, &[]);
    let game = over["game"].as_i64().unwrap();
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    let players = g["players"].as_array().unwrap();
    let e = players.iter().find(|p| p["seat"] == "E").unwrap();
    assert_eq!(e["surrendered"], true);
    for c in &cs {
        c.assert_no_hidden_ranks();
    }

    // surrender during deployment: applied when the battle starts
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    cs[3].act(json!({"type": "surrender", "room": room})).await.unwrap();
    cs[3].expect_err(json!({"type": "confirm", "room": room}), "already_confirmed").await;
    for c in cs.iter_mut().take(3) {
        c.act(json!({"type": "confirm", "room": room})).await.unwrap();
    }
    let u = cs[0]
        .wait_for(|m| {
            m["type"] == "update"
                && m["events"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["type"] == "eliminated" && e["seat"] == "W")
        })
        .await;
    assert!(u["events"].as_array().unwrap().iter().any(|e| e["reason"] == "surrendered"));
    assert_eq!(u["view"]["status"]["state"], "ongoing");
}

async fn refusals_change_nothing(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    confirm_all(&room, &mut cs).await;
    let u = cs[0].frames.iter().rev().find(|m| m["type"] == "update").unwrap().clone();
    let v0 = u["v"].as_u64().unwrap();
    // illegal move, no piece, not my piece, out of turn, bad station
    let e = cs[0]
        .act(json!({"type": "move", "room": room, "from": "Nb6", "to": "Nb5"}))
        .await
        .unwrap_err();
    assert!(e["code"] == "immovable" || e["code"] == "illegal_move", "{e}");
    cs[0]
        .expect_err(json!({"type": "move", "room": room, "from": "Nc3", "to": "Nc2"}), "no_piece")
        .await;
    cs[0]
        .expect_err(
            json!({"type": "move", "room": room, "from": "Sa1", "to": "Sa2"}),
            "not_your_piece",
        )
        .await;
    cs[2]
        .expect_err(
            json!({"type": "move", "room": room, "from": "Sa1", "to": "Ca1"}),
            "not_your_turn",
        )
        .await;
    cs[0]
        .expect_err(
            json!({"type": "move", "room": room, "from": "Zz9", "to": "Ca1"}),
            "bad_message",
        )
        .await;
    let legal = &u["legal_moves"];
    let all: Vec<(String, String)> = legal
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(f, t)| {
            t.as_array().unwrap().iter().map(move |t| (f.clone(), t.as_str().unwrap().to_string()))
        })
        .collect();
    // a destination that is not legal from a movable piece
    let (f, _) = &all[0];
    let bad_to = ["Na5", "Ne5", "Wa1", "Sc6", "Cb2"]
        .iter()
        .find(|t| !all.iter().any(|(ff, tt)| ff == f && tt == *t))
        .unwrap();
    cs[0]
        .expect_err(json!({"type": "move", "room": room, "from": f, "to": bad_to}), "illegal_move")
        .await;
    // nothing changed: same version
    let r = cs[0].act(json!({"type": "resync", "room": room, "v": v0})).await.unwrap();
    assert_eq!(r["v"].as_u64(), Some(v0), "refused actions changed the version");

    // a repeated id is a no-op
    let (from, to) = pick_move(legal, 0).unwrap();
    let a1 = cs[0]
        .act_with_id(json!({"type": "move", "room": room, "from": from, "to": to}), json!("mv-1"))
        .await
        .unwrap();
    let a2 = cs[0]
        .act_with_id(json!({"type": "move", "room": room, "from": from, "to": to}), json!("mv-1"))
        .await
        .unwrap();
    assert_eq!(a2["duplicate"], true);
    assert_eq!(a1["v"], a2["v"]);
    let r = cs[1].act(json!({"type": "resync", "room": room, "v": v0 + 1})).await.unwrap();
    assert_eq!(r["v"].as_u64(), Some(v0 + 1), "a repeated id was applied twice");
    let g: Value = app.get(&format!("/api/games/{}", u["game"])).await.json().await.unwrap();
    assert_eq!(g["public"]["actions"].as_array().unwrap().len(), 1);
    assert!(g["record"].is_null(), "a game in progress shows no record");
    let pieces = g["public"]["view"]["pieces"].as_object().unwrap();
    assert!(
        pieces.values().all(|p| p.as_str().unwrap().ends_with('?')),
        "public view of a game in progress has no rank"
    );
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

async fn chat(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = four_player_room(&app, json!({})).await;
    let mut spec = Client::new(&app, "spec").await;
    spec.act(json!({"type": "join_room", "room": room})).await.unwrap();
    cs[0].act(json!({"type": "chat", "room": room, "text": "  gl hf  "})).await.unwrap();
    let name0 = cs[0].name.clone();
    for c in cs.iter_mut().chain(std::iter::once(&mut spec)) {
        let m = c.next_of("chat").await;
        assert_eq!(
            (m["text"].as_str(), m["from"].as_str(), m["team"].as_bool()),
            (Some("gl hf"), Some(name0.as_str()), Some(false))
        );
    }
    cs[0]
        .act(json!({"type": "chat", "room": room, "text": "push left", "team": true}))
        .await
        .unwrap();
    let m = cs[2].next_of("chat").await;
    assert_eq!(m["text"], "push left");
    cs[1].act(json!({"type": "chat", "room": room, "text": "marker"})).await.unwrap();
    for i in [1, 3] {
        let m = cs[i].next_of("chat").await;
        assert_eq!(m["text"], "marker", "team chat leaked to the other team");
    }
    let m = spec.next_of("chat").await;
    assert_eq!(m["text"], "marker", "team chat leaked to a spectator");
    spec.expect_err(
        json!({"type": "chat", "room": room, "text": "hi", "team": true}),
        "not_your_seat",
    )
    .await;
    cs[3]
        .expect_err(json!({"type": "chat", "room": room, "text": "x".repeat(201)}), "chat_too_long")
        .await;
    cs[3].expect_err(json!({"type": "chat", "room": room, "text": "   "}), "chat_empty").await;
    for i in 0..5 {
        cs[3].act(json!({"type": "chat", "room": room, "text": format!("m{i}")})).await.unwrap();
    }
    cs[3]
        .expect_err(json!({"type": "chat", "room": room, "text": "too much"}), "chat_rate_limited")
        .await;
}

/// The scanner itself finds leaks (so the scans above can fail).
#[test]
fn scanner_finds_hidden_ranks() {
    let me: std::collections::BTreeSet<char> = ['N'].into_iter().collect();
    let ongoing = json!({"state": "ongoing", "winner": null, "reason": null});
    let ok = json!({"type": "update", "view": {"pieces": {"Na1": "N9", "Ea1": "E?", "Wb6": "WF"}, "status": ongoing, "flags_revealed": ["W"]}});
    assert_eq!(hidden_rank_in(&ok, &me), None);
    let leak = json!({"type": "update", "view": {"pieces": {"Na1": "N9", "Ea1": "E7"}, "status": ongoing, "flags_revealed": []}});
    assert_eq!(hidden_rank_in(&leak, &me).as_deref(), Some("E7"));
    let flag = json!({"type": "update", "view": {"pieces": {"Wb6": "WF"}, "status": ongoing, "flags_revealed": []}});
    assert!(hidden_rank_in(&flag, &me).is_some());
    let dep = json!({"type": "deployment", "seat": "S", "pieces": {"Sa1": "3"}});
    assert!(hidden_rank_in(&dep, &me).is_some());
    let ev = json!({"type": "update", "events": [{"type": "moved", "piece": "S8"}], "view": null});
    assert!(hidden_rank_in(&ev, &me).is_some());
}

both_backends!(whole_game_no_hidden_ranks, surrender_and_draw, refusals_change_nothing, chat);
