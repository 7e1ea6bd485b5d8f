//! Recording a decision's delivery (C5, C6): decision row, queue state and audit entry, together;
//! and the outbox's own operations — claims, deferrals, refusals, what a stopped process left.

use super::{audit, decisions, now, queue, Db};
use crate::domain::audit::{DeliveryDeferred, DeliveryInterrupted, PauseOrigin};
use crate::domain::{Decision, DecisionId, Delivery, Error, ItemState, PausedCall, QueuedCall};
use serde_json::{json, Value};
use std::time::Duration;

/// Marks a claimed decision `delivered` (or `failed`), moves its queue entry on from `decided`, and
/// appends the audit entry with the engine's answer. Call inside the engine's own transaction.
/// Returns false, recording nothing, if the decision's delivery was already recorded.
pub async fn record(
    conn: &mut super::writer::WriteTx,
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

/// Claims the decision `id` for delivery (`pending → delivering`) in a write of its own; false if someone else had.
pub async fn claim(db: &Db, id: &DecisionId) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !decisions::claim(&mut tx, id).await? {
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
}

/// [`record`] in a transaction of its own; false (nothing written) if the delivery was recorded already.
pub async fn record_outcome(db: &Db, decision: &Decision, item: &QueuedCall, outcome: &Value, error: Option<&str>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !record(&mut tx, decision, item, outcome, error).await? {
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
}

/// Records decisions sent together, each (decision, entry, outcome) as [`record`] does, in one transaction; one recorded already is left.
pub async fn record_together(db: &Db, delivered: &[(&Decision, &QueuedCall, Value)]) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    for (decision, item, outcome) in delivered {
        record(&mut tx, decision, item, outcome, None).await?;
    }
    tx.commit().await
}

/// [`record`] with what the engine said of the run, in one transaction: `run_ended` ends its grants, `next` (where it waits now) is queued.
pub async fn record_with_next(
    db: &Db,
    decision: &Decision,
    item: &QueuedCall,
    outcome: &Value,
    run_ended: bool,
    next: Option<&PausedCall>,
) -> Result<(), Error> {
    let call = &item.call;
    let mut tx = db.begin_write().await?;
    record(&mut tx, decision, item, outcome, None).await?;
    if run_ended {
        super::grants::end_for_run(&mut tx, &call.engine, &call.run_id, now()).await?;
    }
    if let Some(n) = next {
        // Queued unless pending already or, another call than the one delivered, live in the queue:
        // the engine's word that a call waits counts for the call just resumed too (suspending again).
        let same_call = n.run_id == call.run_id && n.tool_call_id == call.tool_call_id;
        let blocked = queue::find_pending(&mut tx, &n.engine, &n.run_id, &n.tool_call_id).await?.is_some()
            || (!same_call && queue::live_state(&mut tx, &n.engine, &n.run_id, &n.tool_call_id).await?.is_some());
        if !blocked {
            queue::pause(&mut tx, &format!("engine:{}", n.engine), n, PauseOrigin::Engine {}).await?;
        }
    }
    tx.commit().await
}

/// The decisions `delivering` of `run_id`'s calls at `engine` that `keep` takes (by tool call id too), with their entries, on one connection.
pub async fn held_of_run(
    db: &Db,
    engine: &str,
    run_id: &str,
    keep: impl Fn(&Decision, &str) -> bool,
) -> Result<Vec<(Decision, QueuedCall)>, Error> {
    let mut conn = db.pool().acquire().await?;
    let mut out = Vec::new();
    for (d, tool_call_id) in decisions::delivering_of_run(&mut conn, engine, run_id).await? {
        if !keep(&d, &tool_call_id) {
            continue;
        }
        if let Some(entry) = queue::get(&mut conn, &d.item_id).await? {
            out.push((d, entry.queued));
        }
    }
    Ok(out)
}

/// Fails a decision whose send was refused, in one transaction: with `again` (the call as its engine
/// holds it now — it changed, or the decision's receipt expired — and why), the call is queued again
/// unless a pending entry of it exists already (`outcome` names the new one, `replacedBy`), and the failure is recorded as [`record`] does. False,
/// nothing written, if the decision's outcome was recorded already.
pub async fn fail_refused(
    db: &Db,
    decision: &Decision,
    item: &QueuedCall,
    again: Option<(&PausedCall, &str)>,
    mut outcome: Value,
    error: &str,
) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let mut replaced_by = None;
    if let Some((now, why)) = again {
        let c = &item.call;
        if queue::find_pending(&mut tx, &c.engine, &c.run_id, &c.tool_call_id).await?.is_none() {
            let actor = format!("engine:{}", c.engine);
            let new = queue::requeue_changed(&mut tx, &actor, item, now, Some(why)).await?;
            replaced_by = Some(new.id);
        }
    }
    if let Some(id) = &replaced_by {
        outcome["replacedBy"] = json!(id);
    }
    if !record(&mut tx, decision, item, &outcome, Some(error)).await? {
        // Its delivery was recorded meanwhile: nothing of this is written.
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
}

/// Gives a claimed decision back to the outbox in one transaction: due after `wait(attempts)`
/// (`handover`: another console's to deliver, whose outbox workers are woken), the first deferral
/// audited (`delivery.deferred`). Answers the attempts so far and the wait, `None` (nothing written)
/// if the decision was not waiting for delivery.
pub async fn defer(
    db: &Db,
    decision: &Decision,
    item: &QueuedCall,
    why: &str,
    handover: bool,
    wait: impl FnOnce(u32) -> Duration,
) -> Result<Option<(u32, Duration)>, Error> {
    let mut tx = db.begin_write().await?;
    let attempts = decisions::attempts(&mut tx, &decision.id).await?.map(|a| a.attempts).unwrap_or(1);
    let wait = wait(attempts);
    let next = now() + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(60));
    if !decisions::defer(&mut tx, &decision.id, why, next).await? {
        return Ok(None);
    }
    if handover {
        super::feed::notify_outboxes(&mut tx).await?;
    }
    if attempts <= 1 {
        let details = DeliveryDeferred { decision_id: &decision.id, engine: &item.call.engine, error: why, next_attempt_at: &next };
        let entry = (item.id.as_str(), item.call.tool_name.as_str(), decision.fingerprint.as_str());
        audit::append(&mut tx, audit::Record::of("console", Some(entry), &details)).await?;
    }
    tx.commit().await?;
    Ok(Some((attempts, wait)))
}

/// The decisions due for delivery (see [`decisions::due`]).
pub async fn due(db: &Db, grace: chrono::Duration, engines: Option<&[String]>) -> Result<Vec<Decision>, Error> {
    let mut conn = db.pool().acquire().await?;
    decisions::due(&mut conn, grace, engines).await
}

/// What a stopped process left, read on one connection: the decisions still `delivering`, and those still `pending`.
pub async fn left_over(db: &Db) -> Result<(Vec<Decision>, Vec<Decision>), Error> {
    let mut conn = db.pool().acquire().await?;
    Ok((decisions::with_delivery(&mut conn, Delivery::Delivering).await?, decisions::with_delivery(&mut conn, Delivery::Pending).await?))
}

/// [`decisions::retry_cut`] in a transaction of its own: a cut delivery to be sent again; false, nothing written, if it was not.
pub async fn cut_for_retry(db: &Db, d: &Decision, tool: &str, why: &str) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !decisions::retry_cut(&mut tx, d, tool, why).await? {
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
}

/// The decisions of `engine`'s calls left `delivering` (see [`decisions::delivering_of_engine`]).
pub async fn cut_of_engine(db: &Db, engine: &str) -> Result<Vec<(Decision, String)>, Error> {
    let mut conn = db.pool().acquire().await?;
    decisions::delivering_of_engine(&mut conn, engine).await
}

/// [`cut_for_retry`], waking every console's outbox workers in the same transaction; false, nothing written, if it was not cut.
pub async fn resend_cut(db: &Db, d: &Decision, tool: &str, why: &str) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !decisions::retry_cut(&mut tx, d, tool, why).await? {
        return Ok(false);
    }
    super::feed::notify_outboxes(&mut tx).await?;
    tx.commit().await?;
    Ok(true)
}

/// Marks a delivery cut by a stop `interrupted` in one transaction: the decision failed with
/// `outcome`, its entry `interrupted`, the audit entry (`delivery.interrupted`). False, nothing
/// written, if its outcome was recorded already.
pub async fn mark_interrupted(db: &Db, d: &Decision, tool: &str, outcome: &Value) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !decisions::finish(&mut tx, &d.id, Delivery::Failed, outcome, Some("interrupted")).await? {
        return Ok(false);
    }
    queue::transition(&mut tx, &d.item_id, ItemState::Decided, ItemState::Interrupted).await?;
    let details = DeliveryInterrupted { decision_id: &d.id, outcome };
    audit::append(&mut tx, audit::Record::of("console", Some((d.item_id.as_str(), tool, d.fingerprint.as_str())), &details)).await?;
    tx.commit().await?;
    Ok(true)
}
