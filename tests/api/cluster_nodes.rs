//! Cluster mode with real nodes: two `siguo serve` processes on one PostgreSQL database; the
//! owner of a game is killed (SIGKILL) and the other node takes the game over with every
//! acknowledged move; a node that lost a game's lease cannot write to it; cluster mode refuses
//! SQLite.
use crate::support::cluster::Node;
use crate::support::live::{account, pick_move, wait_battle, Client};
use crate::support::{spawn_app, spawn_app_with, Backend};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn node(id: &'static str, db_url: &str) -> Node {
    Node::start(Path::new(env!("CARGO_BIN_EXE_siguo")), id, db_url, &[])
}

/// A player's socket on node `n` (`/ws/n/{id}`).
async fn connect(n: &Node, who: &(String, i64, String)) -> Client {
    Client::connect_url(format!("ws://{}/ws/n/{}", n.addr, n.id), who).await
}

/// Wait for my turn after version `after`; returns that update (or snapshot).
async fn my_turn(c: &mut Client, after: u64) -> Value {
    c.wait_for(move |m| {
        (m["type"] == "update" || m["type"] == "snapshot")
            && m["v"].as_u64().is_some_and(|v| v > after)
            && m["view"]["turn"] == "S"
            && m["legal_moves"].as_object().is_some_and(|l| !l.is_empty())
    })
    .await
}

/// Make a legal move on my turn after version `after`; returns (from, to, acked version).
async fn play(c: &mut Client, room: &str, after: u64, k: usize) -> (String, String, u64) {
    let u = my_turn(c, after).await;
    let (from, to) = pick_move(&u["legal_moves"], k).expect("a legal move");
    let ack = c.act(json!({"type": "move", "room": room, "from": from, "to": to})).await;
    let ack = ack.unwrap_or_else(|e| panic!("move refused: {e}"));
    (from, to, ack["v"].as_u64().unwrap())
}

/// A practice game on node A; A is killed; B owns the game within 15 s, the player reconnects
/// to B, finds every acknowledged move and plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_killed_node_s_game_goes_on_on_another_node() {
    let app = spawn_app(Backend::Postgres).await;
    let who = account(&app, "cl").await;
    let mut a = node("a", &app.db_url);
    let mut b = node("b", &app.db_url);
    a.ready().await;
    b.ready().await;

    let mut p = connect(&a, &who).await;
    p.seats.insert('S');
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let (room, game) = (ack["room"].as_str().unwrap().to_string(), ack["game"].as_i64().unwrap());
    assert_eq!(b.owner_as(game, &who.2).await.as_deref(), Some("a"), "every node knows the owner");
    p.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut p).await;
    let mut acked = vec![];
    let mut v = 0;
    for k in 0..3 {
        let (from, to, at) = play(&mut p, &room, v, k).await;
        acked.push((from, to));
        v = at;
    }

    a.child.kill().unwrap(); // SIGKILL
    a.child.wait().unwrap();
    assert!(p.wait_closed().await != 1000, "the socket to the dead node is gone");
    let killed = Instant::now();
    while b.owner_as(game, &who.2).await.as_deref() != Some("b") {
        assert!(killed.elapsed() < Duration::from_secs(15), "B owns the game within 15 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // a socket for another node is refused
    let wrong = reqwest::get(b.url("/ws/n/a")).await.unwrap();
    assert_eq!(wrong.status(), 409);
    let mut p = connect(&b, &who).await;
    p.seats.insert('S');
    p.act(json!({"type": "join_room", "game": game, "v": v})).await.unwrap();
    let g = reqwest::Client::new().get(b.url(&format!("/api/games/{game}"))).bearer_auth(&who.2);
    let g: Value = g.send().await.unwrap().json().await.unwrap();
    let actions = g["public"]["actions"].as_array().unwrap();
    for (from, to) in &acked {
        assert!(
            actions.iter().any(|x| x["type"] == "move" && x["from"] == *from && x["to"] == *to),
            "acknowledged move {from}→{to} kept: {actions:?}"
        );
    }
    let room2 = format!("g{game}");
    play(&mut p, &room2, 0, 7).await;
    p.assert_no_hidden_ranks();
    drop(b);
}

/// A node whose game was claimed by another (its lease lost) cannot commit to that game: the
/// move is refused with `moved`, nothing is written, and the socket is closed with 4009.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_node_that_lost_the_lease_cannot_commit() {
    let app = spawn_app_with(Backend::Postgres, |c| {
        c.cluster.enabled = true;
        c.cluster.node_id = "old".into();
    })
    .await;
    let who = account(&app, "ll").await;
    let mut p = Client::connect(&app, &who).await;
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let (room, game) = (ack["room"].as_str().unwrap().to_string(), ack["game"].as_i64().unwrap());
    let node: Value =
        app.get_as(&format!("/api/games/{game}/node"), &who.2).await.json().await.unwrap();
    assert_eq!(node, json!({"node": "old", "path": "/ws/n/old"}));
    p.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut p).await;
    let (_, _, v) = play(&mut p, &room, 0, 1).await;
    let u = my_turn(&mut p, v).await;
    let db = app.state().db.clone();
    let count = |db: siguo::db::Db| async move {
        db.run(move |c| {
            use diesel::prelude::*;
            use siguo::db::schema::game_actions;
            Ok(game_actions::table
                .filter(game_actions::game_id.eq(game))
                .count()
                .get_result::<i64>(c)?)
        })
        .await
        .unwrap()
    };
    let before = count(db.clone()).await;
    // another node took the game over (as after this node's lease ran out)
    db.run(move |c| {
        use diesel::prelude::*;
        use siguo::db::schema::games;
        diesel::update(games::table.find(game)).set(games::node_id.eq("new")).execute(c)?;
        Ok(())
    })
    .await
    .unwrap();
    let (from, to) = pick_move(&u["legal_moves"], 0).unwrap();
    p.send(&json!({"type": "move", "id": 7001, "room": room, "from": from, "to": to})).await;
    // the room stops and closes its sockets, after the refusal: `moved`, naming the new owner
    assert_eq!(p.wait_closed().await, 4009, "the room's sockets are told it moved");
    let refusal: Vec<&Value> = p.frames.iter().filter(|f| f["id"] == 7001).collect();
    assert_eq!(refusal.len(), 1, "the move is answered before the close: {:?}", p.frames);
    let f = refusal[0];
    assert_eq!((&f["type"], &f["code"]), (&json!("error"), &json!("moved")), "{f}");
    assert_eq!((&f["node"], &f["path"]), (&json!("new"), &json!("/ws/n/new")), "{f}");
    assert_eq!(f["game"], game, "{f}");
    assert_eq!(count(db).await, before, "nothing written");
    // the node now sends newcomers to the owner
    let mut q = Client::connect(&app, &who).await;
    let e = q.expect_err(json!({"type": "join_room", "game": game}), "moved").await;
    assert!(e["message"].as_str().unwrap().contains("/ws/n/new"), "{e}");
}

/// Right after a node claims a game it does not play yet, `join_room` there answers the room
/// (restored at once), not `not_found` (issue 25 §5: the gap between a claim and its restore).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_claimed_game_is_joined_before_its_restore() {
    let app = spawn_app_with(Backend::Postgres, |c| {
        c.cluster.enabled = true;
        c.cluster.node_id = "a".into();
    })
    .await;
    let mut b = node("b", &app.db_url);
    b.ready().await;
    let who = account(&app, "cj").await;
    let mut p = Client::connect(&app, &who).await;
    p.seats.insert('S');
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let (room, game) = (ack["room"].as_str().unwrap().to_string(), ack["game"].as_i64().unwrap());
    p.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut p).await;
    let (_, _, v) = play(&mut p, &room, 0, 1).await;
    // node b claims the game (as after a's lease ran out): the row names b, b has not restored it
    app.state()
        .db
        .run(move |c| {
            use diesel::prelude::*;
            use siguo::db::schema::games;
            diesel::update(games::table.find(game)).set(games::node_id.eq("b")).execute(c)?;
            Ok(())
        })
        .await
        .unwrap();
    let mut q = connect(&b, &who).await;
    q.seats.insert('S');
    let ack = q.act(json!({"type": "join_room", "game": game, "v": v})).await;
    let ack = ack.unwrap_or_else(|e| panic!("joining the claimed game on b: {e}"));
    assert_eq!((&ack["room"], &ack["game"]), (&json!(format!("g{game}")), &json!(game)), "{ack}");
    // and it plays on there
    play(&mut q, &format!("g{game}"), 0, 3).await;
    q.assert_no_hidden_ranks();
    drop(b);
}

/// Single node: `/api/games/{id}/node` answers `local`, and `/ws/n/local` is the socket.
#[tokio::test]
async fn a_single_node_is_local() {
    let app = spawn_app(Backend::Sqlite).await;
    let who = account(&app, "sn").await;
    let mut p = Client::connect_url(app.ws_url("/ws/n/local"), &who).await;
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let game = ack["game"].as_i64().unwrap();
    let node: Value =
        app.get_as(&format!("/api/games/{game}/node"), &who.2).await.json().await.unwrap();
    assert_eq!(node, json!({"node": "local", "path": "/ws/n/local"}));
    assert_eq!(app.get("/api/games/999999/node").await.status(), 404);
    assert_eq!(app.get("/ws/n/other").await.status(), 409);
}

/// Three nodes started at the same moment on a new, empty database: one migrates while the others
/// wait (an advisory lock), one JWT secret is stored and shared (the others read it), every node
/// becomes ready, and a token issued by one node is accepted by another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_nodes_starting_together_on_a_new_database() {
    let (db_url, _db) =
        tokio::task::spawn_blocking(crate::support::fresh_postgres_db).await.unwrap();
    let mut ns = ["s1", "s2", "s3"].map(|id| node(id, &db_url));
    for n in ns.iter_mut() {
        n.ready().await;
    }
    let r = reqwest::Client::new()
        .post(ns[0].url("/api/auth/guest"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let s: Value = r.json().await.unwrap();
    let who = (
        s["account"]["username"].as_str().unwrap().to_string(),
        s["account"]["id"].as_i64().unwrap(),
        s["access_token"].as_str().unwrap().to_string(),
    );
    for n in &ns[1..] {
        connect(n, &who).await; // the hello names the account: the token is valid there
    }
}

/// Cluster mode on the embedded SQLite database: the server refuses to start (exit code 2).
#[test]
fn cluster_mode_refuses_sqlite() {
    let dir = std::env::temp_dir().join(format!("siguo_cl_{:08x}", rand::random::<u32>()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_siguo"))
        .arg("serve")
        .env("SIGUO_DATABASE_URL", format!("sqlite://{}/x.db", dir.display()))
        .env("SIGUO_CLUSTER_ENABLED", "true")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cluster.enabled needs PostgreSQL"), "{err}");
}
