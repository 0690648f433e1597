//! Issue 19 (hardening), HTTP side: cross-site requests, the login limiter, usernames, cookies,
//! headers and the smaller items of finding 10.

use crate::support;
use crate::support::{error_code, Backend};
use serde_json::json;

/// Finding 6: another site cannot swap a signed-in player for a guest or sign them out.
async fn cross_site_posts_are_refused(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let c = support::new_client();
    for path in ["/api/auth/guest", "/api/auth/logout"] {
        let r =
            c.post(app.url(path)).header("Origin", "https://evil.example").send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "{path} by Origin");
        let r = c.post(app.url(path)).header("Sec-Fetch-Site", "cross-site").send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "{path} by fetch site");
    }
    // the site itself, and clients without those headers, still work
    let own = format!("http://{}", app.addr);
    let r = c
        .post(app.url("/api/auth/guest"))
        .header("Origin", own)
        .header("Sec-Fetch-Site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = c.post(app.url("/api/auth/logout")).send().await.unwrap();
    assert_eq!(r.status(), 204);
    // reading is not affected
    let r = c.get(app.url("/api/rooms")).header("Sec-Fetch-Site", "cross-site").send().await;
    assert_eq!(r.unwrap().status(), 200);
    let _ = json!({});
}

/// Finding 4: only failures count, per (account, IP) with a looser account-wide ceiling; IPv6
/// clients are counted by their /64; password change has its own limiter.
async fn nobody_locks_the_owner_out(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.server.trust_proxy = true;
        c.limits.login_per_account_total = 30;
    })
    .await;
    let name = support::unique_name("Own");
    let (owner, _) = {
        let c = support::new_client();
        let s = app.register_with(&c, &name, support::GOOD_PASSWORD).await;
        (c, s)
    };
    let login = |ip: &'static str, password: &'static str| {
        let c = support::new_client();
        let url = app.url("/api/auth/login");
        let body = json!({"username": name, "password": password});
        async move {
            let r = c.post(url).header("X-Forwarded-For", ip).json(&body).send().await.unwrap();
            r.status().as_u16()
        }
    };
    // successes are free: twelve good logins in a row
    for _ in 0..12 {
        assert_eq!(login("198.51.100.7", support::GOOD_PASSWORD).await, 200);
    }
    // an attacker's failures lock only the attacker's (account, IP)
    for _ in 0..10 {
        assert_eq!(login("203.0.113.5", "not the password").await, 401);
    }
    assert_eq!(login("203.0.113.5", support::GOOD_PASSWORD).await, 429);
    assert_eq!(login("198.51.100.7", support::GOOD_PASSWORD).await, 200, "the owner gets in");
    // nor can the attacker stop the owner changing the password
    let r = owner
        .post(app.url("/api/auth/password"))
        .json(&json!({"current_password": support::GOOD_PASSWORD,
                      "new_password": "Brand-New-Secret-4711"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // IPv6: one /64 is one client
    for i in 1..=10 {
        let ip: &'static str = Box::leak(format!("2001:db8:0:7::{i:x}").into_boxed_str());
        assert_eq!(login(ip, "still not it").await, 401);
    }
    assert_eq!(login("2001:db8:0:7::ffff", "still not it").await, 429, "same /64");
    assert_eq!(login("2001:db8:0:8::1", "still not it").await, 401, "another /64");
    // the account-wide ceiling (30 here) stops a spread-out attack
    for i in 0..9 {
        let ip: &'static str = Box::leak(format!("192.0.2.{i}").into_boxed_str());
        assert_eq!(login(ip, "wrong again").await, 401);
    }
    assert_eq!(login("192.0.2.200", "wrong again").await, 429, "account-wide ceiling");
}

both_backends!(cross_site_posts_are_refused, nobody_locks_the_owner_out);
