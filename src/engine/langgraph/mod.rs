//! A LangGraph server as a remote engine (issue 17): its interrupted threads are synced into the
//! queue by polling (`POST /threads/search {status: "interrupted"}`), each action request one call
//! ([`listing`]); a decision is sent back as a resume run (`POST /threads/{id}/runs` with
//! `command.resume` by interrupt id), the thread re-read first (C3). The send answers once the
//! server created the run: it does not wait for the run to go on. The console's listings follow it
//! (the thread is busy while it runs: its pending calls stay; then it stops at its next interrupt,
//! queued, or ends). A decision for a thread that is busy waits in the outbox until it stops.
//!
//! One interrupt may hold several requests (a `humanInTheLoopMiddleware` interrupt with two tool
//! calls, an Agent Inbox list): the graph reads one answer for all of them, so the decisions of all
//! are sent together once the last is taken. Until then a decided request is held: its decision
//! stays claimed (`delivering`) and its entry `decided`; the delivery of the last one records every
//! request's outcome in one transaction. Several interrupts on one thread are answered one by one.
//! Every held decision is part of each send's `prepare`, re-read with the others, so the console
//! compares it with the request as the server lists it now (C3, [`crate::engine::send`]): a request
//! changed under the same interrupt id is failed and queued anew, and the others stay held until the
//! new one is decided.

pub mod client;
pub mod listing;

use crate::domain::{CallSource, Decision, DecisionKind, Error, PausedCall, QueuedCall, Verdict};
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::{unchanged, Link};
use crate::engine::remote::{Adapter, EngineTestResult, Listed, RemoteKind};
use crate::engine::send::{Checked, Part, Prepared};
use crate::engine::ChunkSink;
use crate::store::engines::EngineRow;
use crate::store::{outbox, queue};
use async_trait::async_trait;
use client::Client;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex};

/// The LangGraph kind, as the registry lists it.
pub static KIND: RemoteKind = RemoteKind {
    source: CallSource::Langgraph,
    label: "LangGraph server",
    lists: "graphs with interrupted threads",
    connect: |link, row| Ok(Arc::new(LangGraphEngine::new(link, row)?)),
    probe: |url, token| Box::pin(probe(url, token)),
};

/// A LangGraph server's adapter.
pub struct LangGraphEngine {
    inner: Inner,
}

struct Inner {
    link: Arc<Link>,
    client: Client,
    /// The graphs (assistants) with interrupted threads at the last sync.
    graphs: Mutex<Vec<String>>,
}

impl LangGraphEngine {
    /// The adapter for a configured row, on its link. Talks to nobody yet.
    pub fn new(link: Arc<Link>, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
        Ok(Self { inner: Inner { link, client, graphs: Mutex::new(vec![]) } })
    }

    /// The graphs that had interrupted threads at the last sync.
    pub fn graphs(&self) -> Vec<String> {
        self.inner.graphs.lock().expect("graphs lock").clone()
    }

    /// Lists every interrupted thread. The listing is always complete (the API has no cheaper
    /// incremental form): calls no longer listed leave the queue, except those of threads busy
    /// right now (a run going on them, such as the resume of a decision just sent; they may stop
    /// at the same interrupt), found by reading each thread of a pending call that the listing did
    /// not show.
    #[tracing::instrument(name = "list", skip_all, fields(engine = %self.inner.link.id))]
    async fn listing(&self) -> Result<Listed, Error> {
        let link = &self.inner.link;
        let token = link.token_or_health().await?;
        let listing = link.observe(self.inner.client.threads("interrupted", token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
        let mut calls = Vec::new();
        let mut skipped = 0;
        let mut graphs = BTreeSet::new();
        for thread in &listing.threads {
            let (found, rejected) = listing::calls(&link.id, thread);
            for why in &rejected {
                tracing::warn!(engine = %link.id, "not queued: {why}");
            }
            skipped += rejected.len();
            graphs.extend(found.iter().map(|c| c.agent_id.to_string()));
            calls.extend(found);
        }
        // A pending call whose thread the listing did not show: its thread is read by itself (most
        // polls have none). Not a second listing of busy threads: a thread may be busy when the
        // first listing is taken (an answer being sent to its other interrupt) and interrupted again
        // by the time the second one is, and so be in neither — its waiting calls would leave the
        // queue and come back as new entries. One thread read is one moment of that thread.
        let unlisted: BTreeSet<String> = if listing.complete {
            let listed: HashSet<&str> = calls.iter().map(|c| c.run_id.as_str()).collect();
            queue::pending_entries(&link.db, &link.id)
                .await?
                .into_iter()
                .map(|e| e.queued.call.run_id.to_string())
                .filter(|t| !listed.contains(t.as_str()))
                .collect()
        } else {
            BTreeSet::new()
        };
        let mut busy = HashSet::new();
        for thread in unlisted {
            let read = link.observe(self.inner.client.thread(&thread, token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
            match read {
                // A run goes on it: it may stop at the same interrupts again (kept, not `gone`).
                Some(t) if t["status"] == "busy" => {
                    busy.insert(thread);
                }
                // Interrupted since the listing was taken: its calls as they are now.
                Some(t) if t["status"] == "interrupted" => {
                    let (found, _) = listing::calls(&link.id, &t);
                    graphs.extend(found.iter().map(|c| c.agent_id.to_string()));
                    calls.extend(found);
                }
                // Idle, failed or deleted: its calls no longer wait.
                _ => {}
            }
        }
        let agents = graphs.len();
        *self.inner.graphs.lock().expect("graphs lock") = graphs.into_iter().collect();
        Ok(Listed { calls, complete: listing.complete, busy, agents, skipped })
    }

    /// The calls of `thread` as the server lists them now (empty if it has no such thread), or
    /// [`Thread::Busy`] while a run goes on it (the resume of an earlier decision): its interrupts
    /// are then the ones before that run, and what it waits for is known once the run stops.
    async fn listed(&self, thread: &str, token: Option<&ApiKey>) -> Result<Thread, Error> {
        let link = &self.inner.link;
        let found = link.observe(self.inner.client.thread(thread, token).await).await.map_err(|e| link.to_error(e))?;
        if found.as_ref().is_some_and(|t| t["status"] == "busy") {
            return Ok(Thread::Busy);
        }
        Ok(Thread::Calls(found.map(|t| listing::calls(&link.id, &t).0).unwrap_or_default()))
    }

    /// `call` as `listed` shows it now: the stored call itself if unchanged (C3), `None` if it no
    /// longer waits.
    fn current(call: &PausedCall, listed: &[PausedCall]) -> Option<PausedCall> {
        let now = listed.iter().find(|c| c.tool_call_id == call.tool_call_id)?;
        Some(if unchanged(call, now) { call.clone() } else { now.clone() })
    }

    /// The decisions of `call`'s interrupt held (claimed, `delivering`) besides `own`, with their
    /// entries: the other requests' answers that go with it.
    async fn held_with(&self, call: &PausedCall, own: &Decision) -> Result<Vec<(Decision, QueuedCall)>, Error> {
        let interrupt = listing::interrupt_of(call);
        let link = &self.inner.link;
        outbox::held_of_run(&link.db, link.id.as_str(), call.run_id.as_str(), |d, tool_call_id| {
            let same = tool_call_id.split_once('/').map_or(tool_call_id, |(i, _)| i) == interrupt;
            d.id != own.id && same
        })
        .await
    }
}

/// Tries a LangGraph server as the sync would: the route the sync depends on, asked for a count of
/// interrupted threads (a small answer).
pub async fn probe(base_url: &str, token: Option<&ApiKey>) -> Result<EngineTestResult, Error> {
    let client = Client::new(base_url).map_err(Error::InvalidRequest)?;
    Ok(match client.count("interrupted", token).await {
        Ok(n) => EngineTestResult {
            result: crate::store::engines::Health::Reachable,
            message: format!("reachable: {n} interrupted {}", if n == 1 { "thread" } else { "threads" }),
            agents: None,
            interrupted: Some(n),
        },
        Err(e) => EngineTestResult::failed(e),
    })
}

/// A thread as re-read before a decision is checked and sent.
enum Thread {
    /// A run goes on it: nothing it lists now can be compared or answered.
    Busy,
    /// Its calls, as it lists them now.
    Calls(Vec<PausedCall>),
}

impl Thread {
    /// Its calls; `engine_unreachable` while it is busy (a decision then waits in the outbox and is
    /// tried again once the run stopped).
    fn calls(self, thread: &str) -> Result<Vec<PausedCall>, Error> {
        match self {
            Thread::Calls(calls) => Ok(calls),
            Thread::Busy => Err(Error::Unreachable(format!("thread {thread} is busy (a run goes on it): tried again once it stops"))),
        }
    }
}

/// Position of a request in its interrupt (0 for an interrupt of one).
fn position(call: &PausedCall) -> u64 {
    call.suspend_payload.as_ref().and_then(|p| p["position"].as_u64()).unwrap_or(0)
}

/// The resume is keyed by interrupt id, and the thread is re-read before every send: an interrupt
/// already answered is no longer listed, so a delivery cut short may be sent again (what the
/// supervisor promises of every remote kind).
#[async_trait]
impl Adapter for LangGraphEngine {
    fn base_url(&self) -> &str {
        self.inner.client.base().as_str()
    }

    async fn list(&self, _full: bool) -> Result<Listed, Error> {
        self.listing().await
    }

    /// A LangGraph server's graphs that have interrupted threads (it does not list tools).
    fn agents_view(&self) -> Value {
        Value::Array(self.graphs().into_iter().map(|g| json!({ "id": g, "name": null, "subAgents": [], "tools": [] })).collect())
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        listing::allowed(call)
    }

    /// Edited arguments must be an object (the action's arguments); the server says nothing of the
    /// tool's schema, so the graph itself checks them.
    fn check_edit(&self, call: &PausedCall, args: &Value) -> Result<(), Error> {
        if !listing::allowed(call).contains(&DecisionKind::Edit) {
            return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: listing::allowed(call) });
        }
        if !args.is_object() {
            return Err(Error::InvalidRequest("edited arguments must be a JSON object".into()));
        }
        Ok(())
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let token = self.inner.link.token_or_health().await?;
        let listed = self.listed(call.run_id.as_str(), token.as_ref()).await?.calls(call.run_id.as_str())?;
        Ok(Self::current(call, &listed))
    }

    /// The thread's messages (`values.messages` of a message graph: `human` and `ai` text), as the
    /// server holds them now; `None` for a graph whose state has no messages.
    async fn reason(&self, call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        use crate::domain::reason::{text_of, ReasonMessage, Speaker};
        let link = &self.inner.link;
        let token = link.token_or_health().await?;
        let thread =
            link.observe(self.inner.client.thread(call.run_id.as_str(), token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
        let Some(messages) = thread.as_ref().and_then(|t| t["values"]["messages"].as_array()) else { return Ok(None) };
        Ok(Some(
            messages
                .iter()
                .filter_map(|m| {
                    let role = match m["type"].as_str().or_else(|| m["role"].as_str())? {
                        "human" | "user" => Speaker::User,
                        "ai" | "assistant" => Speaker::Assistant,
                        _ => return None,
                    };
                    Some(ReasonMessage { role, text: text_of(&m["content"]), cut: false })
                })
                .collect(),
        ))
    }

    /// The thread re-read (C3, just before sending: the decision may have waited in the outbox or
    /// been held): the decision's own request and, for an interrupt of several, every decision of the
    /// other requests held for it, each as the server lists it now. Waits while a request listed under
    /// the interrupt has no decision held (module docs). While a run goes on the thread nothing is
    /// compared: a decision still claimed waits in the outbox (`engine_unreachable`); one no longer
    /// claimed was sent meanwhile with the decision it went with, and is not found here (the console
    /// then answers the outcome that send recorded).
    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<Prepared, Error> {
        let call = &item.call;
        let link = &self.inner.link;
        let token = link.token_or_health().await?;
        let listed = match self.listed(call.run_id.as_str(), token.as_ref()).await? {
            Thread::Busy
                if outbox::held_of_run(&link.db, link.id.as_str(), call.run_id.as_str(), |d, _| d.id == decision.id).await?.is_empty() =>
            {
                return Ok(Prepared::single(decision, item, None))
            }
            thread => thread.calls(call.run_id.as_str())?,
        };
        let mut prepared = Prepared::single(decision, item, Self::current(call, &listed));
        let count = call.suspend_payload.as_ref().and_then(|p| p["count"].as_u64()).unwrap_or(1);
        if count <= 1 {
            return Ok(prepared);
        }
        for (d, q) in self.held_with(call, decision).await? {
            let current = Self::current(&q.call, &listed);
            prepared.parts.push(Part { decision: d, item: q, current });
        }
        let interrupt = listing::interrupt_of(call);
        let undecided = listed.iter().any(|c| {
            c.run_id == call.run_id
                && listing::interrupt_of(c) == interrupt
                && !prepared.parts.iter().any(|p| p.item.call.tool_call_id == c.tool_call_id)
        });
        if undecided {
            prepared.wait = Some(format!(
                "the graph takes the answers to all {count} requests of this interrupt at once; sent when the others are decided"
            ));
        }
        Ok(prepared)
    }

    /// One resume run for every request of the interrupt checked, in the requests' order, created
    /// and not waited for; every outcome recorded in one transaction.
    async fn send(&self, checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let link = &self.inner.link;
        let call = &checked.own().call;
        let token = link.token_or_health().await?;
        let p = call.suspend_payload.clone().unwrap_or(Value::Null);
        let mut parts: Vec<(&PausedCall, &Decision, &QueuedCall)> =
            checked.parts().iter().map(|s| (&s.call, &s.decision, &s.item)).collect();
        parts.sort_by_key(|(c, _, _)| position(c));
        let mut answers = Vec::with_capacity(parts.len());
        for (c, d, _) in &parts {
            answers.push(listing::answer(c, &d.verdict)?);
        }
        let value = match p["convention"].as_str() {
            Some(listing::HITL) => listing::hitl_resume(answers),
            Some(listing::AGENT_INBOX) => listing::inbox_resume(answers, p["list"].as_bool().unwrap_or(true)),
            _ => answers.into_iter().next().unwrap_or(Value::Null),
        };
        let interrupt = listing::interrupt_of(call).to_owned();
        let body = listing::resume_command(call.agent_id.as_str(), &[(interrupt.clone(), value.clone())]);
        let run = link
            .observe(self.inner.client.resume(call.run_id.as_str(), &body, token.as_ref()).await)
            .await
            .map_err(|e| link.to_error(e))?;
        let run_id = run.get("run_id").cloned().unwrap_or(Value::Null);
        // humanInTheLoopMiddleware runs none of a step's calls when one of them is rejected: it asks
        // the model again. The approvals sent with a rejection say so.
        let rejected = p["convention"] == listing::HITL
            && parts.len() > 1
            && parts.iter().any(|(_, d, _)| matches!(d.verdict, Verdict::Decline { .. } | Verdict::Expire { .. }));
        let mut delivered = Vec::with_capacity(parts.len());
        for (c, d, q) in &parts {
            let own = c.suspend_payload.as_ref().unwrap_or(&Value::Null);
            let mut outcome = json!({
                "status": "delivered", "route": "runs", "run": run_id, "interrupt": interrupt, "resume": value,
                "requests": parts.len(),
            });
            if rejected && !matches!(d.verdict, Verdict::Decline { .. } | Verdict::Expire { .. }) {
                outcome["note"] =
                    json!("another call of this step was rejected: the middleware runs none of them and asks the model again");
            }
            if own["convention"] == listing::AGENT_INBOX && own["config"]["allow_respond"] != true {
                if let Verdict::Decline { reason: Some(_) } = &d.verdict {
                    outcome["note"] = json!(
                        "this interrupt takes no response: it was answered `ignore`, and the reason stays in the console's audit log only"
                    );
                }
            }
            delivered.push((*d, *q, outcome));
        }
        outbox::record_together(&link.db, &delivered).await?;
        Ok(json!({ "status": "delivered", "route": "runs", "run": run_id, "interrupt": interrupt, "requests": parts.len() }))
    }
}
