//! The queue as every shell shows it (HTTP, the desktop window, tests): entries with the decisions
//! they allow, pages, decisions taken on a shown fingerprint, the audit log. One surface, so the
//! HTTP handlers and the desktop commands stay thin.

use super::App;
use crate::console::Console;
use crate::domain::{CallKind, ChainLink, DecisionKind, DecisionRequest, Delivery, Error, Fingerprint, ItemId, ItemState, Verdict};
use crate::store::{audit, queue};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A queue entry as the API shows it (C2).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueItem {
    pub id: String,
    pub engine: String,
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
    pub paused_at: DateTime<Utc>,
    /// The decisions this call allows.
    pub allowed: Vec<DecisionKind>,
    #[schema(required = true)]
    pub decision: Option<DecisionView>,
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
}

impl QueueItem {
    pub fn from_entry(e: queue::Entry, console: &Console) -> Self {
        let q = e.queued;
        let allowed = if q.state == ItemState::Pending { console.allowed(&q.call) } else { vec![] };
        let decision = e.decision.map(|d| {
            let (kind, reason, data) = match d.verdict {
                Verdict::Approve => (DecisionKind::Approve, None, None),
                Verdict::Decline { reason } => (DecisionKind::Decline, reason, None),
                Verdict::Resume { data } => (DecisionKind::Resume, None, Some(data)),
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
            }
        });
        let c = q.call;
        Self {
            id: q.id.to_string(),
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
            paused_at: q.paused_at,
            allowed,
            decision,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// `pending` (default), `decided`, `delivered`, `failed`, `interrupted`, `gone`, or `all`.
    pub state: Option<String>,
    pub engine: Option<String>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    /// `approval` or `suspend`.
    pub kind: Option<String>,
    pub thread: Option<String>,
    pub run: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

fn parse_cursor(cursor: Option<&str>) -> Result<Option<i64>, Error> {
    cursor
        .filter(|c| !c.is_empty())
        .map(|c| c.parse::<i64>().map_err(|_| Error::InvalidRequest(format!("bad cursor {c:?}"))))
        .transpose()
}


#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Only entries of this queue item.
    pub item: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub entries: Vec<audit::Entry>,
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}


impl App {
    /// A page of the queue, newest first.
    pub async fn queue_page(&self, q: &QueueQuery) -> Result<QueuePage, Error> {
        let item_state = match q.state.as_deref().unwrap_or("pending") {
            "all" => None,
            s => Some(serde_json::from_value::<ItemState>(Value::String(s.into())).map_err(|_| Error::InvalidRequest(format!("unknown state {s:?}")))?),
        };
        let kind = q
            .kind
            .as_deref()
            .filter(|k| !k.is_empty())
            .map(|k| serde_json::from_value::<CallKind>(Value::String(k.into())).map_err(|_| Error::InvalidRequest(format!("unknown kind {k:?}"))))
            .transpose()?;
        let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        let filter = queue::Filter {
            state: item_state,
            engine: nonempty(&q.engine),
            agent: nonempty(&q.agent),
            tool: nonempty(&q.tool),
            kind,
            run: nonempty(&q.run),
            thread: nonempty(&q.thread),
        };
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let mut conn = self.db.pool().acquire().await?;
        let page = queue::list(&mut conn, &filter, cursor, q.limit.unwrap_or(50)).await?;
        Ok(QueuePage {
            items: page.entries.into_iter().map(|e| QueueItem::from_entry(e, &self.console)).collect(),
            next_cursor: page.next_cursor.map(|c| c.to_string()),
        })
    }

    /// One entry.
    pub async fn queue_item(&self, id: &str) -> Result<QueueItem, Error> {
        let entry = self.console.item(&ItemId::new(id)).await?;
        Ok(QueueItem::from_entry(entry, &self.console))
    }

    /// Decides with the fingerprint that was on screen (C3) and delivers; `channel` names the shell
    /// in the audit log (`web`, `desktop`, …). Answers the entry as it is afterwards.
    pub async fn decide_shown(&self, id: &str, verdict: Verdict, fingerprint: &str, channel: &str) -> Result<QueueItem, Error> {
        let fingerprint = Fingerprint::parse(fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))?;
        let verdict = match verdict {
            Verdict::Decline { reason } => Verdict::Decline { reason: reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) },
            other => other,
        };
        let request = DecisionRequest { verdict, fingerprint, operator: self.operator(channel) };
        let entry = self.console.decide_and_deliver(&ItemId::new(id), request).await?;
        Ok(QueueItem::from_entry(entry, &self.console))
    }

    /// A page of the audit log, newest first.
    pub async fn audit_page(&self, q: &AuditQuery) -> Result<AuditPage, Error> {
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let mut conn = self.db.pool().acquire().await?;
        let (entries, next) = audit::list(&mut conn, q.item.as_deref(), cursor, q.limit.unwrap_or(50)).await?;
        Ok(AuditPage { entries, next_cursor: next.map(|n| n.to_string()) })
    }

    /// Walks the whole audit chain.
    pub async fn verify_audit(&self) -> Result<audit::Verification, Error> {
        let mut conn = self.db.pool().acquire().await?;
        audit::verify(&mut conn).await
    }
}
