//! Syncing: listing what waits at the server, handed to [`Core::apply`], which writes only what
//! changed; the poll loop is [`Core::run`].

use super::*;

impl MastraEngine {
    /// Lists what waits at the engine and brings the queue in line: new calls added, changed ones
    /// replaced, and (when `full`) calls no longer waiting marked `gone`.
    #[tracing::instrument(name = "sync", skip_all, fields(engine = %self.inner.core.id, full))]
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        let token = self.inner.core.token_or_health().await?;
        let agents = self.list_agents(token.as_ref()).await.map_err(|e| self.inner.core.to_error(e))?;
        let from = (!full).then(|| crate::store::now() - RECENT);
        let mut listed = Vec::new();
        let mut skipped = 0;
        for a in &agents {
            let runs = self
                .observe(self.inner.client.suspended_runs(&a.id, token.as_ref(), from).await)
                .await
                .map_err(|e| self.inner.core.to_error(e))?;
            let (runs, bad) = listing::runs(&a.id, &runs);
            skipped += bad;
            listed.extend(runs);
        }
        let surfaced = listing::surface(&self.inner.core.id, &agents, &listed);
        skipped += surfaced.rejected.len();
        for (call, why) in &surfaced.rejected {
            tracing::warn!(engine = %self.inner.core.id, call, "not queued: {why}");
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
        let mut report = self.inner.core.apply(&calls, full).await?;
        report.agents = agents.len();
        report.skipped = skipped;
        Ok(report)
    }

    /// Syncs until `stop` flips (see [`Core::run`]).
    pub fn spawn_sync(
        &self,
        stop: tokio::sync::watch::Receiver<bool>,
        lease: crate::store::lease::LeaseSlot,
    ) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move { this.inner.core.run(|full| this.sync(full), stop, lease).await })
    }
}
