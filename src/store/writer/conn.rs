//! The writer's connection. On SQLite it is the writer's own rusqlite connection, and every
//! statement of a write — `BEGIN IMMEDIATE`, the writer's statements, `COMMIT` — runs in the task
//! that writes, with no thread hop (sqlx's SQLite driver runs each statement on its connection's
//! thread: two wake-ups per statement, issue 26). On PostgreSQL it is a connection of sqlx's pool.
//!
//! Nothing on SQLite's side waits long on a runtime thread: a statement inside the transaction
//! waits for nobody (WAL: readers never block the writer, and `BEGIN IMMEDIATE` already holds the
//! write lock); a commit waits for its sync (~0.2 ms here). Only `BEGIN IMMEDIATE` can wait — for
//! another process's write — and it is tried at once, then, when busy, waited for on a blocking
//! thread for as long as the pool's connections would (the busy timeout).

use super::super::sql::{self, Row};
use super::super::{lite, Dialect, PG_WRITE_LOCK};
use crate::domain::Error;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool};
use std::path::Path;
use std::time::Duration;

/// How long a write waits for another process's write to end: the pool's `busy_timeout`.
pub(super) const BUSY: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub(super) enum Conn {
    /// SQLite: the writer's own connection.
    Lite(rusqlite::Connection),
    /// PostgreSQL: one of the pool's.
    Pool(PoolConnection<Any>),
}

impl Conn {
    /// Runs a statement without arguments or rows (`BEGIN`, `SAVEPOINT w`, `COMMIT`…).
    pub(super) async fn exec(&mut self, text: &'static str) -> Result<(), Error> {
        match self {
            Conn::Lite(c) => sql::lite_run(c, &sql::sql(text), false).map(drop),
            Conn::Pool(c) => {
                sqlx::query(text).execute(&mut **c).await?;
                Ok(())
            }
        }
    }

    pub(super) async fn run(&mut self, query: sql::Query, rows: bool) -> Result<(u64, Vec<Row>), Error> {
        match self {
            Conn::Lite(c) => sql::lite_run(c, &query, rows),
            Conn::Pool(c) => sql::any_run(c, query, rows).await,
        }
    }

    /// Whether the connection is still inside a transaction. SQLite ends one on its own after some
    /// errors (a full disk, an I/O error); PostgreSQL never does: after an error it refuses every
    /// statement until a rollback, which the writer that failed does.
    pub(super) fn in_transaction(&self) -> bool {
        match self {
            Conn::Lite(c) => !c.is_autocommit(),
            Conn::Pool(_) => true,
        }
    }
}

/// A connection inside a new batch transaction (`BEGIN IMMEDIATE` on SQLite; on PostgreSQL `BEGIN`
/// and the team's write lock): the kept one of the last batch if it still works, else a new one.
pub(super) async fn begin(kept: Option<Conn>, pool: &AnyPool, dialect: Dialect, file: Option<&Path>) -> Result<Conn, Error> {
    if let (Dialect::Sqlite, Some(file)) = (dialect, file) {
        let conn = match kept {
            Some(Conn::Lite(conn)) => conn,
            _ => lite::writer(file)?,
        };
        return begin_lite(conn).await.map(Conn::Lite);
    }
    if let Some(Conn::Pool(conn)) = kept {
        match begin_pool(conn, dialect).await {
            // Lost meanwhile (PostgreSQL restarted): dropped, and a fresh one is taken below.
            Err(Error::StorageUnavailable(why)) => tracing::info!("store: the kept write connection was lost ({why}); taking another"),
            other => return other.map(Conn::Pool),
        }
    }
    begin_pool(pool.acquire().await?, dialect).await.map(Conn::Pool)
}

/// `BEGIN IMMEDIATE` at once when no other process writes; else waited for on a blocking thread.
async fn begin_lite(conn: rusqlite::Connection) -> Result<rusqlite::Connection, Error> {
    conn.busy_timeout(Duration::ZERO).map_err(lite::error)?;
    let first = sql::lite_run(&conn, &sql::sql("BEGIN IMMEDIATE"), false);
    conn.busy_timeout(BUSY).map_err(lite::error)?;
    match first {
        Ok(_) => Ok(conn),
        Err(Error::StorageBusy) => tokio::task::spawn_blocking(move || {
            sql::lite_run(&conn, &sql::sql("BEGIN IMMEDIATE"), false)?;
            Ok(conn)
        })
        .await
        .map_err(|e| Error::Storage(format!("a write's start failed: {e}")))?,
        Err(e) => Err(e),
    }
}

async fn begin_pool(mut conn: PoolConnection<Any>, dialect: Dialect) -> Result<PoolConnection<Any>, Error> {
    let begin = if dialect == Dialect::Sqlite { "BEGIN IMMEDIATE" } else { "BEGIN" };
    sqlx::query(begin).execute(&mut *conn).await?;
    if dialect == Dialect::Postgres {
        let locked = sqlx::query("SELECT 1 FROM pg_advisory_xact_lock($1)").bind(PG_WRITE_LOCK).execute(&mut *conn).await;
        if let Err(e) = locked {
            let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
            return Err(e.into());
        }
    }
    Ok(conn)
}
