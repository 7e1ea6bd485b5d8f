//! The audit log as the history view filters it (issue 45): by action (one, or a family such as
//! every `decision.*`), by the agent and the source of the call an entry is about, and by time; and
//! what each entry's call was (its agent and source), read in the same statement. Read-only: the
//! log itself is [`super::audit`].

use super::audit::{from_row, Entry};
use super::sql::{sql, Row, Sql};
use super::{ts, Db};
use crate::domain::{CallSource, Error};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Which actions to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionFilter {
    /// This action exactly (`decision.approve`).
    Exact(String),
    /// Every action of this family (`decision`: `decision.approve`, `decision.decline`, …).
    Family(String),
}

impl ActionFilter {
    /// `decision.approve` is one action, `decision` a family; `None` for an empty text.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.is_empty() {
            None
        } else if text.contains('.') {
            Some(Self::Exact(text.to_owned()))
        } else {
            Some(Self::Family(text.to_owned()))
        }
    }

    fn exact(&self) -> Option<&str> {
        match self {
            Self::Exact(a) => Some(a),
            Self::Family(_) => None,
        }
    }

    /// The `LIKE` pattern of a family (its name holds only what a family name may: checked by the caller).
    fn family(&self) -> Option<String> {
        match self {
            Self::Family(f) => Some(format!("{}.%", f.replace(['%', '_', '\\'], ""))),
            Self::Exact(_) => None,
        }
    }
}

/// What to keep of the log; every field left `None` keeps everything.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only the entries of this queue entry.
    pub item: Option<String>,
    pub action: Option<ActionFilter>,
    /// Only entries about a call of this agent (by its id).
    pub agent: Option<String>,
    /// Only entries about a call from this source.
    pub source: Option<CallSource>,
    /// From this instant on (inclusive).
    pub from: Option<DateTime<Utc>>,
    /// Before this instant (exclusive).
    pub until: Option<DateTime<Utc>>,
}

/// The call an entry is about, as the history shows it beside the entry.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallOrigin {
    pub agent_id: String,
    /// The agent's display name, when its engine gave one.
    #[schema(required = true)]
    pub agent_name: Option<String>,
    pub source: CallSource,
    /// The engine that holds the call (a remote engine's name, `local`, or a submitted call's source).
    pub engine: String,
}

/// A page of entries, newest first, and the calls they are about by queue entry id.
#[derive(Debug, Default)]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The cursor of the next page (`seq` to read before).
    pub next: Option<i64>,
    pub calls: BTreeMap<String, CallOrigin>,
}

/// The entries and the call columns joined to them; `$1`… are the filter's, in [`bind`]'s order.
const SELECT: &str =
    "SELECT a.*, q.agent_id AS call_agent_id, q.agent_name AS call_agent_name, q.source AS call_source, q.engine AS call_engine
     FROM audit_log a LEFT JOIN queue_items q ON q.id = a.queue_item_id
     WHERE ($1 IS NULL OR a.queue_item_id = $1) AND ($2 IS NULL OR a.seq < $2)
       AND ($3 IS NULL OR a.action = $3) AND ($4 IS NULL OR a.action LIKE $4)
       AND ($5 IS NULL OR q.agent_id = $5) AND ($6 IS NULL OR q.source = $6)
       AND ($7 IS NULL OR a.at >= $7) AND ($8 IS NULL OR a.at < $8)";

fn bind(text: String, f: &Filter, before: Option<i64>, limit: i64) -> super::sql::Query {
    let action = f.action.as_ref();
    sql(text)
        .bind(f.item.as_deref())
        .bind(before)
        .bind(action.and_then(ActionFilter::exact))
        .bind(action.and_then(ActionFilter::family))
        .bind(f.agent.as_deref())
        .bind(f.source.map(CallSource::as_str))
        .bind(f.from.map(ts))
        .bind(f.until.map(ts))
        .bind(limit + 1)
}

fn origin(row: &Row) -> Result<Option<(String, CallOrigin)>, Error> {
    let (Some(item), Some(agent_id)) = (row.try_get::<Option<String>>("queue_item_id")?, row.try_get::<Option<String>>("call_agent_id")?)
    else {
        return Ok(None);
    };
    let source = row.try_get::<Option<String>>("call_source")?.unwrap_or_default();
    // A source this version does not know (written by a newer one) leaves the entry without its call.
    let Some(source) = CallSource::parse(&source) else { return Ok(None) };
    let origin = CallOrigin {
        agent_id,
        agent_name: row.try_get("call_agent_name")?,
        source,
        engine: row.try_get::<Option<String>>("call_engine")?.unwrap_or_default(),
    };
    Ok(Some((item, origin)))
}

async fn page(conn: &mut impl Sql, text: String, f: &Filter, before: Option<i64>, limit: u32) -> Result<Page, Error> {
    let limit = i64::from(limit.clamp(1, 500));
    let rows = bind(text, f, before, limit).fetch_all(&mut *conn).await?;
    let more = rows.len() as i64 > limit;
    let mut out = Page::default();
    for row in rows.iter().take(limit as usize) {
        out.entries.push(from_row(row)?);
        if let Some((item, call)) = origin(row)? {
            out.calls.insert(item, call);
        }
    }
    out.next = if more { out.entries.last().map(|e| e.seq) } else { None };
    Ok(out)
}

/// A page of the entries `f` keeps, newest first, before `before`.
pub async fn entries(db: &Db, f: &Filter, before: Option<i64>, limit: u32) -> Result<Page, Error> {
    let mut conn = db.pool().acquire().await?;
    page(&mut conn, format!("{SELECT} ORDER BY a.seq DESC LIMIT $9"), f, before, limit).await
}

/// A page of the decision entries (`decision.*`) `f` keeps, newest first, before `before`, and the
/// newest delivery entry of each of their calls (by queue entry id).
pub async fn decisions(db: &Db, f: &Filter, before: Option<i64>, limit: u32) -> Result<(Page, HashMap<String, Entry>), Error> {
    let mut conn = db.pool().acquire().await?;
    let text = format!("{SELECT} AND a.action LIKE 'decision.%' ORDER BY a.seq DESC LIMIT $9");
    let page = page(&mut conn, text, f, before, limit).await?;
    let ids: Vec<&str> = page.entries.iter().filter_map(|d| d.queue_item_id.as_deref()).collect();
    let deliveries = super::audit::latest_deliveries(&mut conn, &ids).await?;
    Ok((page, deliveries))
}

/// The grants of these ids that are stored (the ones an audit page names), read on one connection.
pub async fn grants(db: &Db, ids: impl IntoIterator<Item = String>) -> Result<Vec<crate::domain::grant::Grant>, Error> {
    let mut conn = db.pool().acquire().await?;
    let mut out = vec![];
    for id in ids {
        if let Some(g) = super::grants::get(&mut conn, &crate::domain::GrantId::new(id)).await? {
            out.push(g);
        }
    }
    Ok(out)
}
