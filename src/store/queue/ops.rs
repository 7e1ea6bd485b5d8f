//! The queue's operations on the database as a whole: each takes the [`Db`], reads on a pooled
//! connection of its own (several queries that must agree share one) or writes in a transaction of
//! its own, and answers what it found.

use super::{
    count_by_state, count_pending, counts_by_engine, find_pending, get, ids_starting_with, list, pending_of_engine, pending_of_run,
};
use super::{previous_decided, transition, Entry, Filter, Page};
use crate::domain::{EngineId, Error, ItemId, ItemState, RunId, ToolCallId};
use crate::store::sql::sql;
use crate::store::{audit, Db};
use std::collections::HashMap;

/// A page of entries under `filter` after `cursor` (see [`list`]).
pub async fn page(db: &Db, filter: &Filter, cursor: Option<i64>, limit: u32) -> Result<Page, Error> {
    let mut conn = db.pool().acquire().await?;
    list(&mut conn, filter, cursor, limit).await
}

/// The counts by state under `filter` (see [`count_by_state`]) and those pending under none, read on one connection.
pub async fn tab_counts(db: &Db, filter: &Filter) -> Result<(Vec<(String, bool, i64)>, i64), Error> {
    let mut conn = db.pool().acquire().await?;
    let by_state = count_by_state(&mut conn, filter).await?;
    let pending_total = count_pending(&mut conn).await?;
    Ok((by_state, pending_total))
}

/// How many entries are pending.
pub async fn pending_total(db: &Db) -> Result<i64, Error> {
    let mut conn = db.pool().acquire().await?;
    count_pending(&mut conn).await
}

/// The ids that start with `prefix`, at most `limit` (see [`ids_starting_with`]).
pub async fn ids_with_prefix(db: &Db, prefix: &str, limit: i64) -> Result<Vec<ItemId>, Error> {
    let mut conn = db.pool().acquire().await?;
    ids_starting_with(&mut conn, prefix, limit).await
}

/// The call decided before `id` (see [`previous_decided`]), read on one connection; `None` when there is no entry `id`.
pub async fn previous_of(db: &Db, id: &ItemId) -> Result<Option<Option<Entry>>, Error> {
    let mut conn = db.pool().acquire().await?;
    if get(&mut conn, id).await?.is_none() {
        return Ok(None);
    }
    Ok(Some(previous_decided(&mut conn, id).await?))
}

/// The entry `id` with its decision, if there is one (see [`get`]).
pub async fn entry(db: &Db, id: &ItemId) -> Result<Option<Entry>, Error> {
    if let Some(readers) = db.readers() {
        return readers.read(|c| super::read::get_lite(c, id)).await;
    }
    let mut conn = db.pool().acquire().await?;
    get(&mut conn, id).await
}

/// The pending entry of the call `tool_call_id` of `run_id` at `engine`, if there is one (see [`find_pending`]).
pub async fn pending_call(db: &Db, engine: &EngineId, run_id: &RunId, tool_call_id: &ToolCallId) -> Result<Option<Entry>, Error> {
    if let Some(readers) = db.readers() {
        return readers.read(|c| super::read::find_pending_lite(c, engine, run_id, tool_call_id)).await;
    }
    let mut conn = db.pool().acquire().await?;
    find_pending(&mut conn, engine, run_id, tool_call_id).await
}

/// Every pending entry of `engine`, oldest first (see [`pending_of_engine`]).
pub async fn pending_entries(db: &Db, engine: &EngineId) -> Result<Vec<Entry>, Error> {
    let mut conn = db.pool().acquire().await?;
    pending_of_engine(&mut conn, engine).await
}

/// Every tool name a call in the queue has had, any engine, sorted.
pub async fn tool_names(db: &Db) -> Result<Vec<String>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql("SELECT DISTINCT tool_name FROM queue_items ORDER BY tool_name").fetch_all(&mut *conn).await?;
    rows.iter().map(|r| r.try_get("tool_name")).collect()
}

/// Per engine: (pending entries, decisions waiting for delivery), see [`counts_by_engine`].
pub async fn engine_counts(db: &Db) -> Result<HashMap<String, (i64, i64)>, Error> {
    let mut conn = db.pool().acquire().await?;
    counts_by_engine(&mut conn).await
}

/// What [`run_call`] found.
#[derive(Debug)]
pub enum RunCall {
    /// The pending call of the agent's run.
    Pending(Box<Entry>),
    /// None pending: the run's entries of that agent, whatever their state (at most 500, newest first).
    Listed(Vec<Entry>),
}

/// The pending call of `agent`'s run that a route names, or else the run's entries of that agent, read on one connection.
pub async fn run_call(db: &Db, engine: &EngineId, agent: &str, run_id: &RunId, tool_call_id: Option<&str>) -> Result<RunCall, Error> {
    // `tool_call_id`'s pending call, or without one the most recently suspended.
    let found = match (db.readers(), tool_call_id) {
        (Some(_), Some(id)) => pending_call(db, engine, run_id, &ToolCallId::new(id)).await?,
        (Some(readers), None) => readers.read(|c| super::read::pending_of_run_lite(c, engine, run_id)).await?.pop(),
        (None, Some(id)) => find_pending(&mut *db.pool().acquire().await?, engine, run_id, &ToolCallId::new(id)).await?,
        (None, None) => pending_of_run(&mut *db.pool().acquire().await?, engine, run_id).await?.pop(),
    };
    if let Some(entry) = found.filter(|e| e.queued.call.agent_id.as_str() == agent) {
        return Ok(RunCall::Pending(Box::new(entry)));
    }
    let mut conn = db.pool().acquire().await?;
    let filter =
        Filter { run: Some(run_id.to_string()), engine: Some(engine.to_string()), agent: Some(agent.to_owned()), ..Default::default() };
    Ok(RunCall::Listed(list(&mut conn, &filter, None, 500).await?.entries))
}

/// Moves a pending entry to `gone` with its audit entry `record` in one transaction; false (nothing written) if it was not pending.
pub async fn end_pending(db: &Db, id: &ItemId, record: audit::Record<'_>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !transition(&mut tx, id, ItemState::Pending, ItemState::Gone).await? {
        return Ok(false);
    }
    audit::append(&mut tx, record).await?;
    tx.commit().await?;
    Ok(true)
}
