//! WAL checkpoints between batches, not inside a writer's commit (SQLite).
//!
//! SQLite's automatic checkpoint runs inside the `COMMIT` that pushes the WAL past its threshold:
//! every few dozen commits, one writer's commit (and every writer of its batch) waits while about a
//! thousand pages are copied into the database file and synced — what sets the p99 of anything that
//! commits. Here this process's connections do not checkpoint on their own (`PRAGMA
//! wal_autocheckpoint = 0`, `open_sqlite`): once the writes committed since the last checkpoint
//! have filled about [`PAGES`] WAL frames, a task first copies them beside the writers (a passive
//! checkpoint on a spare connection, on a blocking thread: the ~1,000 pages and the file's sync
//! hold up no writer), then takes the writer's turn like a writer would and, between two batches,
//! runs a second passive checkpoint on the writer's kept connection, which has only the frames
//! written meanwhile left to copy. Holding the turn, no frame is appended meanwhile, so that one
//! copies the whole WAL and SQLite starts it again from its beginning at the next write (a
//! checkpoint only beside writers that go on never catches up: the WAL then grows without end).
//!
//! Durability is untouched: a commit is on disk once its WAL frames are synced, before and after a
//! checkpoint; one cut short by a crash is redone from the WAL at the next open. Other processes (the
//! CLI) checkpoint the same way after their own writes; the last connection to close checkpoints
//! what is left.

use super::conn::Conn;
use super::Writer;
use std::sync::atomic::Ordering;

/// WAL frames (pages) between two checkpoints: SQLite's own default threshold.
pub const PAGES: u64 = 1000;

/// Writes between the first two checkpoints; after each, the next is set from the frames per
/// write it found (writes that share a commit share pages: under load a write adds fewer).
pub const EVERY: u64 = 40;

impl Writer {
    /// After a commit: a checkpoint once enough writes have been committed since the last one to
    /// fill about [`PAGES`] WAL frames.
    pub(super) fn checkpoint_if_due(&self, committed_writes: u64) {
        if self.dialect != super::Dialect::Sqlite {
            return;
        }
        // Called by the commit, within the writer's turn: one caller at a time.
        let every = self.counts.checkpoint_every.load(Ordering::Relaxed);
        if self.counts.since_checkpoint.fetch_add(committed_writes, Ordering::SeqCst) + committed_writes < every {
            return;
        }
        let writes = self.counts.since_checkpoint.swap(0, Ordering::SeqCst);
        let this = self.clone();
        tokio::spawn(async move {
            // The copy of what the WAL holds now, beside the writers (a passive checkpoint waits for
            // none of them, nor they for it), on a connection of its own...
            let ahead = match this.copy_ahead().await {
                Ok(copied) => copied,
                Err(e) => {
                    tracing::debug!("store: a WAL checkpoint beside the writers failed (the writer's turn copies all): {e}");
                    0
                }
            };
            // ...then what they wrote meanwhile, holding the turn: only then is the whole WAL
            // copied, and SQLite starts it again at the next write.
            let mut batch = this.batch.clone().lock_owned().await;
            let done = match (batch.conn.is_some(), batch.idle.take()) {
                // Copying pages and syncing the file: on a blocking thread, holding the turn.
                (false, Some(Conn::Lite(conn))) => match tokio::task::spawn_blocking(move || (checkpoint(&conn), conn)).await {
                    Ok((done, conn)) => {
                        batch.idle = Some(Conn::Lite(conn));
                        done.map(Some)
                    }
                    Err(e) => Err(crate::domain::Error::Storage(format!("the checkpoint's thread failed: {e}"))),
                },
                // A batch is open (its writers come first), or no connection is kept: the next
                // commit tries again.
                (_, idle) => {
                    batch.idle = idle;
                    Ok(None)
                }
            };
            drop(batch);
            match done {
                Ok(Some((_, frames, copied))) => {
                    tracing::debug!(frames, beside_the_writers = ahead, holding_the_turn = copied - ahead, "store: WAL checkpointed");
                    // The WAL held `frames` for `writes` writes (and whatever other processes
                    // added): about PAGES frames' worth of writes until the next one.
                    let next = (writes * PAGES / (frames.max(1) as u64)).clamp(8, 10 * EVERY);
                    this.counts.checkpoint_every.store(next, Ordering::Relaxed);
                }
                Ok(None) => {
                    this.counts.since_checkpoint.fetch_add(writes, Ordering::SeqCst);
                }
                Err(e) => {
                    tracing::warn!("store: a WAL checkpoint failed (tried again after the next commit): {e}");
                    this.counts.since_checkpoint.fetch_add(writes, Ordering::SeqCst);
                }
            }
        });
    }
}

impl Writer {
    /// A passive checkpoint on the writer's spare connection (opened once), on a blocking thread.
    /// Answers the frames it copied.
    pub(super) async fn copy_ahead(&self) -> Result<i64, crate::domain::Error> {
        let (Some(file), spare) = (self.file.clone(), self.spare.clone()) else { return Ok(0) };
        tokio::task::spawn_blocking(move || {
            let mut spare = spare.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let conn = match spare.take() {
                Some(conn) => conn,
                None => crate::store::lite::writer(&file)?,
            };
            let done = checkpoint(&conn).map(|(_, _, copied)| copied);
            *spare = Some(conn);
            done
        })
        .await
        .map_err(|e| crate::domain::Error::Storage(format!("the checkpoint's thread failed: {e}")))?
    }
}

/// A passive checkpoint: (busy, frames in the WAL, frames copied), as SQLite answers it.
fn checkpoint(conn: &rusqlite::Connection) -> Result<(i64, i64, i64), crate::domain::Error> {
    let found = crate::store::sql::lite_run(conn, &crate::store::sql::sql("PRAGMA wal_checkpoint(PASSIVE)"), true)?.1;
    let row = found.first().ok_or_else(|| crate::domain::Error::Storage("the checkpoint answered nothing".into()))?;
    Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
}
