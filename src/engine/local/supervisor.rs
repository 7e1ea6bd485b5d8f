//! Supervisors (S13): a sub-agent driven as a child run, a pause anywhere below surfaced on the top
//! run, and a decision taken there travelling down the chain.

use super::*;

impl LocalEngine {
    /// S13: drives sub-agent `key` on the call's prompt in a child run; its answer is the call's result,
    /// or the call waits on the child's pause.
    pub(super) async fn delegate(&self, parent: &RunState, call_id: &str, key: &AgentId, args: &Value) -> CallStatus {
        let Some(child_agent) = self.agent(key.as_str()) else {
            return CallStatus::Done { result: json!(format!("Sub-agent {key} not found")) };
        };
        if parent.run_id.as_str().matches('/').count() >= MAX_DEPTH {
            return CallStatus::Done { result: json!(format!("Sub-agent {key} not run: the supervisor chain is deeper than {MAX_DEPTH}")) };
        }
        let prompt = args["prompt"].as_str().map(str::to_owned).unwrap_or_else(|| args.to_string());
        let child_id = RunId::new(format!("{}/{call_id}", parent.run_id));
        let top = parent.parent.as_ref().map(|p| p.top.clone()).unwrap_or_else(|| parent.run_id.clone());
        let mut child = RunState {
            run_id: child_id.clone(),
            agent_id: child_agent.id.clone(),
            thread_id: None,
            resource_id: None,
            options: parent.options.clone(),
            messages: vec![Message::System { content: child_agent.instructions.clone() }, Message::User { content: prompt }],
            history: 0,
            step: 0,
            calls: vec![],
            parent: Some(ParentLink { run_id: parent.run_id.clone(), tool_call_id: call_id.to_owned(), top }),
            started_by: parent.started_by.clone(),
            stored: false,
        };
        match Box::pin(self.drive(&child_agent, &mut child, &Emit::default())).await {
            Ok(Outcome::Finished(text)) => CallStatus::Done { result: json!(text) },
            Ok(Outcome::Paused) => CallStatus::Delegated { child: child_id },
            Err(e) => CallStatus::Done { result: json!(format!("Sub-agent {key} failed: {e}")) },
        }
    }

    /// The chain from a paused call down to the call that really waits (itself, unless delegated):
    /// each level's agent, run state and call index, top first.
    pub(super) async fn chain_of(
        &self,
        agent: &Agent,
        state: &RunState,
        index: usize,
    ) -> Result<Vec<(Arc<Agent>, RunState, usize)>, Error> {
        let mut path = vec![(self.require_agent(agent.id.as_str())?, state.clone(), index)];
        while let CallStatus::Delegated { child } = &path.last().expect("not empty").1.calls[path.last().expect("not empty").2].status {
            let (child_state, _) = self.load(child).await?;
            let child_agent = self.require_agent(child_state.agent_id.as_str())?;
            let i = child_state
                .calls
                .iter()
                .position(StepCall::paused)
                .ok_or_else(|| Error::Storage(format!("run {child} is delegated to but waits on nothing")))?;
            path.push((child_agent, child_state, i));
        }
        Ok(path)
    }

    /// S13: a decision on a pause inside sub-agents travels down the chain to the waiting call, then
    /// each finished child's answer travels up as its supervisor's tool result, up to the top run.
    pub(super) async fn deliver_nested(
        &self,
        decision: &Decision,
        item: &QueuedCall,
        agent: &Arc<Agent>,
        state: RunState,
        index: usize,
        emit: &Emit,
    ) -> Result<(Value, Option<super::deliver::GoOn>), Error> {
        let mut path = self.chain_of(agent, &state, index).await?;
        let last = path.len() - 1;
        let (status, outcome) = {
            let (leaf_agent, leaf_state, leaf_index) = &path[last];
            self.apply(decision, leaf_agent, leaf_state, &leaf_state.calls[*leaf_index]).await?
        };
        {
            let (_, leaf_state, leaf_index) = &mut path[last];
            leaf_state.calls[*leaf_index].status = status;
            if let Verdict::ApproveEdited { args, .. } = &decision.verdict {
                leaf_state.calls[*leaf_index].args = args.clone();
            }
        }
        let leaf_body = serde_json::to_string(&path[last].1).expect("run state serializes");
        runs::record_nested_delivery(&self.inner.db, decision, item, &outcome, &path[last].1.run_id, &leaf_body).await?;

        // Up the chain, as far as runs can go on.
        let mut level = last;
        loop {
            if path[level].1.calls.iter().any(StepCall::paused) {
                if level != last {
                    let body = serde_json::to_string(&path[level].1).expect("run state serializes");
                    runs::save(&self.inner.db, &path[level].1.run_id, &body).await?;
                }
                break;
            }
            if level == 0 {
                let (top_agent, top_state, _) = path.swap_remove(0);
                // The top call's answer is stored with the claim: its children's snapshots are gone.
                let body = serde_json::to_string(&top_state).expect("run state serializes");
                runs::save_step(&self.inner.db, &top_state.run_id, &body).await?;
                return Ok((outcome, Some(super::deliver::GoOn { agent: top_agent, state: top_state })));
            }
            let (child_agent, child_state, _) = &mut path[level];
            let child_agent = child_agent.clone();
            match Box::pin(self.drive(&child_agent, child_state, &Emit::default())).await {
                Ok(Outcome::Finished(text)) => {
                    let (_, parent_state, parent_index) = &mut path[level - 1];
                    parent_state.calls[*parent_index].status = CallStatus::Done { result: json!(text) };
                    if level - 1 == 0 {
                        let c = &parent_state.calls[*parent_index];
                        let proposed =
                            ProposedCall { tool_call_id: c.tool_call_id.clone(), tool_name: c.tool_name.clone(), args: c.args.clone() };
                        emit.send(tool_result_chunk(&parent_state.run_id, &proposed, &json!(text)));
                    }
                    level -= 1;
                }
                Ok(Outcome::Paused) => break,
                Err(e) => {
                    let (_, parent_state, parent_index) = &mut path[level - 1];
                    parent_state.calls[*parent_index].status = CallStatus::Done { result: json!(format!("Sub-agent failed: {e}")) };
                    level -= 1;
                }
            }
        }
        // The chain still waits somewhere below the top: surface what waits now.
        let (top_agent, top_state, top_index) = &mut path[0];
        top_state.calls[*top_index].queued = false;
        let agent = top_agent.clone();
        self.suspend(&agent, top_state, emit).await?;
        Ok((outcome, None))
    }
}
