//! Access-token and refresh-token security, on SQLite and PostgreSQL.

use crate::support;
use crate::support::{
    error_code, new_client, refresh_by_cookie, session_parts, spawn_app, spawn_app_with,
    unique_name, Backend, GOOD_PASSWORD,
};
use base64::Engine;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

const SECRET: &str = "a-test-secret-that-is-at-least-32-bytes-long";

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn sign(alg: Algorithm, claims: &Value) -> String {
    encode(&Header::new(alg), claims, &EncodingKey::from_secret(SECRET.as_bytes()).unwrap())
        .unwrap()
}

fn b64(v: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap())
}

async fn me_with(app: &support::TestApp, token: &str) -> (u16, String) {
    let resp = new_client().get(app.url("/api/auth/me")).bearer_auth(token).send().await.unwrap();
    if resp.status() == 200 {
        return (200, String::new());
    }
    error_code(resp).await
}

async fn forged_access_tokens(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.auth.jwt_secret = SECRET.into()).await;
    let session = app.register_with(&app.client, &unique_name("Tok"), GOOD_PASSWORD).await;
    let id = session["account"]["id"].as_i64().unwrap().to_string();
    let name = session["account"]["username"].as_str().unwrap().to_string();
    let good = json!({"sub": id, "name": name, "guest": false, "iss": "siguo", "aud": "siguo", "iat": now(), "exp": now() + 300});

    // control: a correctly made token is accepted, so the refusals below are meaningful
    assert_eq!(me_with(&app, &sign(Algorithm::HS256, &good)).await.0, 200);
    assert_eq!(me_with(&app, session["access_token"].as_str().unwrap()).await.0, 200);

    // alg: none (unsigned)
    let none = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&good));
    assert_eq!(me_with(&app, &none).await, (401, "invalid_token".into()));
    let none_upper = format!("{}.{}.", b64(&json!({"alg": "None", "typ": "JWT"})), b64(&good));
    assert_eq!(me_with(&app, &none_upper).await, (401, "invalid_token".into()));
    // another algorithm with the same secret
    assert_eq!(me_with(&app, &sign(Algorithm::HS512, &good)).await, (401, "invalid_token".into()));
    assert_eq!(me_with(&app, &sign(Algorithm::HS384, &good)).await, (401, "invalid_token".into()));
    // no exp
    let mut no_exp = good.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    assert_eq!(
        me_with(&app, &sign(Algorithm::HS256, &no_exp)).await,
        (401, "invalid_token".into())
    );
    // expired
    let mut expired = good.clone();
    expired["iat"] = json!(now() - 3600);
    expired["exp"] = json!(now() - 600);
    assert_eq!(
        me_with(&app, &sign(Algorithm::HS256, &expired)).await,
        (401, "token_expired".into())
    );
    // wrong audience, missing audience, wrong issuer
    let mut aud = good.clone();
    aud["aud"] = json!("someone-else");
    assert_eq!(me_with(&app, &sign(Algorithm::HS256, &aud)).await, (401, "invalid_token".into()));
    let mut no_aud = good.clone();
    no_aud.as_object_mut().unwrap().remove("aud");
    assert_eq!(
        me_with(&app, &sign(Algorithm::HS256, &no_aud)).await,
        (401, "invalid_token".into())
    );
    let mut iss = good.clone();
    iss["iss"] = json!("evil");
    assert_eq!(me_with(&app, &sign(Algorithm::HS256, &iss)).await, (401, "invalid_token".into()));
    // another secret
    let other = encode(
        &Header::new(Algorithm::HS256),
        &good,
        &EncodingKey::from_secret(b"another-secret-another-secret-another").unwrap(),
    )
    .unwrap();
    assert_eq!(me_with(&app, &other).await, (401, "invalid_token".into()));
    // tampered payload (elevate to another account id) with the original signature
    let real = session["access_token"].as_str().unwrap();
    let parts: Vec<&str> = real.split('.').collect();
    let mut claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[1]).unwrap(),
    )
    .unwrap();
    claims["sub"] = json!("1");
    claims["guest"] = json!(false);
    let tampered = format!("{}.{}.{}", parts[0], b64(&claims), parts[2]);
    assert_eq!(me_with(&app, &tampered).await, (401, "invalid_token".into()));
    // garbage
    for junk in ["", "x", "a.b.c", "Bearer", "...."] {
        let (status, _) = me_with(&app, junk).await;
        assert_eq!(status, 401, "{junk:?}");
    }
    // the same refusal through the cookie
    let resp = new_client()
        .get(app.url("/api/auth/me"))
        .header("cookie", format!("siguo_access={none}"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(resp).await, (401, "invalid_token".into()));
    // and the issued token has the promised shape
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[0]).unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "HS256");
    let orig: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[1]).unwrap(),
    )
    .unwrap();
    let life = orig["exp"].as_u64().unwrap() - orig["iat"].as_u64().unwrap();
    assert!(life <= 900, "{life}");
    assert_eq!(orig["iss"], "siguo");
    assert_eq!(orig["aud"], "siguo");
}

async fn refresh_reuse_revokes_family(backend: Backend) {
    let app = spawn_app(backend).await;
    let name = unique_name("Fam");
    let (_, s0) = app.register_session(&new_client(), &name, GOOD_PASSWORD).await;
    // a second, independent login (another family)
    let other_client = new_client();
    let resp = app.login_with(&other_client, &name, GOOD_PASSWORD).await;
    assert_eq!(resp.status(), 200);

    let r1 = refresh_by_cookie(&app, &s0).await;
    assert_eq!(r1.status(), 200);
    let s1 = session_parts(r1).await.1.expect("rotated");
    let r2 = refresh_by_cookie(&app, &s1).await;
    assert_eq!(r2.status(), 200);
    let s2 = session_parts(r2).await.1.expect("rotated");

    // replaying the first token: refused and the whole family is revoked
    assert_eq!(
        error_code(refresh_by_cookie(&app, &s0).await).await,
        (401, "refresh_reused".into())
    );
    assert_eq!(
        error_code(refresh_by_cookie(&app, &s2).await).await,
        (401, "refresh_reused".into())
    );
    assert_eq!(
        error_code(refresh_by_cookie(&app, &s1).await).await,
        (401, "refresh_reused".into())
    );

    // the other family is untouched (cookie path /api/auth carries it)
    let resp = other_client.post(app.url("/api/auth/refresh")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let resp = other_client.post(app.url("/api/auth/refresh")).send().await.unwrap();
    assert_eq!(resp.status(), 200, "rotation through the cookie keeps working");
}

async fn sessions_survive_restart(backend: Backend) {
    let mut app = spawn_app(backend).await;
    let (client, session) = app.new_account("Rst").await;
    app.restart().await;
    // the generated secret was kept: the old access token and the refresh cookie still work
    assert_eq!(me_with(&app, session["access_token"].as_str().unwrap()).await.0, 200);
    let resp = client.post(app.url("/api/auth/refresh")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let resp = client.get(app.url("/api/auth/me")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    app.stop().await;
}

async fn cookies_are_http_only(backend: Backend) {
    let app = spawn_app(backend).await;
    let resp = new_client()
        .post(app.url("/api/auth/register"))
        .json(&json!({"username": unique_name("Ck"), "password": GOOD_PASSWORD}))
        .send()
        .await
        .unwrap();
    let cookies: Vec<String> = resp
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    let access = cookies.iter().find(|c| c.starts_with("siguo_access=")).expect("access cookie");
    let refresh = cookies.iter().find(|c| c.starts_with("siguo_refresh=")).expect("refresh cookie");
    for c in [access, refresh] {
        assert!(c.contains("HttpOnly"), "{c}");
        assert!(c.contains("SameSite=Lax"), "{c}");
    }
    assert!(access.contains("Path=/;") || access.ends_with("Path=/"), "{access}");
    assert!(refresh.contains("Path=/api/auth"), "{refresh}");
}

both_backends!(
    forged_access_tokens,
    refresh_reuse_revokes_family,
    sessions_survive_restart,
    cookies_are_http_only
);
