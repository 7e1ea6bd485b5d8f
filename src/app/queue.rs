//! The queue's operations as every shell calls them (HTTP, the desktop window, the CLI, tests): each
//! takes its typed context, turns the shell's query into the console's terms and hands it to the
//! console, which owns it down to the store ([`crate::console::view`], [`crate::console::decide`]):
//! this module names no table (tests/layers.rs).

mod decide;

pub use crate::console::view::{ApprovalView, Blocked, DecisionView, PreviousCall, QueueCounts, QueueItem, QueuePage, QueueTab, Requester};

use super::query::{parse_cursor, QueueCountsQuery, QueueQuery, SortOrder, StateFilter};
use super::App;
use crate::domain::reason::{CallReason, ReasonMessage, ReasonSource};
use crate::domain::{grade, Cx};
use crate::domain::{Error, ItemId};

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
        self.console.page(&filter, parse_cursor(q.cursor.as_deref())?, q.limit.unwrap_or(50)).await
    }

    /// How many calls each tab holds under the filters and search (one query), and how many are
    /// pending under none.
    pub async fn queue_counts(&self, q: &QueueCountsQuery, _by: &Cx<grade::Watch>) -> Result<QueueCounts, Error> {
        self.console.counts(&q.filter()?).await
    }

    /// The ids that start with `prefix` (a unique start of an id names the call), at most `limit`.
    pub async fn ids_starting_with(&self, prefix: &str, limit: i64, _by: &Cx<grade::Watch>) -> Result<Vec<ItemId>, Error> {
        self.console.ids_starting_with(prefix, limit).await
    }

    /// One entry.
    pub async fn queue_item(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<QueueItem, Error> {
        self.console.item_view(&ItemId::new(id)).await
    }

    /// The call decided last by an operator before `id`, of the same engine, thread and tool, so
    /// the operator sees what changed since (null when there is none). `not_found` for an unknown id.
    pub async fn previous_call(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<PreviousCall, Error> {
        self.console.previous(&ItemId::new(id)).await
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
            let context = self.console.context_of(&id, call).await?;
            return Ok(match context.as_ref().and_then(|c| c.get("transcript")) {
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
