//! What a queued call needs before it runs, as the settings are now ([`Care`]): its risk — from its
//! arguments, what its source sent with it (the working directory, an MCP server's annotations),
//! the settings' high-risk tools and the operators' risk rules — and its quorum. Every place that enforces them asks here: the decision path (quorums), grants (none
//! for a high-risk call or one under a quorum), notifications (no Approve for a high-risk call), the
//! engine-client routes (none either) and the queue items shown.

use super::Console;
use crate::domain::risk::custom::RiskRules;
use crate::domain::safety::{Care, QuorumSettings, Rules, SafetySettings};
use crate::domain::{Error, ItemId, PausedCall, QueuedCall};
use crate::store::settings::Snapshot;
use serde_json::Value;

impl Console {
    /// The call's care now (one read of the settings, one of its submission's context when it was
    /// submitted).
    pub async fn care(&self, q: &QueuedCall) -> Result<Care, Error> {
        let settings = crate::store::settings::snapshot(&self.db).await?;
        let context = self.context_of(&q.id, &q.call).await?;
        care_in(&q.call, context.as_ref(), &settings)
    }

    /// What the call's source sent with it (a hook's `cwd`, the MCP gate's `annotations`), if any.
    pub(crate) async fn context_of(&self, id: &ItemId, call: &PausedCall) -> Result<Option<Value>, Error> {
        if !crate::engine::kinds::is_submitted(call.source) {
            return Ok(None);
        }
        let mut contexts = crate::store::submissions::contexts_of_items(&self.db, &[id.as_str()]).await?;
        Ok(contexts.remove(id.as_str()))
    }
}

/// The call's care under `settings`, read once by the caller.
pub fn care_in(call: &PausedCall, context: Option<&Value>, settings: &Snapshot) -> Result<Care, Error> {
    let (safety, quorums, risk) = (settings.get::<SafetySettings>()?, settings.get::<QuorumSettings>()?, settings.get::<RiskRules>()?);
    Ok(Care::of(&call.tool_name, &call.args, context, Rules { safety: &safety, quorums: &quorums, risk: &risk }))
}

/// The working directory in a submitted call's context.
pub fn cwd_in(context: &Value) -> Option<&str> {
    context.get("cwd").and_then(Value::as_str)
}
