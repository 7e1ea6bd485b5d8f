//! Storage: one SQLite file (WAL, fsync on commit) by default, or a PostgreSQL database a team of
//! consoles shares; migrations run on open. The same queries serve both (`$1, $2, …` placeholders,
//! text timestamps and JSON); [`Dialect`] marks the few places where they differ.
//!
//! Query style: statements built at run time (no `DATABASE_URL` at build time) — [`sql`] for
//! anything a write transaction runs (it runs on sqlx or, for SQLite writes, on the writer's own
//! rusqlite connection), `sqlx::query().bind()` for listings on the pool; rows are converted to
//! domain types in the module that reads them.

pub mod agui;
pub mod audit;
pub mod audit_query;
pub mod cells;
pub mod credentials;
pub mod deadlines;
pub mod decisions;
pub mod devices;
pub mod engines;
pub mod feed;
pub mod grant_rules;
pub mod grants;
pub mod lease;
mod lite;
pub mod memory;
pub mod outbox;
pub mod presence;
pub mod private;
pub mod queue;
pub mod reach;
pub mod receipts;
pub mod resolutions;
pub mod runs;
pub mod settings;
pub mod snapshots;
pub mod sources;
pub mod sql;
pub mod statements;
pub mod stats;
pub mod submissions;
#[doc(hidden)]
pub mod testing;
pub mod uow;
pub mod writer;

use crate::domain::Error;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyConnection, AnyPool, Executor};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// The file name of the database inside the data directory.
pub const DB_FILE: &str = "approval-console.db";

/// The environment variable [`Location::from_url`] reads when no `--database-url` is given.
pub const DATABASE_URL_ENV: &str = "APPROVAL_CONSOLE_DATABASE_URL";

/// Which database holds the console's data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The embedded default: one SQLite file in the data directory.
    Sqlite(PathBuf),
    /// Team mode: a PostgreSQL database several consoles share (`postgres://…`).
    Postgres(String),
}

impl Location {
    /// `postgres://…` or `postgresql://…` selects PostgreSQL; `None` or an empty URL the SQLite file
    /// of `data_dir`; any other scheme is refused.
    pub fn new(data_dir: &Path, database_url: Option<&str>) -> Result<Self, Error> {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            None => Ok(Self::Sqlite(data_dir.join(DB_FILE))),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => Ok(Self::Postgres(url.to_owned())),
            Some(url) => Err(Error::InvalidRequest(format!(
                "the database URL must start with postgres:// (without one the SQLite file of the data directory is used); got {:?}",
                redact(url).split(':').next().unwrap_or_default()
            ))),
        }
    }

    /// What to show a person: the file, or the URL without its password.
    pub fn describe(&self) -> String {
        match self {
            Self::Sqlite(path) => path.display().to_string(),
            Self::Postgres(url) => redact(url),
        }
    }
}

/// A database URL with its password (if any) replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// The SQL dialect of a connection, where the two databases differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    pub fn of(conn: &AnyConnection) -> Self {
        if conn.backend_name().eq_ignore_ascii_case("postgresql") {
            Self::Postgres
        } else {
            Self::Sqlite
        }
    }
}

/// Who else uses this console's database, fixed when it is opened ([`Db::topology`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// One console on its own SQLite file: its local engine is `local`, it delivers every call.
    Solo,
    /// Team mode: a database several consoles may share (PostgreSQL). Each console runs its own
    /// local engine (`local@<instance>`) and delivers only its own and its leased engines' calls,
    /// another console's decisions are handed over by notification, remote engines are synced by
    /// the lease holder, and the engines table changes under this console.
    Team,
}

/// A cheap-to-clone handle on the database (one count: handlers clone it per request).
#[derive(Clone, Debug)]
pub struct Db(std::sync::Arc<Parts>);

/// What a [`Db`] holds, shared by its clones.
#[doc(hidden)]
#[derive(Debug)]
pub struct Parts {
    pool: AnyPool,
    location: Location,
    topology: Topology,
    data_dir: PathBuf,
    writer: writer::Writer,
    settings: std::sync::Arc<settings::Cache>,
    /// SQLite: the threads the reads on an approval's path run on ([`lite`]); none on PostgreSQL.
    readers: Option<std::sync::Arc<lite::Readers>>,
}

impl std::ops::Deref for Db {
    type Target = Parts;
    fn deref(&self) -> &Parts {
        &self.0
    }
}

/// The advisory lock every write transaction on PostgreSQL takes first: one writer at a time across
/// every console of the team, as SQLite has one writer at a time per file. It keeps the audit chain
/// one chain and makes the change feed's numbers commit in order (a reader never skips a change
/// committed late).
pub(crate) const PG_WRITE_LOCK: i64 = 0x4170_7072_6f76_616c; // "Approval"

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
        Self::open_at(data_dir, Location::new(data_dir, None)?).await
    }

    /// Opens the database `location` names; `data_dir` keeps this console's own files either way
    /// (its lock, its exports, the SQLite file).
    pub async fn open_at(data_dir: &Path, location: Location) -> Result<Self, Error> {
        sqlx::any::install_default_drivers();
        private::data_dir(data_dir)?;
        let pool = match &location {
            Location::Sqlite(path) => open_sqlite(data_dir, path).await?,
            Location::Postgres(url) => open_postgres(url).await?,
        };
        let dialect = match location {
            Location::Sqlite(_) => Dialect::Sqlite,
            Location::Postgres(_) => Dialect::Postgres,
        };
        let file = match &location {
            Location::Sqlite(path) => Some(path.clone()),
            Location::Postgres(_) => None,
        };
        let writer = writer::Writer::new(pool.clone(), dialect, file);
        let signal = match &location {
            Location::Sqlite(path) => {
                let mut name = path.file_name().unwrap_or_default().to_os_string();
                name.push("-settings");
                Some(path.with_file_name(name))
            }
            Location::Postgres(_) => None,
        };
        let settings = std::sync::Arc::new(settings::Cache::new(signal));
        let readers = match &location {
            Location::Sqlite(path) => Some(std::sync::Arc::new(lite::Readers::open(path)?)),
            Location::Postgres(_) => None,
        };
        let topology = match location {
            Location::Sqlite(_) => Topology::Solo,
            Location::Postgres(_) => Topology::Team,
        };
        Ok(Self(std::sync::Arc::new(Parts { pool, location, topology, data_dir: data_dir.to_owned(), writer, settings, readers })))
    }

    /// The connections of this process's reads: the store's own (tests and benchmarks have
    /// [`testing`]'s named fixtures).
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// SQLite: the reader threads ([`lite`]); `None` on PostgreSQL, where reads go through the pool.
    pub(crate) fn readers(&self) -> Option<&lite::Readers> {
        self.readers.as_deref()
    }

    /// Closes every connection, as the end of the process would (waits for those in use).
    pub async fn close(&self) {
        self.writer.release().await;
        self.pool.close().await;
        // After the pool: a reader that finds the readers closed finds the pool closed too (the
        // feed's watcher ends quietly then).
        if let Some(readers) = &self.readers {
            readers.close();
        }
    }

    /// The SQLite file, or where a PostgreSQL database is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Whether this console is alone on its database or one of a team ([`Topology`]), as the
    /// database was opened. Code above the store matches on this, never on the dialect.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    pub fn dialect(&self) -> Dialect {
        match self.location {
            Location::Sqlite(_) => Dialect::Sqlite,
            Location::Postgres(_) => Dialect::Postgres,
        }
    }

    /// This console's data directory (its own files, also in team mode).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Starts a write: this process's writers take turns on one connection, and those that arrive
    /// while another writes share its commit (group commit, see [`writer`]). Every write goes
    /// through here — a write on another connection would wait on the database's lock instead. On
    /// SQLite the batch transaction is `BEGIN IMMEDIATE`, so another process's writer waits on the
    /// busy timeout instead of failing at commit; on PostgreSQL it takes [`PG_WRITE_LOCK`] first.
    pub(crate) async fn begin_write(&self) -> Result<writer::WriteTx, Error> {
        self.writer.begin().await
    }

    /// Changes after every commit of this process that wrote something (see [`writer::Writer::committed`]).
    pub fn committed(&self) -> tokio::sync::watch::Receiver<u64> {
        self.writer.committed()
    }

    /// The settings as this process keeps them between changes ([`settings::Cache`]).
    pub(crate) fn settings_cache(&self) -> &settings::Cache {
        &self.settings
    }

    /// Writes and commits of this process so far (how well writes share commits).
    pub fn write_counts(&self) -> writer::WriteCounts {
        self.writer.counts()
    }
}

fn cannot_open(what: &str, e: sqlx::Error) -> Error {
    match Error::from(e) {
        Error::Storage(msg) => Error::Storage(format!("cannot open {what}: {msg}")),
        other => other,
    }
}

/// Every read-write SQLite connection of the process — the pool's and the writer's own
/// ([`lite::writer`]) — runs these first.
pub(crate) const SQLITE_PRAGMAS: [&str; 7] = [
    "PRAGMA busy_timeout = 5000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
    // Sorts and temporary indexes in memory, not in files created and unlinked per query.
    "PRAGMA temp_store = memory",
    // No commit checkpoints the WAL: the writer does, between batches (writer/checkpoint.rs).
    "PRAGMA wal_autocheckpoint = 0",
    // What is deleted or overwritten (a decided call's file text, `submissions.file_text`) is
    // zeroed, not left in free space or on the freelist where the file's bytes would still hold it.
    "PRAGMA secure_delete = ON",
];

async fn open_sqlite(data_dir: &Path, path: &Path) -> Result<AnyPool, Error> {
    private::owner_only_file(path)?;
    for side in ["-wal", "-shm"] {
        let side = data_dir.join(format!("{DB_FILE}{side}"));
        if side.exists() {
            private::owner_only_file(&side)?;
        }
    }
    // The path as a URL: `%`, `?` and `#` would otherwise be read as escapes, the query or a fragment.
    let encoded = path.to_string_lossy().replace('%', "%25").replace('?', "%3F").replace('#', "%23");
    let options =
        AnyConnectOptions::from_str(&format!("sqlite://{encoded}?mode=rwc")).map_err(|e| cannot_open(&path.display().to_string(), e))?;
    let pool = AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(Duration::from_secs(10))
        // A connection to a file in this process cannot be lost the way a server's can: no ping (a
        // round trip to the connection's thread) before each use.
        .test_before_acquire(false)
        .after_connect(|conn, _| {
            Box::pin(async move {
                for pragma in SQLITE_PRAGMAS {
                    conn.execute(pragma).await?;
                }
                Ok(())
            })
        })
        .connect_with(options)
        .await
        .map_err(|e| cannot_open(&path.display().to_string(), e))?;
    sqlx::migrate!("./migrations").run(&pool).await?;
    Ok(pool)
}

async fn open_postgres(url: &str) -> Result<AnyPool, Error> {
    let shown = redact(url);
    let options = AnyConnectOptions::from_str(url).map_err(|e| cannot_open(&shown, e))?;
    let pool = AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(Duration::from_secs(10))
        .after_connect(|conn, _| {
            Box::pin(async move {
                // A writer waiting this long for another console's write gives `storage_busy`.
                conn.execute("SET lock_timeout = '30s'").await?;
                Ok(())
            })
        })
        .connect_with(options)
        .await
        .map_err(|e| cannot_open(&shown, e))?;
    // Consoles starting together: one migrates, the others wait (sqlx's migrator takes an advisory lock).
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    Ok(pool)
}

/// A query built at run time with `?` for each value, numbered `$1, $2, …` (both databases read
/// those); a `?` inside a quoted SQL string stays.
pub(crate) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let (mut n, mut quoted) = (0, false);
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            c => out.push(c),
        }
    }
    out
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
