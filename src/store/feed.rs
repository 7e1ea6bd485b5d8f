//! Queue events, consumed by SSE (and later Tauri events, notifications, the tray).
//!
//! One source of truth: the database's change feed (`queue_items.change_seq`, kept by triggers). A
//! watcher tails it and broadcasts; a commit in this process wakes the watcher at once, and a periodic
//! poll picks up commits of other processes (the CLI deciding while `serve` runs).

use super::Db;
use crate::domain::ItemId;
use serde::Serialize;
use sqlx::Row;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, Notify};

/// How often the feed is read when nothing in this process woke the watcher.
const POLL: Duration = Duration::from_millis(250);

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
}

impl Default for Events {
    fn default() -> Self {
        Self { tx: broadcast::channel(4096).0, wake: Arc::new(Notify::new()) }
    }
}

impl Events {
    /// Call after committing a queue change: the watcher reads the feed now instead of at its next poll.
    pub fn changed(&self) {
        self.wake.notify_one();
    }

    pub fn subscribe(&self) -> broadcast::Receiver<QueueEvent> {
        self.tx.subscribe()
    }

    /// Tails the change feed until the database is closed, broadcasting one event per change.
    pub fn watch(&self, db: Db) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut last: i64 = match sqlx::query_scalar("SELECT COALESCE(MAX(change_seq), 0) FROM queue_items").fetch_one(db.pool()).await
            {
                Ok(v) => v,
                Err(_) => return,
            };
            loop {
                tokio::select! {
                    _ = this.wake.notified() => {}
                    _ = tokio::time::sleep(POLL) => {}
                }
                if db.pool().is_closed() {
                    return;
                }
                match this.publish_since(&db, last).await {
                    Ok(seen) => last = seen,
                    Err(e) if db.pool().is_closed() => return drop(e),
                    Err(e) => tracing::warn!("reading the queue change feed failed: {e}"),
                }
            }
        })
    }

    async fn publish_since(&self, db: &Db, mut last: i64) -> Result<i64, sqlx::Error> {
        loop {
            let rows = sqlx::query("SELECT id, state, change_seq FROM queue_items WHERE change_seq > ? ORDER BY change_seq LIMIT 1000")
                .bind(last)
                .fetch_all(db.pool())
                .await?;
            for row in &rows {
                // An entry is pending exactly once, when it is inserted.
                let kind = if row.try_get::<String, _>("state")? == "pending" { Change::Added } else { Change::Updated };
                let _ = self.tx.send(QueueEvent { kind, id: ItemId::new(row.try_get::<String, _>("id")?) });
                last = row.try_get("change_seq")?;
            }
            if rows.len() < 1000 {
                return Ok(last);
            }
        }
    }
}
