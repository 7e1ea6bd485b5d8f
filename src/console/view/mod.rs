//! The queue as every shell shows it (issue 46: one orchestrator): an entry with the decisions it
//! allows, its decision and delivery, and what is read for it as it is now (deadline, risk and
//! quorum, approvals, resolution, context), built here for the reads of the queue and for the answer
//! of a decision alike — a decision's answer is built from the settings its checks read
//! ([`Console::decide_and_deliver`]), never read again a layer up.

mod reads;

use super::Console;
use crate::domain::{CallKind, CallSource, ChainLink, DecisionKind, Delivery, Fingerprint, ItemState, PauseReason, Verdict};
use crate::store::queue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The tabs of the queue view: each call is under exactly one, by its state and whether its
/// decision was an expiry.
///
/// | tab | states | |
/// |---|---|---|
/// | `pending` | `pending` | waiting for a decision |
/// | `awaiting_delivery` | `decided` | decided (by an operator or by its time limit); the decision waits in the outbox: about to be delivered, being delivered, or deferred to a retry because the engine could not be reached (C5) |
/// | `decided` | `delivered`, `failed`, `interrupted` | decided by an operator, and the delivery is over: the engine took it, answered with an error, or the process died while the tool ran (never re-run) |
/// | `expired` | `delivered`, `failed`, `interrupted` | declined because nobody decided within its time limit, and that decline's delivery is over |
/// | `gone` | `gone` | the run ended elsewhere before anyone decided here |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueTab {
    Pending,
    AwaitingDelivery,
    Decided,
    Expired,
    Gone,
}

impl QueueTab {
    /// The tab of a call in `state` whose decision was (`expired`) or was not an expiry.
    pub fn of(state: ItemState, expired: bool) -> Self {
        match state {
            ItemState::Pending => Self::Pending,
            ItemState::Decided => Self::AwaitingDelivery,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted if expired => Self::Expired,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted => Self::Decided,
            ItemState::Gone => Self::Gone,
        }
    }

    /// What this tab lists, as a store filter: the states (as stored), and whether the decision
    /// must (`Some(true)`) or must not (`Some(false)`) be an expiry.
    pub fn scope(self) -> (&'static [&'static str], Option<bool>) {
        const OVER: &[&str] = &["delivered", "failed", "interrupted"];
        match self {
            Self::Pending => (&["pending"], None),
            Self::AwaitingDelivery => (&["decided"], None),
            Self::Decided => (OVER, Some(false)),
            Self::Expired => (OVER, Some(true)),
            Self::Gone => (&["gone"], None),
        }
    }

    /// Whether a call counted as `(state as stored, expired)` is under this tab.
    fn holds(self, state: &str, expired: bool) -> bool {
        let (states, exp) = self.scope();
        states.contains(&state) && exp.is_none_or(|e| e == expired)
    }
}

/// A queue entry as the API shows it (C2).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueItem {
    pub id: String,
    pub engine: String,
    /// Where the call comes from (follows from `engine`): the local engine, a remote engine's kind,
    /// or the source of a call an agent submitted itself.
    pub source: CallSource,
    /// What an agent that submitted the call said around it (a hook: its working directory, the
    /// event); untrusted, never part of the fingerprint. Null for calls of engines.
    #[schema(required = true)]
    pub context: Option<Value>,
    pub agent_id: String,
    #[schema(required = true)]
    pub agent_name: Option<String>,
    #[schema(required = true)]
    pub thread_id: Option<String>,
    #[schema(required = true)]
    pub resource_id: Option<String>,
    pub run_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    /// The arguments exactly as stored; untrusted data.
    pub args: Value,
    pub fingerprint: Fingerprint,
    pub kind: CallKind,
    #[schema(required = true)]
    pub suspend_payload: Option<Value>,
    /// JSON Schema of the resume data (kind `suspend`).
    #[schema(required = true)]
    pub resume_schema: Option<Value>,
    /// Supervisor path, outermost first (S13); empty for a direct call.
    pub chain: Vec<ChainLink>,
    pub state: ItemState,
    /// The tab of the queue view this call is listed under (follows from `state`).
    pub tab: QueueTab,
    pub paused_at: DateTime<Utc>,
    /// The decisions this call allows.
    pub allowed: Vec<DecisionKind>,
    #[schema(required = true)]
    pub decision: Option<DecisionView>,
    /// When a pending call is declined as expired if nobody decides (its tool's time limit, or a
    /// snooze); null without a limit.
    #[schema(required = true)]
    pub expires_at: Option<DateTime<Utc>>,
    /// Why a pending call cannot be approved as it is (`missing_arguments`, `ambiguous_arguments`),
    /// so `allowed` has no `approve`; null when it can be.
    #[schema(required = true)]
    pub approve_blocked: Option<Blocked>,
    /// Why it paused, when its engine says (the tool's flag, the request, a rule, a question…).
    #[schema(required = true)]
    pub pause_reason: Option<PauseReason>,
    /// Its risk is high or critical now (its arguments, or its tool in the settings' high-risk
    /// list): it needs a confirm step, gets no notification Approve, no grant, no approval through
    /// the Mastra-shaped routes.
    pub high_risk: bool,
    /// What the call would do, judged from its arguments (`domain::risk`): a level and the reasons,
    /// the most serious first; a high-risk tool (settings) is at least `high`.
    pub risk: crate::domain::risk::Risk,
    /// What a file-editing call would change (Claude Code's Edit, MultiEdit and Write, Codex's
    /// apply_patch): a unified diff per file — against the file as its hook read it, when it did —
    /// and a one-line summary; null for other calls.
    #[schema(required = true)]
    pub changes: Option<crate::domain::change::Changes>,
    /// What the operator said became of an interrupted call (it ran, it did not run, run again);
    /// null until then, and for calls that were not interrupted.
    #[schema(required = true)]
    pub resolution: Option<crate::store::resolutions::Stored>,
    /// How many approvals by different operators it needs now (the two-person rule; settings
    /// `quorum`: its tool's rule, or the critical calls' when it is rated critical): 1 without one.
    pub quorum: u32,
    /// The approvals of a call whose tool needs several, oldest first: while it waits, those so far
    /// (one per operator); once decided, every one, the one that completed the quorum last. Empty
    /// for a call approved the ordinary way.
    pub approvals: Vec<ApprovalView>,
    /// Who asked for the call: the credential that submitted it, or the principal that started its
    /// run (an agent credential, or the local admin); null where the engine does not say (remote
    /// servers). Not what the call claims: the agent name is what the credential may claim.
    #[schema(required = true)]
    pub requested_by: Option<Requester>,
}

/// A principal that asked for a call, as the queue shows it.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Requester {
    /// The credential's name, or the local admin's OS account.
    pub name: String,
    /// `token` (a stored credential) or `local` (the local admin).
    pub kind: crate::domain::PrincipalKind,
}

impl Requester {
    /// From a `Principal::key()` (`token:claude-hook`, `local:alice`); `None` for any other text.
    pub fn of_key(key: &str) -> Option<Self> {
        let (kind, name) = key.split_once(':')?;
        let kind = match kind {
            "token" => crate::domain::PrincipalKind::Token,
            "local" => crate::domain::PrincipalKind::Local,
            "device" => crate::domain::PrincipalKind::Device,
            _ => return None,
        };
        Some(Self { name: name.to_owned(), kind })
    }
}

/// One operator's approval of a call whose tool needs several (the two-person rule).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalView {
    /// Who, as the audit log names them: `alice (web)`.
    pub operator: String,
    /// The principal's key (`token:alice`, `local:bob`): what a quorum counts once.
    pub operator_key: String,
    pub at: DateTime<Utc>,
}

/// Why a decision is not offered: the error code and message it would get.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Blocked {
    pub code: String,
    pub message: String,
    #[schema(required = true)]
    pub details: Option<Value>,
}

/// The decision taken on an entry, with its delivery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub kind: DecisionKind,
    #[schema(required = true)]
    pub reason: Option<String>,
    #[schema(required = true)]
    pub data: Option<Value>,
    pub fingerprint: Fingerprint,
    pub operator: String,
    pub decided_at: DateTime<Utc>,
    pub delivery: Delivery,
    /// What the engine answered (the tool's result, a decline, a block, an error).
    #[schema(required = true)]
    pub outcome: Option<Value>,
    /// Delivery attempts so far.
    pub attempts: u32,
    /// Why the last delivery attempt failed (the engine was unreachable, …).
    #[schema(required = true)]
    pub last_error: Option<String>,
    /// When a deferred delivery is tried next.
    #[schema(required = true)]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Set when nobody decided in time and the console declined the call as expired: the limit that ran out.
    #[schema(required = true)]
    pub expired_after_secs: Option<u64>,
    /// For `edit`: the fingerprint of the edited arguments (in `data`) the tool ran with; `fingerprint`
    /// stays the one of the call as shown.
    #[schema(required = true)]
    pub edited_fingerprint: Option<Fingerprint>,
    /// The decision's signed receipt (a JWS, docs/receipts.md); null for decisions stored before
    /// receipts existed.
    #[schema(required = true)]
    pub receipt: Option<String>,
}

impl QueueItem {
    pub fn from_entry(e: queue::Entry, console: &Console) -> Self {
        let q = e.queued;
        let allowed = if q.state == ItemState::Pending { console.allowed(&q.call) } else { vec![] };
        let approve_blocked = (q.state == ItemState::Pending).then(|| super::approve_block(&q.call)).flatten().map(|e| Blocked {
            code: e.code().to_owned(),
            message: e.to_string(),
            details: e.details(),
        });
        let decision = e.decision.map(|d| {
            let expired_after_secs = match d.verdict {
                Verdict::Expire { after_secs } => Some(after_secs),
                _ => None,
            };
            let edited_fingerprint = match &d.verdict {
                Verdict::ApproveEdited { fingerprint, .. } => Some(fingerprint.clone()),
                _ => None,
            };
            let (kind, reason, data) = match d.verdict {
                Verdict::Approve => (DecisionKind::Approve, None, None),
                Verdict::Decline { reason } => (DecisionKind::Decline, reason, None),
                Verdict::Resume { data } => (DecisionKind::Resume, None, Some(data)),
                Verdict::Expire { after_secs } => (DecisionKind::Decline, Some(Verdict::expiry_text(after_secs)), None),
                Verdict::ApproveEdited { args, .. } => (DecisionKind::Edit, None, Some(args)),
            };
            DecisionView {
                kind,
                reason,
                data,
                fingerprint: d.fingerprint,
                operator: d.operator,
                decided_at: d.decided_at,
                delivery: d.delivery,
                outcome: d.outcome,
                attempts: d.attempts,
                last_error: d.last_error,
                next_attempt_at: d.next_attempt_at,
                expired_after_secs,
                edited_fingerprint,
                receipt: d.receipt,
            }
        });
        let c = q.call;
        Self {
            requested_by: c.requested_by.as_deref().and_then(Requester::of_key),
            id: q.id.to_string(),
            source: c.source,
            context: None,
            engine: c.engine.to_string(),
            agent_id: c.agent_id.to_string(),
            agent_name: c.agent_name,
            thread_id: c.thread_id,
            resource_id: c.resource_id,
            run_id: c.run_id.to_string(),
            tool_call_id: c.tool_call_id.to_string(),
            tool_name: c.tool_name,
            args: c.args,
            fingerprint: c.fingerprint,
            kind: c.kind,
            suspend_payload: c.suspend_payload,
            resume_schema: c.resume_schema,
            chain: c.chain,
            state: q.state,
            tab: QueueTab::of(q.state, decision.as_ref().is_some_and(|d| d.expired_after_secs.is_some())),
            paused_at: q.paused_at,
            allowed,
            decision,
            expires_at: None,
            approve_blocked,
            pause_reason: c.pause_reason,
            high_risk: false,
            risk: Default::default(),
            changes: None,
            resolution: None,
            quorum: 1,
            approvals: vec![],
        }
    }
}

/// `{item}`: the call decided last by an operator before a given one, of the same engine, thread
/// and tool, with its decision; null when there is none (no thread, or the first of its kind).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PreviousCall {
    #[schema(required = true)]
    pub item: Option<QueueItem>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// How many calls each tab of the queue view holds under the filters and search given.
#[derive(Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueCounts {
    pub pending: i64,
    pub awaiting_delivery: i64,
    pub decided: i64,
    pub expired: i64,
    pub gone: i64,
    /// Every call matching, whatever its state.
    pub all: i64,
    /// Pending calls under no filter and no search (the window title, the tray).
    pub pending_total: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::queue;

    #[test]
    fn every_call_is_listed_under_exactly_the_tab_it_belongs_to() {
        let tabs = [QueueTab::Pending, QueueTab::AwaitingDelivery, QueueTab::Decided, QueueTab::Expired, QueueTab::Gone];
        for state in
            [ItemState::Pending, ItemState::Decided, ItemState::Delivered, ItemState::Failed, ItemState::Interrupted, ItemState::Gone]
        {
            for expired in [false, true] {
                let text = queue::state_str(state);
                let under: Vec<QueueTab> = tabs.into_iter().filter(|t| t.holds(text, expired)).collect();
                assert_eq!(under, vec![QueueTab::of(state, expired)], "{text}, expired: {expired}");
            }
        }
    }
}
