//! Start-up (C5): what the previous process left in the outbox — deliveries it was making when it
//! stopped, decisions it stored and did not deliver.

use super::Console;
use crate::domain::Error;
use crate::store::outbox;
use serde_json::json;

impl Console {
    /// At start-up (C5): a decision left `delivering` belonged to a process that stopped while the
    /// engine acted; it is marked `interrupted` and never re-run (at-most-once) — unless its engine
    /// knows its tool never began ([`crate::engine::Engine::began`]), and then it is delivered now. Decisions still
    /// `pending` are delivered now. Returns (left `delivering`, delivered).
    #[tracing::instrument(name = "recover", skip_all)]
    pub async fn recover(&self) -> Result<(usize, usize), Error> {
        let (stuck, mut waiting) = outbox::left_over(&self.db).await?;
        let mut resent = Vec::new();
        for d in &stuck {
            let entry = self.item(&d.item_id).await?;
            if !self.engine(&entry.queued.call.engine).is_ok_and(|e| e.delivers_here()) {
                // Another console's engine (team mode), or one not connected: not ours to settle.
                continue;
            }
            if self.engine(&entry.queued.call.engine).is_ok_and(|e| e.refuses_repeats()) {
                // The engine will not act twice on one call: send it again (it re-reads the call first).
                let why = "the console stopped while this decision was being sent; sending it again";
                outbox::cut_for_retry(&self.db, d, &entry.queued.call.tool_name, why).await?;
                continue;
            }
            if !self.engine(&entry.queued.call.engine)?.began(&entry.queued).await? {
                // Cut before its tool began (issue 46): nothing ran, so it is delivered now, once.
                let why = "the console stopped before this decision's tool began; delivering it now";
                if outbox::cut_for_retry(&self.db, d, &entry.queued.call.tool_name, why).await? {
                    resent.push(d.clone());
                }
                continue;
            }
            let outcome =
                json!({ "status": "interrupted", "error": "the console stopped while this call's tool ran; it was not run again" });
            if !outbox::mark_interrupted(&self.db, d, &entry.queued.call.tool_name, &outcome).await? {
                continue;
            }
            tracing::warn!(item = %d.item_id, "decision was interrupted during delivery; marked interrupted, not re-run");
        }
        waiting.extend(resent);
        let mut delivered = 0;
        for d in &waiting {
            let remote_or_not_ours = match self.item(&d.item_id).await {
                Ok(e) => self.engine(&e.queued.call.engine).map_or(true, |e| e.refuses_repeats() || !e.delivers_here()),
                Err(_) => false,
            };
            if remote_or_not_ours {
                // Remote deliveries wait for the outbox worker: the engine may be down, and start-up
                // must not. Another console's (team mode) are that console's.
                continue;
            }
            match self.deliver(d, None).await {
                Ok(_) => delivered += 1,
                Err(e) => tracing::warn!(item = %d.item_id, "could not deliver stored decision: {e}"),
            }
        }
        self.outbox_wake.notify_one();
        Ok((stuck.len(), delivered))
    }
}
