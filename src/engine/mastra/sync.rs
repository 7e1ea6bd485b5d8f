//! Syncing: listing what waits at the server and writing only what changed (added; changed: the old
//! entry `gone` and a new one; `gone` on complete listings), and the poll loop with its backoff.

use super::*;

impl MastraEngine {
    /// Lists what waits at the engine and brings the queue in line: new calls added, changed ones
    /// replaced, and (when `full`) calls no longer waiting marked `gone`.
    #[tracing::instrument(name = "sync", skip_all, fields(engine = %self.inner.id, full))]
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        let token = self.token_or_health().await?;
        let agents = self.list_agents(token.as_ref()).await.map_err(remote_to_error)?;
        let from = (!full).then(|| crate::store::now() - RECENT);
        let mut listed = Vec::new();
        let mut skipped = 0;
        for a in &agents {
            let runs = self.observe(self.inner.client.suspended_runs(&a.id, token.as_ref(), from).await).await.map_err(remote_to_error)?;
            let (runs, bad) = listing::runs(&a.id, &runs);
            skipped += bad;
            listed.extend(runs);
        }
        let surfaced = listing::surface(&self.inner.id, &agents, &listed);
        skipped += surfaced.rejected.len();
        for (call, why) in &surfaced.rejected {
            tracing::warn!(engine = %self.inner.id, call, "not queued: {why}");
        }
        let mut calls = surfaced.calls;
        {
            // A sub-agent's run without a supervisor run: queued once it is seen twice in a row.
            let mut orphans = self.inner.orphans.lock().expect("orphans lock");
            let now: HashSet<(String, String)> =
                surfaced.unmatched_children.iter().map(|c| (c.run_id.to_string(), c.tool_call_id.to_string())).collect();
            for c in surfaced.unmatched_children {
                if orphans.contains(&(c.run_id.to_string(), c.tool_call_id.to_string())) {
                    calls.push(c);
                }
            }
            *orphans = now;
        }
        let mut report = self.apply(&calls, full).await?;
        report.agents = agents.len();
        report.skipped = skipped;
        Ok(report)
    }

    /// Brings the queue in line with `calls` (what the engine lists now).
    pub(super) async fn apply(&self, calls: &[PausedCall], full: bool) -> Result<SyncReport, Error> {
        let id = &self.inner.id;
        let mut report = SyncReport { full, listed: calls.len(), ..Default::default() };
        // Plan on a read connection; most polls change nothing and need no write transaction.
        let (pending, new_calls) = {
            let mut conn = self.inner.db.pool().acquire().await?;
            let pending = queue::pending_of_engine(&mut conn, id).await?;
            let pending_keys: HashSet<(&str, &str)> =
                pending.iter().map(|e| (e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).collect();
            let mut new_calls = Vec::new();
            for c in calls {
                if !pending_keys.contains(&(c.run_id.as_str(), c.tool_call_id.as_str()))
                    && queue::live_state(&mut conn, id, &c.run_id, &c.tool_call_id).await?.is_none()
                {
                    new_calls.push(c);
                }
            }
            (pending, new_calls)
        };
        let listed: HashMap<(&str, &str), &PausedCall> = calls.iter().map(|c| ((c.run_id.as_str(), c.tool_call_id.as_str()), c)).collect();
        let changed: Vec<(&queue::Entry, &PausedCall)> = pending
            .iter()
            .filter_map(|e| listed.get(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).map(|c| (e, *c)))
            .filter(|(e, c)| !unchanged(&e.queued.call, c))
            .collect();
        let gone: Vec<&queue::Entry> = if full {
            pending.iter().filter(|e| !listed.contains_key(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str()))).collect()
        } else {
            vec![]
        };
        if new_calls.is_empty() && changed.is_empty() && gone.is_empty() {
            return Ok(report);
        }

        let actor = format!("engine:{id}");
        let mut tx = self.inner.db.begin_write().await?;
        for e in &gone {
            if queue::transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
                audit::append(&mut tx, audit::Record {
                    actor: &actor,
                    action: crate::domain::audit::AuditAction::CallGone,
                    queue_item_id: Some(e.queued.id.as_str()),
                    tool_name: Some(&e.queued.call.tool_name),
                    fingerprint: Some(e.queued.call.fingerprint.as_str()),
                    details: json!({ "runId": e.queued.call.run_id, "toolCallId": e.queued.call.tool_call_id, "why": "the engine no longer lists this call as waiting (finished, resumed or declined elsewhere)" }),
                })
                .await?;
                // The run went on without the console, which can no longer tell whether a later call
                // under this run id belongs to the same run: its run grants end (fail safe: the
                // operator is asked again).
                crate::store::grants::end_for_run(&mut tx, id, &e.queued.call.run_id, crate::store::now()).await?;
                report.gone += 1;
            }
        }
        for (e, now) in &changed {
            if !queue::transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
                continue;
            }
            let item = queue::insert_pending(&mut tx, now).await?;
            audit::append(
                &mut tx,
                audit::Record {
                    actor: &actor,
                    action: crate::domain::audit::AuditAction::CallChanged,
                    queue_item_id: Some(e.queued.id.as_str()),
                    tool_name: Some(&now.tool_name),
                    fingerprint: Some(now.fingerprint.as_str()),
                    details: json!({
                        "runId": now.run_id, "toolCallId": now.tool_call_id, "replacedBy": item.id,
                        "before": { "fingerprint": e.queued.call.fingerprint, "args": e.queued.call.args },
                        "after": { "fingerprint": now.fingerprint, "args": now.args },
                    }),
                },
            )
            .await?;
            paused_audit(&mut tx, &actor, &item.id, now).await?;
            report.changed += 1;
        }
        for c in &new_calls {
            if queue::find_pending(&mut tx, id, &c.run_id, &c.tool_call_id).await?.is_some()
                || queue::live_state(&mut tx, id, &c.run_id, &c.tool_call_id).await?.is_some()
            {
                continue;
            }
            let item = queue::insert_pending(&mut tx, c).await?;
            paused_audit(&mut tx, &actor, &item.id, c).await?;
            report.added += 1;
        }
        tx.commit().await?;
        self.inner.events.changed();
        Ok(report)
    }

    /// Polls until `stop` flips: every `poll_ms`, a complete listing every [`FULL_EVERY`] polls or
    /// when asked; doubling the wait (up to [`MAX_BACKOFF`]) while the engine fails.
    /// Keeps or takes the engine's lease; whether this console holds it now. A lease taken anew
    /// starts with a complete sync (the last holder may have died half-way).
    async fn hold_lease(&self, lease: &mut Option<crate::store::lease::Lease>) -> bool {
        if let Some(held) = lease.as_mut() {
            if held.alive().await {
                return true;
            }
            tracing::warn!(engine = %self.inner.id, "lost the engine's lease (its database connection ended)");
            *lease = None;
        }
        *lease = match crate::store::lease::Lease::try_take(&self.inner.db, &format!("engine:{}", self.inner.id)).await {
            Ok(taken) => taken,
            Err(e) => {
                tracing::warn!(engine = %self.inner.id, "could not take the engine's lease: {e}");
                None
            }
        };
        let held = lease.is_some();
        let before = self.inner.lease_held.swap(held, Ordering::SeqCst);
        if held && !before {
            tracing::info!(engine = %self.inner.id, "this console now syncs and delivers the engine (lease taken)");
            self.inner.full_requested.store(true, Ordering::SeqCst);
            if self.inner.db.dialect() == crate::store::Dialect::Postgres {
                if let Err(e) = self.resend_cut_deliveries().await {
                    tracing::warn!(engine = %self.inner.id, "could not take over the deliveries the last holder left: {e}");
                }
            }
        }
        held
    }

    /// Team mode, on taking the lease: deliveries the last holder claimed and never finished (it
    /// died) go back to the outbox to be sent again — the engine refuses a second resume and the call
    /// is re-read before every send, as after a restart (C5).
    async fn resend_cut_deliveries(&self) -> Result<(), Error> {
        let cut = {
            let mut conn = self.inner.db.pool().acquire().await?;
            crate::store::decisions::delivering_of_engine(&mut conn, self.inner.id.as_str()).await?
        };
        for (d, tool) in cut {
            let why = "the console delivering this decision stopped; the console that took the engine over sends it again";
            let mut tx = self.inner.db.begin_write().await?;
            if crate::store::decisions::defer(&mut tx, &d.id, why, crate::store::now()).await? {
                crate::store::audit::append(
                    &mut tx,
                    crate::store::audit::Record {
                        actor: "console",
                        action: crate::domain::audit::AuditAction::DeliveryRetry,
                        queue_item_id: Some(d.item_id.as_str()),
                        tool_name: Some(&tool),
                        fingerprint: Some(d.fingerprint.as_str()),
                        details: serde_json::json!({ "decisionId": d.id, "why": why }),
                    },
                )
                .await?;
                crate::store::feed::notify_outboxes(&mut tx).await?;
                tx.commit().await?;
                tracing::warn!(engine = %self.inner.id, item = %d.item_id, "{why}");
            }
        }
        Ok(())
    }

    pub fn spawn_sync(&self, mut stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut polls: u32 = 0;
            let mut failures: u32 = 0;
            let mut lease: Option<crate::store::lease::Lease> = None;
            loop {
                // Team mode: only the console holding the engine's lease syncs it (and delivers to it).
                if !this.hold_lease(&mut lease).await {
                    tokio::select! {
                        _ = tokio::time::sleep(this.inner.poll.min(LEASE_RETRY)) => {}
                        _ = stop.changed() => return,
                    }
                    if *stop.borrow() {
                        return;
                    }
                    continue;
                }
                let full = this.inner.full_requested.swap(false, Ordering::SeqCst) || polls.is_multiple_of(FULL_EVERY);
                match this.sync(full).await {
                    Ok(report) => {
                        failures = 0;
                        if report.added + report.changed + report.gone > 0 {
                            tracing::info!(engine = %this.inner.id, added = report.added, changed = report.changed, gone = report.gone, "synced");
                        }
                        polls = polls.wrapping_add(1);
                    }
                    Err(e) => {
                        failures = failures.saturating_add(1);
                        // The next poll after a failure is a complete one.
                        polls = 0;
                        tracing::debug!(engine = %this.inner.id, "sync failed: {e}");
                    }
                }
                let wait = if failures == 0 {
                    this.inner.poll
                } else {
                    this.inner.poll.saturating_mul(1 << failures.min(8)).min(MAX_BACKOFF.max(this.inner.poll))
                };
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = this.inner.wake.notified() => {}
                    _ = stop.changed() => break,
                }
                if *stop.borrow() {
                    break;
                }
            }
            // Disconnected or stopping: let the lease go for another console to take.
            this.inner.lease_held.store(this.inner.db.dialect() == crate::store::Dialect::Sqlite, Ordering::SeqCst);
            drop(lease);
        })
    }
}

/// Whether a listed call is the stored one, unchanged. Mastra lists no arguments for a suspended
/// call, while its stream does: a call stored with the arguments from a stream is unchanged if the
/// tool and the suspend payload are. A suspended call's payload is compared too (the fingerprint
/// covers only the tool and the arguments).
pub(super) fn unchanged(stored: &PausedCall, listed: &PausedCall) -> bool {
    let payload_same = listed.kind != CallKind::Suspend || stored.suspend_payload == listed.suspend_payload;
    if stored.fingerprint == listed.fingerprint {
        return payload_same;
    }
    listed.kind == CallKind::Suspend && listed.args.is_null() && stored.tool_name == listed.tool_name && payload_same
}

/// The audit entry of a call entering the queue.
pub(super) async fn paused_audit(
    conn: &mut sqlx::AnyConnection,
    actor: &str,
    item: &crate::domain::ItemId,
    c: &PausedCall,
) -> Result<(), Error> {
    audit::append(conn, audit::Record {
        actor,
        action: crate::domain::audit::AuditAction::CallPaused,
        queue_item_id: Some(item.as_str()),
        tool_name: Some(&c.tool_name),
        fingerprint: Some(c.fingerprint.as_str()),
        details: json!({ "runId": c.run_id, "toolCallId": c.tool_call_id, "agentId": c.agent_id, "kind": c.kind, "args": c.args, "chain": c.chain }),
    })
    .await
    .map(drop)
}
