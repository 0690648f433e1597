//! A session ends on every node (issue 27 §1): three real `siguo serve` nodes on one PostgreSQL
//! behind HAProxy. A logout, a password change or a reused refresh token on one node is refused
//! on the others within about a second — the old access token (`401 token_revoked`), the
//! account's open sockets (closed with 4001) and new sockets opened with it — both when every
//! node hears the database's notices and when one node's notice connection is cut (it then
//! trusts its cache for `cluster.session_trust_ms` only and checks its sockets every second).
use crate::support::cluster::{Haproxy, Node};
use crate::support::live::{account, Client};
use crate::support::{error_code, spawn_app, Backend};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

type Who = (String, i64, String);

/// How long a logout may take to reach another node in these tests: the notices take
/// milliseconds, a node without them trusts its cache for one second and checks its sockets each
/// second; the rest is slack for a loaded machine.
const REACH: Duration = Duration::from_secs(3);

/// Nodes n1, n2, n3 on `db_url` (n2 with `n2_env`), and HAProxy before them.
async fn three_nodes(db_url: &str, n2_env: &[(&str, &str)]) -> ([Node; 3], Haproxy) {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut nodes = [("n1", &[][..]), ("n2", n2_env), ("n3", &[][..])]
        .map(|(id, env)| Node::start(bin, id, db_url, env));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    (nodes, lb)
}

/// A socket on node `n` with `token`, or the HTTP status its upgrade was refused with.
async fn socket(n: &Node, who: &Who, token: &str) -> Result<Client, u16> {
    let url = format!("ws://{}/ws/n/{}", n.addr, n.id);
    Client::try_connect_url(url, &(who.0.clone(), who.1, token.to_string())).await
}

/// `GET /api/auth/me` on node `n` with `token`: (status, error code or the username).
async fn me(n: &Node, token: &str) -> (u16, String) {
    let r =
        reqwest::Client::new().get(n.url("/api/auth/me")).bearer_auth(token).send().await.unwrap();
    if r.status() == 200 {
        let v: Value = r.json().await.unwrap();
        return (200, v["username"].as_str().unwrap_or_default().to_string());
    }
    error_code(r).await
}

/// Every node in `nodes` works for `who` with `token`: `me` answers, and a socket opens and
/// answers a ping. Returns the sockets.
async fn signed_in_on(nodes: &[&Node], who: &Who, token: &str) -> Vec<Client> {
    let mut sockets = vec![];
    for n in nodes {
        assert_eq!(me(n, token).await, (200, who.0.clone()), "{} knows the session", n.id);
        let mut s = socket(n, who, token).await.unwrap_or_else(|c| panic!("{}: {c}", n.id));
        answers(&mut s).await;
        sockets.push(s);
    }
    sockets
}

/// The socket answers a ping.
async fn answers(s: &mut Client) {
    s.send(&json!({"type": "ping", "id": 1})).await;
    s.wait_for(|m| m["type"] == "pong").await;
}

/// After a session ended on another node: each of `nodes` refuses `token` (`token_revoked`),
/// has closed `sockets` (4001) and refuses a new socket with it, within [`REACH`].
async fn ended_on(nodes: &[&Node], who: &Who, token: &str, sockets: Vec<Client>, since: Instant) {
    for n in nodes {
        loop {
            let (status, code) = me(n, token).await;
            if status == 401 {
                assert_eq!(code, "token_revoked", "{}", n.id);
                break;
            }
            assert!(since.elapsed() < REACH, "{} still accepts the old token", n.id);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(socket(n, who, token).await.err(), Some(401), "{}: a new socket", n.id);
    }
    for mut s in sockets {
        let closed = tokio::time::timeout(REACH, s.wait_closed()).await;
        assert_eq!(closed, Ok(4001), "the open socket is closed as a session that ended");
    }
    assert!(since.elapsed() < REACH + Duration::from_secs(1), "{:?}", since.elapsed());
}

/// POST `path` on node `n` with `token` and `body`; the status.
async fn post(n: &Node, path: &str, token: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(n.url(path))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// Logout and password change on n1 end the session on n2 and n3: with every node listening,
/// and again with n2's notice connection cut (`n2_env`).
async fn sessions_end_everywhere(n2_env: &[(&str, &str)]) {
    let app = spawn_app(Backend::Postgres).await;
    let (nodes, _lb) = three_nodes(&app.db_url, n2_env).await;
    let [a, b, c] = &nodes;

    // a logout on n1
    let who = account(&app, "so").await;
    let sockets = signed_in_on(&[a, b, c], &who, &who.2).await;
    let (status, _) = post(a, "/api/auth/logout", &who.2, json!({})).await;
    assert_eq!(status, 204);
    let since = Instant::now();
    ended_on(&[a, b, c], &who, &who.2, sockets, since).await;

    // a password change on n1: the old token ends everywhere, the new session works everywhere
    let who = account(&app, "sp").await;
    let sockets = signed_in_on(&[a, b, c], &who, &who.2).await;
    let change = json!({"current_password": crate::support::GOOD_PASSWORD, "new_password": "a new and long password 2"});
    let (status, session) = post(a, "/api/auth/password", &who.2, change).await;
    assert_eq!(status, 200, "{session}");
    let since = Instant::now();
    ended_on(&[a, b, c], &who, &who.2, sockets, since).await;
    let fresh = session["access_token"].as_str().unwrap().to_string();
    let mut open = signed_in_on(&[b, c], &who, &fresh).await;
    // the new session's sockets stay open
    answers(&mut open[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_logout_or_password_change_ends_the_session_on_every_node() {
    sessions_end_everywhere(&[]).await;
}

/// n2 never hears the notices (its notice connection points at a port where nothing listens):
/// it still refuses the old token and closes the sockets, from its bounded cache and its
/// once-a-second check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_node_without_notices_still_ends_the_session() {
    let nowhere =
        format!("postgres://postgres@127.0.0.1:{}/nowhere", crate::support::cluster::free_port());
    sessions_end_everywhere(&[("SIGUO_CLUSTER_LISTEN_URL", nowhere.as_str())]).await;
}

/// A refresh token used twice (stolen) on n1 ends every access token of the account on n2 too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_reused_refresh_token_ends_the_session_on_every_node() {
    let app = spawn_app(Backend::Postgres).await;
    let (nodes, _lb) = three_nodes(&app.db_url, &[]).await;
    let [a, b, _] = &nodes;
    let name = crate::support::unique_name("sr");
    let client = crate::support::new_client();
    let (session, refresh) =
        app.register_session(&client, &name, crate::support::GOOD_PASSWORD).await;
    let who: Who = (
        name,
        session["account"]["id"].as_i64().unwrap(),
        session["access_token"].as_str().unwrap().to_string(),
    );
    let sockets = signed_in_on(&[b], &who, &who.2).await;
    let use_refresh = || {
        reqwest::Client::new()
            .post(a.url("/api/auth/refresh"))
            .header("cookie", format!("siguo_refresh={refresh}"))
            .send()
    };
    assert_eq!(use_refresh().await.unwrap().status(), 200, "the first use rotates");
    let (status, code) = error_code(use_refresh().await.unwrap()).await;
    assert_eq!((status, code.as_str()), (401, "refresh_reused"));
    ended_on(&[a, b], &who, &who.2, sockets, Instant::now()).await;
}
