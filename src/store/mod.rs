//! SQLite storage: one file, WAL, fsync on commit, migrations run on open.
//!
//! Query style: runtime `sqlx::query().bind()` (no `DATABASE_URL` at build time); row structs stay in
//! the module that reads them and are converted to domain types there.

pub mod audit;
pub mod credentials;
pub mod deadlines;
pub mod decisions;
pub mod engines;
pub mod feed;
pub mod grants;
pub mod memory;
pub mod outbox;
pub mod private;
pub mod queue;
pub mod resolutions;
pub mod settings;
pub mod snapshots;
pub mod writer;

use crate::domain::Error;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file name of the database inside the data directory.
pub const DB_FILE: &str = "approval-console.db";

/// A cheap-to-clone handle on the database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: SqlitePool,
    path: PathBuf,
    writer: writer::Writer,
}

impl Db {
    /// Opens (creating if missing) `<data_dir>/approval-console.db` and runs pending migrations.
    ///
    /// WAL journal, `synchronous = FULL` (a commit is on disk when it returns), foreign keys on,
    /// temporary tables and sorts in memory, and a busy timeout so that a second process waits instead of failing at once.
    ///
    /// The data directory is made owner-only (0700) and the database file 0600 before SQLite opens it
    /// (its -wal and -shm files take the database file's mode); a data directory another user could
    /// write is refused (`unsafe_permissions`), naming the path.
    pub async fn open(data_dir: &Path) -> Result<Self, Error> {
        private::data_dir(data_dir)?;
        let path = data_dir.join(DB_FILE);
        private::owner_only_file(&path)?;
        for side in ["-wal", "-shm"] {
            let side = data_dir.join(format!("{DB_FILE}{side}"));
            if side.exists() {
                private::owner_only_file(&side)?;
            }
        }
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            // Sorts and temporary indexes in memory, not in files created and unlinked per query.
            .pragma("temp_store", "memory")
            .busy_timeout(Duration::from_secs(5));
        let pool =
            SqlitePoolOptions::new().max_connections(8).acquire_timeout(Duration::from_secs(10)).connect_with(options).await.map_err(
                |e| match Error::from(e) {
                    Error::Storage(msg) => Error::Storage(format!("cannot open {}: {msg}", path.display())),
                    other => other,
                },
            )?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        let writer = writer::Writer::new(pool.clone());
        Ok(Self { pool, path, writer })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a write: this process's writers take turns on one connection, and those that arrive
    /// while another writes share its commit (group commit, see [`writer`]). Every write goes
    /// through here — a write on another connection would wait on SQLite's lock instead. The batch
    /// transaction is `BEGIN IMMEDIATE`, so another process's writer waits on the busy timeout
    /// instead of failing at commit.
    pub async fn begin_write(&self) -> Result<writer::WriteTx, Error> {
        self.writer.begin().await
    }

    /// Writes and commits of this process so far (how well writes share commits).
    pub fn write_counts(&self) -> writer::WriteCounts {
        self.writer.counts()
    }
}

/// Current time as stored: RFC 3339 with microseconds, UTC.
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

pub(crate) fn ts(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

pub(crate) fn parse_ts(text: &str) -> Result<chrono::DateTime<chrono::Utc>, Error> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|e| Error::Storage(format!("bad timestamp {text:?} in database: {e}")))
}

pub(crate) fn parse_json(text: &str) -> Result<serde_json::Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::Storage(format!("bad JSON in database: {e}")))
}
