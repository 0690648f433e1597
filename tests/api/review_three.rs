//! Issue 39, the third security review, where the attacker stands: through the shipped
//! deploy/haproxy.cfg, in front of three nodes (§1, §2) or one (§3, §4).
//!
//! 1. A private room's node is named by no lookup of its room id to anyone who is not its member:
//!    `GET /api/rooms/{room}/node` answers a stranger and an anonymous caller as for a room that
//!    does not exist, on every node, while the room waits and while its game is played.
//! 2. `join_room` of a private room by its id, sent to a node that does not run it, answers a
//!    stranger `not_found` (not `moved`); its members and an invited person (with the code) are
//!    sent on.
//! 3. A rematch counts against the room caps as every other start does (`too_many_rooms`).
//! 4. WebSocket tickets are limited per account and per address (429 `rate_limited` with
//!    `Retry-After`), for the cluster together, and used or expired ones do not stay.
use crate::cluster_privacy::get;
use crate::cluster_rooms::three_nodes;
use crate::support::cluster::{Haproxy, Node};
use crate::support::live::{account, is_over, wait_battle, Client};
use crate::support::{spawn_app, Backend};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

type Who = (String, i64, String);

/// A room id of the same shape that no node runs.
fn absent_like(room: &str) -> String {
    let last = room.chars().last().unwrap();
    let other = if last == 'a' { 'b' } else { 'a' };
    format!("{}{other}", &room[..room.len() - last.len_utf8()])
}

/// Every way to ask for `room`'s node — each node directly and the balancer (round robin, so
/// several times) — answers `viewer` 404 exactly as for `absent`.
async fn unknown_everywhere(nodes: &[Node; 3], lb: &Haproxy, room: &str, viewer: Option<&str>) {
    let absent = absent_like(room);
    let mut bases: Vec<String> = nodes.iter().map(|n| n.url("")).collect();
    bases.extend(std::iter::repeat_n(lb.url(""), 6));
    for base in bases {
        let seen = get(format!("{base}/api/rooms/{room}/node"), viewer).await;
        assert_eq!(seen.0, 404, "{base}: {room} named to {viewer:?}: {}", seen.1);
        let missing = get(format!("{base}/api/rooms/{absent}/node"), viewer).await;
        assert_eq!(seen, missing, "{base}: a private room answers as a missing one");
    }
}

/// Every way to ask for `room`'s node names `node` to the member `token`.
async fn known_everywhere(nodes: &[Node; 3], lb: &Haproxy, room: &str, token: &str) {
    let mut bases: Vec<String> = nodes.iter().map(|n| n.url("")).collect();
    bases.extend(std::iter::repeat_n(lb.url(""), 3));
    for base in bases {
        // the owner writes the shared row a moment after a change
        let mut last = (0, Value::Null);
        for _ in 0..50 {
            last = get(format!("{base}/api/rooms/{room}/node"), Some(token)).await;
            if last.0 == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(last, (200, json!({"node": "n1", "path": "/ws/n/n1"})), "{base}");
    }
}

/// `join_room {room}` on a lobby socket of n2 answers `stranger` as for a missing room.
async fn join_refused_as_missing(lb: &Haproxy, stranger: &Who, room: &str) {
    let mut s = Client::connect_url(lb.ws_url("/ws/n/n2"), stranger).await;
    let e = s.expect_err(json!({"type": "join_room", "room": room}), "not_found").await;
    let absent = absent_like(room);
    let a = s.expect_err(json!({"type": "join_room", "room": absent}), "not_found").await;
    assert_eq!(e["message"], a["message"], "{e} / {a}");
    assert!(!e.to_string().contains("n1"), "the owner is not named: {e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_a_private_room_id_names_no_node_to_strangers() {
    let app = spawn_app(Backend::Postgres).await;
    let (nodes, lb) = three_nodes(&app.db_url).await;
    let (host, stranger, friend) =
        (account(&app, "ph").await, account(&app, "ps").await, account(&app, "pf").await);

    let mut h = Client::connect_url(lb.ws_url("/ws/n/n1"), &host).await;
    let ack = h.act(json!({"type": "create_room", "public": false})).await.unwrap();
    let room = ack["room"].as_str().unwrap().to_string();
    let invite = ack["invite"].as_str().unwrap().to_string();

    // waiting: the host is told where it is from everywhere, nobody else
    known_everywhere(&nodes, &lb, &room, &host.2).await;
    unknown_everywhere(&nodes, &lb, &room, None).await;
    unknown_everywhere(&nodes, &lb, &room, Some(&stranger.2)).await;
    join_refused_as_missing(&lb, &stranger, &room).await;
    // the host's own lobby socket on another node is sent on; so is the invited friend
    let mut h2 = Client::connect_url(lb.ws_url("/ws/n/n2"), &host).await;
    let moved = h2.expect_err(json!({"type": "join_room", "room": room}), "moved").await;
    assert_eq!(moved["node"], "n1", "{moved}");
    let mut f = Client::connect_url(lb.ws_url("/ws/n/n3"), &friend).await;
    let moved = f.expect_err(json!({"type": "join_room", "invite": invite}), "moved").await;
    assert_eq!((&moved["node"], &moved["room"]), (&json!("n1"), &json!(room)), "{moved}");
    let mut f1 = Client::connect_url(lb.ws_url("/ws/n/n1"), &friend).await;
    f1.act(json!({"type": "join_room", "invite": invite})).await.expect("the friend joins");
    // admitted by the code, the friend is a member now: by the room id too
    known_everywhere(&nodes, &lb, &room, &friend.2).await;

    // in play: the host against three bots
    h.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.unwrap();
    for s in ["N", "E", "W"] {
        let bot = json!({"type": "add_bot", "room": room, "seat": s, "level": "random"});
        h.act(bot).await.unwrap();
    }
    h.seats.insert('S');
    h.act(json!({"type": "ready", "room": room, "ready": true})).await.unwrap();
    h.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
    h.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut h).await;
    known_everywhere(&nodes, &lb, &room, &host.2).await;
    unknown_everywhere(&nodes, &lb, &room, None).await;
    unknown_everywhere(&nodes, &lb, &room, Some(&stranger.2)).await;
    join_refused_as_missing(&lb, &stranger, &room).await;
    // and the stranger's `join_room` on the owner itself: the room refuses as a missing one
    let mut s1 = Client::connect_url(lb.ws_url("/ws/n/n1"), &stranger).await;
    s1.expect_err(json!({"type": "join_room", "room": room}), "not_found").await;
    h.assert_no_hidden_ranks();
}

/// One node in cluster mode behind the shipped HAProxy, with `env`.
async fn one_node(db_url: &str, env: &[(&str, &str)]) -> (Node, Haproxy) {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut n = Node::start(bin, "n1", db_url, env);
    n.ready().await;
    let lb = Haproxy::start(&[&n]).await;
    // the shipped configuration names three servers: wait until its health checks have marked
    // the two absent ones down (fall 2, inter 1 s), so that round robin reaches only n1
    let mut in_a_row = 0;
    for _ in 0..200 {
        let ok = reqwest::get(lb.url("/readyz")).await.is_ok_and(|r| r.status() == 200);
        in_a_row = if ok { in_a_row + 1 } else { 0 };
        if in_a_row >= 12 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(in_a_row >= 12, "HAProxy never routed only to n1");
    (n, lb)
}

/// A Hidden Front practice game against the random bot: its room.
async fn practice(c: &mut Client) -> Result<String, Value> {
    let start = json!({"type": "start_practice", "variant": "hidden_front", "level": "random"});
    let ack = c.act(start).await?;
    Ok(ack["room"].as_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_a_rematch_counts_against_the_room_caps() {
    let app = spawn_app(Backend::Postgres).await;
    // the review's setting: three rooms per address (and more per account)
    let env = [("SIGUO_LIVE_MAX_ROOMS_PER_IP", "3"), ("SIGUO_LIVE_MAX_ROOMS_PER_ACCOUNT", "10")];
    let (_n, lb) = one_node(&app.db_url, &env).await;
    let who = account(&app, "rm").await;
    let mut c = Client::connect_url(lb.ws_url("/api/ws"), &who).await;
    c.seats.insert('S');

    // three games played to their end (surrendered): they no longer count
    let mut finished = Vec::new();
    for _ in 0..3 {
        let room = practice(&mut c).await.expect("a practice game");
        c.act(json!({"type": "surrender", "room": room})).await.unwrap();
        let won = json!({"state": "won", "winner": "N", "reason": "surrender"});
        assert_eq!(over(&mut c, &room).await, won);
        finished.push(room);
    }
    // three open ones fill the address's places: a fourth start is refused
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(practice(&mut c).await.expect("a practice game"));
    }
    let e = practice(&mut c).await.expect_err("a fourth game");
    assert_eq!(e["code"], "too_many_rooms", "{e}");

    // so is a rematch of each finished game: nothing starts
    for room in &finished {
        c.expect_err(json!({"type": "rematch", "room": room}), "too_many_rooms").await;
    }
    let e = practice(&mut c).await.expect_err("still three open");
    assert_eq!(e["code"], "too_many_rooms", "{e}");

    // one open game ends: one rematch starts (its deployment), the next is refused
    c.act(json!({"type": "surrender", "room": open[0]})).await.unwrap();
    over(&mut c, &open[0]).await;
    let room = finished[0].clone();
    c.clear();
    c.act(json!({"type": "rematch", "room": room})).await.expect("a rematch in the freed place");
    c.wait_for(|m| {
        m["type"] == "snapshot" && m["room"] == room.as_str() && m["phase"] == "deploying"
    })
    .await;
    c.expect_err(json!({"type": "rematch", "room": finished[1]}), "too_many_rooms").await;
    let e = practice(&mut c).await.expect_err("three open again");
    assert_eq!(e["code"], "too_many_rooms", "{e}");
}

/// `POST /api/ws/ticket` at `base` as `token`: status, `Retry-After`, error code.
async fn ask_ticket(base: &str, token: &str) -> (u16, Option<u64>, String) {
    let r = reqwest::Client::new()
        .post(format!("{base}/api/ws/ticket"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let retry = r.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok());
    let body: Value = r.json().await.unwrap_or(Value::Null);
    (status, retry, body["error"]["code"].as_str().unwrap_or("").to_string())
}

/// Ask tickets as `token` until one is refused: how many were given, and the refusal.
async fn tickets_until_refused(base: &str, token: &str) -> (usize, (u16, Option<u64>, String)) {
    for n in 0..200 {
        let r = ask_ticket(base, token).await;
        if r.0 != 200 {
            return (n, r);
        }
    }
    panic!("200 tickets in a row were given");
}

/// The rows of `ws_tickets` (all nodes share the database).
async fn ticket_rows(app: &crate::support::TestApp) -> i64 {
    use diesel::prelude::*;
    use siguo::db::schema::ws_tickets;
    let url = app.db_url.clone();
    tokio::task::spawn_blocking(move || {
        let mut c = diesel::PgConnection::establish(&url).unwrap();
        ws_tickets::table.count().get_result::<i64>(&mut c).unwrap()
    })
    .await
    .unwrap()
}

/// Wait until `room`'s game is over; its status.
async fn over(c: &mut Client, room: &str) -> Value {
    let room = room.to_string();
    let end = c.wait_for(move |m| is_over(m) && m["room"] == room.as_str()).await;
    end["view"]["status"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_tickets_are_limited_per_account_and_address() {
    let app = spawn_app(Backend::Postgres).await;
    // the shipped limits (the test harness raises them for other tests)
    let env = [("SIGUO_LIMITS_TICKET_PER_ACCOUNT", "10"), ("SIGUO_LIMITS_TICKET_PER_IP", "30")];
    let (_n, lb) = one_node(&app.db_url, &env).await;
    let base = lb.url("");
    let a = account(&app, "ta").await;
    let mut others = Vec::new();
    for i in 0..4 {
        others.push(account(&app, &format!("t{i}")).await);
    }
    let b = account(&app, "tb").await;

    // a burst of 10, then 429 with the wait
    let (given, refused) = tickets_until_refused(&base, &a.2).await;
    assert_eq!(given, 10, "the burst per account");
    let (status, retry, code) = refused;
    assert_eq!((status, code.as_str()), (429, "rate_limited"));
    let wait = retry.expect("Retry-After");
    assert!((1..=5).contains(&wait), "Retry-After {wait}");
    // a refused request wrote nothing: ten rows
    assert_eq!(ticket_rows(&app).await, 10);
    // after the wait, one more
    tokio::time::sleep(Duration::from_secs(wait)).await;
    assert_eq!(ask_ticket(&base, &a.2).await.0, 200, "refilled");

    // per address: once its 30 are full again, four other accounts from the same address (10
    // each would be 40) share them
    tokio::time::sleep(Duration::from_secs(6)).await;
    let started = std::time::Instant::now();
    let mut given = 0;
    let mut refused = None;
    'asking: for _ in 0..10 {
        for o in &others {
            let r = ask_ticket(&base, &o.2).await;
            if r.0 != 200 {
                refused = Some(r);
                break 'asking;
            }
            given += 1;
        }
    }
    let (status, retry, code) = refused.expect("the address ran out");
    assert_eq!((status, code.as_str()), (429, "rate_limited"));
    assert!(retry.is_some(), "Retry-After");
    // 30 at once, and what refilled meanwhile (6 a second)
    let refill = (started.elapsed().as_secs_f64() * 6.0).ceil() as usize;
    assert!((30..=30 + refill).contains(&given), "{given} tickets from one address");
    assert!(given < 40, "each account had tickets left: the address limit refused");

    // a used ticket is gone at once, an expired one within its 30 s
    tokio::time::sleep(Duration::from_secs(6)).await;
    let before = ticket_rows(&app).await;
    let c = Client::connect_url(lb.ws_url("/api/ws"), &b).await;
    assert_eq!(ticket_rows(&app).await, before, "the used ticket was deleted");
    drop(c);
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(ask_ticket(&base, &b.2).await.0, 200);
    assert_eq!(ticket_rows(&app).await, 1, "only the new ticket is left");
}
