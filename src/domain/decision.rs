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
    /// Approve with arguments the operator edited (engines that run tools themselves: the local one).
    Edit,
    /// An interrupted call (the console stopped while its tool ran): the operator says it ran, with
    /// the result the model is told, if known.
    Ran,
    /// An interrupted call: the operator says it did not run; the model is told it failed.
    #[serde(rename = "did_not_run")]
    DidNotRun,
    /// An interrupted call of a tool marked idempotent: run it again, approved anew by the operator.
    #[serde(rename = "run_again")]
    RunAgain,
}

impl DecisionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Decline => "decline",
            Self::Resume => "resume",
            Self::Edit => "edit",
            Self::Ran => "ran",
            Self::DidNotRun => "did_not_run",
            Self::RunAgain => "run_again",
        }
    }

    /// Whether this kind resolves an interrupted call rather than decides a waiting one.
    pub fn resolves(self) -> bool {
        matches!(self, Self::Ran | Self::DidNotRun | Self::RunAgain)
    }
}

/// What the operator says became of an interrupted call (its delivery was cut by a stop of the
/// console while the tool ran, so nobody knows whether it ran).
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// It ran; `result` (if the operator knows it) is what the model is told it returned.
    Ran { result: Option<Value> },
    /// It did not run: the model is told the call failed.
    DidNotRun,
    /// Run it again (idempotent tools only): an approval of the same arguments, bound to the same
    /// fingerprint, delivered through a new queue entry.
    RunAgain,
}

impl Resolution {
    pub fn kind(&self) -> DecisionKind {
        match self {
            Self::Ran { .. } => DecisionKind::Ran,
            Self::DidNotRun => DecisionKind::DidNotRun,
            Self::RunAgain => DecisionKind::RunAgain,
        }
    }

    /// What the run's model is told the call returned, for the two resolutions that run nothing.
    pub fn told(&self, tool_name: &str) -> Option<Value> {
        match self {
            Self::Ran { result: Some(result) } => Some(result.clone()),
            Self::Ran { result: None } => Some(Value::String(format!(
                "Tool {tool_name} ran, but its result was lost when the console stopped; the operator confirmed it ran."
            ))),
            Self::DidNotRun => Some(Value::String(format!(
                "Tool {tool_name} failed: the console stopped before it ran, and the operator confirmed it did not run. Nothing was done."
            ))),
            Self::RunAgain => None,
        }
    }
}

/// A request to resolve an interrupted call: bound to the fingerprint on screen, like a decision.
#[derive(Clone, Debug)]
pub struct ResolveRequest {
    pub resolution: Resolution,
    pub fingerprint: Fingerprint,
    /// Who resolves and through what: `alice (web)`.
    pub operator: String,
    /// The resolving principal's key: `run_again` approves the call anew as this operator (one
    /// approval of its quorum, if its tool has one).
    pub operator_key: Option<String>,
}

/// The decision itself, before it is stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Approve,
    Decline {
        reason: Option<String>,
    },
    Resume {
        data: Value,
    },
    /// Approve, running the call with `args` (edited by the operator) instead of the ones it was
    /// paused with. The decision stays bound to the fingerprint shown (C3); `fingerprint` is the
    /// edited arguments' own, which the engine checks just before the tool runs (S7).
    ApproveEdited {
        args: Value,
        fingerprint: Fingerprint,
    },
    /// Nobody decided within the tool's time limit: the console declines the call, and says so — to
    /// the model, in the audit and in the decision — as an expiry, not an operator's decline.
    Expire {
        after_secs: u64,
    },
}

impl Verdict {
    /// What an engine is asked to do: an expiry is a decline to the engine.
    pub fn kind(&self) -> DecisionKind {
        match self {
            Self::Approve => DecisionKind::Approve,
            Self::Decline { .. } | Self::Expire { .. } => DecisionKind::Decline,
            Self::Resume { .. } => DecisionKind::Resume,
            Self::ApproveEdited { .. } => DecisionKind::Edit,
        }
    }

    /// The name in the audit log (`decision.<name>`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Expire { .. } => "expire",
            other => other.kind().as_str(),
        }
    }

    /// What an expired call tells the model and the engine in place of a reason.
    pub fn expiry_text(after_secs: u64) -> String {
        format!(
            "No operator decided on this call within {}: it expired and was not run. This is not a refusal; the user may ask again.",
            human_secs(after_secs)
        )
    }
}

/// `45 s`, `30 min`, `2 h`, `1 h 30 min`, `3 d`.
pub fn human_secs(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86_400 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s < 86_400 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        s => format!("{} d", s / 86_400),
    }
}

/// A request to decide: the verdict, the fingerprint that was on screen (C3), and who decides.
#[derive(Clone, Debug)]
pub struct DecisionRequest {
    pub verdict: Verdict,
    pub fingerprint: Fingerprint,
    /// Who decided and through what: `alice (web)`, `alice (cli)`, `mastra-api`.
    pub operator: String,
    /// The deciding principal's key ([`super::Principal::key`]: `token:alice`, `local:bob`): whose
    /// approval it is under a quorum (the two-person rule). `None` for the console's own decisions
    /// (expiry, grants) and callers that name no principal: such an approval of a tool with a quorum
    /// is refused (`quorum_tool`).
    pub operator_key: Option<String>,
}

/// One operator's approval of a call whose tool needs several (the two-person rule): the ones below
/// the quorum wait in the `approvals` table; the last one becomes the decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Approval {
    /// Who, as the audit log names them: `alice (web)`.
    pub operator: String,
    /// The principal's key (`token:alice`): one approval each per call.
    pub operator_key: String,
    /// The fingerprint that was on screen: always the call's own (any other is refused first).
    pub fingerprint: Fingerprint,
    pub approved_at: DateTime<Utc>,
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
    /// Its signed receipt (issue 29, docs/receipts.md): a JWS the place where the tool runs checks.
    /// `None` only for decisions stored before receipts existed.
    pub receipt: Option<String>,
}
