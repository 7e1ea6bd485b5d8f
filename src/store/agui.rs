//! AG-UI runs that ended in interrupts (`agui_runs`), one row per thread: what an AG-UI engine
//! lists as waiting and what its resume needs ([`crate::engine::agui`]).

use super::sql::{sql, Row};
use super::{now, parse_json, ts, Db};
use crate::domain::Error;
use serde_json::Value;

/// One thread's last interrupted run, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRun {
    pub engine: String,
    pub thread_id: String,
    /// The run that ended with the interrupts.
    pub run_id: String,
    /// The RunAgentInput it was started with (no `resume`).
    pub input: Value,
    /// The open interrupts, each `{interrupt, toolName?, args?}`.
    pub interrupts: Vec<Value>,
    /// `waiting`, `resuming`, `resumed` or `ended`.
    pub state: String,
}

fn of(r: Row) -> Result<StoredRun, Error> {
    let interrupts: Value = parse_json(&r.try_get::<String>("interrupts")?)?;
    Ok(StoredRun {
        engine: r.try_get("engine")?,
        thread_id: r.try_get("thread_id")?,
        run_id: r.try_get("run_id")?,
        input: parse_json(&r.try_get::<String>("input")?)?,
        interrupts: interrupts.as_array().cloned().unwrap_or_default(),
        state: r.try_get("state")?,
    })
}

const COLUMNS: &str = "SELECT engine, thread_id, run_id, input, interrupts, state FROM agui_runs";

/// Stores `run` as what its thread waits on now (`waiting`), replacing the thread's earlier run:
/// committed before the client hears that the run stopped.
pub async fn store_waiting(db: &Db, engine: &str, thread_id: &str, run_id: &str, input: &Value, interrupts: &[Value]) -> Result<(), Error> {
    let at = ts(now());
    let mut tx = db.begin_write().await?;
    sql("INSERT INTO agui_runs (engine, thread_id, run_id, input, interrupts, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'waiting', $6, $6)
         ON CONFLICT (engine, thread_id) DO UPDATE SET run_id = excluded.run_id, input = excluded.input,
             interrupts = excluded.interrupts, state = 'waiting', resume_run_id = NULL, updated_at = excluded.updated_at")
    .bind(engine)
    .bind(thread_id)
    .bind(run_id)
    .bind(input.to_string())
    .bind(Value::Array(interrupts.to_vec()).to_string())
    .bind(at)
    .execute(&mut tx)
    .await?;
    tx.commit().await
}

/// A later run of `thread_id` ended without interrupts: it waits on nothing. The frontend's input
/// (its messages) is dropped: nothing will resume this run, so nothing needs it.
pub async fn end_thread(db: &Db, engine: &str, thread_id: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("UPDATE agui_runs SET state = 'ended', input = '{}', updated_at = $3 WHERE engine = $1 AND thread_id = $2 AND state = 'waiting'")
        .bind(engine)
        .bind(thread_id)
        .bind(ts(now()))
        .execute(&mut tx)
        .await?;
    tx.commit().await
}

/// Every waiting run of `engine`.
pub async fn waiting(db: &Db, engine: &str) -> Result<Vec<StoredRun>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql(format!("{COLUMNS} WHERE engine = $1 AND state = 'waiting' ORDER BY created_at, thread_id"))
        .bind(engine)
        .fetch_all(&mut *conn)
        .await?;
    rows.into_iter().map(of).collect()
}

/// The stored run of a thread, whatever its state.
pub async fn get(db: &Db, engine: &str, thread_id: &str) -> Result<Option<StoredRun>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row =
        sql(format!("{COLUMNS} WHERE engine = $1 AND thread_id = $2")).bind(engine).bind(thread_id).fetch_optional(&mut *conn).await?;
    row.map(of).transpose()
}

/// Takes the waiting run `run_id` of a thread for its resume (`resuming`, with the resume's run id),
/// committed before the resume is sent: true for the one caller that took it, so a resume is never
/// sent twice (a stop while it is sent leaves it `resuming`, not sent again).
pub async fn take_for_resume(db: &Db, engine: &str, thread_id: &str, run_id: &str, resume_run_id: &str) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let done = sql("UPDATE agui_runs SET state = 'resuming', resume_run_id = $4, updated_at = $5
         WHERE engine = $1 AND thread_id = $2 AND run_id = $3 AND state = 'waiting'")
    .bind(engine)
    .bind(thread_id)
    .bind(run_id)
    .bind(resume_run_id)
    .bind(ts(now()))
    .execute(&mut tx)
    .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// The resume `resume_run_id` was taken by the agent.
pub async fn resumed(db: &Db, engine: &str, thread_id: &str, resume_run_id: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("UPDATE agui_runs SET state = 'resumed', input = '{}', updated_at = $4 WHERE engine = $1 AND thread_id = $2 AND resume_run_id = $3 AND state = 'resuming'")
        .bind(engine)
        .bind(thread_id)
        .bind(resume_run_id)
        .bind(ts(now()))
        .execute(&mut tx)
        .await?;
    tx.commit().await
}
