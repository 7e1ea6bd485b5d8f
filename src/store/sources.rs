//! Where calls came from (issue 45): every source and engine the queue has seen a call of, its
//! agents, how many calls and when. Read-only, over `queue_items`.

use super::sql::{sql, Sql};
use super::{parse_ts, Db};
use crate::domain::{CallSource, Error};
use chrono::{DateTime, Utc};

/// One agent of one source and engine, as the queue saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub source: CallSource,
    pub engine: String,
    pub agent_id: String,
    /// The newest display name the agent's calls carried.
    pub agent_name: Option<String>,
    pub calls: i64,
    pub pending: i64,
    pub first_at: DateTime<Utc>,
    pub last_at: DateTime<Utc>,
}

/// Every (source, engine, agent) with a call in the queue, newest last call first. A source this
/// version does not know (written by a newer one) is left out.
pub async fn seen(conn: &mut impl Sql) -> Result<Vec<Seen>, Error> {
    let rows = sql("SELECT source, engine, agent_id, COUNT(*) AS calls,
            SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END) AS pending,
            MIN(paused_at) AS first_at, MAX(paused_at) AS last_at,
            MAX(agent_name) AS agent_name
         FROM queue_items GROUP BY source, engine, agent_id ORDER BY last_at DESC, source, engine, agent_id")
    .fetch_all(&mut *conn)
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let Some(source) = CallSource::parse(&r.try_get::<String>("source")?) else { continue };
        out.push(Seen {
            source,
            engine: r.try_get("engine")?,
            agent_id: r.try_get("agent_id")?,
            agent_name: r.try_get("agent_name")?,
            calls: r.try_get("calls")?,
            pending: r.try_get("pending")?,
            first_at: parse_ts(&r.try_get::<String>("first_at")?)?,
            last_at: parse_ts(&r.try_get::<String>("last_at")?)?,
        });
    }
    Ok(out)
}

/// [`seen`] on a connection of its own.
pub async fn all_seen(db: &Db) -> Result<Vec<Seen>, Error> {
    let mut conn = db.pool().acquire().await?;
    seen(&mut conn).await
}
