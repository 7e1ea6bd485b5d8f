//! AG-UI engines' endpoints: a frontend's run relayed to the agent through the console, so that the
//! interrupts it ends with are queued ([`crate::engine::agui`]).

use super::App;
use crate::domain::{grade, Cx, Error};
use crate::engine::agui::{relay::Opened, AgUiEngine};
use serde_json::Value;

impl App {
    /// Starts `input` (a RunAgentInput) at the AG-UI engine `engine`'s agent: the run's stream, to
    /// be relayed ([`Opened::relay`]). `not_found` for an unknown engine; `invalid_request` for an
    /// engine of another kind, an input that is not a run, or one that answers interrupts (only the
    /// console resumes the runs it holds).
    pub async fn agui_open(&self, by: &Cx<grade::Agent>, engine: &str, input: Value) -> Result<Opened, Error> {
        let live = self.remotes.get(engine).ok_or_else(|| Error::not_found(format!("engine {engine:?}")))?;
        let opened = AgUiEngine::open(live.link(), live.base_url(), input, Some(by.principal.key())).await?;
        // Queued at once: the engine's listing reads the stored runs, so a sync now finds them.
        Ok(opened.when_stored(move || live.sync_soon()))
    }
}
