//! Every source the console has seen calls from (issue 45): the coding agents' hooks, HTTP agents,
//! the MCP gate, the local engine and remote engines — not only the remote engines an admin added.
//! The Engines view lists them, so an operator sees what is connected and what each agent sent.

use super::App;
use crate::domain::{grade, CallSource, Cx, Error};
use crate::store::sources;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The most agents listed under one source (the most recent ones).
const AGENTS_SHOWN: usize = 20;

/// An agent seen through one source.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentSeen {
    pub agent_id: String,
    #[schema(required = true)]
    pub agent_name: Option<String>,
    pub calls: i64,
    pub pending: i64,
    pub last_seen: DateTime<Utc>,
}

/// One source and engine the queue has calls of.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceSeen {
    pub source: CallSource,
    /// The engine holding its calls: `local`, a remote engine's name, or the submitted source's own.
    pub engine: String,
    pub calls: i64,
    pub pending: i64,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    /// Its agents, the most recent first (at most 20; `moreAgents` counts the others).
    pub agents: Vec<AgentSeen>,
    pub more_agents: usize,
}

/// Groups the store's rows (newest last call first) by source and engine, in that order.
fn grouped(rows: Vec<sources::Seen>) -> Vec<SourceSeen> {
    let mut out: Vec<SourceSeen> = Vec::new();
    for r in rows {
        let agent = AgentSeen { agent_id: r.agent_id, agent_name: r.agent_name, calls: r.calls, pending: r.pending, last_seen: r.last_at };
        match out.iter_mut().find(|s| s.source == r.source && s.engine == r.engine) {
            Some(s) => {
                s.calls += r.calls;
                s.pending += r.pending;
                s.first_seen = s.first_seen.min(r.first_at);
                s.last_seen = s.last_seen.max(r.last_at);
                if s.agents.len() < AGENTS_SHOWN {
                    s.agents.push(agent);
                } else {
                    s.more_agents += 1;
                }
            }
            None => out.push(SourceSeen {
                source: r.source,
                engine: r.engine,
                calls: r.calls,
                pending: r.pending,
                first_seen: r.first_at,
                last_seen: r.last_at,
                agents: vec![agent],
                more_agents: 0,
            }),
        }
    }
    out
}

impl App {
    /// Every source and engine calls came from, with their agents, the most recent first.
    pub async fn sources(&self, _by: &Cx<grade::Operator>) -> Result<Vec<SourceSeen>, Error> {
        Ok(grouped(sources::all_seen(&self.db).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(source: CallSource, engine: &str, agent: &str, calls: i64, last_min: i64) -> sources::Seen {
        let at = DateTime::<Utc>::from_timestamp(1_800_000_000 + last_min * 60, 0).unwrap();
        sources::Seen {
            source,
            engine: engine.into(),
            agent_id: agent.into(),
            agent_name: None,
            calls,
            pending: 1,
            first_at: at,
            last_at: at,
        }
    }

    #[test]
    fn agents_of_one_source_and_engine_are_grouped_under_it_most_recent_first() {
        let rows = vec![
            seen(CallSource::ClaudeCode, "claude-code", "repo-a", 3, 9),
            seen(CallSource::Http, "http", "billing", 2, 8),
            seen(CallSource::ClaudeCode, "claude-code", "repo-b", 1, 7),
        ];
        let g = grouped(rows);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].source, g[0].calls, g[0].pending), (CallSource::ClaudeCode, 4, 2));
        assert_eq!(g[0].agents.iter().map(|a| a.agent_id.as_str()).collect::<Vec<_>>(), ["repo-a", "repo-b"]);
        assert!(g[0].first_seen < g[0].last_seen);
        assert_eq!(g[1].engine, "http");
    }

    #[test]
    fn a_source_lists_at_most_twenty_agents_and_counts_the_others() {
        let rows = (0..25).map(|i| seen(CallSource::Mcp, "mcp", &format!("a{i}"), 1, 100 - i)).collect();
        let g = grouped(rows);
        assert_eq!((g[0].agents.len(), g[0].more_agents, g[0].calls), (20, 5, 25));
    }
}
