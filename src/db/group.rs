//! Group commit for small, frequent writes (live play's action log).
//!
//! One writer thread with its own connection takes every write queued while the previous
//! transaction was committing and commits them together: one transaction and one WAL flush /
//! fsync for the whole group, with no per-write savepoint (a savepoint and its release are two
//! more round trips per write on PostgreSQL). If any write of a group fails, the group's
//! transaction is rolled back and every write of it is run again in a transaction of its own, so
//! that a failing write is undone alone and gets its own error while the others commit; this is
//! why a write is `FnMut` (it may run twice). A caller's future resolves only after the group's
//! COMMIT succeeded, so "committed before broadcast" still holds. There is no artificial delay:
//! an idle writer commits a lone write at once; under load the groups grow by themselves.
//!
//! SQLite: the writer's connection does not checkpoint (`wal_autocheckpoint = 0`); a second
//! thread runs a PASSIVE checkpoint every 500 ms on its own connection, so the fsyncs of
//! checkpoints never sit on the commit path, and the single writer never waits in SQLite's
//! sleeping busy handler for the other writer connections of the pool.
use super::{Backend, DbConn, DbManager};
use crate::error::{AppError, AppResult};
use diesel::connection::SimpleConnection;
use diesel::r2d2::ManageConnection;
use diesel::Connection;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::oneshot;

type Work = Box<dyn FnMut(&mut DbConn) -> AppResult<()> + Send>;

struct Job {
    work: Work,
    reply: oneshot::Sender<AppResult<()>>,
}

/// Most writes in one transaction.
pub const MAX_GROUP: usize = 512;

/// Handle to the writer thread (it stops when the last handle is dropped).
pub struct GroupCommit {
    tx: mpsc::Sender<Job>,
}

impl GroupCommit {
    /// Start the writer (and, for SQLite, the checkpointer) with connections of their own.
    pub fn start(manager: DbManager) -> Result<Arc<GroupCommit>, String> {
        let mut conn = manager.connect().map_err(|e| format!("group commit connection: {e}"))?;
        let sqlite = matches!(manager.backend, Backend::Sqlite(_));
        if sqlite {
            conn.batch_execute("PRAGMA wal_autocheckpoint = 0;")
                .map_err(|e| format!("group commit connection: {e}"))?;
        }
        let (tx, rx) = mpsc::channel::<Job>();
        let me = Arc::new(GroupCommit { tx });
        std::thread::Builder::new()
            .name("siguo-db-writer".into())
            .spawn({
                let manager = manager.clone();
                move || writer(manager, conn, rx)
            })
            .map_err(|e| format!("group commit thread: {e}"))?;
        if sqlite {
            let weak = Arc::downgrade(&me);
            std::thread::Builder::new()
                .name("siguo-db-checkpoint".into())
                .spawn(move || checkpointer(manager, weak))
                .map_err(|e| format!("checkpoint thread: {e}"))?;
        }
        Ok(me)
    }

    /// Run `f` inside the next group's transaction; resolves after that transaction committed.
    /// `f` runs a second time, alone, if another write of its group failed.
    pub async fn write<F>(&self, f: F) -> AppResult<()>
    where
        F: FnMut(&mut DbConn) -> AppResult<()> + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Job { work: Box::new(f), reply })
            .map_err(|_| AppError::internal("database writer stopped"))?;
        rx.await.map_err(|_| AppError::internal("database writer stopped"))?
    }
}

fn writer(manager: DbManager, mut conn: DbConn, rx: mpsc::Receiver<Job>) {
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(j) => group.push(j),
                Err(_) => break,
            }
        }
        let mut works: Vec<Work> = Vec::with_capacity(group.len());
        let mut replies = Vec::with_capacity(group.len());
        for j in group {
            works.push(j.work);
            replies.push(j.reply);
        }
        // the common case: every write succeeds, one transaction for all
        let together = conn.transaction::<(), AppError, _>(|c| {
            for w in works.iter_mut() {
                w(c)?;
            }
            Ok(())
        });
        if together.is_ok() {
            for reply in replies {
                let _ = reply.send(Ok(()));
            }
            continue;
        }
        if works.len() > 1 {
            tracing::warn!(
                writes = works.len(),
                "group commit: a write failed; running the group's writes one by one"
            );
        }
        if manager.is_valid(&mut conn).is_err() {
            match manager.connect() {
                Ok(c) => conn = c,
                Err(e) => tracing::error!(error = %e, "group commit: reconnect failed"),
            }
        }
        // rolled back: each write again in its own transaction, each with its own result
        for (mut w, reply) in works.into_iter().zip(replies) {
            let r = conn.transaction::<(), AppError, _>(|c| w(c));
            if let Err(e) = &r {
                tracing::error!(error = %e, "group commit: write failed");
            }
            let _ = reply.send(r);
        }
    }
}

fn checkpointer(manager: DbManager, alive: Weak<GroupCommit>) {
    let mut conn = None;
    while alive.strong_count() > 0 {
        std::thread::sleep(Duration::from_millis(500));
        if conn.is_none() {
            conn = manager.connect().ok();
        }
        if let Some(c) = conn.as_mut() {
            if let Err(e) = c.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
                tracing::warn!(error = %e, "WAL checkpoint");
                conn = None;
            }
        }
    }
}
