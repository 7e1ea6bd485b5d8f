//! Recording a decision's delivery (C5, C6): decision row, queue state and audit entry, together.

use super::{audit, decisions, queue};
use crate::domain::{Decision, Delivery, Error, ItemState, QueuedCall};
use serde_json::Value;
use sqlx::AnyConnection;

/// Marks a claimed decision `delivered` (or `failed`), moves its queue entry on from `decided`, and
/// appends the audit entry with the engine's answer. Call inside the engine's own transaction.
/// Returns false, recording nothing, if the decision's delivery was already recorded.
pub async fn record(
    conn: &mut AnyConnection,
    decision: &Decision,
    item: &QueuedCall,
    outcome: &Value,
    error: Option<&str>,
) -> Result<bool, Error> {
    let (delivery, state) = match error {
        None => (Delivery::Delivered, ItemState::Delivered),
        Some(_) => (Delivery::Failed, ItemState::Failed),
    };
    if !decisions::finish(conn, &decision.id, delivery, outcome, error).await? {
        return Ok(false);
    }
    queue::transition(conn, &item.id, ItemState::Decided, state).await?;
    audit::append(
        conn,
        audit::Record::of(
            &format!("engine:{}", item.call.engine),
            Some((item.id.as_str(), &item.call.tool_name, decision.fingerprint.as_str())),
            &crate::domain::audit::DeliveryOutcome { decision_id: &decision.id, outcome, error },
        ),
    )
    .await?;
    Ok(true)
}
