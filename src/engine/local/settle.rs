//! An interrupted call settled by the operator (issue 15): the console stopped while its tool ran, so
//! the run's snapshot still shows the call waiting. The operator's word (it ran, with a result; it
//! did not run) becomes the call's result, written with the resolution in one transaction, and the
//! run goes on from there as after any delivered decision. Nothing runs here: running the call again
//! is an approval of a new entry, delivered as any other.

use super::*;

impl LocalEngine {
    pub(super) async fn settle_locked(
        &self,
        item: &QueuedCall,
        result: Value,
        resolution: &crate::store::resolutions::Stored,
    ) -> Result<Option<super::deliver::GoOn>, Error> {
        let (mut state, agent, index) = self.waiting_call(item).await?;
        if matches!(state.calls[index].status, CallStatus::Delegated { .. }) {
            return Err(Error::InvalidRequest(format!(
                "tool call {} ran in a sub-agent's run: resolving it is not supported yet; decline the run's other calls or start it again",
                item.call.tool_call_id
            )));
        }
        state.calls[index].status = CallStatus::Done { result };
        state.calls[index].queued = false;
        let all_done = !state.calls.iter().any(StepCall::paused);
        let body = serde_json::to_string(&state).expect("run state serializes");
        runs::record_resolution_and_step(&self.inner.db, item, resolution, &body, all_done).await?;
        Ok(all_done.then_some(super::deliver::GoOn { agent, state }))
    }
}
