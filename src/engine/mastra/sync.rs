//! Listing what waits at the server; the console's supervisor brings the queue in line with it.

use super::*;

impl MastraEngine {
    /// What waits at the engine: every agent's suspended runs (when not `full`, only runs created
    /// lately), nested approvals merged; a sub-agent's run without its supervisor's queued once it
    /// is seen twice in a row.
    #[tracing::instrument(name = "list", skip_all, fields(engine = %self.inner.link.id, full))]
    pub(super) async fn listing(&self, full: bool) -> Result<Listed, Error> {
        let token = self.inner.link.token_or_health().await?;
        let agents = self.list_agents(token.as_ref()).await.map_err(|e| self.inner.link.to_error(e))?;
        let from = (!full).then(|| crate::store::now() - RECENT);
        let mut listed = Vec::new();
        let mut skipped = 0;
        for a in &agents {
            let runs = self
                .observe(self.inner.client.suspended_runs(&a.id, token.as_ref(), from).await)
                .await
                .map_err(|e| self.inner.link.to_error(e))?;
            let (runs, bad) = listing::runs(&a.id, &runs);
            skipped += bad;
            listed.extend(runs);
        }
        let surfaced = listing::surface(&self.inner.link.id, &agents, &listed);
        skipped += surfaced.rejected.len();
        for (call, why) in &surfaced.rejected {
            tracing::warn!(engine = %self.inner.link.id, call, "not queued: {why}");
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
        Ok(Listed { calls, complete: full, busy: HashSet::new(), agents: agents.len(), skipped })
    }
}
