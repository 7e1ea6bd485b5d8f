//! Recording a decision's delivery (C5, C6): decision row, queue state and audit entry, together.

use super::{audit, decisions, queue};
use crate::domain::{Decision, Delivery, Error, ItemState, QueuedCall};
use serde_json::{json, Value};
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
    let (delivery, state, action) = match error {
        None => (Delivery::Delivered, ItemState::Delivered, crate::domain::audit::AuditAction::DeliveryDelivered),
        Some(_) => (Delivery::Failed, ItemState::Failed, crate::domain::audit::AuditAction::DeliveryFailed),
    };
    if !decisions::finish(conn, &decision.id, delivery, outcome, error).await? {
        return Ok(false);
    }
    queue::transition(conn, &item.id, ItemState::Decided, state).await?;
    audit::append(
        conn,
        audit::Record {
            actor: &format!("engine:{}", item.call.engine),
            action,
            queue_item_id: Some(item.id.as_str()),
            tool_name: Some(&item.call.tool_name),
            fingerprint: Some(decision.fingerprint.as_str()),
            details: json!({ "decisionId": decision.id, "outcome": outcome, "error": error }),
        },
    )
    .await?;
    Ok(true)
}
