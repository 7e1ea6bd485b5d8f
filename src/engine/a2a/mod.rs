//! An A2A agent as a remote engine (issue 48): its tasks that wait for input
//! (`TASK_STATE_INPUT_REQUIRED`) or authorization (`TASK_STATE_AUTH_REQUIRED`) are synced into the
//! queue by polling (`ListTasks` over the A2A v1.0 JSON-RPC binding), one call per request message
//! ([`task`]); a decision is sent as the next message on that task (`SendMessage` with the task and
//! context ids), the task re-read first (`GetTask`, C3). The send answers once the agent took the
//! message: it does not wait for the task to go on.
//!
//! A task that moves on without the console's message — another client answered it, it was
//! cancelled, it completed — is no longer listed: its call leaves the queue as gone (`call.gone`),
//! and a decision taken meanwhile is not sent (the re-read no longer finds its request). The agent
//! card (`/.well-known/agent-card.json`) names the JSON-RPC endpoint; one on another origin than the
//! engine's URL is refused, so the token goes nowhere else ([`client`]).

pub mod client;
pub mod task;

use crate::domain::{CallSource, DecisionKind, Error, PausedCall};
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::{unchanged, Link};
use crate::engine::remote::{Adapter, EngineTestResult, Listed, RemoteKind};
use crate::engine::send::Checked;
use crate::engine::ChunkSink;
use crate::store::engines::EngineRow;
use crate::store::outbox;
use async_trait::async_trait;
use client::{Card, Client};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// The A2A kind, as the registry lists it.
pub static KIND: RemoteKind = RemoteKind {
    source: CallSource::A2a,
    label: "A2A agent",
    lists: "agents",
    connect: |link, row| Ok(Arc::new(A2aEngine::new(link, row)?)),
    probe: |url, token| Box::pin(probe(url, token)),
};

/// Messages of a task's history shown as the call's reason.
const REASON_HISTORY: u32 = 20;

/// An A2A agent's adapter.
pub struct A2aEngine {
    link: Arc<Link>,
    client: Client,
    /// The agent card as last read: read before the first request and again at every full listing.
    card: Mutex<Option<Card>>,
}

impl A2aEngine {
    /// The adapter for a configured row, on its link. Talks to nobody yet.
    pub fn new(link: Arc<Link>, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
        Ok(Self { link, client, card: Mutex::new(None) })
    }

    /// The agent card: the one read before unless `fresh`.
    async fn card(&self, fresh: bool, token: Option<&ApiKey>) -> Result<Card, Error> {
        if !fresh {
            if let Some(card) = self.card.lock().expect("card lock").clone() {
                return Ok(card);
            }
        }
        let link = &self.link;
        let card = link.observe(self.client.card(token).await).await.map_err(|e| link.to_error(e))?;
        *self.card.lock().expect("card lock") = Some(card.clone());
        Ok(card)
    }

    /// The task `id` as the agent holds it now, with its last `history` messages; `None` if it has none.
    async fn task(&self, id: &str, history: u32) -> Result<Option<Value>, Error> {
        let link = &self.link;
        let token = link.token_or_health().await?;
        let card = self.card(false, token.as_ref()).await?;
        link.observe(self.client.task(&card, id, history, token.as_ref()).await).await.map_err(|e| link.to_error(e))
    }
}

/// Tries an A2A agent as the sync would: its card, then a count of its tasks waiting for input.
pub async fn probe(base_url: &str, token: Option<&ApiKey>) -> Result<EngineTestResult, Error> {
    let client = Client::new(base_url).map_err(Error::InvalidRequest)?;
    let counted = async {
        let card = client.card(token).await?;
        let mut n = 0;
        for state in task::WAITING {
            n += client.count(&card, state, token).await?;
        }
        Ok::<_, crate::engine::remote::http::RemoteError>((card, n))
    };
    Ok(match counted.await {
        Ok((card, n)) => EngineTestResult {
            result: crate::store::engines::Health::Reachable,
            message: format!("reachable: agent {:?}, {n} {} waiting for input", card.name, if n == 1 { "task" } else { "tasks" }),
            agents: Some(1),
            interrupted: None,
        },
        Err(e) => EngineTestResult::failed(e),
    })
}

/// The task is re-read before every send, and a message is taken only while the task waits on the
/// request decided: a delivery cut short is sent again only if the agent had not taken it.
#[async_trait]
impl Adapter for A2aEngine {
    fn base_url(&self) -> &str {
        self.client.base().as_str()
    }

    /// Every task waiting for input or authorization (a complete listing unless it ran past its
    /// pages); the card read again first on a full listing.
    #[tracing::instrument(name = "list", skip_all, fields(engine = %self.link.id))]
    async fn list(&self, full: bool) -> Result<Listed, Error> {
        let link = &self.link;
        let token = link.token_or_health().await?;
        let card = self.card(full, token.as_ref()).await?;
        let listing = link.observe(self.client.waiting(&card, &task::WAITING, token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
        let mut calls = Vec::new();
        let mut skipped = 0;
        for t in &listing.tasks {
            match task::call(&link.id, &card.name, t) {
                Ok(Some(c)) => calls.push(c),
                Ok(None) => {}
                Err(why) => {
                    tracing::warn!(engine = %link.id, "not queued: {why}");
                    skipped += 1;
                }
            }
        }
        Ok(Listed { calls, complete: listing.complete, busy: Default::default(), agents: 1, skipped })
    }

    /// The agent as its card names it (it does not list tools).
    fn agents_view(&self) -> Value {
        let card = self.card.lock().expect("card lock").clone();
        Value::Array(card.into_iter().map(|c| json!({ "id": c.name, "name": c.name, "subAgents": [], "tools": [] })).collect())
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        task::allowed(call)
    }

    /// The call's task read now: the stored call if it still waits on the same request unchanged
    /// (C3), the request as it is now if it changed in place, `None` if the task waits on another
    /// request or on nothing.
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let Some(t) = self.task(call.run_id.as_str(), 0).await? else { return Ok(None) };
        let now = task::call(&self.link.id, call.agent_id.as_str(), &t).map_err(Error::Engine)?;
        Ok(now.filter(|n| n.tool_call_id == call.tool_call_id).map(|n| if unchanged(call, &n) { call.clone() } else { n }))
    }

    /// The task's messages (text parts), as the agent holds them now.
    async fn reason(&self, call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        use crate::domain::reason::{ReasonMessage, Speaker};
        let Some(t) = self.task(call.run_id.as_str(), REASON_HISTORY).await? else { return Ok(None) };
        let Some(history) = t["history"].as_array() else { return Ok(None) };
        Ok(Some(
            history
                .iter()
                .filter_map(|m| {
                    let role = match m["role"].as_str()? {
                        "ROLE_USER" => Speaker::User,
                        "ROLE_AGENT" => Speaker::Assistant,
                        _ => return None,
                    };
                    let parts = m["parts"].as_array()?;
                    let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                    Some(ReasonMessage { role, text: text.join("\n"), cut: false })
                })
                .collect(),
        ))
    }

    /// The decision as the next message on the task, answered once the agent took it; the outcome
    /// recorded.
    async fn send(&self, checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let own = checked.own();
        let (decision, item, call) = (&own.decision, &own.item, &own.call);
        let link = &self.link;
        let token = link.token_or_health().await?;
        let card = self.card(false, token.as_ref()).await?;
        let message = task::message(call, decision)?;
        let answer = link.observe(self.client.send(&card, message.clone(), token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
        let state = answer["task"]["status"]["state"].clone();
        let outcome = json!({
            "status": "delivered", "route": "SendMessage", "task": call.run_id, "message": message["messageId"], "taskState": state,
        });
        outbox::record_outcome(&link.db, decision, item, &outcome, None).await?;
        Ok(outcome)
    }
}
