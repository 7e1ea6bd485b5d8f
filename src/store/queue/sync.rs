//! A remote engine's sync against the queue: what it lists compared with what is queued, read on one
//! connection ([`plan_sync`]); what changed written in one transaction ([`apply_sync`]), none
//! opened when nothing did.

use super::{find_pending, live_state, pause, pending_of_engine, requeue_changed, transition, Entry};
use crate::domain::audit::{CallGone, PauseOrigin};
use crate::domain::{EngineId, Error, ItemState, PausedCall};
use crate::store::{audit, grants, now, Db};
use std::collections::HashSet;

/// What the queue holds of an engine's listing, read on one connection.
#[derive(Debug)]
pub struct SyncPlan<'a> {
    /// Every pending entry of the engine, oldest first.
    pub pending: Vec<Entry>,
    /// The listed calls that are neither pending nor have a live entry (in the listing's order).
    pub new_calls: Vec<&'a PausedCall>,
}

/// What a sync writes: the changes an engine's listing asks for.
#[derive(Debug, Default)]
pub struct SyncChanges<'a> {
    /// Pending entries whose call the engine no longer lists as waiting.
    pub gone: Vec<&'a Entry>,
    /// Pending entries with their call as the engine lists it now, changed.
    pub changed: Vec<(&'a Entry, &'a PausedCall)>,
    /// Calls to queue.
    pub new_calls: Vec<&'a PausedCall>,
}

/// How many of each change [`apply_sync`] wrote (those the queue had already moved past are not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Synced {
    pub gone: usize,
    pub changed: usize,
    pub added: usize,
}

/// The pending entries of `engine` and which of `calls` are new to the queue, read on one connection.
pub async fn plan_sync<'a>(db: &Db, engine: &EngineId, calls: &'a [PausedCall]) -> Result<SyncPlan<'a>, Error> {
    let mut conn = db.pool().acquire().await?;
    let pending = pending_of_engine(&mut conn, engine).await?;
    let pending_keys: HashSet<(&str, &str)> =
        pending.iter().map(|e| (e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).collect();
    let mut new_calls = Vec::new();
    for c in calls {
        if !pending_keys.contains(&(c.run_id.as_str(), c.tool_call_id.as_str()))
            && live_state(&mut conn, engine, &c.run_id, &c.tool_call_id).await?.is_none()
        {
            new_calls.push(c);
        }
    }
    Ok(SyncPlan { pending, new_calls })
}

/// Writes a sync's `changes` by `engine` in one transaction, none opened without any; each only if the queue has not moved past it.
pub async fn apply_sync(db: &Db, engine: &EngineId, changes: &SyncChanges<'_>) -> Result<Synced, Error> {
    let mut synced = Synced::default();
    if changes.gone.is_empty() && changes.changed.is_empty() && changes.new_calls.is_empty() {
        return Ok(synced);
    }
    let actor = format!("engine:{engine}");
    let mut tx = db.begin_write().await?;
    for e in &changes.gone {
        if transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
            let why = "the engine no longer lists this call as waiting (finished, resumed or declined elsewhere)";
            let item = (e.queued.id.as_str(), e.queued.call.tool_name.as_str(), e.queued.call.fingerprint.as_str());
            let details = CallGone::of(&e.queued.call, why);
            audit::append(&mut tx, audit::Record::of(&actor, Some(item), &details)).await?;
            // The run went on without the console, which can no longer tell whether a later call
            // under this run id belongs to the same run: its run grants end (fail safe: the
            // operator is asked again).
            grants::end_for_run(&mut tx, engine, &e.queued.call.run_id, now()).await?;
            synced.gone += 1;
        }
    }
    for (e, listed) in &changes.changed {
        if !transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
            continue;
        }
        requeue_changed(&mut tx, &actor, &e.queued, listed, None).await?;
        synced.changed += 1;
    }
    for c in &changes.new_calls {
        if find_pending(&mut tx, engine, &c.run_id, &c.tool_call_id).await?.is_some()
            || live_state(&mut tx, engine, &c.run_id, &c.tool_call_id).await?.is_some()
        {
            continue;
        }
        pause(&mut tx, &actor, c, PauseOrigin::Engine {}).await?;
        synced.added += 1;
    }
    tx.commit().await?;
    Ok(synced)
}
