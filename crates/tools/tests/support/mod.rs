//! The real server, in this process, on port 0 against a fresh database (the few lines of the
//! server's `tests/support` the tools' tests need).
//!
//! * `Backend::Sqlite`: a fresh SQLite file in a temporary directory.
//! * `Backend::Postgres`: a fresh database on the server named by `SIGUO_TEST_POSTGRES_URL`
//!   (default `postgres://postgres@127.0.0.1:5432/postgres`), dropped afterwards. If PostgreSQL
//!   is unreachable the test FAILS (it is never skipped).
use diesel::{Connection, RunQueryDsl};
use siguo::app::RunningApp;
use siguo::config::Config;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // not every test binary mounting this module uses both
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Run `async fn $name(backend: Backend)` once per backend, as `$name::sqlite` and `$name::postgres`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name($crate::support::Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name($crate::support::Backend::Postgres).await
            }
        }
    )+};
}

/// A running server; stopped and its database removed when dropped.
pub struct TestApp {
    pub addr: SocketAddr,
    /// its database (e.g. for cluster nodes started beside it)
    pub db_url: String,
    _running: RunningApp,
    _db: TestDb,
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    let (db_url, db) = match backend {
        Backend::Sqlite => create_sqlite_db(),
        Backend::Postgres => {
            tokio::task::spawn_blocking(create_postgres_db).await.expect("create db")
        }
    };
    let running = siguo::app::start(test_config(&db_url))
        .await
        .unwrap_or_else(|e| panic!("server failed to start: {e}"));
    TestApp { addr: running.addr, db_url, _running: running, _db: db }
}

/// Embedded defaults, port 0, the given database, 2 workers, generous guest and registration
/// limits (login limits stay as in production).
fn test_config(db_url: &str) -> Config {
    let mut c = Config::embedded();
    // Bots answer at once: tests play many games (one e2e test shows the pacing).
    c.live.bot_move_delay_ms = 0;
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    c.server.workers = 2;
    c.server.shutdown_timeout_secs = 2;
    c.server.static_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static").into();
    c.database.url = db_url.into();
    c.database.pool_size = 5;
    c.limits.register_per_ip = 100_000;
    c.limits.guest_per_ip = 100_000;
    c
}

fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let r: u32 = rand::random();
    format!("{}_{}_{:08x}", std::process::id(), n, r)
}

/// A database of the tests, removed when dropped.
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
                let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                let admin_url = admin_url.clone();
                // best effort, on a plain thread (Drop may run inside the runtime)
                let _ = std::thread::spawn(move || {
                    if let Ok(mut c) = diesel::PgConnection::establish(&admin_url) {
                        let _ = diesel::sql_query(sql).execute(&mut c);
                    }
                })
                .join();
            }
        }
    }
}

fn create_sqlite_db() -> (String, TestDb) {
    let dir = std::env::temp_dir().join(format!("siguo_tools_test_{}", unique_suffix()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let url = format!("sqlite://{}", dir.join("siguo.db").display());
    (url, TestDb::Sqlite { dir })
}

/// A fresh PostgreSQL database (empty: nothing migrated) and its URL.
#[allow(dead_code)] // not every test binary mounting this module uses it
pub fn create_postgres_db() -> (String, TestDb) {
    let admin_url = std::env::var("SIGUO_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let name = format!("siguo_tools_test_{}", unique_suffix());
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

/// The `siguo` server binary beside this crate's `siguo-tools` (`cargo test --workspace` builds
/// both); built here if it is missing.
pub fn siguo_binary() -> PathBuf {
    let tools = Path::new(env!("CARGO_BIN_EXE_siguo-tools"));
    let bin = tools.with_file_name("siguo");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut c = std::process::Command::new(cargo);
        c.args(["build", "-p", "siguo", "--bin", "siguo"]);
        if tools.parent().is_some_and(|d| d.ends_with("release")) {
            c.arg("--release");
        }
        assert!(c.status().expect("cargo build").success(), "cannot build the siguo binary");
    }
    bin
}
