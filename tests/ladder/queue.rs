//! Matchmaking queues over HTTP (real server, both backends): login required, guests refused,
//! join / status / leave, one queue at a time, and the same-IP rule. Clients get distinct source
//! addresses by binding to different loopback IPs (127.0.0.x), so the rule is exercised for real.

use crate::support::live::Client;
use crate::support::{
    error_code, spawn_app, spawn_app_with, unique_name, Backend, TestApp, GOOD_PASSWORD,
};
use serde_json::Value;
use std::net::IpAddr;

/// A new account whose client connects from `ip` (a loopback address), with its live socket
/// open (a queue entry lives only while one is).
async fn account_from(app: &TestApp, prefix: &str, ip: [u8; 4]) -> (reqwest::Client, Client) {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .local_address(IpAddr::from(ip))
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let s = app.register_with(&client, &unique_name(prefix), GOOD_PASSWORD).await;
    let who = (
        s["account"]["username"].as_str().unwrap().to_string(),
        s["account"]["id"].as_i64().unwrap(),
        s["access_token"].as_str().unwrap().to_string(),
    );
    (client, Client::connect(app, &who).await)
}

async fn call(client: &reqwest::Client, method: reqwest::Method, url: String) -> Value {
    let resp = client.request(method, &url).send().await.unwrap();
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(status, 200, "{url}: {body}");
    body
}

async fn login_required_and_guests_refused(backend: Backend) {
    let app = spawn_app(backend).await;
    let anon = reqwest::Client::new();
    for (m, path) in [
        (reqwest::Method::POST, "/api/queue/ranked"),
        (reqwest::Method::DELETE, "/api/queue/ranked"),
        (reqwest::Method::GET, "/api/queue/ranked"),
        (reqwest::Method::GET, "/api/queue"),
    ] {
        let r = anon.request(m.clone(), app.url(path)).send().await.unwrap();
        assert_eq!(error_code(r).await, (401, "unauthorized".into()), "{m} {path}");
    }
    let (guest, _) = app.new_guest().await;
    for ladder in ["ranked", "ranked_dual"] {
        let r = guest.post(app.url(&format!("/api/queue/{ladder}"))).send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "guest_not_allowed".into()));
    }
    let (user, _) = app.new_account("q").await;
    let r = user.post(app.url("/api/queue/blitz")).send().await.unwrap();
    assert_eq!(error_code(r).await, (400, "unknown_ladder".into()));
    // no socket open: no queue entry
    let r = user.post(app.url("/api/queue/ranked")).send().await.unwrap();
    assert_eq!(error_code(r).await, (409, "not_connected".into()));
    assert_eq!(call(&user, reqwest::Method::GET, app.url("/api/queue")).await["state"], "idle");
}

async fn join_status_leave_and_one_queue_at_a_time(backend: Backend) {
    let app = spawn_app(backend).await;
    let (a, _a_socket) = account_from(&app, "qa", [127, 0, 0, 11]).await;
    let joined = call(&a, reqwest::Method::POST, app.url("/api/queue/ranked")).await;
    assert_eq!(joined["state"], "waiting");
    assert_eq!(joined["ladder"], "ranked");
    assert_eq!(joined["waiting"], 1);
    assert!(joined["since"].as_str().is_some());
    assert!(joined["waited_seconds"].as_i64().unwrap() >= 0);
    // joining again is harmless and keeps the original time
    let again = call(&a, reqwest::Method::POST, app.url("/api/queue/ranked")).await;
    assert_eq!(again["since"], joined["since"]);
    assert_eq!(again["waiting"], 1);
    // the other queue: conflict, and nothing changes
    let r = a.post(app.url("/api/queue/ranked_dual")).send().await.unwrap();
    assert_eq!(error_code(r).await, (409, "already_queued".into()));
    let st = call(&a, reqwest::Method::GET, app.url("/api/queue/ranked")).await;
    assert_eq!((st["state"].as_str(), st["ladder"].as_str()), (Some("waiting"), Some("ranked")));
    assert_eq!(
        call(&a, reqwest::Method::GET, app.url("/api/queue")).await["since"],
        joined["since"]
    );
    // a second player (different address) joins ranked: still waiting, two in the queue
    let (b, _b_socket) = account_from(&app, "qb", [127, 0, 0, 12]).await;
    assert_eq!(call(&b, reqwest::Method::POST, app.url("/api/queue/ranked")).await["waiting"], 2);
    // leave; leaving twice is fine
    assert_eq!(
        call(&a, reqwest::Method::DELETE, app.url("/api/queue/ranked")).await["state"],
        "idle"
    );
    assert_eq!(
        call(&a, reqwest::Method::DELETE, app.url("/api/queue/ranked")).await["state"],
        "idle"
    );
    assert_eq!(call(&a, reqwest::Method::GET, app.url("/api/queue/ranked")).await["state"], "idle");
    assert_eq!(call(&b, reqwest::Method::GET, app.url("/api/queue/ranked")).await["waiting"], 1);
    // now a may join the other queue
    assert_eq!(
        call(&a, reqwest::Method::POST, app.url("/api/queue/ranked_dual")).await["ladder"],
        "ranked_dual"
    );
}

async fn same_ip_accounts_are_never_matched(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.ladder.tick_ms = 100).await;
    let (a, _a_socket) = account_from(&app, "ip", [127, 0, 0, 21]).await;
    let (b, _b_socket) = account_from(&app, "ip", [127, 0, 0, 21]).await;
    call(&a, reqwest::Method::POST, app.url("/api/queue/ranked_dual")).await;
    let st = call(&b, reqwest::Method::POST, app.url("/api/queue/ranked_dual")).await;
    assert_eq!((st["state"].as_str(), st["waiting"].as_i64()), (Some("waiting"), Some(2)));
    // several matcher ticks later they are both still waiting
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    for c in [&a, &b] {
        let st = call(c, reqwest::Method::GET, app.url("/api/queue/ranked_dual")).await;
        assert_eq!((st["state"].as_str(), st["waiting"].as_i64()), (Some("waiting"), Some(2)));
    }
}

both_backends!(
    login_required_and_guests_refused,
    join_status_leave_and_one_queue_at_a_time,
    same_ip_accounts_are_never_matched
);
