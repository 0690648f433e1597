//! Issue 27 across three nodes behind HAProxy (deploy/haproxy.cfg): a WebSocket ticket issued
//! by one node opens a socket on another, once (tickets live in PostgreSQL); a private game is
//! named — `moved`, `GET /api/games/{id}/node` — only to its players, and anyone else gets the
//! answer of a game that does not exist.
use crate::cluster_rooms::three_nodes;
use crate::support::live::{account, ticket, Client};
use crate::support::{spawn_app, Backend};
use serde_json::{json, Value};

/// The upgrade's HTTP status (101 when it opened).
async fn upgrade_status(url: &str) -> u16 {
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => r.status().as_u16(),
        Err(e) => panic!("{url}: {e}"),
    }
}

/// `GET url` (as `token`): status and body.
pub(crate) async fn get(url: String, token: Option<&str>) -> (u16, Value) {
    let mut req = reqwest::Client::new().get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_tickets_and_private_games_across_nodes() {
    let app = spawn_app(Backend::Postgres).await;
    let (nodes, lb) = three_nodes(&app.db_url).await;
    let who = account(&app, "ct").await;

    // a ticket issued by n1 opens a socket on n2 through the balancer, and only once
    let t = ticket(&nodes[0].url(""), &who.2).await;
    assert_eq!(upgrade_status(&lb.ws_url(&format!("/ws/n/n2?ticket={t}"))).await, 101);
    assert_eq!(upgrade_status(&lb.ws_url(&format!("/ws/n/n3?ticket={t}"))).await, 401);
    assert_eq!(upgrade_status(&lb.ws_url(&format!("/api/ws?token={}", who.2))).await, 400);

    // a practice game on n1
    let mut p = Client::connect_url(lb.ws_url("/ws/n/n1"), &who).await;
    let ack = p.act(json!({"type": "start_practice", "level": "random"})).await.unwrap();
    let game = ack["game"].as_i64().unwrap();
    let missing = game + 1_000_000;

    // its player, on another node, is sent to n1; a stranger is told it does not exist
    let mut back = Client::connect_url(lb.ws_url("/ws/n/n2"), &who).await;
    let moved = back.expect_err(json!({"type": "join_room", "game": game}), "moved").await;
    assert_eq!(moved["node"], "n1", "{moved}");
    let stranger = account(&app, "cs").await;
    let mut s = Client::connect_url(lb.ws_url("/ws/n/n2"), &stranger).await;
    for (by, key) in [(json!(game), "game"), (json!(format!("g{game}")), "room")] {
        let e = s.expect_err(json!({"type": "join_room", key: by}), "not_found").await;
        let absent = match key {
            "game" => json!(missing),
            _ => json!(format!("g{missing}")),
        };
        let a = s.expect_err(json!({"type": "join_room", key: absent}), "not_found").await;
        assert_eq!(e["message"], a["message"], "{e} / {a}");
    }

    // over HTTP through the balancer: the node and the game to the player only
    for (path, other) in [
        (format!("/api/games/{game}/node"), format!("/api/games/{missing}/node")),
        (format!("/api/rooms/g{game}/node"), format!("/api/rooms/g{missing}/node")),
        (format!("/api/games/{game}"), format!("/api/games/{missing}")),
    ] {
        for viewer in [None, Some(stranger.2.as_str())] {
            let seen = get(lb.url(&path), viewer).await;
            assert_eq!(seen.0, 404, "{path}: {}", seen.1);
            assert_eq!(seen, get(lb.url(&other), viewer).await, "{path}");
        }
        let (status, body) = get(lb.url(&path), Some(&who.2)).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    assert_eq!(lb.owner_as(game, &who.2).await.as_deref(), Some("n1"));
}
