//! The ranked queues of a cluster, with real `siguo serve` nodes on one PostgreSQL: players whose
//! lobby sockets are on different nodes (and who queue over HTTP through yet other nodes) are
//! matched into one game; a decline sends the others back without penalty; every player learns
//! the game and its owner node from `match_found` and plays it through `/ws/n/{node}`; a queued
//! player whose node dies keeps its place by reconnecting to another node within the grace, and
//! loses it otherwise.
use crate::support::cluster::Node;
use crate::support::live::{account, pick_move, wait_battle, Client};
use crate::support::{spawn_app, Backend, TestApp};
use diesel::prelude::*;
use serde_json::{json, Value};
use siguo::db::schema::{games, queue_entries};
use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};

/// Quick matcher ticks; the rest as configured by default.
pub(crate) const QUEUE_ENV: [(&str, &str); 2] =
    [("SIGUO_LADDER_TICK_MS", "200"), ("SIGUO_LADDER_QUEUE_DISCONNECT_GRACE_MS", "3000")];

async fn nodes(app: &TestApp, ids: &[&'static str]) -> Vec<Node> {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut ns: Vec<Node> =
        ids.iter().map(|id| Node::start(bin, id, &app.db_url, &QUEUE_ENV)).collect();
    for n in ns.iter_mut() {
        n.ready().await;
    }
    ns
}

/// `who`'s lobby socket on node `n` (`/ws/n/{id}`).
async fn lobby(n: &Node, who: &(String, i64, String)) -> Client {
    Client::connect_url(format!("ws://{}/ws/n/{}", n.addr, n.id), who).await
}

/// A queue request for `c` to `node`, from loopback address `ip` (the same-IP rule stays on).
async fn queue(node: &Node, c: &Client, method: reqwest::Method, ladder: &str, ip: u8) -> Value {
    let http =
        reqwest::Client::builder().local_address(IpAddr::from([127, 0, 0, ip])).build().unwrap();
    let url = match ladder {
        "" => node.url("/api/queue"),
        l => node.url(&format!("/api/queue/{l}")),
    };
    let r = http.request(method, url).bearer_auth(&c.token).send().await.unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

async fn status(node: &Node, c: &Client) -> Value {
    queue(node, c, reqwest::Method::GET, "", 1).await
}

fn is_state(m: &Value) -> bool {
    m["type"] == "update" || m["type"] == "snapshot"
}

/// The state of version `v` as `c` saw it (its own view, with its legal moves).
async fn state_at(c: &mut Client, v: u64) -> Value {
    let at = |m: &Value| is_state(m) && m["v"].as_u64() == Some(v);
    if let Some(f) = c.frames.iter().rev().find(|m| at(m)) {
        return f.clone();
    }
    c.wait_for(at).await
}

/// Play `n` moves, each by the client whose seat has the turn; every move is acknowledged.
async fn play_moves(cs: &mut [Client], room: &str, n: usize) {
    let mut v = cs[0].last_state()["v"].as_u64().unwrap();
    for k in 0..n {
        let st = state_at(&mut cs[0], v).await;
        let turn = st["view"]["turn"].as_str().expect("a turn").chars().next().unwrap();
        let who = cs.iter().position(|c| c.seats.contains(&turn)).expect("a seated player");
        let mine = state_at(&mut cs[who], v).await;
        let (from, to) = pick_move(&mine["legal_moves"], k).expect("a legal move");
        let ack = cs[who].act(json!({"type": "move", "room": room, "from": from, "to": to})).await;
        v = ack.unwrap_or_else(|e| panic!("move refused: {e}"))["v"].as_u64().unwrap();
    }
}

/// Every client accepts (or, for `decliner`, declines) the one match proposed to them all.
/// Returns the match id.
pub(crate) async fn answer(cs: &mut [Client], decliner: Option<usize>) -> u64 {
    let (mut id, n) = (None, cs.len() as u64);
    for c in cs.iter_mut() {
        let p = c.next_of("match_proposed").await;
        assert!(id.is_none() || id == p["match_id"].as_u64(), "one match for all: {p}");
        id = p["match_id"].as_u64();
        assert_eq!(p["players"].as_u64(), Some(n), "{p}");
    }
    let id = id.unwrap();
    for (i, c) in cs.iter_mut().enumerate() {
        let ty = if decliner == Some(i) { "decline_match" } else { "accept_match" };
        c.act(json!({"type": ty, "match_id": id})).await.unwrap_or_else(|e| panic!("{ty}: {e}"));
    }
    id
}

/// Every client gets `match_found` for one game, owned by one node; each connects to that node
/// (`/ws/n/{node}`), joins the room and deploys. Returns (room, game id, owner, game clients).
async fn enter(ns: &[Node], cs: &mut [Client], kind: &str) -> (String, i64, String, Vec<Client>) {
    let mut found: Option<(String, i64, String)> = None;
    let mut seats = vec![];
    for c in cs.iter_mut() {
        let m = c.next_of("match_found").await;
        assert_eq!(m["kind"], kind);
        let here = (
            m["room"].as_str().unwrap().to_string(),
            m["game"].as_i64().unwrap(),
            m["node"].as_str().unwrap().to_string(),
        );
        assert!(found.is_none() || found.as_ref() == Some(&here), "one game for all: {m}");
        found = Some(here);
        seats.push(m["seats"].as_array().unwrap().clone());
    }
    let (room, game, owner) = found.unwrap();
    let node = ns.iter().find(|n| n.id == owner).expect("the owner is one of the nodes");
    for n in ns {
        assert_eq!(n.owner(game).await.as_deref(), Some(owner.as_str()), "every node knows it");
    }
    let mut players = vec![];
    for (c, seats) in cs.iter().zip(seats) {
        let who = (c.name.clone(), c.account_id, c.token.clone());
        let mut p = lobby(node, &who).await;
        p.seats = seats.iter().map(|s| s.as_str().unwrap().chars().next().unwrap()).collect();
        p.act(json!({"type": "join_room", "room": room})).await.expect("join the ranked room");
        let snap = p.wait_for(|m| m["type"] == "snapshot").await;
        assert_eq!(snap["phase"], "deploying");
        players.push(p);
    }
    for p in players.iter_mut() {
        for s in p.seats.clone() {
            let confirm = json!({"type": "confirm", "room": room, "seat": s.to_string()});
            p.act(confirm).await.expect("confirm");
        }
    }
    for p in players.iter_mut() {
        wait_battle(p).await;
    }
    (room, game, owner, players)
}

async fn ranked_games(app: &TestApp) -> i64 {
    app.state()
        .db
        .run(|c| Ok(games::table.filter(games::kind.eq("ranked")).count().get_result(c)?))
        .await
        .unwrap()
}

/// Four players, lobby sockets on three nodes, queueing through other nodes than their sockets'.
/// One declines: the others are back in the queue with their waiting time, the decliner is out
/// (one no-show: no cooldown). It queues again; all accept: exactly one game, which every
/// player joins on its owner node and plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_four_players_on_three_nodes_decline_then_play_one_ranked_game() {
    let app = spawn_app(Backend::Postgres).await;
    let ns = nodes(&app, &["qa", "qb", "qc"]).await;
    let mut cs = vec![];
    for i in 0..4 {
        let who = account(&app, "cq").await;
        cs.push(lobby(&ns[i % 3], &who).await);
    }
    let mut since = vec![];
    for (i, c) in cs.iter().enumerate() {
        let st = queue(&ns[(i + 1) % 3], c, reqwest::Method::POST, "ranked", 60 + i as u8).await;
        assert!(st["state"] == "waiting" || st["state"] == "proposed", "{st}");
        since.push(st["since"].clone());
    }
    let first = answer(&mut cs, Some(3)).await;
    for (i, c) in cs.iter_mut().enumerate() {
        let m = c.next_of("match_cancelled").await;
        assert_eq!((m["match_id"].as_u64(), &m["reason"]), (Some(first), &json!("declined")));
        assert_eq!(m["requeued"], i != 3, "{m}");
    }
    assert_eq!(status(&ns[2], &cs[3]).await["state"], "idle");
    for (i, c) in cs.iter().take(3).enumerate() {
        let st = status(&ns[i], c).await;
        assert_eq!((&st["state"], &st["since"]), (&json!("waiting"), &since[i]), "kept: {st}");
    }
    assert_eq!(ranked_games(&app).await, 0);

    // the decliner queues again (one no-show is no cooldown); this time everyone accepts
    let st = queue(&ns[0], &cs[3], reqwest::Method::POST, "ranked", 63).await;
    assert!(st["state"] == "waiting" || st["state"] == "proposed", "{st}");
    let second = answer(&mut cs, None).await;
    assert_ne!(first, second);
    let (room, game, owner, mut players) = enter(&ns, &mut cs, "ranked").await;
    assert_eq!(ranked_games(&app).await, 1, "exactly one game");
    for (i, c) in cs.iter().enumerate() {
        let st = status(&ns[(i + 2) % 3], c).await;
        assert_eq!((&st["state"], st["game_id"].as_i64()), (&json!("matched"), Some(game)));
    }
    play_moves(&mut players, &room, 6).await;
    for p in &players {
        p.assert_no_hidden_ranks();
    }
    let g: Value =
        reqwest::get(ns[0].url(&format!("/api/games/{game}"))).await.unwrap().json().await.unwrap();
    let moves = g["public"]["actions"].as_array().unwrap().iter().filter(|a| a["type"] == "move");
    assert!(moves.count() >= 6, "the moves were played on {owner}: {g}");
}

/// Ranked 1v1 dual with the two players on two nodes: one game, each holds both seats of a team.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_ranked_dual_on_two_nodes() {
    let app = spawn_app(Backend::Postgres).await;
    let ns = nodes(&app, &["da", "db"]).await;
    let mut cs = vec![];
    for (i, n) in ns.iter().enumerate() {
        let c = lobby(n, &account(&app, "cd").await).await;
        queue(&ns[1 - i], &c, reqwest::Method::POST, "ranked_dual", 70 + i as u8).await;
        cs.push(c);
    }
    answer(&mut cs, None).await;
    let (room, _game, _owner, mut players) = enter(&ns, &mut cs, "ranked_dual").await;
    assert_eq!(players[0].seats.len(), 2);
    assert!(players[0].seats.is_disjoint(&players[1].seats));
    play_moves(&mut players, &room, 4).await;
    for p in &players {
        p.assert_no_hidden_ranks();
    }
}

/// (offline since, waiting since) of an account's queue entry, if it has one.
type Entry = Option<(Option<chrono::NaiveDateTime>, chrono::NaiveDateTime)>;

async fn entry(app: &TestApp, account_id: i64) -> Entry {
    app.state()
        .db
        .run(move |c| {
            Ok(queue_entries::table
                .find(account_id)
                .select((queue_entries::offline_since, queue_entries::since))
                .first(c)
                .optional()?)
        })
        .await
        .unwrap()
}

/// Poll until `ok` holds for the entry (at most 30 s).
async fn until_entry(app: &TestApp, account_id: i64, ok: impl Fn(&Entry) -> bool) -> Entry {
    let start = Instant::now();
    loop {
        let e = entry(app, account_id).await;
        if ok(&e) {
            return e;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "entry of {account_id}: {e:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two players wait in the ranked queue with their sockets on node A; A is killed. One
/// reconnects to B after its entry was seen offline (within the grace): it keeps its place.
/// The other does not reconnect: its entry is dropped after the grace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_queued_player_of_a_killed_node_keeps_its_place_by_reconnecting_in_time() {
    let app = spawn_app(Backend::Postgres).await;
    let mut ns = nodes(&app, &["ka", "kb"]).await;
    let (x, y) = (account(&app, "ck").await, account(&app, "ck").await);
    let cx = lobby(&ns[0], &x).await;
    let cy = lobby(&ns[0], &y).await;
    let sx = queue(&ns[1], &cx, reqwest::Method::POST, "ranked", 81).await;
    queue(&ns[1], &cy, reqwest::Method::POST, "ranked", 82).await;
    let (_, x_since) = entry(&app, x.1).await.expect("x waits");
    assert!(entry(&app, y.1).await.is_some_and(|e| e.0.is_none()), "y waits, connected");

    ns[0].kill9(); // SIGKILL
    drop((cx, cy));
    // x's entry is seen offline (its node stopped renewing its presence), then x reconnects
    until_entry(&app, x.1, |e| e.is_some_and(|e| e.0.is_some())).await;
    let cx = lobby(&ns[1], &x).await;
    let e = until_entry(&app, x.1, |e| e.is_none_or(|e| e.0.is_none())).await;
    assert_eq!(e.map(|e| e.1), Some(x_since), "x kept its place");
    // y never came back: dropped after the grace
    until_entry(&app, y.1, |e| e.is_none()).await;
    let st = status(&ns[1], &cx).await;
    assert_eq!(
        (&st["state"], &st["since"], &st["waiting"]),
        (&json!("waiting"), &sx["since"], &json!(1))
    );
}

/// Declining twice through different nodes earns the decliner a queue cooldown on every node;
/// the player who accepted is back in the queue each time, without penalty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_repeated_declines_earn_a_cooldown_on_every_node() {
    let app = spawn_app(Backend::Postgres).await;
    let ns = nodes(&app, &["na", "nb"]).await;
    let a = lobby(&ns[0], &account(&app, "cn").await).await;
    let b = lobby(&ns[1], &account(&app, "cn").await).await;
    let mut cs = vec![a, b];
    let since =
        queue(&ns[0], &cs[0], reqwest::Method::POST, "ranked_dual", 91).await["since"].clone();
    for round in 0..2 {
        queue(&ns[round], &cs[1], reqwest::Method::POST, "ranked_dual", 92).await;
        answer(&mut cs, Some(1)).await;
        let m = cs[0].next_of("match_cancelled").await;
        assert_eq!(m["requeued"], true, "{m}");
        let st = status(&ns[1], &cs[0]).await;
        assert_eq!((&st["state"], &st["since"]), (&json!("waiting"), &since));
    }
    for n in &ns {
        let r = reqwest::Client::builder()
            .local_address(IpAddr::from([127, 0, 0, 92]))
            .build()
            .unwrap()
            .post(n.url("/api/queue/ranked_dual"))
            .bearer_auth(&cs[1].token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 429);
        assert!(r.headers().get("retry-after").is_some());
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "queue_cooldown", "{body}");
    }
    assert_eq!(status(&ns[0], &cs[1]).await["state"], "idle");
}
