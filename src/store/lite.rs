//! SQLite reads run whole in the task that asks, on a connection of their own (issue 26).
//!
//! sqlx's SQLite driver runs each statement on its connection's thread and hands the rows back to
//! the task that asked: two thread wake-ups per statement (a read also takes a connection from the
//! pool first). The reads on an approval's path — a run's snapshot, a run's pending entries, the
//! change feed, the grants check of a new call — are point reads of a few rows on indexes, a few
//! microseconds of SQLite's own work: they run here instead, in the calling task, on one of a few
//! read-only connections to the same file (opened as needed, [`KEPT`] kept between reads), with no
//! thread hop at all. rusqlite drives the same SQLite library as sqlx (one copy in the process, so
//! its file locks stay one set). A read sees every commit that returned before it started: each
//! statement outside a transaction reads the newest commit (WAL), and a WAL reader waits for no
//! writer. Never a read that can run long (a listing, a search, a count): those stay on the pool,
//! off the runtime's threads.
//!
//! Writes stay with the writer (one connection, group commit), which on SQLite also runs its
//! statements in the writing task, on a connection of its own ([`writer`]). On PostgreSQL there are
//! no readers: every read stays one sqlx statement. The statements run here are counted with sqlx's
//! ([`super::statements`]).

use crate::domain::Error;
use rusqlite::types::ToSql;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Connections kept between reads; more are opened while more reads run at once.
pub(crate) const KEPT: usize = 4;

/// The read connections of one SQLite file. Closed with the database ([`Readers::close`]).
#[derive(Debug)]
pub(crate) struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<rusqlite::Connection>>,
    closed: AtomicBool,
}

impl Readers {
    /// Opens the first connection (the file exists: the pool created and migrated it).
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        let first = connect(path)?;
        Ok(Self { path: path.to_owned(), idle: Mutex::new(vec![first]), closed: AtomicBool::new(false) })
    }

    /// Runs `op` on a read connection, in the calling task, and answers what it returned.
    pub(crate) async fn read<T>(&self, op: impl FnOnce(&rusqlite::Connection) -> Result<T, Error>) -> Result<T, Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::StorageUnavailable("the database is closed".into()));
        }
        let kept = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let conn = match kept {
            Some(conn) => conn,
            None => connect(&self.path)?,
        };
        let answer = op(&conn);
        if !self.closed.load(Ordering::Acquire) {
            if let Ok(mut idle) = self.idle.lock() {
                if idle.len() < KEPT {
                    idle.push(conn);
                }
            }
        }
        answer
    }

    /// Closes the kept connections; later reads fail with `storage_unavailable`, as the pool's do
    /// once closed (a read under way closes its connection when it ends).
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }
}

fn connect(path: &Path) -> Result<rusqlite::Connection, Error> {
    use rusqlite::OpenFlags;
    // Never creates the file, never writes (`query_only`). A WAL reader is busy only in rare moments
    // (another process recovering the WAL): it waits a second at most, on a thread of the runtime,
    // and then answers `storage_busy`.
    let conn = rusqlite::Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| Error::Storage(format!("cannot open {} for reading: {e}", path.display())))?;
    conn.execute_batch("PRAGMA busy_timeout = 1000; PRAGMA query_only = 1; PRAGMA temp_store = memory;").map_err(error)?;
    Ok(conn)
}

/// The writer's own connection to the file ([`super::writer`]): the pool's settings (WAL, commits
/// synced — `synchronous = FULL` —, foreign keys, no automatic checkpoint) and room for every
/// statement the store writes with, prepared once.
pub(crate) fn writer(path: &Path) -> Result<rusqlite::Connection, Error> {
    use rusqlite::OpenFlags;
    let conn = rusqlite::Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| Error::Storage(format!("cannot open {} for writing: {e}", path.display())))?;
    for pragma in super::SQLITE_PRAGMAS {
        conn.execute_batch(pragma).map_err(error)?;
    }
    conn.set_prepared_statement_cache_capacity(256);
    Ok(conn)
}

/// A rusqlite error as the store tells it: busy or locked after the busy timeout is `storage_busy`
/// (as from sqlx), anything else a storage error.
pub(crate) fn error(e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode;
    match &e {
        rusqlite::Error::SqliteFailure(f, _) if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::StorageBusy,
        _ => Error::Storage(e.to_string()),
    }
}

/// Runs the statement `sql` (numbered parameters `$1, $2, …`, as the sqlx reads write them) with
/// `args` bound by number ([`super::sql::bind`]), decoding each row; one statement counted.
pub(crate) fn rows<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    args: &[&dyn ToSql],
    mut decode: impl FnMut(&rusqlite::Row<'_>) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    super::statements::ran(1);
    tracing::trace!(target: "approval_console::sql", statement = %sql);
    let mut statement = conn.prepare_cached(sql).map_err(error)?;
    super::sql::bind(&mut statement, args)?;
    let mut found = statement.raw_query();
    let mut out = Vec::new();
    while let Some(row) = found.next().map_err(error)? {
        out.push(decode(row)?);
    }
    Ok(out)
}

/// [`rows`] for a statement that finds at most one row.
pub(crate) fn row<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    args: &[&dyn ToSql],
    decode: impl FnMut(&rusqlite::Row<'_>) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    Ok(rows(conn, sql, args, decode)?.into_iter().next())
}

#[cfg(test)]
mod tests {
    use super::super::{queue, runs, snapshots, Db};
    use crate::domain::{AgentId, EngineId, Error, PausedCall, RunId};
    use serde_json::json;

    /// A commit that returned is seen by the next read on a reader's connection, which answers what the
    /// pool's read answers (one SQL text and one decoder for both).
    #[tokio::test]
    async fn a_reader_sees_each_returned_commit_and_answers_as_the_pool_does() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        let call = PausedCall::sample("delete_record", json!({ "id": "r-1", "nested": [1, { "a": null }] }));
        let (engine, run) = (call.engine.clone(), call.run_id.clone());
        assert!(queue::pending_call(&db, &engine, &run, &call.tool_call_id).await.unwrap().is_none());
        let mut tx = db.begin_write().await.unwrap();
        let item = queue::insert_pending(&mut tx, &call).await.unwrap();
        snapshots::save_suspended(&mut tx, &engine, &run, &AgentId::new("a"), Some("t-1"), None, r#"{"step":1}"#).await.unwrap();
        tx.commit().await.unwrap();

        let read = queue::entry(&db, &item.id).await.unwrap().expect("the committed entry");
        let pooled = queue::get(&mut db.pool().acquire().await.unwrap(), &item.id).await.unwrap().unwrap();
        assert_eq!(format!("{read:?}"), format!("{pooled:?}"));
        assert_eq!(read.queued.call.args, call.args);
        let found = queue::pending_call(&db, &engine, &run, &call.tool_call_id).await.unwrap().expect("pending");
        assert_eq!(found.queued.id, item.id);
        assert_eq!(runs::pending_items(&db, &engine, &run).await.unwrap(), vec![item.id.clone()]);

        let stored = runs::load(&db, &run).await.unwrap();
        let pooled = snapshots::get(&mut db.pool().acquire().await.unwrap(), &run).await.unwrap().unwrap();
        assert_eq!(format!("{stored:?}"), format!("{pooled:?}"));
        assert_eq!((stored.body.as_str(), stored.thread_id.as_deref()), (r#"{"step":1}"#, Some("t-1")));
        assert!(runs::taken(&db, &run).await.unwrap());
        assert!(!runs::taken(&db, &RunId::new("no-such-run")).await.unwrap());
        let listed = runs::of_agent(&db, &engine, &AgentId::new("a"), Some("t-1"), None).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert!(runs::of_agent(&db, &engine, &AgentId::new("a"), Some("other"), None).await.unwrap().is_empty());
        assert!(runs::of_agent(&db, &EngineId::new("other"), &AgentId::new("a"), None, None).await.unwrap().is_empty());
        db.close().await;
    }

    /// Parameters are bound by their number, wherever and however often the text names them.
    #[tokio::test]
    async fn parameters_are_bound_by_number() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        let readers = db.readers().expect("SQLite has readers");
        let got = readers
            .read(|c| {
                super::row(c, "SELECT $2 AS b, $1 AS a, $2 || $1 AS ba", &[&"one", &"two"], |r| {
                    Ok((r.get::<_, String>("b").unwrap(), r.get::<_, String>("a").unwrap(), r.get::<_, String>("ba").unwrap()))
                })
            })
            .await
            .unwrap();
        assert_eq!(got, Some(("two".into(), "one".into(), "twoone".into())));
        db.close().await;
    }

    /// A reader never writes, and a closed database refuses reads as its pool does.
    #[tokio::test]
    async fn readers_cannot_write_and_end_with_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        let readers = db.readers().expect("SQLite has readers");
        let wrote = readers.read(|c| c.execute("DELETE FROM queue_items", []).map_err(super::error)).await;
        assert!(
            matches!(wrote, Err(Error::Storage(ref m)) if m.contains("readonly") || m.contains("read-only") || m.contains("query_only")),
            "{wrote:?}"
        );
        let before = crate::store::statements::count();
        assert!(!runs::taken(&db, &RunId::new("r")).await.unwrap());
        assert!(crate::store::statements::count() >= before + 2, "the reader's two statements are counted");
        db.close().await;
        let after = runs::load(&db, &RunId::new("r")).await;
        assert!(matches!(after, Err(Error::StorageUnavailable(_))), "{after:?}");
    }
}
