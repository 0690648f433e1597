//! Usernames, passwords, limits, malformed input, stored hashes, on SQLite and PostgreSQL.

use crate::support;
use crate::support::{
    error_code, new_client, refresh_by_cookie, spawn_app, spawn_app_with, unique_name, Backend,
    GOOD_PASSWORD,
};
use diesel::prelude::*;
use serde_json::{json, Value};
use siguo::db::schema::accounts;

async fn register_status(app: &support::TestApp, username: &str, password: &str) -> (u16, String) {
    let resp = new_client()
        .post(app.url("/api/auth/register"))
        .json(&json!({"username": username, "password": password}))
        .send()
        .await
        .unwrap();
    if resp.status() == 201 {
        return (201, String::new());
    }
    error_code(resp).await
}

async fn count_accounts(app: &support::TestApp) -> i64 {
    app.state().db.run(|c| Ok(accounts::table.count().get_result::<i64>(c)?)).await.unwrap()
}

async fn usernames(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Dup");
    assert_eq!(register_status(&app, &name, GOOD_PASSWORD).await.0, 201);
    // duplicates regardless of case
    assert_eq!(register_status(&app, &name, GOOD_PASSWORD).await, (409, "username_taken".into()));
    assert_eq!(
        register_status(&app, &name.to_lowercase(), GOOD_PASSWORD).await,
        (409, "username_taken".into())
    );
    assert_eq!(
        register_status(&app, &name.to_uppercase(), GOOD_PASSWORD).await,
        (409, "username_taken".into())
    );
    let before = count_accounts(&app).await;
    for bad in [
        "ab",
        "",
        "a b c",
        "has-dash",
        "semi;colon",
        "emoji😀x",
        "abcdefghijklmnopqrstu",
        "Guest-1234abcd",
        "x\u{0}yz",
    ] {
        assert_eq!(
            register_status(&app, bad, GOOD_PASSWORD).await,
            (400, "invalid_username".into()),
            "{bad:?}"
        );
    }
    assert_eq!(count_accounts(&app).await, before, "refused registrations change nothing");
    // CJK letters, digits and underscore are fine; 20 characters is the maximum
    assert_eq!(
        register_status(&app, &format!("四国军棋_{}", &unique_name("")[..4]), GOOD_PASSWORD)
            .await
            .0,
        201
    );
    let twenty: String = unique_name("L").chars().chain(std::iter::repeat('x')).take(20).collect();
    assert_eq!(register_status(&app, &twenty, GOOD_PASSWORD).await.0, 201);
}

async fn passwords(backend: Backend) {
    let app = spawn_app(backend).await;
    let before = count_accounts(&app).await;
    let name = unique_name("Pw");
    assert_eq!(register_status(&app, &name, "short1!").await, (400, "password_too_short".into()));
    assert_eq!(
        register_status(&app, &name, &"x9".repeat(65)).await,
        (400, "password_too_long".into())
    );
    for common in
        ["password", "12345678", "qwertyuiop", "Password1", "iloveyou", "sunshine", "football"]
    {
        assert_eq!(
            register_status(&app, &name, common).await,
            (400, "password_too_common".into()),
            "{common}"
        );
    }
    let long_name = unique_name("SameAsName");
    assert_eq!(
        register_status(&app, &long_name, &long_name.to_uppercase()).await,
        (400, "password_is_username".into())
    );
    assert_eq!(count_accounts(&app).await, before);
    // exactly 8 and exactly 128 characters are accepted (multi-byte counts as one character)
    assert_eq!(register_status(&app, &name, "军棋Zq7#kP2").await.0, 201);
    assert_eq!(register_status(&app, &unique_name("Pw"), &"Zq7#kP2x".repeat(16)).await.0, 201);
}

async fn stored_hash_is_argon2id(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Hash");
    app.register_with(&app.client, &name, GOOD_PASSWORD).await;
    let key = name.to_lowercase();
    let hash: Option<String> = app
        .state()
        .db
        .run(move |c| {
            Ok(accounts::table
                .filter(accounts::username_key.eq(key))
                .select(accounts::password_hash)
                .first(c)?)
        })
        .await
        .unwrap();
    let hash = hash.expect("a hash is stored");
    assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
    assert!(!hash.contains(GOOD_PASSWORD));
    assert_eq!(hash.split('$').count(), 6, "PHC string: {hash}");
}

async fn login_rate_limit(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Rate");
    app.register_with(&new_client(), &name, GOOD_PASSWORD).await;
    for i in 0..10 {
        let resp = app.login_with(&new_client(), &name, &format!("wrong password {i}")).await;
        assert_eq!(
            error_code(resp).await,
            (401, "invalid_credentials".into()),
            "attempt {}",
            i + 1
        );
    }
    // the 11th attempt, even with the right password, is refused
    let resp = app.login_with(&new_client(), &name, GOOD_PASSWORD).await;
    let retry: u64 =
        resp.headers().get("retry-after").expect("Retry-After").to_str().unwrap().parse().unwrap();
    assert!((1..=600).contains(&retry), "{retry}");
    assert_eq!(error_code(resp).await, (429, "rate_limited".into()));
    // another account is not affected
    let other = unique_name("Rate");
    app.register_with(&new_client(), &other, GOOD_PASSWORD).await;
    let resp = app.login_with(&new_client(), &other, GOOD_PASSWORD).await;
    assert_eq!(resp.status(), 200);
}

async fn login_rate_limit_per_ip(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.limits.login_per_ip = 5).await;
    for i in 0..5 {
        let resp = app
            .post(
                "/api/auth/login",
                &json!({"username": format!("nobody{i}"), "password": "whatever123"}),
            )
            .await;
        assert_eq!(resp.status(), 401);
    }
    let resp = app
        .post("/api/auth/login", &json!({"username": "nobody_else", "password": "whatever123"}))
        .await;
    assert!(resp.headers().contains_key("retry-after"));
    assert_eq!(error_code(resp).await, (429, "rate_limited".into()));
}

async fn registration_rate_limit(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.limits.register_per_ip = 3;
        c.limits.guest_per_ip = 2;
    })
    .await;
    for _ in 0..3 {
        assert_eq!(register_status(&app, &unique_name("Reg"), GOOD_PASSWORD).await.0, 201);
    }
    assert_eq!(
        register_status(&app, &unique_name("Reg"), GOOD_PASSWORD).await,
        (429, "rate_limited".into())
    );
    for _ in 0..2 {
        assert_eq!(app.post("/api/auth/guest", &json!(null)).await.status(), 201);
    }
    let resp = app.client.post(app.url("/api/auth/guest")).send().await.unwrap();
    assert!(resp.headers().contains_key("retry-after"));
    assert_eq!(error_code(resp).await, (429, "rate_limited".into()));
}

async fn malformed_input(backend: Backend) {
    let app = spawn_app(backend).await;
    let before = count_accounts(&app).await;
    let send = |body: &'static str, ct: &'static str| {
        let c = new_client();
        let url = app.url("/api/auth/register");
        async move { c.post(url).header("content-type", ct).body(body).send().await.unwrap() }
    };
    assert_eq!(
        error_code(send("{\"username\": ", "application/json").await).await,
        (400, "invalid_json".into())
    );
    assert_eq!(
        error_code(send("not json", "application/json").await).await,
        (400, "invalid_json".into())
    );
    assert_eq!(error_code(send("", "application/json").await).await.0, 400);
    assert_eq!(
        error_code(send("{\"username\": 5, \"password\": []}", "application/json").await).await,
        (400, "invalid_body".into())
    );
    assert_eq!(
        error_code(send("{\"username\": \"abc\"}", "application/json").await).await,
        (400, "invalid_body".into())
    );
    assert_eq!(
        error_code(
            send("{\"username\":\"abcd\",\"password\":\"x\",\"admin\":true}", "application/json")
                .await
        )
        .await,
        (400, "invalid_body".into())
    );
    assert_eq!(
        error_code(send("{}", "text/plain").await).await,
        (400, "unsupported_content_type".into())
    );
    // too large
    let big = format!("{{\"username\": \"abcd\", \"password\": \"{}\"}}", "x".repeat(100_000));
    let resp = new_client()
        .post(app.url("/api/auth/register"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (413, "payload_too_large".into()));
    // refresh and logout parse their optional body too
    let resp = new_client()
        .post(app.url("/api/auth/refresh"))
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (400, "invalid_json".into()));
    let resp = new_client().post(app.url("/api/auth/refresh")).send().await.unwrap();
    assert_eq!(error_code(resp).await, (401, "unauthorized".into()));
    let resp = refresh_by_cookie(&app, "made-up").await;
    assert_eq!(error_code(resp).await, (401, "invalid_token".into()));
    assert_eq!(count_accounts(&app).await, before);
    // every error body has the same shape
    let resp = app.get("/api/auth/me").await;
    let body: Value = resp.json().await.unwrap();
    assert!(body["error"]["code"].is_string() && body["error"]["message"].is_string(), "{body}");
}

async fn change_password(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Chg");
    let (_, first) = app.register_session(&app.client, &name, GOOD_PASSWORD).await;
    let second = new_client();
    let resp = app.login_with(&second, &name, GOOD_PASSWORD).await;
    assert_eq!(resp.status(), 200);
    let resp = app
        .post("/api/auth/password", &json!({"current_password": "wrong-current-pass", "new_password": "Brand-New-Secret-77"}))
        .await;
    assert_eq!(error_code(resp).await, (401, "invalid_credentials".into()));
    let resp = app
        .post(
            "/api/auth/password",
            &json!({"current_password": GOOD_PASSWORD, "new_password": "password"}),
        )
        .await;
    assert_eq!(error_code(resp).await, (400, "password_too_common".into()));
    let resp = app
        .post(
            "/api/auth/password",
            &json!({"current_password": GOOD_PASSWORD, "new_password": "Brand-New-Secret-77"}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    // every earlier refresh token is dead
    let resp = refresh_by_cookie(&app, &first).await;
    assert_eq!(resp.status(), 401);
    assert_eq!(second.post(app.url("/api/auth/refresh")).send().await.unwrap().status(), 401);
    // the new password works, the old one not
    let login = |pw: &'static str| {
        let url = app.url("/api/auth/login");
        let name = name.clone();
        async move {
            new_client()
                .post(url)
                .json(&json!({"username": name, "password": pw}))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(login(GOOD_PASSWORD).await, 401);
    assert_eq!(login("Brand-New-Secret-77").await, 200);
}

/// With one hashing thread and one queue place, a burst of concurrent logins and registrations
/// gets only successes and `503 server_busy` with `Retry-After`, never another failure; once the
/// burst is over, logins work again.
async fn hash_queue_limit(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.auth.hash_threads = 1;
        c.auth.hash_queue = 1;
    })
    .await;
    // 6 accounts, registered one at a time (the queue is never full)
    let mut names = vec![];
    for _ in 0..6 {
        let name = unique_name("Burst");
        assert_eq!(register_status(&app, &name, GOOD_PASSWORD).await.0, 201);
        names.push(name);
    }
    // 4 logins per account (the per-account limit is 10) and 6 new registrations, all at once
    let mut burst = vec![];
    for round in 0..4 {
        for name in &names {
            let (url, name) = (app.url("/api/auth/login"), name.clone());
            burst.push(tokio::spawn(async move {
                let body = json!({"username": name, "password": GOOD_PASSWORD});
                (200, new_client().post(url).json(&body).send().await.unwrap())
            }));
        }
        if round < 2 {
            for _ in 0..3 {
                let (url, name) = (app.url("/api/auth/register"), unique_name("BurstNew"));
                burst.push(tokio::spawn(async move {
                    let body = json!({"username": name, "password": GOOD_PASSWORD});
                    (201, new_client().post(url).json(&body).send().await.unwrap())
                }));
            }
        }
    }
    let (mut ok, mut busy) = (0, 0);
    for r in burst {
        let (success, resp) = r.await.unwrap();
        if resp.status() == success {
            ok += 1;
            continue;
        }
        let retry = resp.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
        let (status, code) = error_code(resp).await;
        assert_eq!((status, code.as_str()), (503, "server_busy"), "only the queue limit refuses");
        let retry: u64 = retry.expect("Retry-After on 503 server_busy").parse().unwrap();
        assert!((1..=60).contains(&retry), "Retry-After {retry}");
        busy += 1;
    }
    assert!(ok >= 1, "some requests of the burst were served ({busy} refused)");
    assert!(busy >= 1, "30 requests at once overflow 1 thread + 1 place ({ok} served)");
    // after the burst, logins work again
    for name in &names {
        assert_eq!(app.login_with(&new_client(), name, GOOD_PASSWORD).await.status(), 200);
    }
}

both_backends!(
    usernames,
    hash_queue_limit,
    passwords,
    stored_hash_is_argon2id,
    login_rate_limit,
    login_rate_limit_per_ip,
    registration_rate_limit,
    malformed_input,
    change_password,
);

/// Errors that actix itself produces (oversized raw bodies, wrong methods) are JSON too.
async fn framework_errors_are_json(backend: Backend) {
    let app = spawn_app(backend).await;
    let resp = new_client()
        .post(app.url("/api/auth/refresh"))
        .header("content-type", "application/json")
        .body(vec![b' '; 100_000])
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (413, "payload_too_large".into()));
    let resp = new_client().delete(app.url("/api/auth/login")).send().await.unwrap();
    let (status, code) = error_code(resp).await;
    assert!(status == 404 || status == 405, "{status}");
    assert!(code == "not_found" || code == "method_not_allowed", "{code}");
    let resp = app.get("/no/such/page.html").await;
    assert_eq!(error_code(resp).await, (404, "not_found".into()));
}

both_backends!(framework_errors_are_json);
