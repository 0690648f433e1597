//! Three `siguo serve` nodes on one PostgreSQL behind a real HAProxy running the shipped
//! deploy/haproxy.cfg. Four players meet in a casual room through the load balancer, play, and
//! the node that owns their game is killed with SIGKILL in the middle of the battle: within 15 s
//! another node owns the game, every player reconnects through HAProxy, no acknowledged move is
//! lost or doubled, and the game is played to its end.
use crate::support::cluster::{Haproxy, Node};
use crate::support::live::{account, assert_ended, pick_move, wait_battle, wait_over, Client};
use crate::support::{spawn_app, Backend};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

type Who = (String, i64, String);

async fn three_nodes(db_url: &str) -> [Node; 3] {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut nodes = ["n1", "n2", "n3"].map(|id| Node::start(bin, id, db_url, &[]));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    nodes
}

/// A socket through the load balancer at `path` (`/api/ws` or `/ws/n/{node}`).
async fn via(lb: &Haproxy, path: &str, who: &Who) -> Client {
    Client::connect_url(lb.ws_url(path), who).await
}

/// The battle state at version `at` or later, as client `c` sees it (nobody moves meanwhile: the
/// latest state received, or the next one).
async fn state_from(c: &mut Client, at: u64) -> Value {
    let fits = move |m: &Value| {
        (m["type"] == "update" || m["type"] == "snapshot")
            && m["v"].as_u64().is_some_and(|v| v >= at)
            && m["view"]["turn"].is_string()
    };
    match c.frames.iter().rev().find(|m| m["type"] == "update" || m["type"] == "snapshot") {
        Some(m) if fits(m) => m.clone(),
        _ => c.wait_for(fits).await,
    }
}

/// Play `n` moves from version `v` on, each by whoever's turn it is; returns the acknowledged
/// moves and the last version.
async fn play_moves(
    cs: &mut [Client],
    room: &str,
    mut v: u64,
    n: usize,
) -> (Vec<(String, String)>, u64) {
    let mut acked = vec![];
    for k in 0..n {
        let s = state_from(&mut cs[0], v).await;
        let turn = s["view"]["turn"].as_str().unwrap().chars().next().unwrap();
        let sv = s["v"].as_u64().unwrap();
        let mover = cs.iter().position(|c| c.seats.contains(&turn)).unwrap();
        let u = if mover == 0 {
            s
        } else {
            cs[mover]
                .wait_for(move |m| {
                    (m["type"] == "update" || m["type"] == "snapshot")
                        && m["v"].as_u64() == Some(sv)
                })
                .await
        };
        eprintln!("move {k}: v {sv}, {turn} to move (client {mover})");
        let (from, to) = pick_move(&u["legal_moves"], k).expect("a legal move");
        let ack =
            cs[mover].act(json!({"type": "move", "room": room, "from": from, "to": to})).await;
        let ack = ack.unwrap_or_else(|e| panic!("move refused: {e}"));
        v = ack["v"].as_u64().unwrap();
        acked.push((from, to));
    }
    (acked, v)
}

/// SIGKILL the owner of `game`; wait (at most 15 s) until another node owns it; reconnect every
/// player through the load balancer to the new owner and resync from version `v` (`room` becomes
/// the restored room's name). Returns the new owner and the new clients.
#[allow(clippy::too_many_arguments)]
async fn fail_over(
    lb: &Haproxy,
    nodes: &mut [Node],
    owner: &str,
    game: i64,
    room: &mut String,
    mut cs: Vec<Client>,
    who: &[Who],
    v: u64,
) -> (String, Vec<Client>) {
    nodes.iter_mut().find(|n| n.id == owner).unwrap().kill9();
    for c in cs.iter_mut() {
        assert_ne!(c.wait_closed().await, 1000, "the socket to the dead node is gone");
    }
    let killed = Instant::now();
    let new_owner = loop {
        match lb.owner_as(game, &who[0].2).await {
            Some(o) if o != owner => break o,
            _ => {}
        }
        assert!(killed.elapsed() < Duration::from_secs(15), "another node owns the game in 15 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!("{new_owner} owns game {game} {:?} after the kill of {owner}", killed.elapsed());
    let mut back = vec![];
    for (i, old) in cs.iter().enumerate() {
        let mut c = via(lb, &format!("/ws/n/{new_owner}"), &who[i]).await;
        c.seats = old.seats.clone();
        let ack = c.act(json!({"type": "join_room", "game": game, "v": v})).await.expect("rejoin");
        // a restored room is named after its game
        *room = ack["room"].as_str().expect("the rejoined room").to_string();
        back.push(c);
    }
    (new_owner, back)
}

/// The game's record, read through the load balancer; its moves must be exactly `acked`, in
/// order (none lost, none doubled).
async fn record(lb: &Haproxy, game: i64, acked: &[(String, String)], who: &Who) -> Value {
    let url = lb.url(&format!("/api/games/{game}"));
    let g = reqwest::Client::new().get(url).bearer_auth(&who.2).send().await.unwrap();
    let g: Value = g.json().await.unwrap();
    let moves: Vec<(String, String)> = g["record"]["actions"]
        .as_array()
        .unwrap_or_else(|| panic!("the game's actions: {g}"))
        .iter()
        .filter(|a| a["type"] == "move")
        .map(|a| (a["from"].as_str().unwrap().to_string(), a["to"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(moves, acked, "every acknowledged move, once, in order");
    g
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_three_nodes_a_casual_game_survives_its_owner_s_sigkill() {
    let app = spawn_app(Backend::Postgres).await;
    let mut nodes = three_nodes(&app.db_url).await;
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    let mut who = vec![];
    for p in ["hn", "he", "hs", "hw"] {
        who.push(account(&app, p).await);
    }

    // The room is made on node n2 (its sockets reach it through the load balancer at
    // `/ws/n/n2`); the three others join it there by its invite code.
    let path = "/ws/n/n2";
    let mut cs = vec![];
    let (mut room, mut invite) = (String::new(), String::new());
    for (i, seat) in ["N", "E", "S", "W"].iter().enumerate() {
        let mut c = via(&lb, path, &who[i]).await;
        if i == 0 {
            let ack = c
                .act(json!({"type": "create_room", "public": false, "options": {"move_seconds": 120}}))
                .await
                .expect("create_room");
            room = ack["room"].as_str().unwrap().to_string();
            invite = ack["invite"].as_str().expect("a private room's invite").to_string();
        } else {
            c.act(json!({"type": "join_room", "invite": invite})).await.expect("join by invite");
        }
        c.act(json!({"type": "take_seat", "room": room, "seat": seat})).await.expect("take_seat");
        c.seats.insert(seat.chars().next().unwrap());
        cs.push(c);
    }
    for c in cs.iter_mut() {
        c.act(json!({"type": "ready", "room": room, "ready": true})).await.expect("ready");
    }
    let mut game = 0;
    for c in cs.iter_mut() {
        let snap = c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        game = snap["game"].as_i64().expect("the snapshot names the game");
    }
    eprintln!("game {game} deploying");
    let owner =
        lb.owner_as(game, &who[0].2).await.expect("the owner, asked through the load balancer");
    assert_eq!(owner, "n2");
    for c in cs.iter_mut() {
        c.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    }
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
    eprintln!("battle");
    let start = cs[0].last_state()["v"].as_u64().unwrap();
    let (mut acked, v) = play_moves(&mut cs, &room, start, 6).await;

    // SIGKILL the owner in the middle of the battle; everyone follows the game to its new owner.
    let (_, mut cs) = fail_over(&lb, &mut nodes, &owner, game, &mut room, cs, &who, v).await;
    cs.iter_mut().for_each(|c| c.hidden_front = true);
    let (more, _) = play_moves(&mut cs, &room, 0, 4).await;
    acked.extend(more);

    // North and South surrender: East–West win, and the game is over on every socket.
    cs[0].act(json!({"type": "surrender", "room": room})).await.expect("N surrenders");
    cs[2].act(json!({"type": "surrender", "room": room})).await.expect("S surrenders");
    let won = json!({"state": "won", "winner": "EW", "reason": "elimination"});
    for c in cs.iter_mut() {
        let over = wait_over(c).await;
        assert_ended(c, &over, won.clone(), &[]);
    }

    // The record, read through the load balancer: every acknowledged move once, in order.
    let g = record(&lb, game, &acked, &who[0]).await;
    assert!(g["finished_at"].is_string(), "the game is over in the record: {g}");
    assert_eq!(g["result"], json!({"reason": "elimination", "state": "won", "winner": "EW"}));
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

/// Three nodes with the test queue settings (they trust HAProxy's `X-Forwarded-For`, as the
/// harness starts every node), behind HAProxy.
async fn queue_cluster(db_url: &str) -> ([Node; 3], Haproxy) {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let env = &crate::cluster_queue::QUEUE_ENV;
    let mut nodes = ["n1", "n2", "n3"].map(|id| Node::start(bin, id, db_url, env));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    (nodes, lb)
}

/// Each of `lobbies` joins `ladder`'s queue through HAProxy, the i-th from 127.0.0.`first + i`.
async fn queue_all(lb: &Haproxy, lobbies: &[Client], ladder: &str, first: u8) {
    for (i, c) in lobbies.iter().enumerate() {
        let r = http_from(first + i as u8)
            .post(lb.url(&format!("/api/queue/{ladder}")))
            .bearer_auth(&c.token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

/// An HTTP client connecting from loopback address 127.0.0.`ip` (HAProxy passes it on in
/// `X-Forwarded-For`; the nodes trust HAProxy, so the same-address rule of the queue sees
/// four players).
pub fn http_from(ip: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, ip]))
        .build()
        .unwrap()
}

/// The headline of issue 18. Three nodes behind HAProxy; four players whose lobby sockets are on
/// different nodes queue for ranked through the load balancer, are matched into one game, deploy
/// and play on its owner; the owner is killed with SIGKILL in the middle of the battle. Within
/// 15 s another node owns the game, every player reconnects through HAProxy, no acknowledged
/// move is lost, the game is played to its end, and the points are applied exactly once (and
/// the forced disconnection is not an escape). The old owner, restarted, does not take the game
/// back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_a_ranked_game_survives_its_owner_s_sigkill_and_scores_once() {
    let app = spawn_app(Backend::Postgres).await;
    let (mut nodes, lb) = queue_cluster(&app.db_url).await;
    let mut who = vec![];
    let mut lobbies = vec![];
    for i in 0..4 {
        who.push(account(&app, "hr").await);
        // lobby sockets on n1, n2, n3, n1, through the load balancer
        lobbies.push(via(&lb, &format!("/ws/n/n{}", i % 3 + 1), &who[i]).await);
    }
    let (mut room, game, owner, mut cs) = ranked_through(&lb, &mut lobbies, &who).await;
    who = cs.iter().map(|c| (c.name.clone(), c.account_id, c.token.clone())).collect();
    let start = cs[0].last_state()["v"].as_u64().unwrap();
    let (mut acked, v) = play_moves(&mut cs, &room, start, 8).await;

    let (new_owner, mut cs) =
        fail_over(&lb, &mut nodes, &owner, game, &mut room, cs, &who, v).await;
    let dead = nodes.iter().position(|n| n.id == owner).unwrap();
    // The old owner comes back: it does not take the game back, and sends its players on.
    let t = Instant::now();
    nodes[dead].restart();
    nodes[dead].ready().await;
    eprintln!("restarted {owner} in {:?}", t.elapsed());
    lb.wait_routed(&owner).await;
    eprintln!("routed to {owner} in {:?}", t.elapsed());
    let mut stray = via(&lb, &format!("/ws/n/{owner}"), &who[0]).await;
    let e = stray.expect_err(json!({"type": "join_room", "game": game}), "moved").await;
    assert!(e["message"].as_str().unwrap().contains(&format!("/ws/n/{new_owner}")), "{e}");
    assert_eq!(lb.owner(game).await.as_deref(), Some(new_owner.as_str()));
    let (more, _) = play_moves(&mut cs, &room, 0, 4).await;
    acked.extend(more);

    // East and West surrender: North–South win.
    let e = cs.iter().position(|c| c.seats.contains(&'E')).unwrap();
    let w = cs.iter().position(|c| c.seats.contains(&'W')).unwrap();
    cs[e].act(json!({"type": "surrender", "room": room})).await.expect("E surrenders");
    cs[w].act(json!({"type": "surrender", "room": room})).await.expect("W surrenders");
    let won = json!({"state": "won", "winner": "NS", "reason": "elimination"});
    for c in cs.iter_mut() {
        let over = wait_over(c).await;
        assert_ended(c, &over, won.clone(), &[]);
    }

    record(&lb, game, &acked, &who[0]).await;

    points_once(nodes.iter().filter(|n| n.id != owner), &cs).await;
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

/// The four lobby clients queue for ranked through the load balancer (from four addresses),
/// accept the one match, and every player joins its game on the owner named by `match_found`
/// (through the load balancer), deploys and sees the battle start. Returns (room, game, owner,
/// the game's clients, North's first so that `play_moves` reads turns from one seat).
async fn ranked_through(
    lb: &Haproxy,
    lobbies: &mut [Client],
    who: &[Who],
) -> (String, i64, String, Vec<Client>) {
    queue_all(lb, lobbies, "ranked", 90).await;
    crate::cluster_queue::answer(lobbies, None).await;
    let mut found = None;
    let mut seats = vec![];
    for c in lobbies.iter_mut() {
        let m = c.next_of("match_found").await;
        let here = (m["room"].as_str().unwrap().to_string(), m["game"].as_i64().unwrap());
        let node = m["node"].as_str().unwrap().to_string();
        assert!(found.is_none() || found == Some((here.clone(), node.clone())), "one game: {m}");
        found = Some((here, node));
        seats.push(m["seats"].as_array().unwrap().clone());
    }
    let ((room, game), owner) = found.unwrap();
    assert_eq!(lb.owner(game).await.as_deref(), Some(owner.as_str()));
    let mut cs = vec![];
    for (i, s) in seats.iter().enumerate() {
        let mut c = via(lb, &format!("/ws/n/{owner}"), &who[i]).await;
        c.seats = s.iter().map(|s| s.as_str().unwrap().chars().next().unwrap()).collect();
        c.act(json!({"type": "join_room", "room": room})).await.expect("join the ranked room");
        c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        cs.push(c);
    }
    for c in cs.iter_mut() {
        for s in c.seats.clone() {
            let confirm = json!({"type": "confirm", "room": room, "seat": s.to_string()});
            c.act(confirm).await.expect("confirm");
        }
    }
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
    cs.sort_by_key(|c| !c.seats.contains(&'N'));
    (room, game, owner, cs)
}

/// The points of a game North–South won after East and West surrendered, applied once: the
/// winners +3, the others 0 with one surrender, nobody escaped — the same from each of `nodes`,
/// and again after a moment (nothing is applied twice).
async fn points_once<'a>(nodes: impl Iterator<Item = &'a Node> + Clone, cs: &[Client]) {
    for round in 0..2 {
        for n in nodes.clone() {
            let board: Value = reqwest::get(n.url("/api/leaderboard/ranked?per_page=10"))
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let rows = board["rows"].as_array().unwrap();
            assert_eq!(rows.len(), 4, "{board}");
            for c in cs {
                let r = rows.iter().find(|r| r["account_id"] == c.account_id).unwrap();
                let won = c.seats.contains(&'N') || c.seats.contains(&'S');
                let expect = if won { json!([3, 1, 1, 0, 0]) } else { json!([0, 1, 0, 1, 0]) };
                let got =
                    json!([r["points"], r["games"], r["wins"], r["surrenders"], r["escapes"]]);
                assert_eq!(got, expect, "node {} round {round}: {r}", n.id);
            }
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
}

/// Issue 29: Hidden Front's rated ladder in a cluster. Two players whose lobby sockets are on two
/// different nodes queue for `hf_ranked` through HAProxy, accept, and play on the game's owner;
/// the owner is killed with SIGKILL mid-battle; another node takes the game over, both reconnect
/// through HAProxy, nothing acknowledged is lost, South surrenders, and the ratings are applied
/// exactly once (the same from every live node, and again a moment later).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_a_hidden_front_rated_game_survives_its_owner_s_sigkill_and_rates_once() {
    let app = spawn_app(Backend::Postgres).await;
    let (mut nodes, lb) = queue_cluster(&app.db_url).await;
    let who = [account(&app, "hc").await, account(&app, "hc").await];
    let mut lobbies = vec![];
    for (i, w) in who.iter().enumerate() {
        let mut c = via(&lb, &format!("/ws/n/n{}", i + 1), w).await;
        c.hidden_front = true;
        lobbies.push(c);
    }
    queue_all(&lb, &lobbies, "hf_ranked", 95).await;
    crate::cluster_queue::answer(&mut lobbies, None).await;
    let mut found = None;
    let mut seats = vec![];
    for c in lobbies.iter_mut() {
        let m = c.next_of("match_found").await;
        assert_eq!(m["kind"], "hf_ranked");
        let here = (m["room"].as_str().unwrap().to_string(), m["game"].as_i64().unwrap());
        let node = m["node"].as_str().unwrap().to_string();
        assert!(found.is_none() || found == Some((here.clone(), node.clone())), "one game: {m}");
        found = Some((here, node));
        seats.push(m["seats"][0].as_str().unwrap().chars().next().unwrap());
    }
    let ((mut room, game), owner) = found.unwrap();
    let mut cs = vec![];
    for (i, seat) in seats.iter().enumerate() {
        let mut c = via(&lb, &format!("/ws/n/{owner}"), &who[i]).await;
        (c.hidden_front, c.seats) = (true, [*seat].into());
        c.act(json!({"type": "join_room", "room": room})).await.expect("join the rated room");
        c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        c.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
        cs.push(c);
    }
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
    // South first: it moves first, and `play_moves` reads the turns from the first client
    let order: Vec<usize> = if seats[0] == 'S' { vec![0, 1] } else { vec![1, 0] };
    let who: Vec<Who> = order.iter().map(|&i| who[i].clone()).collect();
    cs.sort_by_key(|c| !c.seats.contains(&'S'));
    let start = cs[0].last_state()["v"].as_u64().unwrap();
    let (mut acked, v) = play_moves(&mut cs, &room, start, 6).await;

    let (_, mut cs) = fail_over(&lb, &mut nodes, &owner, game, &mut room, cs, &who, v).await;
    cs.iter_mut().for_each(|c| c.hidden_front = true);
    let (more, _) = play_moves(&mut cs, &room, 0, 4).await;
    acked.extend(more);
    let south = cs.iter().position(|c| c.seats.contains(&'S')).unwrap();
    cs[south].act(json!({"type": "surrender", "room": room})).await.expect("S surrenders");
    let won = json!({"state": "won", "winner": "N", "reason": "surrender"});
    let mut results = vec![];
    for c in cs.iter_mut() {
        let over = wait_over(c).await;
        assert_ended(c, &over, won.clone(), &[]);
        c.assert_no_hidden_ranks();
        results.push(over["results"].clone());
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(
        (results[0]["S"]["outcome"].as_str(), results[0]["N"]["outcome"].as_str()),
        (Some("surrender"), Some("win"))
    );
    record(&lb, game, &acked, &who[0]).await;

    // rated once: one game, one history point, the same rating, from every live node, twice
    for round in 0..2 {
        for n in nodes.iter().filter(|n| n.id != owner) {
            for c in &cs {
                let seat = c.seats.iter().next().unwrap().to_string();
                let p: Value = reqwest::get(n.url(&format!("/api/profiles/{}", c.name)))
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                let row = &p["hf_ranked"];
                let hist = p["rating_history"].as_array().unwrap();
                assert_eq!(
                    (row["games"].as_i64(), hist.len()),
                    (Some(1), 1),
                    "{} {round}: {p}",
                    n.id
                );
                assert_eq!(
                    row["rating"], results[0][&seat]["rating"],
                    "node {} round {round}",
                    n.id
                );
                assert_eq!(hist[0]["game_id"].as_i64(), Some(game));
            }
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
}
