//! Test harness shared by the test binaries `tests/api`, `tests/live` and `tests/ladder`: the
//! real server on port 0 against a real database. Each binary includes it once with
//! `#[path = "../support/mod.rs"] #[macro_use] mod support;`.
//!
//! * `spawn_app(Backend::Sqlite)`: a fresh SQLite file in a temporary directory.
//! * `spawn_app(Backend::Postgres)`: a fresh database created on the server named by
//!   `SIGUO_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`), dropped
//!   afterwards. If PostgreSQL is unreachable the test FAILS (it is never skipped).
//! * `both_backends!(my_test);` turns `async fn my_test(backend: Backend)` into the tests
//!   `my_test::sqlite` and `my_test::postgres`.
//! * [`live`]: a WebSocket client and the hidden-rank scanner; [`ladder`]: finished games written
//!   straight into a test server's database.
//!
//! The tests of one binary share a process: nothing here may rely on per-process state (no
//! environment variables are set; names and databases are unique per call).
#![allow(dead_code)]

use diesel::{Connection, RunQueryDsl};
use serde_json::{json, Value};
use siguo::app::{AppState, RunningApp};
use siguo::config::Config;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

pub use siguo;

pub mod cluster;
pub mod ladder;
pub mod live;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Run `async fn $name(backend: Backend)` once per backend, as `$name::sqlite` and `$name::postgres`.
/// The calling module names `Backend` (its tests take one), so this works wherever `support` is
/// mounted.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(super::Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name(super::Backend::Postgres).await
            }
        }
    )+};
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn unique_suffix() -> String {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let r: u32 = rand::random();
    format!("{}_{}_{:08x}", std::process::id(), n, r)
}

/// A fresh name usable as a username (letters, digits, `_`; at most 20 characters).
pub fn unique_name(prefix: &str) -> String {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let r: u32 = rand::random();
    let mut s = format!("{prefix}{n}_{r:x}");
    s.truncate(20);
    s
}

/// A password that passes the rules.
pub const GOOD_PASSWORD: &str = "Vermilion-Tortoise-42";

pub fn postgres_admin_url() -> String {
    std::env::var("SIGUO_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// What the test database is; removed when the `TestApp` drops.
/// A test database, removed when dropped.
pub enum TestDb {
    Sqlite { dir: PathBuf },
    Postgres { admin_url: String, name: String },
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match self {
            TestDb::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDb::Postgres { admin_url, name } => {
                let (admin_url, name) = (admin_url.clone(), name.clone());
                // best effort, on a plain thread (Drop may run inside the runtime)
                let _ = std::thread::spawn(move || {
                    if let Ok(mut c) = diesel::PgConnection::establish(&admin_url) {
                        let _ = diesel::sql_query(format!(
                            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                        ))
                        .execute(&mut c);
                    }
                })
                .join();
            }
        }
    }
}

/// A new, empty PostgreSQL database (no migrations, no server): (its URL, the guard that drops it).
pub fn fresh_postgres_db() -> (String, TestDb) {
    create_postgres_db()
}

fn create_postgres_db() -> (String, TestDb) {
    let admin_url = postgres_admin_url();
    let name = format!("siguo_test_{}", unique_suffix());
    let mut admin = diesel::PgConnection::establish(&admin_url).unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is required for the Postgres tests and is not reachable at {admin_url} \
             (set SIGUO_TEST_POSTGRES_URL, or run scripts/test which starts it): {e}"
        )
    });
    diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(&mut admin)
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    let mut url = url::Url::parse(&admin_url).expect("SIGUO_TEST_POSTGRES_URL is a URL");
    url.set_path(&format!("/{name}"));
    (url.to_string(), TestDb::Postgres { admin_url, name })
}

fn create_sqlite_db() -> (String, TestDb) {
    let dir = std::env::temp_dir().join(format!("siguo_test_{}", unique_suffix()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let url = format!("sqlite://{}", dir.join("siguo.db").display());
    (url, TestDb::Sqlite { dir })
}

/// The configuration tests start from: embedded defaults, port 0, the given database, 2 workers,
/// short shutdown, generous registration/guest limits (login limits stay as in production).
pub fn test_config(db_url: &str) -> Config {
    let mut c = Config::embedded();
    // Bots answer at once: tests play many games (one e2e test shows the pacing).
    c.live.bot_move_delay_ms = 0;
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    c.server.workers = 2;
    c.server.shutdown_timeout_secs = 2;
    c.server.static_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/static").into();
    c.database.url = db_url.into();
    c.database.pool_size = 5;
    c.limits.register_per_ip = 100_000;
    c.limits.guest_per_ip = 100_000;
    // tests open many sockets from one address and account; tests/live/security.rs checks the
    // shipped limits
    c.limits.ticket_per_ip = 100_000;
    c.limits.ticket_per_account = 100_000;
    c
}

pub struct TestApp {
    pub backend: Backend,
    pub addr: SocketAddr,
    /// an HTTP client with its own cookie jar
    pub client: reqwest::Client,
    pub db_url: String,
    pub config: Config,
    running: Option<RunningApp>,
    _db: TestDb,
}

pub fn new_client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .expect("reqwest client")
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// Like [`spawn_app`], with a chance to change the configuration first.
pub async fn spawn_app_with(backend: Backend, tweak: impl FnOnce(&mut Config)) -> TestApp {
    init_test_logging();
    let (db_url, db) = match backend {
        Backend::Sqlite => create_sqlite_db(),
        Backend::Postgres => {
            tokio::task::spawn_blocking(create_postgres_db).await.expect("create db")
        }
    };
    let mut config = test_config(&db_url);
    tweak(&mut config);
    let running = siguo::app::start(config.clone())
        .await
        .unwrap_or_else(|e| panic!("server failed to start: {e}"));
    // restarts come back on the same port
    config.server.listen = running.addr;
    TestApp {
        backend,
        addr: running.addr,
        client: new_client(),
        db_url,
        config,
        running: Some(running),
        _db: db,
    }
}

fn init_test_logging() {
    if std::env::var("SIGUO_TEST_LOG").is_ok() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                std::env::var("SIGUO_TEST_LOG").unwrap(),
            ))
            .with_test_writer()
            .try_init();
    }
}

impl TestApp {
    /// `http://127.0.0.1:PORT` + path
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// `ws://127.0.0.1:PORT` + path
    pub fn ws_url(&self, path: &str) -> String {
        format!("ws://{}{}", self.addr, path)
    }

    /// The running server's state (panics if stopped).
    pub fn state(&self) -> &AppState {
        &self.running.as_ref().expect("server is running").state
    }

    /// Stop the server gracefully (the database stays).
    pub async fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop().await;
        }
    }

    /// Stop (if running) and start again on the same database and port.
    pub async fn restart(&mut self) {
        self.stop().await;
        let mut last_err = String::new();
        for _ in 0..50 {
            match siguo::app::start(self.config.clone()).await {
                Ok(r) => {
                    self.addr = r.addr;
                    self.running = Some(r);
                    return;
                }
                Err(e) => {
                    last_err = e;
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
        panic!("server failed to restart: {last_err}");
    }

    /// POST JSON with the app's client.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url(path)).json(body).send().await.expect("request")
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request")
    }

    /// GET as the holder of access token `token` (e.g. a private game's player).
    pub async fn get_as(&self, path: &str, token: &str) -> reqwest::Response {
        self.client.get(self.url(path)).bearer_auth(token).send().await.expect("request")
    }

    /// Register `username` with `client` (its cookie jar is logged in); returns the session JSON.
    pub async fn register_with(
        &self,
        client: &reqwest::Client,
        username: &str,
        password: &str,
    ) -> Value {
        self.register_session(client, username, password).await.0
    }

    /// Register `username` with `client`; returns the session JSON and the refresh token of
    /// its `siguo_refresh` cookie (checking that the body does not carry it).
    pub async fn register_session(
        &self,
        client: &reqwest::Client,
        username: &str,
        password: &str,
    ) -> (Value, String) {
        let resp = client
            .post(self.url("/api/auth/register"))
            .json(&json!({"username": username, "password": password}))
            .send()
            .await
            .expect("request");
        let status = resp.status();
        let (body, refresh) = session_parts(resp).await;
        assert_eq!(status, 201, "register {username}: {body}");
        (body, refresh.expect("register sets the refresh cookie"))
    }

    /// POST /api/auth/login with `client` (its cookie jar is logged in on success).
    pub async fn login_with(
        &self,
        client: &reqwest::Client,
        username: &str,
        password: &str,
    ) -> reqwest::Response {
        client
            .post(self.url("/api/auth/login"))
            .json(&json!({"username": username, "password": password}))
            .send()
            .await
            .expect("request")
    }

    /// A new client logged in as a fresh account; returns (client, session JSON).
    pub async fn new_account(&self, prefix: &str) -> (reqwest::Client, Value) {
        let client = new_client();
        let name = unique_name(prefix);
        let session = self.register_with(&client, &name, GOOD_PASSWORD).await;
        (client, session)
    }

    /// A new client logged in as a fresh guest; returns (client, session JSON).
    pub async fn new_guest(&self) -> (reqwest::Client, Value) {
        let client = new_client();
        let resp = client.post(self.url("/api/auth/guest")).send().await.expect("request");
        assert_eq!(resp.status(), 201);
        let (body, refresh) = session_parts(resp).await;
        assert!(refresh.is_some(), "a guest session has its refresh cookie");
        (client, body)
    }
}

/// A session answer's JSON body and the refresh token of its `siguo_refresh` cookie (if set).
/// The body must never carry the refresh token (it lives only in the HttpOnly cookie).
pub async fn session_parts(resp: reqwest::Response) -> (Value, Option<String>) {
    let refresh = resp
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|h| h.to_str().ok())
        .find_map(|c| c.strip_prefix("siguo_refresh="))
        .map(|c| c.split(';').next().unwrap_or_default().to_string())
        .filter(|t| !t.is_empty());
    let body: Value = resp.json().await.expect("json");
    assert!(!body.to_string().contains("refresh_token"), "a body carries a refresh token: {body}");
    if let Some(t) = &refresh {
        assert!(!body.to_string().contains(t.as_str()), "the refresh token is in the body: {body}");
    }
    (body, refresh)
}

/// POST /api/auth/refresh presenting `token` as the `siguo_refresh` cookie (no cookie jar).
pub async fn refresh_by_cookie(app: &TestApp, token: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url("/api/auth/refresh"))
        .header("cookie", format!("siguo_refresh={token}"))
        .send()
        .await
        .expect("request")
}

/// Read an error response: (status, code).
pub async fn error_code(resp: reqwest::Response) -> (u16, String) {
    let status = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    let code = body["error"]["code"].as_str().unwrap_or("<no error code>").to_string();
    (status, code)
}
