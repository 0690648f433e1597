//! Issue 27 §2: the client's address cannot be chosen by the client. Three `siguo serve` nodes
//! behind a real HAProxy running the shipped deploy/haproxy.cfg, the nodes trusting only
//! HAProxy's address (`server.trusted_proxies = ["127.0.0.1"]`, as deploy/README.md says). A
//! client sending `X-Forwarded-For`, `Forwarded`, `X-Forwarded-Host` or `X-Forwarded-Proto`
//! changes nothing: not who may read `/metrics`, not the login, registration, guest and socket
//! limits, not the Origin check, not the ranked same-address rule. The clients come from real,
//! distinct loopback addresses (127.0.0.x, bound with reqwest's `local_address`).
use crate::cluster_haproxy::http_from;
use crate::support::cluster::{Haproxy, Node};
use crate::support::live::{account, bearer_request, Client};
use crate::support::{error_code, spawn_app, unique_name, Backend, GOOD_PASSWORD};
use reqwest::Method;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Three nodes (with `env`) and HAProxy in front of them.
async fn cluster(db_url: &str, env: &[(&str, &str)]) -> ([Node; 3], Haproxy) {
    let bin = Path::new(env!("CARGO_BIN_EXE_siguo"));
    let mut nodes = ["n1", "n2", "n3"].map(|id| Node::start(bin, id, db_url, env));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    (nodes, lb)
}

/// What an attacker adds to a request: the `i`-th made-up client address, in every header a
/// proxy might read, and a made-up host and scheme.
fn spoofed(r: reqwest::RequestBuilder, i: usize) -> reqwest::RequestBuilder {
    let ip = format!("198.51.100.{}", i % 250 + 1);
    r.header("X-Forwarded-For", &ip)
        .header("Forwarded", format!("for={ip};host=evil.example;proto=https"))
        .header("X-Real-IP", &ip)
}

/// `n` attempts of `send` (each with another spoofed address): exactly `limit` pass (the limits
/// hold for the whole cluster, issue 27 §3), the others are refused with 429. Returns the
/// statuses.
async fn rotating(
    what: &str,
    n: usize,
    pass: u16,
    limit: usize,
    send: impl AsyncFn(usize) -> reqwest::Response,
) -> Vec<u16> {
    let mut statuses = vec![];
    for i in 0..n {
        statuses.push(send(i).await.status().as_u16());
    }
    let passed = statuses.iter().filter(|s| **s == pass).count();
    assert_eq!(passed, limit, "{what}: passed with rotating addresses: {statuses:?}");
    assert!(statuses[limit..].iter().all(|s| *s == 429), "{what}: then refused: {statuses:?}");
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_spoofed_forwarded_headers_choose_no_address() {
    let app = spawn_app(Backend::Postgres).await;
    let env = [
        ("SIGUO_LIMITS_LOGIN_PER_ACCOUNT", "3"),
        ("SIGUO_LIMITS_REGISTER_PER_IP", "2"),
        ("SIGUO_LIMITS_GUEST_PER_IP", "2"),
        ("SIGUO_LIVE_MAX_SOCKETS_PER_IP", "2"),
    ];
    let (_nodes, lb) = cluster(&app.db_url, &env).await;

    // /metrics: to 127.0.0.1 (HAProxy's X-Forwarded-For says so), not to 127.0.0.2 claiming it
    let r = reqwest::get(lb.url("/metrics")).await.unwrap();
    assert_eq!(r.status(), 200, "the allowed address reads /metrics through HAProxy");
    let r = http_from(2)
        .get(lb.url("/metrics"))
        .header("X-Forwarded-For", "127.0.0.1")
        .header("Forwarded", "for=127.0.0.1")
        .header("X-Real-IP", "127.0.0.1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "a spoofed X-Forwarded-For: 127.0.0.1 does not open /metrics");

    // failed logins per (account, address): 3 in all, whatever the headers say
    let who = account(&app, "xff").await;
    let attacker = http_from(3);
    let body = json!({"username": who.0, "password": "not the password"});
    let login = |i| spoofed(attacker.post(lb.url("/api/auth/login")), i).json(&body).send();
    rotating("failed logins", 12, 401, 3, async |i| login(i).await.unwrap()).await;

    // registrations per address: 2 in all
    let registrar = http_from(4);
    let register = async |i| {
        let body = json!({"username": unique_name("xr"), "password": GOOD_PASSWORD});
        let r = registrar.post(lb.url("/api/auth/register")).json(&body);
        spoofed(r, i).send().await.unwrap()
    };
    rotating("registrations", 9, 201, 2, register).await;

    // guest sessions per address: 2 in all
    let guests = http_from(5);
    let guest = async |i| spoofed(guests.post(lb.url("/api/auth/guest")), i).send().await.unwrap();
    rotating("guest sessions", 9, 201, 2, guest).await;

    // sockets per address, on one node (/ws/n/n1): 2, whatever the headers say
    let mut open = vec![];
    for i in 0..3 {
        let mut req = bearer_request(&lb.ws_url("/ws/n/n1"), &who.2);
        let ip = format!("203.0.113.{}", i + 1);
        req.headers_mut().insert("X-Forwarded-For", ip.parse().unwrap());
        req.headers_mut().insert("Forwarded", format!("for={ip}").parse().unwrap());
        match tokio_tungstenite::connect_async(req).await {
            Ok((ws, _)) if i < 2 => open.push(ws),
            Ok(_) => panic!("a third socket from one address, with another X-Forwarded-For"),
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!((i, r.status().as_u16()), (2, 429), "the third socket is refused");
            }
            Err(e) => panic!("socket {i}: {e}"),
        }
    }
    drop(open);

    // the Origin check: a foreign Origin with a matching X-Forwarded-Host (or Forwarded host),
    // or our host with another scheme, does not pass; our own origin does
    let origins = http_from(6);
    let own = format!("http://{}", lb.addr);
    let foreign = [
        ("http://evil.example", "evil.example", "http"),
        ("https://evil.example", "evil.example", "https"),
        (&*format!("https://{}", lb.addr), &*lb.addr, "https"),
    ];
    for (origin, host, proto) in foreign {
        let r = origins
            .post(lb.url("/api/auth/guest"))
            .header("Origin", origin)
            .header("X-Forwarded-Host", host)
            .header("X-Forwarded-Proto", proto)
            .header("Forwarded", format!("host={host};proto={proto}"))
            .send()
            .await
            .unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "POST from {origin}");
        let mut req = bearer_request(&lb.ws_url("/ws/n/n2"), &who.2);
        let h = req.headers_mut();
        h.insert("Origin", origin.parse().unwrap());
        h.insert("X-Forwarded-Host", host.parse().unwrap());
        h.insert("X-Forwarded-Proto", proto.parse().unwrap());
        h.insert("Forwarded", format!("host={host};proto={proto}").parse().unwrap());
        match tokio_tungstenite::connect_async(req).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!(r.status(), 403, "a socket from {origin}")
            }
            Ok(_) => panic!("a socket from {origin} was opened"),
            Err(e) => panic!("a socket from {origin}: {e}"),
        }
    }
    let r = origins.post(lb.url("/api/auth/guest")).header("Origin", &own).send().await.unwrap();
    assert_eq!(r.status(), 201, "our own origin, through HAProxy");
    let mut req = bearer_request(&lb.ws_url("/ws/n/n2"), &who.2);
    req.headers_mut().insert("Origin", own.parse().unwrap());
    tokio_tungstenite::connect_async(req).await.expect("a socket from our own origin");
}

/// `c` joins (POST) or leaves (DELETE) the ranked queue through the load balancer from
/// 127.0.0.`ip`, with spoofed forwarded headers (the `spoof`-th address) if any.
async fn queue(lb: &Haproxy, c: &Client, method: Method, ip: u8, spoof: Option<usize>) -> Value {
    let mut r = http_from(ip).request(method, lb.url("/api/queue/ranked")).bearer_auth(&c.token);
    if let Some(i) = spoof {
        r = spoofed(r, i);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

/// Four accounts from one machine queue for ranked, each claiming another address in
/// `X-Forwarded-For`/`Forwarded`: the matcher never puts them together. When three of them queue
/// again from addresses of their own, the four are matched at once (the matcher was running all
/// along; only the one address kept them apart).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_haproxy_one_address_is_never_matched_with_itself_by_spoofing() {
    let app = spawn_app(Backend::Postgres).await;
    let (_nodes, lb) = cluster(&app.db_url, &crate::cluster_queue::QUEUE_ENV).await;
    let mut lobbies = vec![];
    for i in 0..4 {
        let who = account(&app, "sp").await;
        let path = format!("/ws/n/n{}", i % 3 + 1);
        lobbies.push(Client::connect_url(lb.ws_url(&path), &who).await);
    }
    for (i, c) in lobbies.iter().enumerate() {
        let st = queue(&lb, c, Method::POST, 7, Some(i)).await;
        assert_eq!(st["state"], "waiting", "{st}");
    }
    // many matcher ticks (200 ms each)
    tokio::time::sleep(Duration::from_secs(3)).await;
    for c in lobbies.iter_mut() {
        let st = queue(&lb, c, Method::GET, 7, None).await;
        assert_eq!(st["state"], "waiting", "one address, four spoofed headers: no match: {st}");
        let proposed =
            tokio::time::timeout(Duration::from_millis(100), c.next_of("match_proposed"));
        assert!(proposed.await.is_err(), "no match_proposed");
    }
    // the same four from four addresses: matched
    for (i, c) in lobbies.iter().enumerate().skip(1) {
        queue(&lb, c, Method::DELETE, 7, None).await;
        queue(&lb, c, Method::POST, 7 + i as u8, Some(i)).await;
    }
    crate::cluster_queue::answer(&mut lobbies, None).await;
    for c in lobbies.iter_mut() {
        c.next_of("match_found").await;
    }
}
