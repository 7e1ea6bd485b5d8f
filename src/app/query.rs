//! What a shell may ask of the queue and the audit log: the query parameters of a page and of the
//! tab counts, typed (an unknown `tab`, `state`, `kind` or `sort` is refused when it is read, and
//! an empty one is the same as none), and their translation into the store's filter.

use super::queue::QueueTab;
use crate::domain::{CallKind, CallSource, Error, ItemState};
use crate::store::{audit_query, queue};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// One state, or `all`. Not with `tab`. Without both: `pending`.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub state: Option<StateFilter>,
    /// A tab of the queue view (see `QueueTab`), or `all`. Not with `state`.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub tab: Option<TabFilter>,
    pub engine: Option<String>,
    /// Where calls come from: `local`, `mastra` (any remote engine), or the source of submitted calls
    /// (`http`, `claude-code`, `codex`, `gemini`, `mcp`, `acp`).
    #[serde(default, deserialize_with = "blank_is_none")]
    pub source: Option<CallSource>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub kind: Option<CallKind>,
    pub thread: Option<String>,
    pub run: Option<String>,
    /// Search: up to 8 words (256 characters), each of which must occur, case-insensitively, in the
    /// call's tool name, agent id or name, or the JSON text of its arguments (compact, as stored).
    /// Words of 3+ characters use an FTS5 trigram index; shorter ones are matched with SQL `LIKE`
    /// (ASCII case folding only) over the rows the others left.
    pub q: Option<String>,
    /// Newest (default) or oldest first. A cursor continues in the order it was made for.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub sort: Option<SortOrder>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// The filters of [`QueueQuery`] that the tab counts apply.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueCountsQuery {
    pub engine: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub source: Option<CallSource>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    #[serde(default, deserialize_with = "blank_is_none")]
    pub kind: Option<CallKind>,
    pub thread: Option<String>,
    pub run: Option<String>,
    /// The search, as in `GET /api/queue`.
    pub q: Option<String>,
}

/// A queue state to list, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StateFilter {
    Pending,
    Decided,
    Delivered,
    Failed,
    Interrupted,
    Gone,
    All,
}

impl StateFilter {
    pub(crate) fn state(self) -> Option<ItemState> {
        Some(match self {
            Self::Pending => ItemState::Pending,
            Self::Decided => ItemState::Decided,
            Self::Delivered => ItemState::Delivered,
            Self::Failed => ItemState::Failed,
            Self::Interrupted => ItemState::Interrupted,
            Self::Gone => ItemState::Gone,
            Self::All => return None,
        })
    }
}

/// A tab of the queue view to list, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TabFilter {
    Pending,
    AwaitingDelivery,
    Decided,
    Expired,
    Gone,
    All,
}

impl TabFilter {
    pub(crate) fn tab(self) -> Option<QueueTab> {
        Some(match self {
            Self::Pending => QueueTab::Pending,
            Self::AwaitingDelivery => QueueTab::AwaitingDelivery,
            Self::Decided => QueueTab::Decided,
            Self::Expired => QueueTab::Expired,
            Self::Gone => QueueTab::Gone,
            Self::All => return None,
        })
    }
}

/// The order of a queue page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    #[default]
    Newest,
    Oldest,
}

/// A query parameter given empty (`kind=`) is the same as one not given.
pub(crate) fn blank_is_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    match Option::<String>::deserialize(d)?.filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => T::deserialize(serde::de::value::StringDeserializer::<D::Error>::new(s)).map(Some),
    }
}

impl QueueQuery {
    /// Its filters and search: what the tab counts of its page apply.
    pub fn filters(&self) -> QueueCountsQuery {
        QueueCountsQuery {
            engine: self.engine.clone(),
            source: self.source,
            agent: self.agent.clone(),
            tool: self.tool.clone(),
            kind: self.kind,
            thread: self.thread.clone(),
            run: self.run.clone(),
            q: self.q.clone(),
        }
    }
}

impl QueueCountsQuery {
    /// The store's filter for these fields; empty strings mean "any".
    pub(crate) fn filter(&self) -> Result<queue::Filter, Error> {
        let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        Ok(queue::Filter {
            engine: nonempty(&self.engine),
            source: self.source,
            agent: nonempty(&self.agent),
            tool: nonempty(&self.tool),
            kind: self.kind,
            run: nonempty(&self.run),
            thread: nonempty(&self.thread),
            search: self.q.as_deref().map(queue::Search::parse).transpose()?.flatten(),
            ..Default::default()
        })
    }
}

pub(crate) fn parse_cursor(cursor: Option<&str>) -> Result<Option<i64>, Error> {
    cursor.filter(|c| !c.is_empty()).map(|c| c.parse::<i64>().map_err(|_| Error::InvalidRequest(format!("bad cursor {c:?}")))).transpose()
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Only entries of this queue item.
    pub item: Option<String>,
    /// One action (`decision.approve`) or a family of them (`decision`: every `decision.*`).
    pub action: Option<String>,
    /// Only entries about a call of this agent (its id).
    pub agent: Option<String>,
    /// Only entries about a call from this source.
    #[serde(default, deserialize_with = "blank_is_none")]
    pub source: Option<CallSource>,
    /// From this instant on (RFC 3339, inclusive).
    pub from: Option<String>,
    /// Before this instant (RFC 3339, exclusive).
    pub until: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

impl AuditQuery {
    /// The store's filter for these fields; empty strings mean "any".
    pub(crate) fn filter(&self) -> Result<audit_query::Filter, Error> {
        audit_filter(
            self.item.as_deref(),
            self.action.as_deref(),
            self.agent.as_deref(),
            self.source,
            self.from.as_deref(),
            self.until.as_deref(),
        )
    }
}

/// The audit log's filter: an action or family of lowercase words (`decision`, `decision.approve`,
/// `resolution.did_not_run`), times in RFC 3339, `from` not after `until`.
pub(crate) fn audit_filter(
    item: Option<&str>,
    action: Option<&str>,
    agent: Option<&str>,
    source: Option<CallSource>,
    from: Option<&str>,
    until: Option<&str>,
) -> Result<audit_query::Filter, Error> {
    let nonempty = |v: Option<&str>| v.map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
    let action = nonempty(action);
    if let Some(a) = &action {
        if !a.bytes().all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'.') || a.len() > 64 {
            return Err(Error::InvalidRequest(format!("action {a:?} is not an action (decision.approve) nor a family of them (decision)")));
        }
    }
    let time = |name: &str, v: Option<&str>| {
        nonempty(v)
            .map(|t| {
                chrono::DateTime::parse_from_rfc3339(&t)
                    .map(|t| t.with_timezone(&chrono::Utc))
                    .map_err(|_| Error::InvalidRequest(format!("{name} {t:?} is not an RFC 3339 time (2026-01-31T00:00:00Z)")))
            })
            .transpose()
    };
    let (from, until) = (time("from", from)?, time("until", until)?);
    if let (Some(f), Some(u)) = (from, until) {
        if f > u {
            return Err(Error::InvalidRequest("from is after until".into()));
        }
    }
    Ok(audit_query::Filter {
        item: nonempty(item),
        action: action.as_deref().and_then(audit_query::ActionFilter::parse),
        agent: nonempty(agent),
        source,
        from,
        until,
    })
}
