//! Queue events, consumed by SSE (and later Tauri events, notifications, the tray).
//!
//! One source of truth: the database's change feed (`queue_items.change_seq`, kept by triggers). A
//! watcher tails it and broadcasts; every commit in this process wakes the watcher at once (the
//! writer announces it: [`Db::committed`]). Commits of
//! other processes: on SQLite a periodic poll picks them up (the CLI deciding while `serve` runs); on
//! PostgreSQL every commit that changes the queue sends a NOTIFY (a trigger) that wakes the watcher
//! of every console of the team, and a slow poll is only the safety net. Either way the watcher reads
//! the feed from the last number it saw, so a lost notification or a reconnect loses nothing.

use super::cells::Cells;
use super::Db;
use crate::domain::{Error, ItemId};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, Notify};

/// How often the feed is read when nothing woke the watcher: SQLite (no notifications between
/// processes), PostgreSQL (LISTEN wakes it; this is the safety net).
const POLL: Duration = Duration::from_millis(250);
const POLL_WITH_LISTEN: Duration = Duration::from_secs(5);

/// The channel the PostgreSQL schema's trigger notifies (migrations/postgres).
pub const CHANNEL: &str = "approval_console_queue";

/// What happened to a queue entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// A call paused.
    Added,
    /// Its state changed: decided, delivered, failed, interrupted, gone.
    Updated,
}

/// What changed.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueEvent {
    #[serde(rename = "type")]
    pub kind: Change,
    #[schema(value_type = String)]
    pub id: ItemId,
}

/// Cheap to clone. Sending never blocks; a slow subscriber lags and is told so.
#[derive(Clone, Debug)]
pub struct Events {
    tx: broadcast::Sender<QueueEvent>,
    wake: Arc<Notify>,
    /// Team mode: every notification PostgreSQL delivers on [`CHANNEL`] (queue changes, and
    /// decisions handed over to another console's outbox).
    from_database: Arc<Notify>,
}

impl Default for Events {
    fn default() -> Self {
        Self { tx: broadcast::channel(4096).0, wake: Arc::new(Notify::new()), from_database: Arc::new(Notify::new()) }
    }
}

impl Events {
    /// Waits for the next notification from the database (team mode; never returns on SQLite). One
    /// waiter: the outbox worker.
    pub async fn notified_by_database(&self) {
        self.from_database.notified().await
    }

    pub fn subscribe(&self) -> broadcast::Receiver<QueueEvent> {
        self.tx.subscribe()
    }

    /// Tails the change feed until the database is closed, broadcasting one event per change
    /// committed after this returns.
    pub async fn watch(&self, db: Db) -> Result<tokio::task::JoinHandle<()>, Error> {
        let poll = match db.location() {
            super::Location::Postgres(url) => {
                self.listen(url.clone(), db.clone());
                POLL_WITH_LISTEN
            }
            super::Location::Sqlite(_) => POLL,
        };
        self.watch_every(db, poll).await
    }

    /// [`Events::watch`], reading the feed every `poll` when nothing woke the watcher.
    pub(super) async fn watch_every(&self, db: Db, poll: Duration) -> Result<tokio::task::JoinHandle<()>, Error> {
        let this = self.clone();
        // Every commit of this process that wrote something wakes the watcher: no writer has to
        // announce its change. Subscribed before the feed is read, so no commit falls between.
        let mut committed = db.committed();
        let (mut last, epoch): (i64, i64) =
            sqlx::query_as("SELECT (SELECT COALESCE(MAX(change_seq), 0) FROM queue_items), (SELECT n FROM settings_epoch WHERE id = 1)")
                .fetch_one(db.pool())
                .await?;
        db.settings_cache().epoch(epoch);
        Ok(tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = this.wake.notified() => {}
                    Ok(()) = committed.changed() => {}
                    _ = tokio::time::sleep(poll) => {}
                }
                if db.pool().is_closed() {
                    return;
                }
                match this.publish_since(&db, last).await {
                    Ok(seen) => last = seen,
                    Err(e) if db.pool().is_closed() => return drop(e),
                    Err(e) => {
                        // Changes of other processes go unheard until the feed is read again.
                        db.settings_cache().unheard();
                        tracing::warn!("reading the queue change feed failed: {e}")
                    }
                }
            }
        }))
    }

    /// Wakes the watcher on each notification of [`CHANNEL`], and after each reconnect (to read what
    /// was missed while the connection was down). Ends when the database is closed.
    fn listen(&self, url: String, db: Db) {
        let wake = self.wake.clone();
        let from_database = self.from_database.clone();
        let listening = tokio::spawn(async move {
            let mut listener = loop {
                match sqlx::postgres::PgListener::connect(&url).await {
                    Ok(mut l) => match l.listen(CHANNEL).await {
                        Ok(()) => break l,
                        Err(e) => tracing::warn!("LISTEN {CHANNEL} failed (retrying): {e}"),
                    },
                    Err(e) => tracing::warn!("cannot listen for queue changes (retrying): {}", super::redact(&e.to_string())),
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            };
            wake.notify_one();
            loop {
                match listener.try_recv().await {
                    Ok(Some(_)) => {
                        wake.notify_one();
                        from_database.notify_one();
                    }
                    // The connection dropped and the listener connected again (and listens again).
                    Ok(None) => wake.notify_one(),
                    Err(e) => {
                        tracing::warn!("listening for queue changes failed (retrying): {e}");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        });
        let closed = db.pool().close_event();
        tokio::spawn(async move {
            closed.await;
            listening.abort();
        });
    }

    async fn publish_since(&self, db: &Db, mut last: i64) -> Result<i64, Error> {
        loop {
            let rows = read_since(db, last).await?;
            let mut changes = 0;
            for (id, state, seq) in rows {
                let Some(id) = id else {
                    db.settings_cache().epoch(seq);
                    continue;
                };
                changes += 1;
                // An entry is pending when it is inserted, and again when an approval below its quorum is
                // recorded (C8: screens announce it again with the approvals so far).
                let kind = if state.as_deref() == Some("pending") { Change::Added } else { Change::Updated };
                let _ = self.tx.send(QueueEvent { kind, id: ItemId::new(id) });
                last = seq;
            }
            if changes < 1000 {
                return Ok(last);
            }
        }
    }
}

/// The feed after `last`: (id, state, change_seq) of up to 1,000 changes in order, and the settings
/// epoch riding along in the same statement as a row without an id (the settings kept in memory
/// are forgotten when it moved: settings::Cache). On SQLite a reader thread runs it.
async fn read_since(db: &Db, last: i64) -> Result<Vec<(Option<String>, Option<String>, i64)>, Error> {
    const SINCE: &str = "SELECT id, state, change_seq FROM
           (SELECT id, state, change_seq FROM queue_items WHERE change_seq > $1 ORDER BY change_seq LIMIT 1000) AS feed
         UNION ALL SELECT NULL, NULL, n FROM settings_epoch WHERE id = 1";
    fn decode(row: &impl Cells) -> Result<(Option<String>, Option<String>, i64), Error> {
        Ok((row.cell("id")?, row.cell("state")?, row.cell("change_seq")?))
    }
    match db.readers() {
        Some(readers) => readers.read(move |c| super::lite::rows(c, SINCE, &[&last], |r| decode(r))).await,
        None => sqlx::query(SINCE).bind(last).fetch_all(db.pool()).await?.iter().map(decode).collect(),
    }
}

/// Team mode: wakes the outbox workers of every console when the transaction commits (a decision
/// handed over to the console that delivers it). Nothing on SQLite.
pub(in crate::store) async fn notify_outboxes(conn: &mut impl super::sql::Sql) -> Result<(), crate::domain::Error> {
    if conn.dialect() == super::Dialect::Postgres {
        super::sql::sql("SELECT 1 FROM pg_notify($1, 'outbox')").bind(CHANNEL).execute(&mut *conn).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::PausedCall;

    /// With a poll that never comes in a test's lifetime, only the commit itself can wake the
    /// watcher: a writer that announces nothing is still heard at once.
    #[tokio::test]
    async fn a_committed_queue_change_is_announced_by_the_commit_alone() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        let events = Events::default();
        let mut heard = events.subscribe();
        let watcher = events.watch_every(db.clone(), Duration::from_secs(24 * 3600)).await.unwrap();
        let mut tx = db.begin_write().await.unwrap();
        let item = super::super::queue::insert_pending(&mut tx, &PausedCall::sample("delete_record", serde_json::json!({ "id": "r-1" })))
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let event = tokio::time::timeout(Duration::from_secs(60), heard.recv()).await.expect("announced without a poll").unwrap();
        assert_eq!(event.id, item.id);
        watcher.abort();
    }
}
