//! What an operator (or a Mastra client through the engine API) decides about a paused call.

use super::{DecisionId, Fingerprint, ItemId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The decision kinds an engine may accept (engines say which ones a call allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DecisionKind {
    Approve,
    Decline,
    Resume,
}

impl DecisionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Decline => "decline",
            Self::Resume => "resume",
        }
    }
}

/// The decision itself, before it is stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Approve,
    Decline { reason: Option<String> },
    Resume { data: Value },
}

impl Verdict {
    pub fn kind(&self) -> DecisionKind {
        match self {
            Self::Approve => DecisionKind::Approve,
            Self::Decline { .. } => DecisionKind::Decline,
            Self::Resume { .. } => DecisionKind::Resume,
        }
    }
}

/// A request to decide: the verdict, the fingerprint that was on screen (C3), and who decides.
#[derive(Clone, Debug)]
pub struct DecisionRequest {
    pub verdict: Verdict,
    pub fingerprint: Fingerprint,
    /// Who decided and through what: `alice (web)`, `alice (cli)`, `mastra-api`.
    pub operator: String,
}

/// Delivery state of a decision to its engine (the outbox, C5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    Pending,
    Delivering,
    Delivered,
    Failed,
}

/// A stored decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub id: DecisionId,
    pub item_id: ItemId,
    pub verdict: Verdict,
    pub fingerprint: Fingerprint,
    pub operator: String,
    pub decided_at: DateTime<Utc>,
    pub delivery: Delivery,
    pub outcome: Option<Value>,
    /// Delivery attempts so far (the outbox, C5).
    pub attempts: u32,
    /// Why the last attempt failed, if it did.
    pub last_error: Option<String>,
    /// When a deferred delivery is tried next.
    pub next_attempt_at: Option<DateTime<Utc>>,
}
