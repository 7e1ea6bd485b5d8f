//! Remote engines: servers whose paused calls the console queues by polling them, one kind per API
//! (Mastra, LangGraph), on shared plumbing ([`base`], [`http`]).

pub mod base;
pub mod http;

use crate::domain::{EngineId, Error};
use crate::engine::kinds;
use crate::engine::local::model::ApiKey;
use crate::engine::Engine;
use crate::store::engines::{EngineRow, Health, HealthReport};
use crate::store::feed::Events;
use crate::store::Db;
use async_trait::async_trait;
use base::{Core, SyncReport};
use http::RemoteError;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// What a remote kind does beyond an [`Engine`]: the shared plumbing ([`Core`]) and the sync that
/// brings the queue in line with the server. Registered in [`kinds`].
#[async_trait]
pub trait Remote: Engine + std::fmt::Debug {
    fn core(&self) -> &Core;

    fn base_url(&self) -> &str;

    /// A sync now (`full`: a complete listing).
    async fn sync(&self, full: bool) -> Result<SyncReport, Error>;

    /// The sync loop, until `stop`; syncs and delivers only while `lease` is held.
    fn spawn_sync(&self, stop: tokio::sync::watch::Receiver<bool>, lease: crate::store::lease::LeaseSlot) -> tokio::task::JoinHandle<()>;

    /// The agents as the API shows them, as last listed.
    fn agents_view(&self) -> Value;
}

/// A remote engine of any kind. Cheap to clone.
#[derive(Clone, Debug)]
pub struct RemoteEngine(Arc<dyn Remote>);

impl RemoteEngine {
    /// The engine for a configured row, of the row's kind. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        Ok(Self((kinds::remote(row.kind)?.connect)(db, events, row)?))
    }

    pub fn core(&self) -> &Core {
        self.0.core()
    }

    /// The engine as the console holds every engine.
    pub fn as_engine(&self) -> Arc<dyn Engine> {
        self.0.clone()
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
        self.0.base_url()
    }

    /// A sync now (`full`: a complete listing).
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        self.0.sync(full).await
    }

    pub fn spawn_sync(
        &self,
        stop: tokio::sync::watch::Receiver<bool>,
        lease: crate::store::lease::LeaseSlot,
    ) -> tokio::task::JoinHandle<()> {
        self.0.spawn_sync(stop, lease)
    }

    /// The agents as the API shows them (see [`Remote::agents_view`]).
    pub fn agents_view(&self) -> Value {
        self.0.agents_view()
    }
}

/// How a server answered a test: `reachable`, `auth_failed`, `unreachable` or `incompatible`
/// (never `unknown`), with what it said.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineTestResult {
    pub result: Health,
    /// What was found, for people: the agent count, or the error.
    pub message: String,
    /// The server's agents, when it listed them (a Mastra server; a LangGraph server lists its
    /// interrupted threads instead: `interrupted`).
    #[schema(required = true)]
    pub agents: Option<usize>,
    /// A LangGraph server's interrupted threads, when it counted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<u64>,
}

impl EngineTestResult {
    /// A test that failed: what kind of failure, and the error.
    pub fn failed(e: RemoteError) -> Self {
        let result = match e {
            RemoteError::Auth(_) | RemoteError::TokenRequired(_) => Health::AuthFailed,
            RemoteError::Unreachable(_) => Health::Unreachable,
            _ => Health::Incompatible,
        };
        Self { result, message: e.to_string(), agents: None, interrupted: None }
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
    if kinds::parse_submitted(name).is_some() {
        return Err(Error::InvalidRequest(format!("{name:?} is where calls that agents submit themselves are queued; pick another name")));
    }
    Ok(())
}
