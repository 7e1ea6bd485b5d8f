//! A queue row as every read selects it (the entry joined with the decision taken on it) and how it
//! becomes an [`Entry`]; states and kinds as stored.

use super::Entry;
use crate::domain::{
    AgentId, CallKind, CallSource, EngineId, Error, Fingerprint, ItemId, ItemState, PausedCall, QueuedCall, RunId, ToolCallId,
};
use crate::store::cells::Cells;
use crate::store::{decisions, parse_json, parse_ts};

pub(crate) fn state_str(state: ItemState) -> &'static str {
    match state {
        ItemState::Pending => "pending",
        ItemState::Decided => "decided",
        ItemState::Delivered => "delivered",
        ItemState::Failed => "failed",
        ItemState::Interrupted => "interrupted",
        ItemState::Gone => "gone",
    }
}

pub(super) fn parse_state(text: &str) -> Result<ItemState, Error> {
    Ok(match text {
        "pending" => ItemState::Pending,
        "decided" => ItemState::Decided,
        "delivered" => ItemState::Delivered,
        "failed" => ItemState::Failed,
        "interrupted" => ItemState::Interrupted,
        "gone" => ItemState::Gone,
        other => return Err(Error::Storage(format!("unknown queue state {other:?}"))),
    })
}

pub(crate) fn kind_str(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Approval => "approval",
        CallKind::Suspend => "suspend",
    }
}

/// The columns [`entry_from_row`] reads: a queue row and the decision taken on it (`d`).
pub(super) const COLUMNS: &str = "SELECT q.seq, q.id, q.engine, q.source, q.agent_id, q.agent_name, q.thread_id, q.resource_id, q.run_id,
    q.tool_call_id, q.tool_name, q.args, q.fingerprint, q.kind, q.suspend_payload, q.resume_schema, q.chain, q.pause_reason, q.requested_by,
    q.state, q.paused_at,
    d.id AS d_id, d.kind AS d_kind, d.fingerprint AS d_fingerprint, d.reason AS d_reason, d.data AS d_data,
    d.operator AS d_operator, d.decided_at AS d_decided_at, d.delivery AS d_delivery, d.outcome AS d_outcome,
    d.attempts AS d_attempts, d.last_error AS d_last_error, d.next_attempt_at AS d_next_attempt_at, d.receipt AS d_receipt";
/// The rows of [`COLUMNS`]: every queue entry, with its decision if any.
pub(super) const FROM: &str = " FROM queue_items q LEFT JOIN decisions d ON d.queue_item_id = q.id";

/// Whether the decision joined as `d` is an expiry: a decline stored with `expiredAfterSecs` in its
/// data (see `decisions::insert`); NULL (false) without a decision.
pub(crate) const EXPIRED: &str = "(d.kind = 'decline' AND COALESCE(d.data, '') LIKE '{\"expiredAfterSecs\":%')";

pub(super) fn entry_from_row(row: &impl Cells) -> Result<Entry, Error> {
    let opt_json =
        |col: &str| -> Result<Option<serde_json::Value>, Error> { row.cell::<Option<String>>(col)?.map(|t| parse_json(&t)).transpose() };
    let fingerprint: String = row.cell("fingerprint")?;
    let call = PausedCall {
        engine: EngineId::new(row.cell::<String>("engine")?),
        source: {
            let source: String = row.cell("source")?;
            CallSource::parse(&source).ok_or_else(|| Error::Storage(format!("unknown call source {source:?} in database")))?
        },
        agent_id: AgentId::new(row.cell::<String>("agent_id")?),
        agent_name: row.cell("agent_name")?,
        thread_id: row.cell("thread_id")?,
        resource_id: row.cell("resource_id")?,
        run_id: RunId::new(row.cell::<String>("run_id")?),
        tool_call_id: ToolCallId::new(row.cell::<String>("tool_call_id")?),
        tool_name: row.cell("tool_name")?,
        args: parse_json(&row.cell::<String>("args")?)?,
        fingerprint: Fingerprint::parse(&fingerprint)
            .ok_or_else(|| Error::Storage(format!("bad fingerprint {fingerprint:?} in database")))?,
        kind: match row.cell::<String>("kind")?.as_str() {
            "approval" => CallKind::Approval,
            "suspend" => CallKind::Suspend,
            other => return Err(Error::Storage(format!("unknown call kind {other:?} in database"))),
        },
        suspend_payload: opt_json("suspend_payload")?,
        resume_schema: opt_json("resume_schema")?,
        chain: serde_json::from_str(&row.cell::<String>("chain")?).map_err(|e| Error::Storage(format!("bad chain in database: {e}")))?,
        // An unreadable reason is only a missing explanation, never a broken entry.
        pause_reason: row.cell::<Option<String>>("pause_reason")?.and_then(|t| serde_json::from_str(&t).ok()),
        requested_by: row.cell("requested_by")?,
    };
    let queued = QueuedCall {
        id: ItemId::new(row.cell::<String>("id")?),
        call,
        state: parse_state(&row.cell::<String>("state")?)?,
        paused_at: parse_ts(&row.cell::<String>("paused_at")?)?,
    };
    let decision = decisions::from_joined_row(row, &queued.id)?;
    Ok(Entry { queued, decision })
}
