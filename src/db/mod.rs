//! The database: PostgreSQL or embedded SQLite behind one diesel `MultiConnection`, chosen by the
//! URL scheme (`postgres://…` / `sqlite://path` or a plain path). Blocking diesel calls run on
//! tokio's blocking pool through [`Db::run`], never on the async workers.
//!
//! SQLite connections are opened in WAL mode with a busy timeout and foreign keys on.
//! Migrations for both backends are embedded in the binary ([`Db::migrate`]).
pub mod accounts;
pub mod group;
pub mod limits;
pub mod schema;

use crate::error::{AppError, AppResult};
use diesel::connection::SimpleConnection;
use diesel::r2d2::{ManageConnection, Pool, R2D2Connection};
use diesel::{Connection, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::time::Duration;

pub const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
/// The PostgreSQL advisory lock key held while migrating ("siguo mg").
const MIGRATION_LOCK: i64 = 0x0073_6967_756f_6d67;

/// One connection type for both backends.
#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Pg(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

/// Which backend a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    /// the file path (or `:memory:`)
    Sqlite(String),
}

impl Backend {
    pub fn of_url(url: &str) -> Result<Backend, String> {
        let url = url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Backend::Postgres);
        }
        let path =
            url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        if path.is_empty() {
            return Err("invalid configuration: database.url names no SQLite file".into());
        }
        if path.contains("://") {
            return Err(format!(
                "invalid configuration: database.url scheme not supported (use postgres:// or sqlite://): {}",
                redact_url(url)
            ));
        }
        Ok(Backend::Sqlite(path.to_string()))
    }
}

/// The URL without its password, for messages.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

/// r2d2 manager that opens the right backend explicitly (no guessing) and prepares SQLite.
#[derive(Debug, Clone)]
pub struct DbManager {
    url: String,
    backend: Backend,
}

impl DbManager {
    pub fn new(url: &str) -> Result<DbManager, String> {
        Ok(DbManager { url: url.trim().to_string(), backend: Backend::of_url(url)? })
    }
}

impl ManageConnection for DbManager {
    type Connection = DbConn;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<DbConn, Self::Error> {
        match &self.backend {
            Backend::Postgres => diesel::PgConnection::establish(&self.url)
                .map(DbConn::Pg)
                .map_err(diesel::r2d2::Error::ConnectionError),
            Backend::Sqlite(path) => {
                let mut conn = diesel::SqliteConnection::establish(path)
                    .map_err(diesel::r2d2::Error::ConnectionError)?;
                conn.batch_execute(
                    "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; \
                     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
                )
                .map_err(diesel::r2d2::Error::QueryError)?;
                Ok(DbConn::Sqlite(conn))
            }
        }
    }

    fn is_valid(&self, conn: &mut DbConn) -> Result<(), Self::Error> {
        conn.ping().map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut DbConn) -> bool {
        std::thread::panicking() || conn.is_broken()
    }
}

pub type DbPool = Pool<DbManager>;

/// Cloneable handle to the pool.
#[derive(Clone)]
pub struct Db {
    pub pool: DbPool,
    pub backend: Backend,
    manager: DbManager,
    /// the group-commit writer, started by the first [`Db::write_grouped`]
    group: std::sync::Arc<std::sync::OnceLock<Result<std::sync::Arc<group::GroupCommit>, String>>>,
}

impl Db {
    /// Open the pool (creating the SQLite file's directory if needed). Fails with a clear message
    /// if the database cannot be reached.
    pub fn connect(url: &str, pool_size: u32, timeout: Duration) -> Result<Db, String> {
        let manager = DbManager::new(url)?;
        let backend = manager.backend.clone();
        if let Backend::Sqlite(path) = &backend {
            if path != ":memory:" && !path.starts_with("file:") {
                if let Some(dir) = std::path::Path::new(path).parent() {
                    if !dir.as_os_str().is_empty() {
                        std::fs::create_dir_all(dir).map_err(|e| {
                            format!("cannot create the database directory {}: {e}", dir.display())
                        })?;
                    }
                }
            }
        }
        let pool = Pool::builder()
            .max_size(pool_size)
            .connection_timeout(timeout)
            .build(manager.clone())
            .map_err(|e| format!("cannot open the database {}: {e}", redact_url(url)))?;
        Ok(Db { pool, backend, manager, group: Default::default() })
    }

    /// Apply pending embedded migrations; returns how many ran. On PostgreSQL several nodes may
    /// start at once on one database: a session advisory lock lets one migrate at a time (the
    /// others then find nothing pending).
    pub fn migrate(&self) -> Result<usize, String> {
        let mut conn = self.pool.get().map_err(|e| format!("database: {e}"))?;
        let done = match &mut *conn {
            DbConn::Pg(c) => {
                let lock = format!("SELECT pg_advisory_lock({MIGRATION_LOCK})");
                diesel::sql_query(lock).execute(c).map_err(|e| format!("database: {e}"))?;
                let done = c.run_pending_migrations(PG_MIGRATIONS).map(|v| v.len());
                let unlock = format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})");
                diesel::sql_query(unlock).execute(c).map_err(|e| format!("database: {e}"))?;
                done
            }
            DbConn::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS).map(|v| v.len()),
        };
        done.map_err(|e| format!("migrations failed: {e}"))
    }

    /// Run blocking database work off the async workers.
    pub async fn run<F, R>(&self, f: F) -> AppResult<R>
    where
        F: FnOnce(&mut DbConn) -> AppResult<R> + Send + 'static,
        R: Send + 'static,
    {
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get()?;
            f(&mut conn)
        })
        .await
        .map_err(|e| AppError::internal(format!("blocking task: {e}")))?
    }

    /// Small write transaction committed together with the other writes queued meanwhile (group
    /// commit, see [`group`]); resolves after the COMMIT. For frequent writes on the hot path
    /// (every move of every live game). `f` may run twice (alone, after a rollback) if another
    /// write of its group failed, so it is `FnMut`.
    pub async fn write_grouped<F>(&self, f: F) -> AppResult<()>
    where
        F: FnMut(&mut DbConn) -> AppResult<()> + Send + 'static,
    {
        match self.group.get_or_init(|| group::GroupCommit::start(self.manager.clone())) {
            Ok(g) => g.write(f).await,
            Err(e) => {
                tracing::warn!(error = %e, "group commit unavailable; writing alone");
                self.run(f).await
            }
        }
    }

    /// "postgres" or "sqlite"
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => "postgres",
            Backend::Sqlite(_) => "sqlite",
        }
    }

    pub fn is_postgres(conn: &DbConn) -> bool {
        matches!(conn, DbConn::Pg(_))
    }
}

/// True if the error is a unique-constraint violation (on either backend).
pub fn is_unique_violation(e: &diesel::result::Error) -> bool {
    matches!(
        e,
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)
    )
}
