//! Issue 19 (hardening), HTTP side: cross-site requests, the login limiter, usernames, cookies,
//! headers and the smaller items of finding 10.

use crate::support;
use crate::support::{error_code, Backend};
use serde_json::json;

/// `server.trusted_proxies = ["127.0.0.1"]`: the test's client is the proxy.
fn loopback_proxy() -> siguo::http::client::TrustedProxies {
    siguo::http::client::TrustedProxies::parse(["127.0.0.1"]).unwrap()
}

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
    // with no trusted proxy, forwarded headers cannot make a foreign origin ours, and our host
    // with another scheme is not our origin (issue 27)
    let spoofs = [
        ("http://evil.example", "X-Forwarded-Host", "evil.example"),
        ("http://evil.example", "Forwarded", "host=evil.example"),
        (&*format!("https://{}", app.addr), "X-Forwarded-Proto", "https"),
    ];
    for (origin, header, value) in spoofs {
        let r = c.post(app.url("/api/auth/guest")).header("Origin", origin).header(header, value);
        let r = r.send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "{origin}, {header}");
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
        // the test's client stands for a reverse proxy on 127.0.0.1
        c.server.trusted_proxies = loopback_proxy();
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

/// The cookies of a guest session started with `X-Forwarded-Proto: https`.
async fn guest_cookies_claiming_https(app: &support::TestApp) -> Vec<String> {
    let r = support::new_client()
        .post(app.url("/api/auth/guest"))
        .header("X-Forwarded-Proto", "https")
        .send()
        .await
        .unwrap();
    r.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect()
}

/// Finding 10, the smaller items over HTTP.
async fn smaller_items(backend: Backend) {
    let app = support::spawn_app(backend).await;
    // a Content-Security-Policy without inline script on the web client
    let r = app.get("/").await;
    let csp =
        r.headers().get("content-security-policy").expect("CSP").to_str().unwrap().to_string();
    let script = csp.split(';').find(|d| d.trim().starts_with("script-src")).expect("script-src");
    assert_eq!(script.trim(), "script-src 'self'", "no inline script: {csp}");
    let html = r.text().await.unwrap();
    assert!(
        !html.contains("<script>") && !html.contains("<script type=\"module\">"),
        "inline script"
    );
    // Secure cookies when the request came over HTTPS (through a trusted proxy)
    let app2 =
        support::spawn_app_with(backend, |c| c.server.trusted_proxies = loopback_proxy()).await;
    let secure = |cookies: &[String]| cookies.iter().filter(|c| c.contains("Secure")).count();
    let cookies = guest_cookies_claiming_https(&app2).await;
    assert!(cookies.len() == 2 && secure(&cookies) == 2, "{cookies:?}");
    // ... and only through a trusted proxy: anyone else's X-Forwarded-Proto is not believed
    let cookies = guest_cookies_claiming_https(&app).await;
    assert!(cookies.len() == 2 && secure(&cookies) == 0, "{cookies:?}");
    // /metrics only from the configured addresses
    assert_eq!(app.get("/metrics").await.status(), 200, "127.0.0.1 is allowed by default");
    let r = support::new_client()
        .get(app2.url("/metrics"))
        .header("X-Forwarded-For", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // nobody is trusted by default: 127.0.0.2 claiming 127.0.0.1 is still 127.0.0.2
    let from_2 = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let r = from_2.get(app.url("/metrics")).header("X-Forwarded-For", "127.0.0.1").send().await;
    assert_eq!(r.unwrap().status(), 404, "an untrusted peer's X-Forwarded-For");
    // error messages carry no Rust type names
    let r = app.client.post(app.url("/api/auth/register")).json(&json!([])).send().await.unwrap();
    let body: serde_json::Value = r.json().await.unwrap();
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(!msg.contains("Credentials") && !msg.contains("struct"), "{msg}");
    // passwords of spaces or with control characters
    for pw in ["          ".to_string(), format!("good-long-pass{}word", '\u{7}')] {
        let body = json!({"username": support::unique_name("pw"), "password": pw});
        let r = app.post("/api/auth/register", &body).await;
        assert_eq!(error_code(r).await, (400, "password_invalid".into()), "{pw:?}");
    }
    // access tokens issued in the future or living too long are refused
    use jsonwebtoken::{encode, EncodingKey, Header};
    let (_, s) = app.new_account("jw").await;
    let id = s["account"]["id"].as_i64().unwrap();
    let key: String = {
        let db = app.state().db.clone();
        db.run(|c| {
            use diesel::prelude::*;
            use siguo::db::schema::server_settings::dsl::*;
            Ok(server_settings.find("jwt_secret").select(value).first::<String>(c)?)
        })
        .await
        .unwrap()
    };
    let now = jsonwebtoken::get_current_timestamp();
    for (iat, exp) in [(now + 3600, now + 3700), (now, now + 86_400)] {
        let claims = json!({"sub": id.to_string(), "name": "x", "guest": false, "iss": "siguo",
                            "aud": "siguo", "iat": iat, "exp": exp});
        let t =
            encode(&Header::default(), &claims, &EncodingKey::from_secret(key.as_bytes()).unwrap())
                .unwrap();
        let r =
            support::new_client().get(app.url("/api/auth/me")).bearer_auth(t).send().await.unwrap();
        assert_eq!(error_code(r).await, (401, "invalid_token".into()), "iat {iat} exp {exp}");
    }
}

/// Finding 5: names that look blank or like another name are refused; the key is NFKC + full
/// case folding.
async fn usernames_do_not_impersonate(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let reg = |name: String| {
        let c = support::new_client();
        let url = app.url("/api/auth/register");
        async move {
            let r = c
                .post(url)
                .json(&json!({"username": name, "password": support::GOOD_PASSWORD}))
                .send()
                .await
                .unwrap();
            error_code(r).await
        }
    };
    let ok = (201, "<no error code>".to_string());
    // digits only: they go with every script
    let tag = format!("{}", rand::random::<u32>() % 1_000_000);
    let base = format!("alice{tag}");
    assert_eq!(reg(base.clone()).await, ok);
    // Hangul filler, Cyrillic look-alike mixed with Latin, full-width, mathematical letters
    let invalid = (400, "invalid_username".to_string());
    assert_eq!(reg(format!("\u{3164}\u{3164}\u{3164}{tag}")).await, invalid, "filler");
    assert_eq!(reg(format!("\u{430}lice{tag}")).await, invalid, "Cyrillic a in Latin");
    let wide: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                char::from_u32(c as u32 - 0x61 + 0xFF41).unwrap()
            } else {
                c
            }
        })
        .collect();
    assert_eq!(reg(wide).await, invalid, "full-width");
    assert_eq!(reg(format!("\u{1D41A}lice{tag}")).await, invalid, "mathematical bold a");
    // the same word precomposed and as conjoining jamo
    assert_eq!(reg(format!("\u{D55C}\u{AE00}{tag}")).await, ok);
    let jamo = format!("\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}{tag}");
    let r = reg(jamo).await;
    assert!(r == (409, "username_taken".into()) || r == invalid, "jamo: {r:?}");
    // full case folding: ΣΑΣ and σασ are one name
    assert_eq!(reg(format!("\u{3C3}\u{3B1}\u{3C3}{tag}")).await, ok);
    assert_eq!(reg(format!("\u{3A3}\u{391}\u{3A3}{tag}")).await, (409, "username_taken".into()));
    // an all-Cyrillic look-alike of an existing Latin name
    assert_eq!(reg("\u{43E}\u{440}\u{435}".to_string() + &tag).await.0, 201);
    assert_eq!(reg("ope".to_string() + &tag).await, (409, "username_confusable".into()));
}

both_backends!(
    cross_site_posts_are_refused,
    nobody_locks_the_owner_out,
    smaller_items,
    usernames_do_not_impersonate,
);
