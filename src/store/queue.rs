//! The queue table: every paused call, with its state; reads join the decision taken on it.
//! Listing under filters and search is in `listing`, the lookups in `read`, a row's columns and
//! how one becomes an [`Entry`] in `row`; the writes are here. The operations on the whole
//! database (each taking the `Db`, not a connection) are in `ops`, a remote engine's sync in `sync`.

mod listing;
mod ops;
mod read;
mod row;
mod sync;

pub(in crate::store) use listing::count_by_state;
pub use listing::{list, Filter, Page, Search};
pub use ops::{
    end_pending, engine_counts, entry, ids_with_prefix, page, pending_call, pending_entries, pending_total, previous_of, run_call,
    tab_counts, tool_names, RunCall,
};
pub(crate) use read::pending_of_run_lite;
pub(in crate::store) use read::{
    count_pending, counts_by_engine, find_pending, live_state, pending_of_engine, pending_of_run, previous_decided,
};
pub use read::{get, ids_starting_with};
pub(crate) use row::{kind_str, state_str, EXPIRED};
pub use sync::{apply_sync, plan_sync, SyncChanges, SyncPlan, Synced};

use super::sql::{sql, Sql};
use super::writer::WriteTx;
use super::{now, ts};
use crate::domain::{Decision, EngineId, Error, ItemId, ItemState, PausedCall, QueuedCall, RunId};

/// A queue entry with the decision taken on it, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub queued: QueuedCall,
    pub decision: Option<Decision>,
}

/// Adds a paused call as a pending entry (a trigger adds it to the search index). Fails if the
/// same call is already pending.
pub async fn insert_pending(conn: &mut impl Sql, call: &PausedCall) -> Result<QueuedCall, Error> {
    let id = ItemId::generate();
    let at = now();
    sql("INSERT INTO queue_items (id, engine, source, agent_id, agent_name, thread_id, resource_id, run_id, tool_call_id,
            tool_name, args, fingerprint, kind, suspend_payload, resume_schema, chain, pause_reason, requested_by, state, paused_at,
            updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'pending', $19, $20)")
    .bind(id.as_str())
    .bind(call.engine.as_str())
    .bind(call.source.as_str())
    .bind(call.agent_id.as_str())
    .bind(call.agent_name.as_deref())
    .bind(call.thread_id.as_deref())
    .bind(call.resource_id.as_deref())
    .bind(call.run_id.as_str())
    .bind(call.tool_call_id.as_str())
    .bind(&call.tool_name)
    .bind(call.args.to_string())
    .bind(call.fingerprint.as_str())
    .bind(kind_str(call.kind))
    .bind(call.suspend_payload.as_ref().map(|v| v.to_string()))
    .bind(call.resume_schema.as_ref().map(|v| v.to_string()))
    .bind(serde_json::to_string(&call.chain).expect("chain serializes"))
    .bind(call.pause_reason.as_ref().map(|r| serde_json::to_string(r).expect("pause reason serializes")))
    .bind(call.requested_by.as_deref())
    .bind(ts(at))
    .bind(ts(at))
    .execute(&mut *conn)
    .await?;
    Ok(QueuedCall { id, call: call.clone(), state: ItemState::Pending, paused_at: at })
}

/// Queues `call` as a pending entry and audits it (`call.paused`, by `actor`, with
/// [`CallPaused`](crate::domain::audit::CallPaused) details from `origin`): the one way a paused call
/// enters the queue with its audit entry.
pub async fn pause(
    conn: &mut WriteTx,
    actor: &str,
    call: &PausedCall,
    origin: crate::domain::audit::PauseOrigin<'_>,
) -> Result<QueuedCall, Error> {
    let item = insert_pending(conn, call).await?;
    let details = crate::domain::audit::CallPaused::of(call, origin);
    super::audit::append(
        conn,
        super::audit::Record::of(actor, Some((item.id.as_str(), &call.tool_name, call.fingerprint.as_str())), &details),
    )
    .await?;
    Ok(item)
}

/// A call that changed at its engine queued again as it is now: a new pending entry with its own
/// fingerprint, audited `call.paused` on the new one and `call.changed` on the old entry (before and
/// after, and `why` when given), in the caller's transaction. The old entry is the caller's to end.
pub(in crate::store) async fn requeue_changed(
    conn: &mut WriteTx,
    actor: &str,
    old: &crate::domain::QueuedCall,
    now: &PausedCall,
    why: Option<&str>,
) -> Result<crate::domain::QueuedCall, Error> {
    let new = pause(conn, actor, now, crate::domain::audit::PauseOrigin::Engine {}).await?;
    let details = crate::domain::audit::CallChanged::of(&old.call, now, &new.id, why);
    let item = (old.id.as_str(), now.tool_name.as_str(), now.fingerprint.as_str());
    super::audit::append(conn, super::audit::Record::of(actor, Some(item), &details)).await?;
    Ok(new)
}

/// Moves an entry from `from` to `to`; returns false (and changes nothing) if it was not in `from`.
pub(in crate::store) async fn transition(conn: &mut impl Sql, id: &ItemId, from: ItemState, to: ItemState) -> Result<bool, Error> {
    let done = sql("UPDATE queue_items SET state = $1, updated_at = $2 WHERE id = $3 AND state = $4")
        .bind(state_str(to))
        .bind(ts(now()))
        .bind(id.as_str())
        .bind(state_str(from))
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks every pending entry of a run as `gone` (the run ended without them being decided).
pub(in crate::store) async fn retire_run(conn: &mut impl Sql, engine: &EngineId, run_id: &RunId) -> Result<Vec<ItemId>, Error> {
    let rows =
        sql("UPDATE queue_items SET state = 'gone', updated_at = $1 WHERE engine = $2 AND run_id = $3 AND state = 'pending' RETURNING id")
            .bind(ts(now()))
            .bind(engine.as_str())
            .bind(run_id.as_str())
            .fetch_all(&mut *conn)
            .await?;
    rows.iter().map(|r| Ok(ItemId::new(r.try_get::<String>(0)?))).collect()
}
