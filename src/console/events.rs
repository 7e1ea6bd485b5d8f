//! A broadcast of queue changes, consumed by SSE (and later Tauri events, notifications, the tray).

use crate::domain::ItemId;
use serde::Serialize;
use tokio::sync::broadcast;

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

/// Cheap to clone; sending never blocks and never fails (a slow subscriber lags and is told so).
#[derive(Clone, Debug)]
pub struct Events {
    tx: broadcast::Sender<QueueEvent>,
}

impl Default for Events {
    fn default() -> Self {
        Self { tx: broadcast::channel(4096).0 }
    }
}

impl Events {
    pub fn added(&self, id: &ItemId) {
        let _ = self.tx.send(QueueEvent { kind: Change::Added, id: id.clone() });
    }

    pub fn updated(&self, id: &ItemId) {
        let _ = self.tx.send(QueueEvent { kind: Change::Updated, id: id.clone() });
    }

    pub fn subscribe(&self) -> broadcast::Receiver<QueueEvent> {
        self.tx.subscribe()
    }
}
