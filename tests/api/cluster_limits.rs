//! Limits hold for the whole cluster (issue 27 §3): three real `siguo serve` nodes on one
//! PostgreSQL behind the shipped HAProxy, with small limits. Failed logins, registrations and
//! guest sessions per address, wrong invite codes, sockets per account and rooms per account are
//! counted for all nodes together (src/db/limits.rs): requests spread over the nodes get no more
//! than one node would give (before, each node counted alone: three times as many).
use crate::support::cluster::{Haproxy, Node};
use crate::support::live::{account, Client};
use crate::support::{error_code, spawn_app, unique_name, Backend, GOOD_PASSWORD};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

type Who = (String, i64, String);

/// The limits of these tests (small, so that three nodes each alone would pass them).
const LIMITS: [(&str, &str); 6] = [
    ("SIGUO_LIMITS_LOGIN_PER_ACCOUNT", "3"),
    ("SIGUO_LIMITS_REGISTER_PER_IP", "4"),
    ("SIGUO_LIMITS_GUEST_PER_IP", "4"),
    ("SIGUO_LIVE_INVITE_FAILURES_PER_ACCOUNT", "3"),
    ("SIGUO_LIVE_MAX_SOCKETS_PER_ACCOUNT", "4"),
    ("SIGUO_LIVE_MAX_ROOMS_PER_ACCOUNT", "2"),
];

async fn three_nodes(db_url: &str) -> ([Node; 3], Haproxy) {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut nodes = ["n1", "n2", "n3"].map(|id| Node::start(bin, id, db_url, &LIMITS));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    (nodes, lb)
}

/// A socket through HAProxy to node `node`, or the HTTP status its upgrade was refused with.
async fn socket(lb: &Haproxy, node: &str, who: &Who) -> Result<Client, u16> {
    let url = lb.ws_url(&format!("/ws/n/{node}"));
    Client::try_connect_url(url, who).await
}

/// POST `body` to `path` through HAProxy (round robin over the nodes): status and error code.
async fn post(lb: &Haproxy, path: &str, body: Value) -> (u16, String) {
    let r = reqwest::Client::new().post(lb.url(path)).json(&body).send().await.unwrap();
    if r.status().is_success() {
        return (r.status().as_u16(), String::new());
    }
    error_code(r).await
}

/// Send `make()` through HAProxy until it is refused: how many were accepted, and the refusal.
async fn until_refused(
    lb: &Haproxy,
    path: &str,
    make: impl Fn(usize) -> Value,
) -> (usize, (u16, String)) {
    for i in 0..20 {
        let (status, code) = post(lb, path, make(i)).await;
        if status == 429 {
            return (i, (status, code));
        }
    }
    panic!("{path}: never refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_limits_hold_for_the_whole_cluster() {
    let app = spawn_app(Backend::Postgres).await;
    let (_nodes, lb) = three_nodes(&app.db_url).await;

    // failed logins of one account, spread over the nodes: 3 in all, then 429
    let who = account(&app, "cl").await;
    let wrong = |_| json!({"username": who.0, "password": "not the password at all"});
    let (failed, refusal) = until_refused(&lb, "/api/auth/login", wrong).await;
    assert_eq!((failed, refusal), (3, (429, "rate_limited".into())), "failed logins");
    let right = json!({"username": who.0, "password": GOOD_PASSWORD});
    assert_eq!(post(&lb, "/api/auth/login", right).await.0, 429, "until the window passes");

    // registrations and guest sessions from one address
    let register = |_| json!({"username": unique_name("cr"), "password": GOOD_PASSWORD});
    assert_eq!(until_refused(&lb, "/api/auth/register", register).await.0, 4, "registrations");
    assert_eq!(until_refused(&lb, "/api/auth/guest", |_| json!({})).await.0, 4, "guests");

    // sockets of one account on every node together: 4, then 429; a closed one frees its place
    let who = account(&app, "cs").await;
    let mut open = vec![];
    for node in ["n1", "n2", "n3", "n1"] {
        open.push(socket(&lb, node, &who).await.unwrap_or_else(|s| panic!("{node}: {s}")));
    }
    for node in ["n2", "n3"] {
        assert_eq!(socket(&lb, node, &who).await.err(), Some(429), "a fifth socket on {node}");
    }
    open.remove(1).close().await;
    let since = Instant::now();
    loop {
        match socket(&lb, "n3", &who).await {
            Ok(s) => break open.push(s),
            Err(429) if since.elapsed() < Duration::from_secs(5) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(s) => panic!("the freed place was not given back: {s}"),
        }
    }

    // rooms and practice games of one account on every node together: 2, then too_many_rooms
    let who = account(&app, "cg").await;
    let mut held = vec![];
    for node in ["n1", "n2", "n3"] {
        let mut c = socket(&lb, node, &who).await.unwrap();
        let r = c.act(json!({"type": "start_practice", "level": "random"})).await;
        held.push((node, r.map(|_| ()).map_err(|e| e["code"].clone())));
    }
    let answers: Vec<_> = held.iter().map(|(n, r)| (*n, r.clone())).collect();
    assert_eq!(
        answers,
        [("n1", Ok(())), ("n2", Ok(())), ("n3", Err(json!("too_many_rooms")))],
        "practice games"
    );
    let mut c = socket(&lb, "n2", &who).await.unwrap();
    let r = c.act(json!({"type": "create_room", "public": true})).await;
    assert_eq!(r.err().map(|e| e["code"].clone()), Some(json!("too_many_rooms")), "a room");

    // wrong invite codes of one account on every node together: 3, then rate_limited
    let who = account(&app, "ci").await;
    let mut answers = vec![];
    for node in ["n1", "n2", "n3", "n1"] {
        let mut c = socket(&lb, node, &who).await.unwrap();
        let e = c.act(json!({"type": "join_room", "invite": "NOPE1234"})).await.unwrap_err();
        answers.push(e["code"].as_str().unwrap().to_string());
    }
    assert_eq!(answers, ["not_found", "not_found", "not_found", "rate_limited"], "invite codes");
}
