//! Group commit: every write of this process goes through one writer, and writers that arrive while
//! another one writes join its transaction, so that one `COMMIT` — one fsync — makes all of them
//! durable.
//!
//! A writer gets a [`WriteTx`]: the first writer of a batch opens its transaction (`BEGIN
//! IMMEDIATE`), the others each get a savepoint inside it. [`WriteTx::commit`] keeps the work (releases
//! the savepoint); if no other
//! writer is waiting for its turn, it commits the batch at once (a lone writer pays one commit and
//! waits for nobody), otherwise it leaves the batch open for the next writer, and the last writer in
//! line commits for all of them. Every writer's `commit` returns only after the `COMMIT` that holds its
//! work returned (`synchronous = FULL`: it is on disk), with that commit's error if it failed. A
//! writer dropped without `commit` — an error, a panic — rolls back to its savepoint (the first,
//! alone in the batch, rolls the batch back): the other writers' work in the batch stays. Batches are bounded ([`MAX_BATCH`] writers).
//!
//! Cancellation: a caller dropped half-way (a client that hung up) never leaves the batch half-done;
//! what it already released is committed with the rest. On PostgreSQL, opening a writer and
//! committing run in spawned tasks for that (each is several round trips to the server). On SQLite
//! they run in the caller's task: every statement on the writer's own connection completes within
//! the poll that starts it ([`conn`]), so the only points where a caller can be dropped are waiting
//! for its turn, waiting on a blocking thread for another process's write lock (the connection
//! then closes, and with it that transaction), and waiting to learn its commit's outcome.
//!
//! What a crash means: a writer whose `commit` had not returned may or may not be on disk, all of a
//! batch or none of it (one SQLite transaction); a writer whose `commit` returned is on disk.

use super::Dialect;
use crate::domain::Error;
use conn::Conn;
use sqlx::AnyPool;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{oneshot, Mutex, OwnedMutexGuard};

/// The most writers one commit holds; the next one starts a new batch.
pub const MAX_BATCH: usize = 64;

/// How long a writer waits for its turn before giving up with `storage_busy`.
const TURN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The process's one writer (cheap to clone).
#[derive(Clone, Debug)]
pub struct Writer {
    pool: AnyPool,
    dialect: Dialect,
    /// SQLite: the file the writer's own connection writes ([`conn`]).
    file: Option<Arc<PathBuf>>,
    /// SQLite: a second connection for the part of a checkpoint that runs beside the writers
    /// ([`checkpoint`]), opened at the first.
    spare: Arc<std::sync::Mutex<Option<rusqlite::Connection>>>,
    batch: Arc<Mutex<Batch>>,
    /// Writers waiting for their turn: while there are any, a released writer leaves the batch open.
    waiting: Arc<AtomicUsize>,
    counts: Arc<Counts>,
}

#[derive(Debug)]
struct Counts {
    writes: AtomicU64,
    commits: AtomicU64,
    /// Writes committed since the last checkpoint, and how many make the next one due ([`checkpoint`]).
    since_checkpoint: AtomicU64,
    checkpoint_every: AtomicU64,
    /// Bumped after each commit that held a write: what [`Writer::committed`] watches.
    committed: tokio::sync::watch::Sender<u64>,
}

impl Default for Counts {
    fn default() -> Self {
        Self {
            writes: AtomicU64::default(),
            commits: AtomicU64::default(),
            since_checkpoint: AtomicU64::default(),
            checkpoint_every: AtomicU64::new(checkpoint::EVERY),
            committed: tokio::sync::watch::Sender::new(0),
        }
    }
}

/// Writes and commits so far in this process: `writes / commits` is the batching achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteCounts {
    pub writes: u64,
    pub commits: u64,
}

/// A commit's outcome as each writer of its batch learns it.
type Outcome = Result<(), Failed>;

#[derive(Clone, Debug)]
enum Failed {
    Busy,
    /// The connection was lost (`storage_unavailable`): the batch is gone, nothing of it committed
    /// — or, for a lost `COMMIT`, perhaps all of it.
    Unavailable(String),
    Other(String),
}

impl Failed {
    fn of(e: Error) -> Self {
        match e {
            Error::StorageBusy => Failed::Busy,
            Error::StorageUnavailable(msg) => Failed::Unavailable(msg),
            e => Failed::Other(e.to_string()),
        }
    }
}

impl From<Failed> for Error {
    fn from(f: Failed) -> Self {
        match f {
            Failed::Busy => Error::StorageBusy,
            Failed::Unavailable(msg) => Error::StorageUnavailable(msg),
            Failed::Other(msg) => Error::Storage(msg),
        }
    }
}

#[derive(Debug, Default)]
struct Batch {
    /// Some while a batch transaction is open.
    conn: Option<Conn>,
    /// The connection of the last batch that committed, kept for the next one: its page cache and
    /// prepared statements stay warm between writes (no other connection of this process writes;
    /// only another process's commit makes SQLite read its pages again). Released by [`Writer::release`].
    idle: Option<Conn>,
    /// The audit chain's newest entry (seq, hash) as the open batch — or, between batches, the last
    /// commit — left it; `None` when unknown (at start, after any rollback or failed commit): see
    /// [`WriteTx::audit_head`].
    audit_head: Option<(i64, String)>,
    /// Writers whose work is in the open batch, each told the outcome of its commit.
    joined: Vec<oneshot::Sender<Outcome>>,
    /// A writer was dropped where no runtime could roll it back: the next one does.
    abandoned: Option<Turn>,
}

/// Counts a writer waiting for its turn for as long as it waits (also if that wait is cut short).
struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    fn new(n: &Arc<AtomicUsize>) -> Self {
        n.fetch_add(1, Ordering::SeqCst);
        Self(n.clone())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Writer {
    /// The writer of `pool`'s database; on SQLite, `file` is that database's file.
    pub fn new(pool: AnyPool, dialect: Dialect, file: Option<PathBuf>) -> Self {
        Self {
            pool,
            dialect,
            file: file.map(Arc::new),
            spare: Arc::default(),
            batch: Arc::default(),
            waiting: Arc::default(),
            counts: Arc::default(),
        }
    }

    /// Changes after every commit that held a write (once its writers' work is on disk): the change
    /// feed's watcher reads the feed then, so a committed change is announced by the commit itself.
    pub fn committed(&self) -> tokio::sync::watch::Receiver<u64> {
        self.counts.committed.subscribe()
    }

    /// Waits for this writer's turn and opens its savepoint (and the batch, if none is open).
    pub async fn begin(&self) -> Result<WriteTx, Error> {
        if self.file.is_some() {
            // SQLite: opening never stops half-way on the writer's own connection (see the module's
            // note on cancellation), so it runs in the caller's task.
            return self.clone().turn().await;
        }
        tokio::spawn(self.clone().turn()).await.map_err(|e| Error::Storage(format!("a writer's start failed: {e}")))?
    }

    async fn turn(self) -> Result<WriteTx, Error> {
        let waiting = Waiting::new(&self.waiting);
        // A writer that waits this long is stuck behind one that never ends (or a second write
        // begun while holding one): fail like a locked database instead of hanging.
        let batch = tokio::time::timeout(TURN_TIMEOUT, self.batch.clone().lock_owned()).await.map_err(|_| Error::StorageBusy)?;
        drop(waiting);
        let mut tx = WriteTx { batch: Some(batch), writer: self, turn: Turn::Opening };
        tx.open().await?;
        Ok(tx)
    }

    /// Lets go of the kept connections: PostgreSQL's goes back to the pool (before the pool closes:
    /// it waits for every connection), SQLite's own ones close. The next writer opens or takes one
    /// again.
    pub async fn release(&self) {
        let idle = self.batch.lock().await.idle.take();
        drop(idle);
        let spare = self.spare.lock().ok().and_then(|mut spare| spare.take());
        drop(spare);
    }

    pub fn counts(&self) -> WriteCounts {
        WriteCounts { writes: self.counts.writes.load(Ordering::Relaxed), commits: self.counts.commits.load(Ordering::Relaxed) }
    }

    /// Ends a writer's turn: keeps or rolls back its work, then commits the batch unless another
    /// writer waits to join it. Returns where to learn the commit's outcome when the work was kept.
    async fn settle(&self, mut batch: OwnedMutexGuard<Batch>, keep: bool, turn: Turn) -> Result<Option<oneshot::Receiver<Outcome>>, Error> {
        let mut outcome = None;
        let mut failed = None;
        let kept = match (turn, keep) {
            (Turn::Opening, _) => false,
            (Turn::First, true) => true,
            (Turn::Joined, true) => match batch.conn.as_mut().expect("a joined writer's batch is open").exec("RELEASE w").await {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            },
            (_, false) => false,
        };
        if kept {
            let (tell, learn) = oneshot::channel();
            batch.joined.push(tell);
            outcome = Some(learn);
            self.counts.writes.fetch_add(1, Ordering::Relaxed);
        } else {
            undo(&mut batch, turn).await;
        }
        if self.waiting.load(Ordering::SeqCst) == 0 || batch.joined.len() >= MAX_BATCH {
            let committed = commit_batch(&mut batch, &self.counts).await;
            self.checkpoint_if_due(committed);
        }
        drop(batch);
        match failed {
            Some(e) => Err(e),
            None => Ok(outcome),
        }
    }
}

/// How far a writer got: what undoing it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turn {
    /// Nothing of it is in the batch yet.
    Opening,
    /// It opened the batch (`BEGIN IMMEDIATE`) and is alone in it: no savepoint needed.
    First,
    /// It joined an open batch, inside savepoint `w`.
    Joined,
}

/// Rolls one writer's work back: its savepoint, or the whole batch if it was alone in it.
async fn undo(batch: &mut Batch, turn: Turn) {
    // What it appended to the audit chain is gone with it.
    batch.audit_head = None;
    match turn {
        Turn::Opening => {}
        Turn::Joined => {
            if let Some(conn) = batch.conn.as_mut() {
                if let Err(e) = rollback_savepoint(conn).await {
                    // No savepoint to go back to: SQLite ended the whole transaction, or the
                    // connection was lost.
                    tracing::warn!("store: could not roll a writer back: {e}");
                    abandon(batch, Failed::of(e)).await;
                }
            }
        }
        Turn::First => {
            if let Some(mut conn) = batch.conn.take() {
                match conn.exec("ROLLBACK").await {
                    Ok(()) => batch.idle = Some(conn),
                    Err(e) => tracing::warn!("store: could not roll a writer back: {e}"),
                }
            }
        }
    }
}

/// The batch's transaction is gone (SQLite rolls one back on its own after some errors: a full disk,
/// an I/O error; a lost connection ends it on either database): every writer in it is told its work
/// was lost, and the next writer starts afresh on a connection of its own.
async fn abandon(batch: &mut Batch, why: Failed) {
    batch.audit_head = None;
    if let Some(mut conn) = batch.conn.take() {
        let _ = conn.exec("ROLLBACK").await;
    }
    let told = match why {
        Failed::Unavailable(msg) => Failed::Unavailable(format!("the transaction holding this write was lost: {msg}")),
        Failed::Busy => Failed::Busy,
        Failed::Other(msg) => Failed::Other(format!("the transaction holding this write was rolled back: {msg}")),
    };
    for tell in batch.joined.drain(..) {
        let _ = tell.send(Err(told.clone()));
    }
}

/// Commits the open batch and tells every writer in it the outcome; the connection goes back to the
/// pool (rolled back first if the commit failed, so it never returns inside a transaction). Answers
/// how many writes the commit made durable.
async fn commit_batch(batch: &mut Batch, counts: &Counts) -> u64 {
    let Some(mut conn) = batch.conn.take() else { return 0 };
    let result = conn.exec("COMMIT").await.map_err(Failed::of);
    if result.is_err() {
        batch.audit_head = None;
        let _ = conn.exec("ROLLBACK").await;
    } else {
        batch.idle = Some(conn);
    }
    if !batch.joined.is_empty() {
        counts.commits.fetch_add(1, Ordering::Relaxed);
        if result.is_ok() {
            counts.committed.send_modify(|n| *n += 1);
        }
    }
    let committed = if result.is_ok() { batch.joined.len() as u64 } else { 0 };
    for tell in batch.joined.drain(..) {
        let _ = tell.send(result.clone());
    }
    committed
}

async fn rollback_savepoint(conn: &mut Conn) -> Result<(), Error> {
    conn.exec("ROLLBACK TO w").await?;
    conn.exec("RELEASE w").await
}

/// One writer's turn: statements run on it ([`super::sql::Sql`]) run in the batch transaction.
/// [`commit`](Self::commit) it; dropping it rolls its work back.
#[derive(Debug)]
pub struct WriteTx {
    batch: Option<OwnedMutexGuard<Batch>>,
    writer: Writer,
    turn: Turn,
}

impl WriteTx {
    async fn open(&mut self) -> Result<(), Error> {
        let pool = self.writer.pool.clone();
        let batch = self.batch.as_mut().expect("an open writer holds the batch");
        if let Some(turn) = batch.abandoned.take() {
            undo(batch, turn).await;
        }
        // A writer joins only a transaction that is still open: one SQLite ended on its own would
        // otherwise have the joiner's savepoint start (and its release commit) a transaction of its own.
        if let Some(conn) = batch.conn.as_ref() {
            if !conn.in_transaction() {
                abandon(batch, Failed::Other("SQLite ended the transaction after an error".into())).await;
            }
        }
        if let Some(conn) = batch.conn.as_mut() {
            match conn.exec("SAVEPOINT w").await {
                Ok(()) => {
                    self.turn = Turn::Joined;
                    return Ok(());
                }
                // The batch's connection was lost under it: its writers are told, and this one
                // starts a batch of its own on a fresh connection.
                Err(Error::StorageUnavailable(why)) => abandon(batch, Failed::Unavailable(why)).await,
                Err(e) => return Err(e),
            }
        }
        // A connection the pool handed out may have died since (PostgreSQL restarted): one more try
        // on another before giving up with `storage_unavailable`.
        let kept = batch.idle.take();
        let (dialect, file) = (self.writer.dialect, self.writer.file.clone());
        let conn = match conn::begin(kept, &pool, dialect, file.as_deref().map(PathBuf::as_path)).await {
            Err(Error::StorageUnavailable(why)) => {
                tracing::info!("store: a write could not begin ({why}); trying once more on a fresh connection");
                conn::begin(None, &pool, dialect, file.as_deref().map(PathBuf::as_path)).await?
            }
            other => other?,
        };
        batch.conn = Some(conn);
        self.turn = Turn::First;
        Ok(())
    }

    /// The audit chain's newest entry as this transaction sees it, when this process knows it
    /// without reading it (its own last append, committed or in this batch); `None` after anything
    /// was rolled back. It can only be behind what the database holds (another process appended),
    /// never ahead: [`super::audit::append`] tells a taken `seq` and reads the head then.
    pub(crate) fn audit_head(&mut self) -> &mut Option<(i64, String)> {
        &mut self.batch.as_mut().expect("an open writer holds the batch").audit_head
    }

    /// Keeps this writer's work and returns once the commit that holds it is on disk (or failed).
    pub async fn commit(mut self) -> Result<(), Error> {
        let batch = self.batch.take().expect("an open writer holds the batch");
        let learn = if self.writer.file.is_some() {
            // SQLite: settling never stops half-way (see the module's note on cancellation).
            let learn = self.writer.settle(batch, true, self.turn).await?;
            // The commit woke whoever watches it (the change feed, then a long poll waiting for
            // this change) into this thread's next slot, which only this task's yield frees: the
            // writer's caller may go on for a while without suspending (its next writes too).
            tokio::task::yield_now().await;
            learn
        } else {
            let (writer, turn) = (self.writer.clone(), self.turn);
            tokio::spawn(async move { writer.settle(batch, true, turn).await })
                .await
                .map_err(|e| Error::Storage(format!("a writer's commit failed: {e}")))??
        };
        match learn {
            Some(learn) => {
                learn.await.map_err(|_| Error::Storage("the batch of this write ended without a commit".into()))?.map_err(Error::from)
            }
            None => Err(Error::Storage("a writer committed outside a transaction".into())),
        }
    }
}

impl super::sql::Sql for WriteTx {
    fn run(
        &mut self,
        query: super::sql::Query,
        rows: bool,
    ) -> impl std::future::Future<Output = Result<(u64, Vec<super::sql::Row>), Error>> + Send {
        let conn = self.batch.as_mut().and_then(|b| b.conn.as_mut()).expect("an open writer has the batch's connection");
        conn.run(query, rows)
    }
    fn dialect(&self) -> Dialect {
        self.writer.dialect
    }
}

impl Drop for WriteTx {
    fn drop(&mut self) {
        let Some(mut batch) = self.batch.take() else { return };
        let (writer, turn) = (self.writer.clone(), self.turn);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if let Err(e) = writer.settle(batch, false, turn).await {
                        tracing::warn!("store: could not end a dropped writer: {e}");
                    }
                });
            }
            Err(_) => batch.abandoned = Some(turn),
        }
    }
}

mod checkpoint;
mod conn;
#[cfg(test)]
mod tests;
