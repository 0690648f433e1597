//! The database: PostgreSQL or embedded SQLite behind one diesel `MultiConnection`, chosen by the
//! URL scheme (`postgres://…` / `sqlite://path` or a plain path). Blocking diesel calls run on
//! tokio's blocking pool through [`Db::run`], never on the async workers.
pub mod schema;

use crate::error::{AppError, AppResult};
use diesel::r2d2::{ConnectionManager, Pool};

/// One connection type for both backends.
#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Pg(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

pub type DbPool = Pool<ConnectionManager<DbConn>>;

/// Cloneable handle to the pool.
#[derive(Clone)]
pub struct Db {
    pub pool: DbPool,
}

impl Db {
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

    pub fn is_postgres(conn: &DbConn) -> bool {
        matches!(conn, DbConn::Pg(_))
    }
}
