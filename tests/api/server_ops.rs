//! The `siguo` binary (configuration errors, migrate, serve + graceful SIGTERM) and the OpenAPI
//! description.

use crate::support;
use crate::support::{spawn_app, Backend};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn siguo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_siguo"));
    // a clean environment of SIGUO_* settings
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGUO_") {
            c.env_remove(k);
        }
    }
    c.env("SIGUO_LOG_LEVEL", "warn");
    c
}

fn temp_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "siguo_ops_{}_{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn unknown_or_invalid_settings_stop_the_server() {
    let dir = temp_dir();
    let db = format!("sqlite://{}/x.db", dir.display());
    let out = siguo()
        .args(["serve"])
        .env("SIGUO_DATABASE_URL", &db)
        .env("SIGUO_SERVER_COLOUR", "blue")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("colour"), "{err}");

    let out = siguo()
        .args(["serve"])
        .env("SIGUO_DATABASE_URL", &db)
        .env("SIGUO_AUTH_ACCESS_TTL_SECS", "3600")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("access_ttl_secs"));

    let out = siguo()
        .args(["serve"])
        .env("SIGUO_DATABASE_URL", &db)
        .env("SIGUO_SERVER_LISTEN", "not-an-address")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).to_lowercase().contains("server.listen"));

    let file = dir.join("siguo.toml");
    std::fs::write(&file, "[server]\nlisten = \"127.0.0.1:0\"\n[nonsense]\nx = 1\n").unwrap();
    let out = siguo().args(["serve"]).env("SIGUO_CONFIG", &file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonsense"));

    let out =
        siguo().args(["serve"]).env("SIGUO_CONFIG", dir.join("missing.toml")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = siguo()
        .args(["migrate"])
        .env("SIGUO_DATABASE_URL", "mysql://localhost/x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("database.url"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn migrate_then_serve_then_sigterm() {
    let dir = temp_dir();
    let db = format!("sqlite://{}/data/siguo.db", dir.display());
    let out = siguo().args(["migrate"]).env("SIGUO_DATABASE_URL", &db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("migration"));
    // a second run has nothing to do
    let out = siguo().args(["migrate"]).env("SIGUO_DATABASE_URL", &db).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(" 0 migration"));

    let mut child = siguo()
        .args(["serve"])
        .env("SIGUO_DATABASE_URL", &db)
        .env("SIGUO_SERVER_LISTEN", "127.0.0.1:0")
        .env("SIGUO_SERVER_WORKERS", "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base = line
        .trim()
        .strip_prefix("siguo listening on ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ready: Value = rt.block_on(async {
        reqwest::get(format!("{base}/readyz")).await.unwrap().json().await.unwrap()
    });
    assert_eq!(ready["status"], "ready");
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "graceful shutdown exits 0: {exit:?}");
    std::fs::remove_dir_all(dir).ok();
}

/// Every path the OpenAPI document lists exists (is not our JSON 404), and the account and
/// operations endpoints are all listed.
async fn openapi_covers_endpoints(backend: Backend) {
    let app = spawn_app(backend).await;
    let spec: Value = app.get("/api/openapi.json").await.json().await.unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3."));
    let paths = spec["paths"].as_object().unwrap();
    for p in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/api/openapi.json",
        "/api/auth/register",
        "/api/auth/login",
        "/api/auth/logout",
        "/api/auth/refresh",
        "/api/auth/me",
        "/api/auth/guest",
        "/api/auth/password",
    ] {
        assert!(paths.contains_key(p), "{p} missing from the OpenAPI document");
    }
    for (path, ops) in paths {
        if path.contains('{') {
            continue;
        }
        for method in ops.as_object().unwrap().keys() {
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let resp = support::new_client().request(m, app.url(path)).send().await.unwrap();
            let status = resp.status().as_u16();
            let body = resp.text().await.unwrap_or_default();
            assert!(
                !(status == 404 && body.contains("endpoint not found")) && status != 405,
                "{method} {path} is documented but not served ({status})"
            );
        }
    }
}

/// Issue 25 §5: an answer never names one of the server's Rust types (`i64`, `u32`, `struct
/// X`), for a bad path, query, body or room option, over HTTP and the WebSocket.
async fn errors_speak_our_words(backend: Backend) {
    let app = spawn_app(backend).await;
    let rust = |m: &str| {
        m.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
            ["u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64"]
                .contains(&w)
                || w == "struct"
                || w == "enum"
        })
    };
    let check = |(status, body): (u16, Value), want: (u16, &str)| {
        assert_eq!((status, body["error"]["code"].as_str().unwrap()), want, "{body}");
        let m = body["error"]["message"].as_str().unwrap();
        assert!(!rust(m), "a Rust type in {m:?}");
    };
    let answer = |r: reqwest::Response| async move {
        (r.status().as_u16(), r.json::<Value>().await.unwrap())
    };
    check(answer(app.get("/api/games/abc").await).await, (400, "invalid_path"));
    check(answer(app.get("/api/games/99999999999999999999").await).await, (400, "invalid_path"));
    check(answer(app.get("/api/leaderboard/ranked?page=abc").await).await, (400, "invalid_query"));
    let (_c, session) = app.new_account("err").await;
    let token = session["access_token"].as_str().unwrap().to_string();
    let post = |body: Value| {
        support::new_client().post(app.url("/api/rooms")).bearer_auth(&token).json(&body).send()
    };
    let r = post(serde_json::json!({"options": {"move_seconds": "x"}})).await.unwrap();
    check(answer(r).await, (400, "invalid_options"));
    let r = post(serde_json::json!({"options": {"max_steps": -1}})).await.unwrap();
    check(answer(r).await, (400, "invalid_options"));
    let r = post(serde_json::json!({"public": 5})).await.unwrap();
    check(answer(r).await, (400, "invalid_body"));
    // the WebSocket speaks the same words
    let who = crate::support::live::account(&app, "erw").await;
    let mut c = crate::support::live::Client::connect(&app, &who).await;
    let practice = serde_json::json!({"type": "start_practice", "options": {"move_seconds": "x"}});
    let e = c.expect_err(practice, "invalid_options").await;
    assert!(!rust(e["message"].as_str().unwrap()), "{e}");
    let e =
        c.expect_err(serde_json::json!({"type": "join_room", "game": "g1"}), "bad_message").await;
    assert!(!rust(e["message"].as_str().unwrap()), "{e}");
}

both_backends!(openapi_covers_endpoints, errors_speak_our_words);

/// `/readyz` reports a lost database as 503 `unavailable` (while `/healthz` stays up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_reports_a_lost_database() {
    use diesel::{Connection, RunQueryDsl};
    let app =
        support::spawn_app_with(Backend::Postgres, |c| c.database.connect_timeout_secs = 1).await;
    assert_eq!(app.get("/readyz").await.status(), 200);
    let name = url::Url::parse(&app.db_url).unwrap().path().trim_start_matches('/').to_string();
    tokio::task::spawn_blocking(move || {
        let mut admin = diesel::PgConnection::establish(&support::postgres_admin_url()).unwrap();
        diesel::sql_query(format!("DROP DATABASE \"{name}\" WITH (FORCE)"))
            .execute(&mut admin)
            .unwrap();
    })
    .await
    .unwrap();
    let resp = app.get("/readyz").await;
    assert_eq!(support::error_code(resp).await, (503, "unavailable".into()));
    assert_eq!(app.get("/healthz").await.status(), 200);
}
