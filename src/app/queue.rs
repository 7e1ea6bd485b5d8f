//! The queue as every shell shows it (HTTP, the desktop window, tests): entries with the decisions
//! they allow, pages, decisions taken on a shown fingerprint, the audit log. One surface, so the
//! HTTP handlers and the desktop commands stay thin.

mod decide;
mod item;

pub use item::{ApprovalView, Blocked, DecisionView, QueueItem, Requester};

use super::query::{parse_cursor, QueueCountsQuery, QueueQuery, SortOrder, StateFilter};
use super::App;
use crate::domain::reason::{CallReason, ReasonMessage, ReasonSource};
use crate::domain::{grade, Cx};
use crate::domain::{Error, ItemId, ItemState};
use crate::store::queue;
use serde::{Deserialize, Serialize};

/// The tabs of the queue view: each call is under exactly one, by its state and whether its
/// decision was an expiry.
///
/// | tab | states | |
/// |---|---|---|
/// | `pending` | `pending` | waiting for a decision |
/// | `awaiting_delivery` | `decided` | decided (by an operator or by its time limit); the decision waits in the outbox: about to be delivered, being delivered, or deferred to a retry because the engine could not be reached (C5) |
/// | `decided` | `delivered`, `failed`, `interrupted` | decided by an operator, and the delivery is over: the engine took it, answered with an error, or the process died while the tool ran (never re-run) |
/// | `expired` | `delivered`, `failed`, `interrupted` | declined because nobody decided within its time limit, and that decline's delivery is over |
/// | `gone` | `gone` | the run ended elsewhere before anyone decided here |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueTab {
    Pending,
    AwaitingDelivery,
    Decided,
    Expired,
    Gone,
}

impl QueueTab {
    /// The tab of a call in `state` whose decision was (`expired`) or was not an expiry.
    pub fn of(state: ItemState, expired: bool) -> Self {
        match state {
            ItemState::Pending => Self::Pending,
            ItemState::Decided => Self::AwaitingDelivery,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted if expired => Self::Expired,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted => Self::Decided,
            ItemState::Gone => Self::Gone,
        }
    }

    /// What this tab lists, as a store filter: the states (as stored), and whether the decision
    /// must (`Some(true)`) or must not (`Some(false)`) be an expiry.
    pub fn scope(self) -> (&'static [&'static str], Option<bool>) {
        const OVER: &[&str] = &["delivered", "failed", "interrupted"];
        match self {
            Self::Pending => (&["pending"], None),
            Self::AwaitingDelivery => (&["decided"], None),
            Self::Decided => (OVER, Some(false)),
            Self::Expired => (OVER, Some(true)),
            Self::Gone => (&["gone"], None),
        }
    }

    /// Whether a call counted as `(state as stored, expired)` is under this tab.
    fn holds(self, state: &str, expired: bool) -> bool {
        let (states, exp) = self.scope();
        states.contains(&state) && exp.is_none_or(|e| e == expired)
    }
}

/// `{item}`: the call decided last by an operator before a given one, of the same engine, thread
/// and tool, with its decision; null when there is none (no thread, or the first of its kind).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PreviousCall {
    #[schema(required = true)]
    pub item: Option<QueueItem>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// How many calls each tab of the queue view holds under the filters and search given.
#[derive(Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueCounts {
    pub pending: i64,
    pub awaiting_delivery: i64,
    pub decided: i64,
    pub expired: i64,
    pub gone: i64,
    /// Every call matching, whatever its state.
    pub all: i64,
    /// Pending calls under no filter and no search (the window title, the tray).
    pub pending_total: i64,
}

impl App {
    /// A page of the queue, newest first unless `sort=oldest`.
    pub async fn queue_page(&self, q: &QueueQuery, _by: &Cx<grade::Watch>) -> Result<QueuePage, Error> {
        let mut filter = q.filters().filter()?;
        match (q.state, q.tab) {
            (Some(_), Some(_)) => return Err(Error::InvalidRequest("give either state or tab, not both".into())),
            (None, Some(tab)) => {
                if let Some((states, expired)) = tab.tab().map(QueueTab::scope) {
                    filter.states = states.to_vec();
                    filter.expired = expired;
                }
            }
            (state, None) => filter.state = state.unwrap_or(StateFilter::Pending).state(),
        }
        filter.oldest_first = q.sort.unwrap_or_default() == SortOrder::Oldest;
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let page = queue::page(&self.db, &filter, cursor, q.limit.unwrap_or(50)).await?;
        let items = self.items_now(page.entries).await?;
        Ok(QueuePage { items, next_cursor: page.next_cursor.map(|c| c.to_string()) })
    }

    /// How many calls each tab holds under the filters and search (one query), and how many are
    /// pending under none.
    pub async fn queue_counts(&self, q: &QueueCountsQuery, _by: &Cx<grade::Watch>) -> Result<QueueCounts, Error> {
        let filter = q.filter()?;
        let (by_state, pending_total) = queue::tab_counts(&self.db, &filter).await?;
        let tab = |t: QueueTab| by_state.iter().filter(|(s, expired, _)| t.holds(s, *expired)).map(|(_, _, n)| n).sum::<i64>();
        Ok(QueueCounts {
            pending: tab(QueueTab::Pending),
            awaiting_delivery: tab(QueueTab::AwaitingDelivery),
            decided: tab(QueueTab::Decided),
            expired: tab(QueueTab::Expired),
            gone: tab(QueueTab::Gone),
            all: by_state.iter().map(|(_, _, n)| n).sum(),
            pending_total,
        })
    }

    /// The ids that start with `prefix` (a unique start of an id names the call), at most `limit`.
    pub async fn ids_starting_with(&self, prefix: &str, limit: i64, _by: &Cx<grade::Watch>) -> Result<Vec<ItemId>, Error> {
        queue::ids_with_prefix(&self.db, prefix, limit).await
    }

    /// One entry.
    pub async fn queue_item(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<QueueItem, Error> {
        let entry = self.console.item(&ItemId::new(id)).await?;
        self.item_now(entry).await
    }

    /// The call decided last by an operator before `id`, of the same engine, thread and tool, so
    /// the operator sees what changed since (null when there is none). `not_found` for an unknown id.
    pub async fn previous_call(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<PreviousCall, Error> {
        let id = ItemId::new(id);
        let previous = queue::previous_of(&self.db, &id).await?.ok_or_else(|| Error::not_found(format!("queue item {id}")))?;
        let item = match previous {
            Some(e) => Some(self.item_now(e).await?),
            None => None,
        };
        Ok(PreviousCall { item })
    }
}

impl App {
    /// What led to a call (issue 27): its conversation's last messages — from the coding agent's
    /// transcript its hook sent with it, or from the engine that holds its run. Untrusted text. A
    /// source that keeps none, or cannot be asked now, says so in `unavailable`.
    pub async fn call_reason(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<CallReason, Error> {
        let id = ItemId::new(id);
        let entry = self.console.item(&id).await?;
        let call = &entry.queued.call;
        if crate::engine::kinds::is_submitted(call.source) {
            let contexts = crate::store::submissions::contexts_of_items(&self.db, &[id.as_str()]).await?;
            return Ok(match contexts.get(id.as_str()).and_then(|c| c.get("transcript")) {
                Some(t) => match serde_json::from_value::<Vec<ReasonMessage>>(t.clone()) {
                    Ok(messages) => CallReason::of(ReasonSource::Hook, messages),
                    Err(e) => CallReason::unavailable(format!("the conversation its agent sent cannot be read: {e}")),
                },
                None => CallReason::unavailable("its agent sent no conversation with it"),
            });
        }
        let engine = match self.console.engine(&call.engine) {
            Ok(e) => e,
            Err(e) => return Ok(CallReason::unavailable(e.to_string())),
        };
        Ok(match engine.reason(call).await {
            Ok(Some(messages)) => CallReason::of(ReasonSource::Engine, messages),
            Ok(None) => CallReason::unavailable("its engine keeps no conversation it can show"),
            Err(e) => CallReason::unavailable(format!("its engine could not be asked: {e}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_is_listed_under_exactly_the_tab_it_belongs_to() {
        let tabs = [QueueTab::Pending, QueueTab::AwaitingDelivery, QueueTab::Decided, QueueTab::Expired, QueueTab::Gone];
        for state in
            [ItemState::Pending, ItemState::Decided, ItemState::Delivered, ItemState::Failed, ItemState::Interrupted, ItemState::Gone]
        {
            for expired in [false, true] {
                let text = queue::state_str(state);
                let under: Vec<QueueTab> = tabs.into_iter().filter(|t| t.holds(text, expired)).collect();
                assert_eq!(under, vec![QueueTab::of(state, expired)], "{text}, expired: {expired}");
            }
        }
    }
}
