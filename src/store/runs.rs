//! The local engine's runs as the database holds them: claims of run ids, snapshots (S11), memory,
//! and the queue entries and outcomes written with them. Each operation reads on a pooled
//! connection of its own or writes in a transaction of its own, and answers what it found; the run
//! state itself is the engine's JSON, which this module only stores.

use super::snapshots::{self, Stored};
use super::{audit, grants, memory, now, outbox, queue, resolutions, Db};
use crate::domain::audit::{PauseOrigin, RunFailed, ToolInterrupted};
use crate::domain::{AgentId, Decision, EngineId, Error, ItemId, PausedCall, QueuedCall, RunId};
use serde_json::Value;

/// A suspended run's snapshot as [`suspend`] writes it.
#[derive(Clone, Copy, Debug)]
pub struct Suspended<'a> {
    pub engine: &'a EngineId,
    pub run_id: &'a RunId,
    pub agent_id: &'a AgentId,
    pub thread_id: Option<&'a str>,
    pub resource_id: Option<&'a str>,
    /// The engine's run state.
    pub body: &'a str,
}

/// Claims a run id a client chose for a run `engine` starts, first writer wins across every console
/// sharing the database; false if another start holds it or a run of that id has a snapshot (that
/// claim is released again, in a transaction of its own).
pub async fn claim(db: &Db, engine: &EngineId, run_id: &RunId) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !snapshots::claim(&mut tx, engine, run_id).await? {
        return Ok(false);
    }
    tx.commit().await?;
    // Claimed: a run that paused meanwhile has its snapshot written already (its start released
    // its claim only after that), so it shows here.
    let taken = {
        let mut conn = db.pool().acquire().await?;
        snapshots::get(&mut conn, run_id).await?.is_some()
    };
    if taken {
        release_claim(db, engine, run_id).await?;
        return Ok(false);
    }
    Ok(true)
}

/// Ends `engine`'s claim of a run id (see [`snapshots::release`]) in a transaction of its own.
pub async fn release_claim(db: &Db, engine: &EngineId, run_id: &RunId) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    snapshots::release(&mut tx, engine, run_id).await?;
    tx.commit().await
}

/// At start-up: drops the claims `engine` left (see [`snapshots::release_all`]) in a transaction of its own.
pub async fn release_claims(db: &Db, engine: &EngineId) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    snapshots::release_all(&mut tx, engine).await?;
    tx.commit().await
}

/// Whether a run of that id has a snapshot or a start holds the id, read on one connection.
pub async fn taken(db: &Db, run_id: &RunId) -> Result<bool, Error> {
    if let Some(readers) = db.readers() {
        return readers.read(|c| Ok(snapshots::get_lite(c, run_id)?.is_some() || snapshots::claimed_lite(c, run_id)?)).await;
    }
    let mut conn = db.pool().acquire().await?;
    Ok(snapshots::get(&mut conn, run_id).await?.is_some() || snapshots::claimed(&mut conn, run_id).await?)
}

/// The snapshot of `run_id`; `snapshot_not_found` if it has none.
pub async fn load(db: &Db, run_id: &RunId) -> Result<Stored, Error> {
    let found = match db.readers() {
        Some(readers) => readers.read(|c| snapshots::get_lite(c, run_id)).await?,
        None => snapshots::get(&mut *db.pool().acquire().await?, run_id).await?,
    };
    found.ok_or_else(|| Error::SnapshotNotFound { run_id: run_id.to_string() })
}

/// The snapshots of `engine`'s runs of an agent, newest first (see [`snapshots::list`]).
pub async fn of_agent(
    db: &Db,
    engine: &EngineId,
    agent_id: &AgentId,
    thread_id: Option<&str>,
    resource_id: Option<&str>,
) -> Result<Vec<Stored>, Error> {
    let mut conn = db.pool().acquire().await?;
    snapshots::list(&mut conn, engine, agent_id, thread_id, resource_id).await
}

/// The runs of `engine` left `running` by a process that stopped (see [`snapshots::running`]).
pub async fn running(db: &Db, engine: &EngineId) -> Result<Vec<Stored>, Error> {
    let mut conn = db.pool().acquire().await?;
    snapshots::running(&mut conn, engine).await
}

/// The ids of a run's entries still pending, most recently paused last.
pub async fn pending_items(db: &Db, engine: &EngineId, run_id: &RunId) -> Result<Vec<ItemId>, Error> {
    let entries = match db.readers() {
        Some(readers) => readers.read(|c| queue::pending_of_run_lite(c, engine, run_id)).await?,
        None => queue::pending_of_run(&mut *db.pool().acquire().await?, engine, run_id).await?,
    };
    Ok(entries.into_iter().map(|e| e.queued.id).collect())
}

/// Makes sure a thread exists and is `resource_id`'s (see [`memory::ensure_thread`]), and answers its
/// last `limit` messages, oldest first, in one transaction.
pub async fn recall(db: &Db, thread_id: &str, resource_id: &str, agent_id: &AgentId, limit: u32) -> Result<Vec<Value>, Error> {
    let mut tx = db.begin_write().await?;
    memory::ensure_thread(&mut tx, thread_id, resource_id, agent_id).await?;
    let earlier = memory::recent(&mut tx, thread_id, limit).await?;
    tx.commit().await?;
    Ok(earlier)
}

/// Writes a run's snapshot as `suspended` and queues its newly paused calls, in one transaction:
/// the snapshot, then each call of `pauses` with its `call.paused` entry, in order. Answers the
/// entries queued.
pub async fn suspend(db: &Db, run: Suspended<'_>, pauses: Vec<(PausedCall, PauseOrigin<'_>)>) -> Result<Vec<QueuedCall>, Error> {
    let mut tx = db.begin_write().await?;
    snapshots::save_suspended(&mut tx, run.engine, run.run_id, run.agent_id, run.thread_id, run.resource_id, run.body).await?;
    let mut added = Vec::new();
    for (paused, origin) in pauses {
        added.push(queue::pause(&mut tx, "engine:local", &paused, origin).await?);
    }
    tx.commit().await?;
    Ok(added)
}

/// Writes a run's step as it stands, in one transaction: the snapshot's body, and the run claimed
/// for advancing (`running`).
pub async fn save_step(db: &Db, run_id: &RunId, body: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    snapshots::update_body(&mut tx, run_id, body).await?;
    snapshots::claim_running(&mut tx, run_id).await?;
    tx.commit().await
}

/// Writes a run's snapshot body (the run still waits) in a transaction of its own.
pub async fn save(db: &Db, run_id: &RunId, body: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    snapshots::update_body(&mut tx, run_id, body).await?;
    tx.commit().await
}

/// Audits the plain calls `cut` — (tool call id, tool name) — of a recovered run's step `step` as
/// `tool.interrupted`, in order, and writes the snapshot's body, in one transaction.
pub async fn record_cut_short(
    db: &Db,
    run_id: &RunId,
    agent_id: &AgentId,
    step: u32,
    cut: &[(&str, &str)],
    body: &str,
) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    for &(tool_call_id, tool_name) in cut {
        let details = ToolInterrupted { run_id, agent_id, tool_call_id, step };
        audit::append(&mut tx, audit::Record::of("engine:local", None, &details).with_tool(tool_name)).await?;
    }
    snapshots::update_body(&mut tx, run_id, body).await?;
    tx.commit().await
}

/// Ends a run in one transaction: `remember`'s messages added to its thread, its snapshot and its sub-agents' gone (S11), its entries still pending retired, and
/// its grants for "this run" ended (a later run reusing the id is another run).
pub async fn end(db: &Db, engine: &EngineId, run_id: &RunId, remember: Option<(&str, &[Value])>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    if let Some((thread, messages)) = remember {
        memory::append(&mut tx, thread, run_id, messages).await?;
    }
    snapshots::delete_tree(&mut tx, run_id).await?;
    queue::retire_run(&mut tx, engine, run_id).await?;
    grants::end_for_run(&mut tx, engine, run_id, now()).await?;
    tx.commit().await
}

/// Audits a run that failed (`run.failed`) in a transaction of its own.
pub async fn record_failed(db: &Db, details: &RunFailed<'_>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    audit::append(&mut tx, audit::Record::of("engine:local", None, details)).await?;
    tx.commit().await
}

/// Records a delivery to a local call ([`outbox::record`]) with the step of its run, in one
/// transaction: `repaused` (the call paused again, as the queue shows it) queued as a pending entry,
/// the snapshot of the item's run given `body`, and with `advance` the run claimed for advancing.
/// Answers the call queued.
pub async fn record_delivery_and_step(
    db: &Db,
    decision: &Decision,
    item: &QueuedCall,
    outcome: &Value,
    repaused: Option<PausedCall>,
    body: &str,
    advance: bool,
) -> Result<Option<PausedCall>, Error> {
    let run_id = &item.call.run_id;
    let mut tx = db.begin_write().await?;
    outbox::record(&mut tx, decision, item, outcome, None).await?;
    let mut queued = None;
    if let Some(paused) = repaused {
        queue::insert_pending(&mut tx, &paused).await?;
        queued = Some(paused);
    }
    snapshots::update_body(&mut tx, run_id, body).await?;
    if advance {
        snapshots::claim_running(&mut tx, run_id).await?;
    }
    tx.commit().await?;
    Ok(queued)
}

/// Records a delivery to a call inside sub-agents ([`outbox::record`]) with the snapshot body of the
/// run `run_id` where the call waited, in one transaction.
pub async fn record_nested_delivery(
    db: &Db,
    decision: &Decision,
    item: &QueuedCall,
    outcome: &Value,
    run_id: &RunId,
    body: &str,
) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    outbox::record(&mut tx, decision, item, outcome, None).await?;
    snapshots::update_body(&mut tx, run_id, body).await?;
    tx.commit().await
}

/// Records the operator's resolution of an interrupted call ([`resolutions::record`]) with the step
/// of its run, in one transaction: the snapshot of the item's run given `body`, and with `advance`
/// the run claimed for advancing.
pub async fn record_resolution_and_step(
    db: &Db,
    item: &QueuedCall,
    resolution: &resolutions::Stored,
    body: &str,
    advance: bool,
) -> Result<(), Error> {
    let run_id = &item.call.run_id;
    let mut tx = db.begin_write().await?;
    resolutions::record(&mut tx, item, resolution).await?;
    snapshots::update_body(&mut tx, run_id, body).await?;
    if advance {
        snapshots::claim_running(&mut tx, run_id).await?;
    }
    tx.commit().await
}
