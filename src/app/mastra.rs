//! The local engine as the Mastra-shaped routes use it (`api::mastra` only translates HTTP): its
//! agents, new runs, the suspended runs a principal may see, the pending call a route names, and
//! decisions taken there — through the console like any other, with the stored fingerprint (a client
//! of these routes shows the call on its own screen), by an operator, never approving a high-risk
//! tool or one with a quorum (the two-person rule).

use super::App;
use crate::console::{Ask, Decider, How, Target};
use crate::domain::{grade, Cx, Decision, Error, ItemState, RunId, Verdict};
use crate::engine::local::agent::Agent;
use crate::engine::local::SuspendedRun;
use crate::engine::ChunkSink;
use crate::store::queue;
use std::sync::Arc;

impl App {
    /// The local engine's agents.
    pub fn local_agents(&self, _by: &Cx<grade::Agent>) -> Result<Vec<Arc<Agent>>, Error> {
        Ok(self.local.agents().cloned().collect())
    }

    /// One local agent; `not_found` for an unknown id.
    pub fn local_agent(&self, id: &str, _by: &Cx<grade::Agent>) -> Result<Arc<Agent>, Error> {
        self.local.agent(id).ok_or_else(|| Error::not_found(format!("agent {id:?}")))
    }

    /// Refuses a run id a new run cannot take (`run_exists`, `invalid_request`).
    pub async fn check_new_run_id(&self, run_id: &crate::engine::local::StartId) -> Result<(), Error> {
        self.local.check_new_run_id(run_id).await
    }

    /// The suspended runs of `agent` (S12) that `by` may see: an agent credential only the runs it
    /// started, an operator every run.
    pub async fn suspended_runs_for(
        &self,
        by: &Cx<grade::Agent>,
        agent: &str,
        thread: Option<&str>,
        resource: Option<&str>,
    ) -> Result<Vec<SuspendedRun>, Error> {
        let runs = self.local.suspended_runs(&crate::domain::AgentId::new(agent), thread, resource).await?;
        let scope = by.scope();
        Ok(runs.into_iter().filter(|r| scope.covers(r.started_by.as_deref())).collect())
    }

    /// The pending call of `agent`'s run that a route names (S6: never another call; without a call
    /// id the most recently suspended one); a call of another agent is not found, a decided one is
    /// `already_decided`.
    pub async fn pending_call(&self, agent: &str, run_id: &RunId, tool_call_id: Option<&str>) -> Result<queue::Entry, Error> {
        let any = match queue::run_call(&self.db, self.local.engine_id(), agent, run_id, tool_call_id).await? {
            queue::RunCall::Pending(entry) => return Ok(*entry),
            queue::RunCall::Listed(entries) => entries,
        };
        match any.iter().find(|e| tool_call_id.is_none_or(|id| e.queued.call.tool_call_id.as_str() == id)) {
            Some(e) => Err(Error::AlreadyDecided { state: e.queued.state }),
            None => Err(Error::not_found(format!("a suspended call {} in run {run_id}", tool_call_id.unwrap_or("(any)")))),
        }
    }

    /// The one pending call of a thread and resource (S12 `send_tool_approval`); several need
    /// `tool_call_id` to say which.
    pub async fn pending_call_of_thread(
        &self,
        agent: &str,
        thread: &str,
        resource: &str,
        tool_call_id: Option<&str>,
    ) -> Result<queue::Entry, Error> {
        let filter = queue::Filter {
            state: Some(ItemState::Pending),
            engine: Some(self.local.engine_id().to_string()),
            agent: Some(agent.to_owned()),
            thread: Some(thread.to_owned()),
            ..Default::default()
        };
        let page = queue::page(&self.db, &filter, None, 500).await?;
        let mut waiting: Vec<queue::Entry> =
            page.entries.into_iter().filter(|e| e.queued.call.resource_id.as_deref() == Some(resource)).collect();
        if let Some(id) = tool_call_id {
            waiting.retain(|e| e.queued.call.tool_call_id.as_str() == id);
        }
        match waiting.len() {
            0 => Err(Error::not_found(format!("a suspended call in thread {thread:?} of resource {resource:?}"))),
            1 => Ok(waiting.remove(0)),
            n => Err(Error::InvalidRequest(format!("{n} calls wait in this thread: say which with toolCallId"))),
        }
    }

    /// A decision through a Mastra-shaped route, by an operator (an app with its own approval screen):
    /// through the decision kernel as a decider without the console's confirm step, so never the
    /// approval of a high-risk call, nor one that only counts towards a quorum (these routes answer
    /// with the run going on). Stored claimed, for the caller to deliver
    /// ([`App::deliver_engine_client_decision`]), or delivered in the background (`background`).
    /// Answers the decision, with its receipt.
    pub async fn decide_as_engine_client(
        &self,
        by: &Cx<grade::Operator>,
        entry: &queue::Entry,
        verdict: Verdict,
        background: bool,
    ) -> Result<Decision, Error> {
        let decider = Decider::engine_client(by);
        let ask = Ask::Verdict { verdict, fingerprint: entry.queued.call.fingerprint.clone() };
        if !background {
            return self.console.decide_whole(&decider, Target::Entry(Box::new(entry.clone())), ask, How::Claimed).await;
        }
        let decision = self.console.decide_whole(&decider, Target::Entry(Box::new(entry.clone())), ask, How::Outbox).await?;
        {
            let (console, decision) = (self.console.clone(), decision.clone());
            tokio::spawn(async move {
                if let Err(e) = console.deliver(&decision, None).await {
                    tracing::warn!("delivery after an engine client's decision failed: {e}");
                }
            });
        }
        Ok(decision)
    }

    /// Delivers a decision [`App::decide_as_engine_client`] stored claimed (not in the background),
    /// the run's chunks going to `sink`.
    pub async fn deliver_engine_client_decision(
        &self,
        decision: &Decision,
        entry: &queue::Entry,
        sink: Option<ChunkSink>,
    ) -> Result<(), Error> {
        self.console.deliver_claimed_call(decision, &entry.queued, sink).await.map(|_| ())
    }
}
