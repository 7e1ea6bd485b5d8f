//! The queue's reads, and the entries as the shells show them: what is read for each as it is now.

use super::{ApprovalView, PreviousCall, QueueCounts, QueueItem, QueuePage, QueueTab};
use crate::console::Console;
use crate::domain::{DecisionKind, Error, ItemId, ItemState};
use crate::store::settings::Snapshot;
use crate::store::{deadlines, queue};
use serde_json::Value;

/// The queue's reads as the shells ask them, each read once here: a page, the tabs' counts, the
/// call decided before a given one.
impl Console {
    /// A page of the queue under `filter`, shown as it is now.
    pub async fn page(&self, filter: &queue::Filter, cursor: Option<i64>, limit: u32) -> Result<QueuePage, Error> {
        let page = queue::page(&self.db, filter, cursor, limit).await?;
        let items = self.view_now(page.entries).await?;
        Ok(QueuePage { items, next_cursor: page.next_cursor.map(|c| c.to_string()) })
    }

    /// How many calls each tab holds under `filter` (one query), and how many are pending under none.
    pub async fn counts(&self, filter: &queue::Filter) -> Result<QueueCounts, Error> {
        let (by_state, pending_total) = queue::tab_counts(&self.db, filter).await?;
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

    /// The ids that start with `prefix`, at most `limit`.
    pub async fn ids_starting_with(&self, prefix: &str, limit: i64) -> Result<Vec<ItemId>, Error> {
        queue::ids_with_prefix(&self.db, prefix, limit).await
    }

    /// The call decided last by an operator before `id`, of the same engine, thread and tool;
    /// `not_found` for an unknown id.
    pub async fn previous(&self, id: &ItemId) -> Result<PreviousCall, Error> {
        let previous = queue::previous_of(&self.db, id).await?.ok_or_else(|| Error::not_found(format!("queue item {id}")))?;
        let item = match previous {
            Some(e) => Some(self.view_now(vec![e]).await?.remove(0)),
            None => None,
        };
        Ok(PreviousCall { item })
    }
}

impl Console {
    /// Entries as the shells show them, with the settings as they are now (one read).
    pub async fn view_now(&self, entries: Vec<queue::Entry>) -> Result<Vec<QueueItem>, Error> {
        let settings = crate::store::settings::snapshot(&self.db).await?;
        self.view(entries, &settings).await
    }

    /// One entry as the shells show it now; `not_found` for an unknown id.
    pub async fn item_view(&self, id: &ItemId) -> Result<QueueItem, Error> {
        let entry = self.item(id).await?;
        Ok(self.view_now(vec![entry]).await?.remove(0))
    }

    /// Entries as the shells show them under `settings` (time limits, high-risk tools, quorums and
    /// risk rules, read once by the caller): with their deadlines, care, approvals and resolutions.
    pub async fn view(&self, entries: Vec<queue::Entry>, settings: &Snapshot) -> Result<Vec<QueueItem>, Error> {
        // The interrupted ones' calls, for what they allow now.
        let calls: Vec<(usize, crate::domain::PausedCall)> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.queued.state == ItemState::Interrupted)
            .map(|(i, e)| (i, e.queued.call.clone()))
            .collect();
        let mut items: Vec<QueueItem> = entries.into_iter().map(|e| QueueItem::from_entry(e, self)).collect();
        self.fill_deadlines(&mut items, &settings.get()?).await?;
        self.fill_contexts(&mut items).await?;
        // Risk and quorum as the console enforces them ([`super::care`]).
        let (safety, quorums, risk) = (settings.get()?, settings.get()?, settings.get()?);
        let rules = crate::domain::safety::Rules { safety: &safety, quorums: &quorums, risk: &risk };
        for item in &mut items {
            let cwd = item.context.as_ref().and_then(crate::console::care::cwd_in);
            let care = crate::domain::safety::Care::of(&item.tool_name, &item.args, item.context.as_ref(), rules);
            item.high_risk = care.risk.needs_operator();
            item.risk = care.risk;
            item.quorum = care.quorum;
            let disk = item.context.as_ref().and_then(|c| c.get("file")).and_then(|f| serde_json::from_value(f.clone()).ok());
            item.changes = crate::domain::change::of_call(item.source, &item.tool_name, &item.args, disk.as_ref(), cwd);
            // The file's text is shown as the diff: items (a page of them) do not carry it again.
            if let Some(Value::Object(file)) = item.context.as_mut().and_then(|c| c.get_mut("file")) {
                file.remove("text");
            }
        }
        self.fill_approvals(&mut items).await?;
        self.fill_resolutions(&mut items, &calls).await?;
        Ok(items)
    }

    /// The two-person rule on each item (its `quorum` filled in): the approvals stored. A waiting
    /// call under a quorum allows no edit (each operator approves the same arguments).
    async fn fill_approvals(&self, items: &mut [QueueItem]) -> Result<(), Error> {
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let mut stored = crate::store::decisions::approvals::of_queue_items(&self.db, &ids).await?;
        for item in items.iter_mut() {
            if item.quorum > 1 {
                item.allowed.retain(|k| *k != DecisionKind::Edit);
            }
            item.approvals = stored
                .remove(&item.id)
                .unwrap_or_default()
                .into_iter()
                .map(|a| ApprovalView { operator: a.operator, operator_key: a.operator_key, at: a.approved_at })
                .collect();
        }
        Ok(())
    }

    /// Submitted calls: what their agent said around them.
    async fn fill_contexts(&self, items: &mut [QueueItem]) -> Result<(), Error> {
        let ids: Vec<&str> = items.iter().filter(|i| crate::engine::kinds::is_submitted(i.source)).map(|i| i.id.as_str()).collect();
        if ids.is_empty() {
            return Ok(());
        }
        let mut contexts = crate::store::submissions::contexts_of_items(&self.db, &ids).await?;
        for item in items.iter_mut() {
            item.context = contexts.remove(&item.id);
        }
        Ok(())
    }

    /// Interrupted items: their resolution, or (none yet) the resolutions they allow.
    async fn fill_resolutions(&self, items: &mut [QueueItem], calls: &[(usize, crate::domain::PausedCall)]) -> Result<(), Error> {
        if calls.is_empty() {
            return Ok(());
        }
        let ids: Vec<ItemId> = calls.iter().map(|(i, _)| ItemId::new(&items[*i].id)).collect();
        let stored = crate::store::resolutions::of_items(&self.db, &ids).await?;
        for ((i, call), resolution) in calls.iter().zip(stored) {
            let item = &mut items[*i];
            item.resolution = resolution;
            if item.resolution.is_none() {
                item.allowed = self.resolutions_allowed(call);
            }
        }
        Ok(())
    }

    /// Sets `expiresAt` of the pending items whose tool has a time limit (snoozes included).
    async fn fill_deadlines(&self, items: &mut [QueueItem], settings: &crate::console::expiry::ExpirySettings) -> Result<(), Error> {
        if settings.rules.is_empty() {
            return Ok(());
        }
        let limited: Vec<(usize, u64)> = items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.state == ItemState::Pending)
            .filter_map(|(n, i)| Some((n, settings.limit_for(&i.tool_name)?)))
            .collect();
        let ids: Vec<ItemId> = limited.iter().map(|(n, _)| ItemId::new(&items[*n].id)).collect();
        let stored = deadlines::stored_of(&self.db, &ids).await?;
        for ((n, limit), stored) in limited.into_iter().zip(stored) {
            let item = &mut items[n];
            if stored.never.is_none() {
                item.expires_at = Some(stored.snoozed_until.unwrap_or(item.paused_at + chrono::Duration::seconds(limit as i64)));
            }
        }
        Ok(())
    }
}
