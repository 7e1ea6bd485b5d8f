//! S11: snapshots of suspended local runs. The body is the engine's own JSON; this module only stores it.

use super::cells::Cells;
use super::sql::{sql, Sql};
use super::{now, ts};
use crate::domain::{AgentId, EngineId, Error, RunId};

/// A stored snapshot.
#[derive(Clone, Debug)]
pub struct Stored {
    pub run_id: RunId,
    pub agent_id: AgentId,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
    pub running: bool,
    /// The run's state as stored (JSON text): read straight into the engine's own type
    /// ([`Stored::state`]), without a `Value` in between.
    pub body: String,
    pub updated_at: String,
}

impl Stored {
    /// The body read as `T` (the engine's run state).
    pub fn state<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        serde_json::from_str(&self.body).map_err(|e| Error::Storage(format!("snapshot of run {} is unreadable: {e}", self.run_id)))
    }
}

/// Writes the snapshot of a run as `suspended`, replacing an earlier one of the same engine. A
/// snapshot of that run id by another engine (another console's local engine) is never overwritten:
/// `run_exists`, and nothing changes.
pub(in crate::store) async fn save_suspended(
    conn: &mut impl Sql,
    engine: &EngineId,
    run_id: &RunId,
    agent_id: &AgentId,
    thread_id: Option<&str>,
    resource_id: Option<&str>,
    body: &str,
) -> Result<(), Error> {
    let at = ts(now());
    let done = sql("INSERT INTO snapshots (run_id, agent_id, thread_id, resource_id, state, body, created_at, updated_at, engine)
         VALUES ($1, $2, $3, $4, 'suspended', $5, $6, $7, $8)
         ON CONFLICT (run_id) DO UPDATE SET state = 'suspended', body = excluded.body, updated_at = excluded.updated_at
         WHERE snapshots.engine = excluded.engine")
    .bind(run_id.as_str())
    .bind(agent_id.as_str())
    .bind(thread_id)
    .bind(resource_id)
    .bind(body)
    .bind(&at)
    .bind(&at)
    .bind(engine.as_str())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Err(Error::RunExists { run_id: run_id.to_string() });
    }
    Ok(())
}

/// Claims a run id a client chose for a run `engine` starts: false if another start holds it
/// (here or on another console sharing the database). First writer wins.
pub async fn claim(conn: &mut impl Sql, engine: &EngineId, run_id: &RunId) -> Result<bool, Error> {
    let done = sql("INSERT INTO run_claims (run_id, engine, claimed_at) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING")
        .bind(run_id.as_str())
        .bind(engine.as_str())
        .bind(ts(now()))
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Ends `engine`'s claim of a run id (its start is over: the run finished, failed or has a snapshot).
pub async fn release(conn: &mut impl Sql, engine: &EngineId, run_id: &RunId) -> Result<(), Error> {
    sql("DELETE FROM run_claims WHERE run_id = $1 AND engine = $2").bind(run_id.as_str()).bind(engine.as_str()).execute(&mut *conn).await?;
    Ok(())
}

const CLAIMED: &str = "SELECT 1 FROM run_claims WHERE run_id = $1";

/// Whether a start holds the run id now.
pub async fn claimed(conn: &mut impl Sql, run_id: &RunId) -> Result<bool, Error> {
    Ok(sql(CLAIMED).bind(run_id.as_str()).fetch_optional(&mut *conn).await?.is_some())
}

/// [`claimed`] on a reader's connection.
pub(super) fn claimed_lite(conn: &rusqlite::Connection, run_id: &RunId) -> Result<bool, Error> {
    Ok(super::lite::row(conn, CLAIMED, &[&run_id.as_str()], |_| Ok(()))?.is_some())
}

/// At start-up: drops the claims `engine` left (a process that stopped mid-start).
pub(in crate::store) async fn release_all(conn: &mut impl Sql, engine: &EngineId) -> Result<(), Error> {
    sql("DELETE FROM run_claims WHERE engine = $1").bind(engine.as_str()).execute(&mut *conn).await?;
    Ok(())
}

/// Updates the body of a suspended snapshot in place (a decided call's result recorded).
pub(in crate::store) async fn update_body(conn: &mut impl Sql, run_id: &RunId, body: &str) -> Result<(), Error> {
    sql("UPDATE snapshots SET body = $1, updated_at = $2 WHERE run_id = $3")
        .bind(body)
        .bind(ts(now()))
        .bind(run_id.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Claims a suspended run for advancing (`suspended → running`); false if it was not suspended.
pub(in crate::store) async fn claim_running(conn: &mut impl Sql, run_id: &RunId) -> Result<bool, Error> {
    let done = sql("UPDATE snapshots SET state = 'running', updated_at = $1 WHERE run_id = $2 AND state = 'suspended'")
        .bind(ts(now()))
        .bind(run_id.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Removes the snapshot of a finished run.
pub async fn delete(conn: &mut impl Sql, run_id: &RunId) -> Result<(), Error> {
    sql("DELETE FROM snapshots WHERE run_id = $1").bind(run_id.as_str()).execute(&mut *conn).await?;
    Ok(())
}

/// Removes a run's snapshot and those of its sub-agents' runs (`<run>/…`, S13).
pub(in crate::store) async fn delete_tree(conn: &mut impl Sql, run_id: &RunId) -> Result<(), Error> {
    let children = format!("{}/%", run_id.as_str().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    sql("DELETE FROM snapshots WHERE run_id = $1 OR run_id LIKE $2 ESCAPE '\\'")
        .bind(run_id.as_str())
        .bind(children)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

fn from_row(row: &impl Cells) -> Result<Stored, Error> {
    Ok(Stored {
        run_id: RunId::new(row.cell::<String>("run_id")?),
        agent_id: AgentId::new(row.cell::<String>("agent_id")?),
        thread_id: row.cell("thread_id")?,
        resource_id: row.cell("resource_id")?,
        running: row.cell::<String>("state")? == "running",
        body: row.cell("body")?,
        updated_at: row.cell("updated_at")?,
    })
}

const GET: &str = "SELECT * FROM snapshots WHERE run_id = $1";

pub async fn get(conn: &mut impl Sql, run_id: &RunId) -> Result<Option<Stored>, Error> {
    let row = sql(GET).bind(run_id.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(from_row).transpose()
}

/// [`get`] on a reader's connection (SQLite, [`super::lite`]).
pub(super) fn get_lite(conn: &rusqlite::Connection, run_id: &RunId) -> Result<Option<Stored>, Error> {
    super::lite::row(conn, GET, &[&run_id.as_str()], |r| from_row(r))
}

/// Snapshots of an agent's runs, newest first, optionally of one thread and resource (S12).
pub async fn list(
    conn: &mut impl Sql,
    engine: &EngineId,
    agent_id: &AgentId,
    thread_id: Option<&str>,
    resource_id: Option<&str>,
) -> Result<Vec<Stored>, Error> {
    let rows = sql("SELECT * FROM snapshots WHERE agent_id = $1 AND ($2 IS NULL OR thread_id = $2) AND ($3 IS NULL OR resource_id = $3)
         AND engine = $4 ORDER BY updated_at DESC")
    .bind(agent_id.as_str())
    .bind(thread_id)
    .bind(resource_id)
    .bind(engine.as_str())
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(from_row).collect()
}

/// Runs of `engine` left `running` by a process that stopped (found at start-up).
pub async fn running(conn: &mut impl Sql, engine: &EngineId) -> Result<Vec<Stored>, Error> {
    let rows = sql("SELECT * FROM snapshots WHERE state = 'running' AND engine = $1").bind(engine.as_str()).fetch_all(&mut *conn).await?;
    rows.iter().map(from_row).collect()
}
