//! "Always allow" grants (see [`crate::console::grants`]).

use super::cells::Cells;
use super::sql::{scalar, sql, tuple, Sql};
use super::{audit, parse_json, parse_ts, ts, Db};
use crate::domain::audit::{GrantCreated, GrantRevoked};
use crate::domain::grant::{Condition, Grant, GrantScope};
use crate::domain::session_rule::RuleScope;
use crate::domain::{EngineId, Error, GrantId, ItemId};
use chrono::{DateTime, Utc};

const COLUMNS: &str = "SELECT id, tool_name, scope, engine, agent_id, run_id, conditions, from_item, created_at, created_by,
    expires_at, revoked_at, revoked_by, uses, applies_from, requested_by, shadow, rule_scope FROM grants";

fn from_row(r: &impl Cells) -> Result<Grant, Error> {
    let scope = match r.cell::<String>("scope")?.as_str() {
        "run" => GrantScope::Run,
        "agent" => GrantScope::Agent,
        "engine" => GrantScope::Engine,
        other => return Err(Error::Storage(format!("unknown grant scope {other:?}"))),
    };
    let conditions: Vec<Condition> = serde_json::from_value(parse_json(&r.cell::<String>("conditions")?)?)
        .map_err(|e| Error::Storage(format!("unreadable grant conditions: {e}")))?;
    let opt_ts = |c: &str| r.cell::<Option<String>>(c)?.map(|t| parse_ts(&t)).transpose();
    Ok(Grant {
        id: GrantId::new(r.cell::<String>("id")?),
        tool_name: r.cell("tool_name")?,
        scope,
        engine: r.cell("engine")?,
        agent_id: r.cell("agent_id")?,
        run_id: r.cell("run_id")?,
        conditions,
        from_item: r.cell("from_item")?,
        created_at: parse_ts(&r.cell::<String>("created_at")?)?,
        created_by: r.cell("created_by")?,
        expires_at: parse_ts(&r.cell::<String>("expires_at")?)?,
        revoked_at: opt_ts("revoked_at")?,
        revoked_by: r.cell("revoked_by")?,
        uses: r.cell::<i64>("uses")? as u64,
        applies_from: opt_ts("applies_from")?,
        requested_by: r.cell("requested_by")?,
        shadow: r.cell::<i64>("shadow")? != 0,
        rule_scope: {
            let text = r.cell::<String>("rule_scope")?;
            RuleScope::parse(&text).ok_or_else(|| Error::Storage(format!("unknown rule scope {text:?}")))?
        },
        written: Vec::new(),
        removals: Vec::new(),
    })
}

pub async fn insert(conn: &mut impl Sql, g: &Grant) -> Result<(), Error> {
    sql(
        "INSERT INTO grants (id, tool_name, scope, engine, agent_id, run_id, conditions, from_item, created_at, created_by, expires_at, applies_from,
            requested_by, shadow, rule_scope)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(g.id.as_str())
    .bind(&g.tool_name)
    .bind(g.scope.as_str())
    .bind(&g.engine)
    .bind(&g.agent_id)
    .bind(&g.run_id)
    .bind(serde_json::to_string(&g.conditions).expect("conditions serialize"))
    .bind(&g.from_item)
    .bind(ts(g.created_at))
    .bind(&g.created_by)
    .bind(ts(g.expires_at))
    .bind(g.applies_from.map(ts))
    .bind(&g.requested_by)
    .bind(i64::from(g.shadow))
    .bind(g.rule_scope.as_str())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Every grant, newest first.
pub async fn all(conn: &mut impl Sql) -> Result<Vec<Grant>, Error> {
    let rows = sql(format!("{COLUMNS} ORDER BY created_at DESC, id DESC")).fetch_all(&mut *conn).await?;
    rows.iter().map(from_row).collect()
}

pub async fn get(conn: &mut impl Sql, id: &GrantId) -> Result<Option<Grant>, Error> {
    let row = sql(format!("{COLUMNS} WHERE id = $1")).bind(id.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(from_row).transpose()
}

const LIVE_FOR: &str =
    " WHERE tool_name = $1 AND engine = $2 AND revoked_at IS NULL AND expires_at > $3 AND shadow = 0 ORDER BY created_at";

/// Grants of `tool` at `engine` neither revoked nor expired at `now`, shadow grants left out (they
/// approve nothing).
pub(in crate::store) async fn live_for(
    conn: &mut impl Sql,
    tool: &str,
    engine: &EngineId,
    now: DateTime<Utc>,
) -> Result<Vec<Grant>, Error> {
    let rows = sql(format!("{COLUMNS}{LIVE_FOR}")).bind(tool).bind(engine.as_str()).bind(ts(now)).fetch_all(&mut *conn).await?;
    rows.iter().map(from_row).collect()
}

/// The tool names with a live grant.
pub(in crate::store) async fn live_tools(conn: &mut impl Sql, now: DateTime<Utc>) -> Result<Vec<String>, Error> {
    scalar("SELECT DISTINCT tool_name FROM grants WHERE revoked_at IS NULL AND expires_at > $1 AND shadow = 0")
        .bind(ts(now))
        .fetch_all(&mut *conn)
        .await
}

/// Revokes a live grant; false if it was already revoked.
pub async fn revoke(conn: &mut impl Sql, id: &GrantId, by: &str, at: DateTime<Utc>) -> Result<bool, Error> {
    let done = sql("UPDATE grants SET revoked_at = $1, revoked_by = $2 WHERE id = $3 AND revoked_at IS NULL")
        .bind(ts(at))
        .bind(by)
        .bind(id.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Ends the live grants scoped to a run that ended (revoked by `console (run ended)`); how many.
pub(in crate::store) async fn end_for_run(
    conn: &mut impl Sql,
    engine: &EngineId,
    run_id: &crate::domain::RunId,
    at: DateTime<Utc>,
) -> Result<u64, Error> {
    let done = sql("UPDATE grants SET revoked_at = $1, revoked_by = 'console (run ended)' WHERE scope = 'run' AND engine = $2 AND run_id = $3 AND revoked_at IS NULL")
        .bind(ts(at))
        .bind(engine.as_str())
        .bind(run_id.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected())
}

/// Counts one use of grant `id` if it is still live at `now` (neither revoked nor expired); `false`
/// when it is not, and nothing is written. The decision it approves is stored in the same
/// transaction (the decision kernel's unit of work, [`crate::store::uow::Uow::use_grant`]), so a grant revoked while a call was being
/// checked against it approves nothing.
pub(in crate::store) async fn use_live(conn: &mut impl Sql, id: &GrantId, now: DateTime<Utc>) -> Result<bool, Error> {
    let done = sql("UPDATE grants SET uses = uses + 1 WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2")
        .bind(id.as_str())
        .bind(ts(now))
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Pending approval calls of `tool` after queue position `after_seq`, oldest first, at most `limit`,
/// with their positions (a sweep pages through them all).
pub(in crate::store) async fn pending_of_tool(
    conn: &mut impl Sql,
    tool: &str,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<(i64, crate::domain::ItemId)>, Error> {
    let rows: Vec<(i64, String)> = tuple(
        "SELECT seq, id FROM queue_items WHERE state = 'pending' AND kind = 'approval' AND tool_name = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    )
    .bind(tool)
    .bind(after_seq)
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.into_iter().map(|(seq, id)| (seq, crate::domain::ItemId::new(id))).collect())
}

/// Stores a new grant with its `grant.created` audit entry (on the call it is made from, shown with
/// `fingerprint`; `approves_waiting` calls at once) in one transaction.
pub async fn create_audited(db: &Db, grant: &Grant, operator: &str, fingerprint: &str, approves_waiting: u64) -> Result<(), Error> {
    let q_id = grant.from_item.clone().unwrap_or_default();
    let mut tx = db.begin_write().await?;
    insert(&mut tx, grant).await?;
    let details = GrantCreated { grant, approves_waiting };
    audit::append(&mut tx, audit::Record::of(operator, Some((&q_id, &grant.tool_name, fingerprint)), &details)).await?;
    tx.commit().await?;
    Ok(())
}

/// Every grant, newest first (see [`all`]).
pub async fn list_all(db: &Db) -> Result<Vec<Grant>, Error> {
    let mut conn = db.pool().acquire().await?;
    all(&mut conn).await
}

/// What [`revoke_audited`] found.
#[derive(Debug)]
pub enum Revoked {
    /// There is no grant of that id.
    Unknown,
    /// It was revoked before: nothing written.
    Already,
    /// Revoked now: the grant as it is afterwards.
    Now(Box<Grant>),
}

/// Revokes the grant `id` with its `grant.revoked` audit entry in one transaction (nothing written
/// unless it was live).
pub async fn revoke_audited(db: &Db, id: &GrantId, operator: &str, at: DateTime<Utc>) -> Result<Revoked, Error> {
    let mut tx = db.begin_write().await?;
    let Some(grant) = get(&mut tx, id).await? else { return Ok(Revoked::Unknown) };
    if !revoke(&mut tx, id, operator, at).await? {
        return Ok(Revoked::Already);
    }
    let details = GrantRevoked { grant_id: id.as_str(), uses: grant.uses };
    audit::append(&mut tx, audit::Record::of(operator, None, &details).with_tool(&grant.tool_name)).await?;
    let revoked = get(&mut tx, id).await?.expect("still there");
    tx.commit().await?;
    Ok(Revoked::Now(Box::new(revoked)))
}

/// The grants of `tool` at `engine` live at `now` (see [`live_for`]).
pub async fn live_of_tool(db: &Db, tool: &str, engine: &EngineId, now: DateTime<Utc>) -> Result<Vec<Grant>, Error> {
    if let Some(readers) = db.readers() {
        let now = ts(now);
        return readers
            .read(|c| super::lite::rows(c, &format!("{COLUMNS}{LIVE_FOR}"), &[&tool, &engine.as_str(), &now], |r| from_row(r)))
            .await;
    }
    let mut conn = db.pool().acquire().await?;
    live_for(&mut conn, tool, engine, now).await
}

/// Whether any grant live at `now` names the tool and engine of queue entry `item` while it is
/// pending: one statement that settles most new calls (no grant of their tool) without reading them.
pub async fn any_live_for_pending(db: &Db, item: &ItemId, now: DateTime<Utc>) -> Result<bool, Error> {
    const LIVE_FOR_ITEM: &str = "SELECT q.id FROM queue_items q JOIN grants g ON g.tool_name = q.tool_name AND g.engine = q.engine
         WHERE q.id = $1 AND q.state = 'pending' AND g.revoked_at IS NULL AND g.expires_at > $2 AND g.shadow = 0 LIMIT 1";
    if let Some(readers) = db.readers() {
        let now = ts(now);
        return readers.read(|c| Ok(super::lite::row(c, LIVE_FOR_ITEM, &[&item.as_str(), &now], |_| Ok(()))?.is_some())).await;
    }
    let found: Option<String> = sqlx::query_scalar(LIVE_FOR_ITEM).bind(item.as_str()).bind(ts(now)).fetch_optional(db.pool()).await?;
    Ok(found.is_some())
}

/// The tool names with a grant live at `now` (see [`live_tools`]).
pub async fn tools_with_live(db: &Db, now: DateTime<Utc>) -> Result<Vec<String>, Error> {
    let mut conn = db.pool().acquire().await?;
    live_tools(&mut conn, now).await
}

/// The approval calls of `tool` at `engine` paused at or after `since`, oldest first, at most
/// `limit` (a shadow grant's report).
pub async fn calls_since(db: &Db, tool: &str, engine: &str, since: DateTime<Utc>, limit: i64) -> Result<Vec<ItemId>, Error> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT id FROM queue_items WHERE kind = 'approval' AND tool_name = $1 AND engine = $2 AND paused_at >= $3 ORDER BY seq LIMIT $4",
    )
    .bind(tool)
    .bind(engine)
    .bind(ts(since))
    .bind(limit)
    .fetch_all(db.pool())
    .await?;
    Ok(ids.into_iter().map(ItemId::new).collect())
}

/// One batch of the pending approval calls of `tool` after queue position `after_seq` (see [`pending_of_tool`]).
pub async fn pending_batch(db: &Db, tool: &str, after_seq: i64, limit: i64) -> Result<Vec<(i64, ItemId)>, Error> {
    let mut conn = db.pool().acquire().await?;
    pending_of_tool(&mut conn, tool, after_seq, limit).await
}
