//! Remote engines: servers whose paused calls the console queues by polling them, one kind per API
//! (Mastra, LangGraph), each an [`Adapter`] on shared plumbing ([`base`], [`http`]). The console's
//! supervisor runs them ([`crate::console::supervisor`]).

pub mod base;
pub mod http;

use crate::domain::{CallSource, Decision, DecisionKind, Error, PausedCall, QueuedCall};
use crate::engine::local::model::ApiKey;
use crate::engine::send::Prepared;
use crate::engine::ChunkSink;
use crate::store::engines::{EngineRow, Health};
use async_trait::async_trait;
use base::Link;
use futures::future::BoxFuture;
use http::RemoteError;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

/// What a remote kind does: list what is paused now, re-read one call, prepare and send a decision.
/// It runs nothing by itself — no loop, no lease, no waiting between tries: the console's
/// supervisor ([`crate::console::supervisor`]) calls it, brings the queue in line with what it
/// lists, and holds it as an [`crate::engine::Engine`]. `tests/layers.rs` keeps it so.
#[async_trait]
pub trait Adapter: Send + Sync + 'static {
    /// The server's base URL, as its client sends to it.
    fn base_url(&self) -> &str;

    /// The decision kinds this call allows.
    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind>;

    /// See [`crate::engine::Engine::check_edit`]; the default refuses every edit.
    fn check_edit(&self, call: &PausedCall, _args: &Value) -> Result<(), Error> {
        Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: self.allowed(call) })
    }

    /// What is paused at the server now (`full`: a complete listing; else what the API can give
    /// cheaper, such as recent runs only).
    async fn list(&self, full: bool) -> Result<Listed, Error>;

    /// The call as the server holds it now; `None` if it no longer waits there (C3).
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error>;

    /// See [`crate::engine::Engine::prepare`]; the default: the decision's own call, re-read.
    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<Prepared, Error> {
        Ok(Prepared::single(decision, item, self.reread(&item.call).await?))
    }

    /// See [`crate::engine::Engine::send`]: sends the checked decisions and records their outcomes.
    /// Answers as soon as the server took the decision: it does not wait for the run to go on
    /// (what it does next is seen by the next listings).
    async fn send(&self, checked: crate::engine::send::Checked, sink: Option<ChunkSink>) -> Result<Value, Error>;

    /// See [`crate::engine::Engine::reason`].
    async fn reason(&self, _call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        Ok(None)
    }

    /// The agents as the API shows them, as last listed.
    fn agents_view(&self) -> Value;
}

/// One listing of what waits at a server ([`Adapter::list`]).
#[derive(Debug, Default)]
pub struct Listed {
    pub calls: Vec<PausedCall>,
    /// Whether the listing is complete: pending calls it does not show no longer wait (but those of
    /// `busy` runs). Incremental and partial listings mark nothing gone.
    pub complete: bool,
    /// Runs the server is busy with now: their pending calls stay, listed or not (a LangGraph
    /// thread lists no interrupts while a run goes on it, and may stop at them again).
    pub busy: HashSet<String>,
    /// Agents (Mastra) or graphs with waiting threads (LangGraph) seen.
    pub agents: usize,
    /// Listed entries that could not be queued (malformed, or arguments too deeply nested).
    pub skipped: usize,
}

/// Makes the adapter of a configured row, on the [`Link`] the supervisor made for it. Talks to nobody yet.
pub type Connect = fn(Arc<Link>, &EngineRow) -> Result<Arc<dyn Adapter>, Error>;

/// Tries a server at a base URL, with a token if given, storing nothing.
pub type Probe = for<'a> fn(&'a str, Option<&'a ApiKey>) -> BoxFuture<'a, Result<EngineTestResult, Error>>;

/// How a remote kind declares itself: which source its calls carry and how people call it; the
/// registry ([`crate::engine::kinds`]) lists it, the kind's module defines it (and never names
/// the registry).
pub struct RemoteKind {
    /// The source its calls carry (their badge in the queue).
    pub source: CallSource,
    /// How people call it ("Mastra server").
    pub label: &'static str,
    /// What its agent listing holds, for people ("agents", "graphs with interrupted threads").
    pub lists: &'static str,
    /// The adapter of a configured row. Talks to nobody yet.
    pub connect: Connect,
    /// Tries a server as the sync would, storing nothing (`POST /api/engines/test`).
    pub probe: Probe,
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
