//! Accounts, sessions and tokens through the HTTP API, on SQLite and PostgreSQL.

use crate::support::{
    error_code, new_client, refresh_by_cookie, session_parts, spawn_app, unique_name, Backend,
    GOOD_PASSWORD,
};
use serde_json::{json, Value};

async fn register_login_refresh_logout(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Flow");
    let (session, first_refresh) = app.register_session(&app.client, &name, GOOD_PASSWORD).await;
    assert_eq!(session["account"]["username"], name.as_str());
    assert_eq!(session["account"]["guest"], false);
    assert!(session["expires_in"].as_u64().unwrap() <= 900);

    // the cookie jar is logged in
    let me: Value = app.get("/api/auth/me").await.json().await.unwrap();
    assert_eq!(me["username"], name.as_str());

    // Bearer works from a client without cookies
    let bare = new_client();
    let resp = bare
        .get(app.url("/api/auth/me"))
        .bearer_auth(session["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = bare.get(app.url("/api/auth/me")).send().await.unwrap();
    assert_eq!(error_code(resp).await, (401, "unauthorized".into()));

    // login with a differently cased name
    let other = new_client();
    let resp = app.login_with(&other, &name.to_uppercase(), GOOD_PASSWORD).await;
    assert_eq!(resp.status(), 200);
    let (login, login_refresh) = session_parts(resp).await;
    assert_eq!(login["account"]["id"], session["account"]["id"]);
    assert!(
        login_refresh.is_some_and(|t| t != first_refresh),
        "a login sets its own refresh cookie"
    );

    // wrong password
    let resp = app.login_with(&new_client(), &name, "not the password at all").await;
    assert_eq!(error_code(resp).await, (401, "invalid_credentials".into()));

    // refresh by cookie rotates the token
    let resp = app.post("/api/auth/refresh", &json!({})).await;
    assert_eq!(resp.status(), 200);
    let (refreshed, refreshed_token) = session_parts(resp).await;
    let refreshed_token = refreshed_token.expect("refresh sets the refresh cookie");
    assert_ne!(refreshed_token, first_refresh);
    assert_eq!(refreshed["account"]["id"], session["account"]["id"]);
    // the token is read from the cookie only: a body naming it is refused, and changes nothing
    let resp = new_client()
        .post(app.url("/api/auth/refresh"))
        .json(&json!({"refresh_token": refreshed_token}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (400, "invalid_body".into()));

    // logout revokes the family and clears the cookies
    let resp = app.client.post(app.url("/api/auth/logout")).send().await.unwrap();
    assert_eq!(resp.status(), 204);
    let resp = app.get("/api/auth/me").await;
    assert_eq!(resp.status(), 401);
    let resp = refresh_by_cookie(&app, &refreshed_token).await;
    assert_eq!(resp.status(), 401);
}

async fn guest_session(backend: Backend) {
    let app = spawn_app(backend).await;
    let (client, session) = app.new_guest().await;
    assert_eq!(session["account"]["guest"], true);
    assert!(session["account"]["username"].as_str().unwrap().starts_with("Guest-"));
    let me: Value = client.get(app.url("/api/auth/me")).send().await.unwrap().json().await.unwrap();
    assert_eq!(me["guest"], true);
    // account-only endpoint refuses guests
    let resp = client
        .post(app.url("/api/auth/password"))
        .json(&json!({"current_password": "x", "new_password": "Another-Long-Password-9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (403, "guest_not_allowed".into()));
}

async fn health_and_metrics(backend: Backend) {
    let app = spawn_app(backend).await;
    assert_eq!(app.get("/healthz").await.status(), 200);
    let ready: Value = app.get("/readyz").await.json().await.unwrap();
    assert_eq!(ready["status"], "ready");
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(metrics.contains("siguo_http_requests_total"), "{metrics}");
    assert!(metrics.contains("siguo_open_sockets"));
    assert!(metrics.contains("siguo_live_games"));
    let index = app.get("/").await;
    assert_eq!(index.status(), 200);
    let resp = app.get("/api/nothing/here").await;
    assert_eq!(error_code(resp).await, (404, "not_found".into()));
}

both_backends!(register_login_refresh_logout, guest_session, health_and_metrics);
