//! Remote engines as configured (`engines`), their last known health, and what they said about their
//! tools (`remote_tools`). Tokens are never stored here (C7): a row names its keyring entry.

use super::sql::{sql, Row, Sql};
use super::{audit, now, parse_json, parse_ts, ts, Db};
use crate::domain::audit::{EngineChanged, EngineSeen};
use crate::domain::{CallSource, Error};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How an engine answered last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EngineHealth)]
pub enum Health {
    /// Not asked yet.
    Unknown,
    Reachable,
    /// No connection, a timeout, or a server error.
    Unreachable,
    /// 401 / 403: the token is missing, wrong or expired.
    AuthFailed,
    /// The engine has a token, but this console holds none given for the engine's URL (the URL was
    /// changed, here or on another console of the team): nothing is sent until an admin gives the
    /// token again for the new URL.
    TokenRequired,
    /// It answers, but not as a supported server of its kind does (missing routes, unexpected shapes).
    Incompatible,
}

impl Health {
    fn as_str(self) -> &'static str {
        match self {
            Self::Unknown => "unknown",
            Self::Reachable => "reachable",
            Self::Unreachable => "unreachable",
            Self::AuthFailed => "auth_failed",
            Self::TokenRequired => "token_required",
            Self::Incompatible => "incompatible",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "reachable" => Self::Reachable,
            "unreachable" => Self::Unreachable,
            "auth_failed" => Self::AuthFailed,
            "token_required" => Self::TokenRequired,
            "incompatible" => Self::Incompatible,
            _ => Self::Unknown,
        }
    }
}

/// Health with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthReport {
    pub state: Health,
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(required = true)]
    pub last_error_at: Option<DateTime<Utc>>,
    /// When the engine last answered as expected.
    #[schema(required = true)]
    pub last_ok_at: Option<DateTime<Utc>>,
}

impl Default for HealthReport {
    fn default() -> Self {
        Self { state: Health::Unknown, last_error: None, last_error_at: None, last_ok_at: None }
    }
}

/// A configured remote engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRow {
    /// Also its engine id in the queue.
    pub name: String,
    /// Which API it speaks: a remote kind of `engine::kinds`.
    pub kind: CallSource,
    pub base_url: String,
    /// The keyring entry holding its bearer token, if it has one.
    pub token_ref: Option<String>,
    pub poll_ms: u32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub health: HealthReport,
}

/// The keyring entry name an engine's token had before tokens were bound to a URL: read on a
/// console of its own only (there, nobody else could have changed the URL).
pub fn legacy_token_ref(name: &str) -> String {
    format!("engine.{name}.token")
}

/// The keyring entry name of engine `name`'s token for `base_url`: the URL's hash is part of the
/// name, so a token is found only for the URL it was given for. A console derives the name from the
/// URL it is about to send to, never takes it from the (shared) row: a URL changed anywhere — or a
/// row forged — finds no token, and the engine reports `token_required`.
pub fn token_ref(name: &str, base_url: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(url_key(base_url).as_bytes());
    format!("engine.{name}.token.{}", &hex::encode(digest)[..16])
}

/// `base_url` as tokens are bound to it: parsed and normalised (as requests are built from it),
/// else as given.
pub fn url_key(base_url: &str) -> String {
    match reqwest::Url::parse(base_url.trim()) {
        Ok(u) => u.to_string(),
        Err(_) => base_url.trim().to_owned(),
    }
}

/// The `token_ref` of an engine whose token was given for one session only (the keyring could not
/// hold it): the token lives in that process's memory and is asked for again after a restart.
pub const SESSION_TOKEN: &str = "session";

fn from_row(row: &Row) -> Result<EngineRow, Error> {
    let opt_ts = |col: &str| row.try_get::<Option<String>>(col)?.map(|t| parse_ts(&t)).transpose();
    Ok(EngineRow {
        name: row.try_get("name")?,
        kind: {
            let kind: String = row.try_get("kind")?;
            CallSource::parse(&kind).ok_or_else(|| Error::Storage(format!("unknown engine kind {kind:?} in database")))?
        },
        base_url: row.try_get("base_url")?,
        token_ref: row.try_get("token_ref")?,
        poll_ms: row.try_get::<i64>("poll_ms")?.clamp(100, i64::from(u32::MAX)) as u32,
        created_at: parse_ts(&row.try_get::<String>("created_at")?)?,
        updated_at: parse_ts(&row.try_get::<String>("updated_at")?)?,
        health: HealthReport {
            state: Health::parse(&row.try_get::<String>("health")?),
            last_error: row.try_get("last_error")?,
            last_error_at: opt_ts("last_error_at")?,
            last_ok_at: opt_ts("last_ok_at")?,
        },
    })
}

const SELECT: &str =
    "SELECT name, kind, base_url, token_ref, poll_ms, created_at, updated_at, health, last_error, last_error_at, last_ok_at FROM engines";

pub async fn list(conn: &mut impl Sql) -> Result<Vec<EngineRow>, Error> {
    let rows = sql(format!("{SELECT} ORDER BY name")).fetch_all(&mut *conn).await?;
    rows.iter().map(from_row).collect()
}

pub async fn get(conn: &mut impl Sql, name: &str) -> Result<Option<EngineRow>, Error> {
    let row = sql(format!("{SELECT} WHERE name = $1")).bind(name).fetch_optional(&mut *conn).await?;
    row.as_ref().map(from_row).transpose()
}

/// Adds an engine; `InvalidRequest` if the name is taken.
pub async fn insert(
    conn: &mut impl Sql,
    name: &str,
    kind: CallSource,
    base_url: &str,
    token_ref: Option<&str>,
    poll_ms: u32,
) -> Result<EngineRow, Error> {
    let at = ts(now());
    let done =
        sql("INSERT INTO engines (name, kind, base_url, token_ref, poll_ms, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (name) DO NOTHING")
        .bind(name)
        .bind(kind.as_str())
        .bind(base_url)
        .bind(token_ref)
        .bind(i64::from(poll_ms))
        .bind(&at)
        .bind(&at)
        .execute(&mut *conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::InvalidRequest(format!("an engine named {name:?} already exists")));
    }
    get(conn, name).await?.ok_or_else(|| Error::Storage("engine vanished after insert".into()))
}

/// Changes an engine's settings; `NotFound` if there is none. Health starts over when the URL changes.
pub async fn update(conn: &mut impl Sql, name: &str, base_url: &str, token_ref: Option<&str>, poll_ms: u32) -> Result<EngineRow, Error> {
    let done = sql("UPDATE engines SET
            health = CASE WHEN base_url = $1 THEN health ELSE 'unknown' END,
            base_url = $2, token_ref = $3, poll_ms = $4, updated_at = $5
         WHERE name = $6")
    .bind(base_url)
    .bind(base_url)
    .bind(token_ref)
    .bind(i64::from(poll_ms))
    .bind(ts(now()))
    .bind(name)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found(format!("engine {name:?}")));
    }
    get(conn, name).await?.ok_or_else(|| Error::not_found(format!("engine {name:?}")))
}

/// Removes an engine and its tool cache; its queue entries stay (history). False if there was none.
pub async fn delete(conn: &mut impl Sql, name: &str) -> Result<bool, Error> {
    sql("DELETE FROM remote_tools WHERE engine = $1").bind(name).execute(&mut *conn).await?;
    let done = sql("DELETE FROM engines WHERE name = $1").bind(name).execute(&mut *conn).await?;
    Ok(done.rows_affected() == 1)
}

/// Stores an engine's health (called when it changes, not on every poll).
pub(in crate::store) async fn set_health(conn: &mut impl Sql, name: &str, health: &HealthReport) -> Result<(), Error> {
    sql("UPDATE engines SET health = $1, last_error = $2, last_error_at = $3, last_ok_at = $4 WHERE name = $5")
        .bind(health.state.as_str())
        .bind(health.last_error.as_deref())
        .bind(health.last_error_at.map(ts))
        .bind(health.last_ok_at.map(ts))
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Remembers what an engine said about one of its agents' tools.
pub(in crate::store) async fn put_tool(
    conn: &mut impl Sql,
    engine: &str,
    agent_id: &str,
    tool_name: &str,
    body: &Value,
) -> Result<(), Error> {
    sql("INSERT INTO remote_tools (engine, agent_id, tool_name, body, seen_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (engine, agent_id, tool_name) DO UPDATE SET body = excluded.body, seen_at = excluded.seen_at
         WHERE remote_tools.body <> excluded.body")
    .bind(engine)
    .bind(agent_id)
    .bind(tool_name)
    .bind(body.to_string())
    .bind(ts(now()))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Every remembered tool of an engine: (agent, tool, body).
pub async fn tools(conn: &mut impl Sql, engine: &str) -> Result<Vec<(String, String, Value)>, Error> {
    let rows = sql("SELECT agent_id, tool_name, body FROM remote_tools WHERE engine = $1").bind(engine).fetch_all(&mut *conn).await?;
    rows.iter().map(|r| Ok((r.try_get("agent_id")?, r.try_get("tool_name")?, parse_json(&r.try_get::<String>("body")?)?))).collect()
}

/// Every tool name the remote engines' agents have named, sorted.
pub async fn remembered_tool_names(db: &Db) -> Result<Vec<String>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql("SELECT DISTINCT tool_name FROM remote_tools ORDER BY tool_name").fetch_all(&mut *conn).await?;
    rows.iter().map(|r| r.try_get("tool_name")).collect()
}

/// The engines as configured, by name (see [`list`]).
pub async fn list_all(db: &Db) -> Result<Vec<EngineRow>, Error> {
    let mut conn = db.pool().acquire().await?;
    list(&mut conn).await
}

/// The engine `name` as configured, if there is one (see [`get`]).
pub async fn find(db: &Db, name: &str) -> Result<Option<EngineRow>, Error> {
    let mut conn = db.pool().acquire().await?;
    get(&mut conn, name).await
}

/// Stores an engine's health (see [`set_health`]) in a transaction of its own.
pub async fn store_health(db: &Db, name: &str, health: &HealthReport) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    set_health(&mut tx, name, health).await?;
    tx.commit().await
}

/// Remembers what an engine said about its agents' tools, each (agent, tool, body) as [`put_tool`] does, in one transaction.
pub async fn remember_tools(db: &Db, engine: &str, tools: &[(&str, &str, Value)]) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    for (agent_id, tool_name, body) in tools {
        put_tool(&mut tx, engine, agent_id, tool_name, body).await?;
    }
    tx.commit().await
}

/// Every remembered tool of an engine: (agent, tool, body) (see [`tools`]).
pub async fn remembered_tools(db: &Db, engine: &str) -> Result<Vec<(String, String, Value)>, Error> {
    let mut conn = db.pool().acquire().await?;
    tools(&mut conn, engine).await
}

/// Adds an engine (see [`insert`]) with its `engine.added` audit entry (by `by`; what became of its
/// token, `token_change`) in one transaction.
#[allow(clippy::too_many_arguments)]
pub async fn add_audited(
    db: &Db,
    name: &str,
    kind: CallSource,
    base_url: &str,
    token_ref: Option<&str>,
    poll_ms: u32,
    by: &str,
    token_change: &str,
) -> Result<EngineRow, Error> {
    let mut tx = db.begin_write().await?;
    let row = insert(&mut tx, name, kind, base_url, token_ref, poll_ms).await?;
    audited(&mut tx, by, &EngineChanged::Added { engine: name, after: seen(&row), token_change }).await?;
    tx.commit().await?;
    Ok(row)
}

/// Changes an engine's settings (see [`update`]) with its `engine.changed` audit entry (by `by`;
/// before, after, and what became of its token: `token_change` of the row before) in one
/// transaction. `None`, nothing written, if there is no engine `name`.
pub async fn update_audited(
    db: &Db,
    name: &str,
    base_url: &str,
    token_ref: Option<&str>,
    poll_ms: u32,
    by: &str,
    token_change: impl FnOnce(&EngineRow) -> &'static str,
) -> Result<Option<EngineRow>, Error> {
    let mut tx = db.begin_write().await?;
    let Some(before) = get(&mut tx, name).await? else { return Ok(None) };
    let row = update(&mut tx, name, base_url, token_ref, poll_ms).await?;
    let details = EngineChanged::Changed { engine: name, before: seen(&before), after: seen(&row), token_change: token_change(&before) };
    audited(&mut tx, by, &details).await?;
    tx.commit().await?;
    Ok(Some(row))
}

/// Removes an engine (see [`delete`]), audited `engine.removed` (by `by`, with the engine as it was)
/// if there was one, in one transaction.
pub async fn remove_audited(db: &Db, name: &str, by: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    let before = get(&mut tx, name).await?;
    if delete(&mut tx, name).await? {
        audited(&mut tx, by, &EngineChanged::Removed { engine: name, before: before.as_ref().map(seen) }).await?;
    }
    tx.commit().await
}

/// An engine's settings as the audit log records them: where its token is kept (`keyring`,
/// `session`, or `none`), never the token.
fn seen(row: &EngineRow) -> EngineSeen<'_> {
    let token = match row.token_ref.as_deref() {
        None => "none",
        Some(SESSION_TOKEN) => "session",
        Some(_) => "keyring",
    };
    EngineSeen { kind: row.kind, base_url: &row.base_url, poll_ms: row.poll_ms, token }
}

/// The audit entry of a change to an engine, in the caller's transaction.
async fn audited(conn: &mut super::writer::WriteTx, by: &str, details: &EngineChanged<'_>) -> Result<(), Error> {
    audit::append(conn, audit::Record::of(by, None, details)).await.map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyring_token_entry_is_named_after_its_url_so_another_url_never_finds_it() {
        let a = token_ref("prod", "http://127.0.0.1:4111");
        assert_eq!(a, token_ref("prod", " http://127.0.0.1:4111/ "), "the same URL, written differently");
        assert!(a.starts_with("engine.prod.token.") && a.len() <= crate::secrets::MAX_NAME_CHARS, "{a}");
        for other in ["http://127.0.0.1:4112", "https://127.0.0.1:4111", "http://evil.example:4111", "http://127.0.0.1:4111/v2"] {
            assert_ne!(token_ref("prod", other), a, "{other}");
        }
        assert_ne!(token_ref("staging", "http://127.0.0.1:4111"), a, "another engine's");
        assert_ne!(legacy_token_ref("prod"), a);
        let longest = "x".repeat(64);
        assert!(token_ref(&longest, "http://h").len() <= crate::secrets::MAX_NAME_CHARS);
    }
}
