//! A remote Mastra server as an engine: its suspended runs are synced into the queue by polling, and
//! decisions are sent back over its HTTP API (`approve-tool-call`, `decline-tool-call`,
//! `resume-stream`), re-reading the call first (C3).

pub mod client;
mod deliver;
pub mod listing;
pub mod schema;
mod sync;

use crate::engine::remote::base::{unchanged, Link};
use crate::engine::remote::{Adapter, EngineTestResult, Listed, RemoteKind};

use crate::domain::{CallKind, CallSource, DecisionKind, Error, Fingerprint, PausedCall, QueuedCall, RunId, ToolCallId, Verdict};
use crate::engine::chunk::Folded;
use crate::engine::local::model::ApiKey;
use crate::engine::send::Checked;
use crate::engine::ChunkSink;
use crate::store::engines::{self as store, EngineRow};
use crate::store::outbox;
use async_trait::async_trait;
use client::{Client, RemoteError};
use listing::{AgentInfo, ToolInfo};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// The Mastra kind, as the registry lists it.
pub static KIND: RemoteKind = RemoteKind {
    source: CallSource::Mastra,
    label: "Mastra server",
    lists: "agents",
    connect: |link, row| Ok(Arc::new(MastraEngine::new(link, row)?)),
    probe: |url, token| Box::pin(probe(url, token)),
};

/// The window of an incremental poll (Mastra filters `fromDate` on the run's creation time).
const RECENT: chrono::Duration = chrono::Duration::minutes(10);

/// A Mastra server's adapter.
pub struct MastraEngine {
    inner: Inner,
}

struct Inner {
    link: Arc<Link>,
    client: Client,
    /// The last agent listing (from the engine, or from `remote_tools` until it answers).
    agents: Mutex<Vec<AgentInfo>>,
    /// Sub-agent runs seen without their supervisor's run at the last poll (queued if seen again).
    orphans: Mutex<HashSet<(String, String)>>,
}

impl MastraEngine {
    /// The adapter for a configured row, on its link. Talks to nobody yet.
    pub fn new(link: Arc<Link>, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
        Ok(Self { inner: Inner { link, client, agents: Mutex::new(vec![]), orphans: Mutex::new(HashSet::new()) } })
    }

    /// The agents as last listed.
    pub fn agents(&self) -> Vec<AgentInfo> {
        self.inner.agents.lock().expect("agents lock").clone()
    }

    async fn observe<T>(&self, result: Result<T, RemoteError>) -> Result<T, RemoteError> {
        self.inner.link.observe(result).await
    }

    /// The agents, from the engine (remembering their tools) or, if it does not answer, from memory.
    async fn list_agents(&self, token: Option<&ApiKey>) -> Result<Vec<AgentInfo>, RemoteError> {
        let listing = self.observe(self.inner.client.agents(token).await).await?;
        let agents = listing::agents(&listing);
        let known = self.agents();
        if agents != known {
            let tools: Vec<(&str, &str, Value)> = agents
                .iter()
                .flat_map(|a| {
                    a.tools
                        .iter()
                        .map(|(name, tool)| (a.id.as_str(), name.as_str(), serde_json::to_value(tool).expect("tool info serializes")))
                })
                .collect();
            if let Err(e) = store::remember_tools(&self.inner.link.db, self.inner.link.id.as_str(), &tools).await {
                tracing::warn!(engine = %self.inner.link.id, "could not remember the engine's tools: {e}");
            }
            *self.inner.agents.lock().expect("agents lock") = agents.clone();
        }
        Ok(agents)
    }

    /// What the console remembered of the agents' tools (used when the engine does not answer).
    async fn remembered_agents(&self) -> Result<Vec<AgentInfo>, Error> {
        let mut by_agent: HashMap<String, AgentInfo> = HashMap::new();
        for (agent, tool, body) in store::remembered_tools(&self.inner.link.db, self.inner.link.id.as_str()).await? {
            let info: ToolInfo = serde_json::from_value(body).unwrap_or_default();
            by_agent.entry(agent.clone()).or_insert_with(|| AgentInfo { id: agent, ..Default::default() }).tools.insert(tool, info);
        }
        Ok(by_agent.into_values().collect())
    }
}

/// Tries a Mastra server as the sync would: lists its agents, then asks one agent for its
/// suspended runs (of the last minute: a small answer) to see that the route the sync depends on
/// is there.
pub async fn probe(base_url: &str, token: Option<&ApiKey>) -> Result<EngineTestResult, Error> {
    let client = Client::new(base_url).map_err(Error::InvalidRequest)?;
    let agents = match client.agents(token).await {
        Ok(agents) => agents,
        Err(e) => return Ok(EngineTestResult::failed(e)),
    };
    let ids: Vec<&String> = agents.as_object().map(|a| a.keys().collect()).unwrap_or_default();
    if let Some(first) = ids.first() {
        let since = chrono::Utc::now() - chrono::Duration::minutes(1);
        if let Err(e) = client.suspended_runs(first, token, Some(since)).await {
            return Ok(EngineTestResult::failed(e));
        }
    }
    let n = ids.len();
    Ok(EngineTestResult {
        result: store::Health::Reachable,
        message: format!("reachable: {n} {}", if n == 1 { "agent" } else { "agents" }),
        agents: Some(n),
        interrupted: None,
    })
}

/// The agent listing of an engine as the API shows it.
pub fn agents_view(agents: &[AgentInfo]) -> Value {
    Value::Array(
        agents
            .iter()
            .map(|a| {
                let mut tools: Vec<_> = a.tools.iter().collect();
                tools.sort_by(|x, y| x.0.cmp(y.0));
                json!({
                    "id": a.id, "name": a.name, "subAgents": a.sub_agents,
                    "tools": tools.into_iter().map(|(name, t)| json!({
                        "name": name, "requireApproval": t.require_approval, "inputSchema": t.input_schema, "resumeSchema": t.resume_schema,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
