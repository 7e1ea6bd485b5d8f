//! Remote engines: servers whose paused calls the console queues by polling them, one kind per API
//! (Mastra, LangGraph), on shared plumbing ([`base`], [`http`]).

pub mod base;
pub mod http;

use crate::domain::{EngineId, Error};
use crate::engine::langgraph::LangGraphEngine;
use crate::engine::local::model::ApiKey;
use crate::engine::mastra::{self, MastraEngine};
use crate::engine::Engine;
use crate::store::engines::{EngineKind, EngineRow, HealthReport};
use crate::store::feed::Events;
use crate::store::Db;
use base::{Core, SyncReport};
use serde_json::{json, Value};
use std::sync::Arc;

/// A remote engine of any kind. Cheap to clone.
#[derive(Clone, Debug)]
pub enum RemoteEngine {
    Mastra(MastraEngine),
    LangGraph(LangGraphEngine),
}

impl RemoteEngine {
    /// The engine for a configured row, of the row's kind. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        Ok(match row.kind {
            EngineKind::Mastra => Self::Mastra(MastraEngine::new(db, events, row)?),
            EngineKind::Langgraph => Self::LangGraph(LangGraphEngine::new(db, events, row)?),
        })
    }

    pub fn core(&self) -> &Core {
        match self {
            Self::Mastra(e) => e.core(),
            Self::LangGraph(e) => e.core(),
        }
    }

    /// The engine as the console holds every engine.
    pub fn as_engine(&self) -> Arc<dyn Engine> {
        match self {
            Self::Mastra(e) => Arc::new(e.clone()),
            Self::LangGraph(e) => Arc::new(e.clone()),
        }
    }

    pub fn kind(&self) -> EngineKind {
        self.core().kind
    }

    pub fn lease_held(&self) -> bool {
        self.core().lease_held()
    }

    pub fn health(&self) -> HealthReport {
        self.core().health()
    }

    /// See [`Core::set_session_token_now`].
    pub fn set_session_token_now(&self, token: ApiKey, given_for: &str) {
        self.core().set_session_token_now(token, given_for)
    }

    pub fn base_url(&self) -> &str {
        match self {
            Self::Mastra(e) => e.base_url(),
            Self::LangGraph(e) => e.base_url(),
        }
    }

    /// A sync now (`full`: a complete listing).
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        match self {
            Self::Mastra(e) => e.sync(full).await,
            Self::LangGraph(e) => e.sync(full).await,
        }
    }

    pub fn spawn_sync(
        &self,
        stop: tokio::sync::watch::Receiver<bool>,
        lease: crate::store::lease::LeaseSlot,
    ) -> tokio::task::JoinHandle<()> {
        match self {
            Self::Mastra(e) => e.spawn_sync(stop, lease),
            Self::LangGraph(e) => e.spawn_sync(stop, lease),
        }
    }

    /// The agents as the API shows them: a Mastra server's agents with their tools; a LangGraph
    /// server's graphs that have interrupted threads (it does not list tools).
    pub fn agents_view(&self) -> Value {
        match self {
            Self::Mastra(e) => mastra::agents_view(&e.agents()),
            Self::LangGraph(e) => {
                Value::Array(e.graphs().into_iter().map(|g| json!({ "id": g, "name": null, "subAgents": [], "tools": [] })).collect())
            }
        }
    }
}

/// Checks an engine name: 1–64 of `A–Z a–z 0–9 . _ -`, not `local` and not a source of submitted
/// calls (`http`, `claude-code`, `codex`, `mcp`).
pub fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::InvalidRequest(format!("engine name {name:?}: use 1–64 letters, digits, '.', '_' or '-'")));
    }
    if name == EngineId::local().as_str() {
        return Err(Error::InvalidRequest("\"local\" is the local engine's name; pick another".into()));
    }
    if crate::engine::submitted::Source::parse(name).is_some() {
        return Err(Error::InvalidRequest(format!("{name:?} is where calls that agents submit themselves are queued; pick another name")));
    }
    Ok(())
}
