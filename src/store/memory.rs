//! Threads and their messages (the local engine's memory). Bodies are the engine's own JSON; this
//! module only stores them, in order.

use super::sql::{scalar, sql, Sql};
use super::{now, parse_json, ts};
use crate::domain::{AgentId, Error, RunId};
use serde_json::Value;

/// Makes sure a thread exists and belongs to `resource_id`; a thread of another resource is refused
/// (one user's conversation is never continued under another's name).
pub(in crate::store) async fn ensure_thread(
    conn: &mut impl Sql,
    thread_id: &str,
    resource_id: &str,
    agent_id: &AgentId,
) -> Result<(), Error> {
    let at = ts(now());
    sql("INSERT INTO threads (id, resource_id, agent_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING")
        .bind(thread_id)
        .bind(resource_id)
        .bind(agent_id.as_str())
        .bind(&at)
        .bind(&at)
        .execute(&mut *conn)
        .await?;
    let owner: String = scalar("SELECT resource_id FROM threads WHERE id = $1").bind(thread_id).fetch_one(&mut *conn).await?;
    if owner != resource_id {
        return Err(Error::InvalidRequest(format!("thread {thread_id:?} belongs to another resource")));
    }
    Ok(())
}

/// Appends messages to a thread, in order.
pub async fn append(conn: &mut impl Sql, thread_id: &str, run_id: &RunId, messages: &[Value]) -> Result<(), Error> {
    let at = ts(now());
    for m in messages {
        sql("INSERT INTO messages (thread_id, run_id, body, created_at) VALUES ($1, $2, $3, $4)")
            .bind(thread_id)
            .bind(run_id.as_str())
            .bind(m.to_string())
            .bind(&at)
            .execute(&mut *conn)
            .await?;
    }
    sql("UPDATE threads SET updated_at = $1 WHERE id = $2").bind(&at).bind(thread_id).execute(&mut *conn).await?;
    Ok(())
}

/// The last `limit` messages of a thread, oldest first.
pub async fn recent(conn: &mut impl Sql, thread_id: &str, limit: u32) -> Result<Vec<Value>, Error> {
    let rows =
        sql("SELECT body FROM (SELECT seq, body FROM messages WHERE thread_id = $1 ORDER BY seq DESC LIMIT $2) AS recent ORDER BY seq")
            .bind(thread_id)
            .bind(i64::from(limit))
            .fetch_all(&mut *conn)
            .await?;
    rows.iter().map(|r| parse_json(&r.try_get::<String>(0)?)).collect()
}
