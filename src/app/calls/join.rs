//! One tool call, two ways in: where Claude Code's PermissionRequest (or PreToolUse) hook and its
//! channel relay both ask about the same tool call, the operator sees it once — the hook's call,
//! with the whole input — and the relay's preview-only call leaves the queue, joined into it.
//!
//! A join needs all of: the same credential submitted both (so nobody joins another's call), both
//! come from `claude-code`, both are pending, the same session (the relay's thread is the session
//! its Claude Code started it in, `CLAUDE_CODE_SESSION_ID`; the hook's is the event's
//! `session_id`), the same tool, and the relay's preview is exactly what Claude Code builds from the
//! hook's input ([`crate::domain::preview::shows`]). It joins only when exactly one call on each side
//! fits; otherwise both stay, each decided on its own. Checked after each of the two is queued (so
//! whichever comes second finds the first). The join is one transaction
//! ([`submissions::join`]), audited as the relayed call leaving the queue; the hook's call is then
//! decided as any call, through the one decision kernel — the relay follows that decision
//! ([`crate::connector::ConsoleClient::follow`]) and answers Claude Code with it as well.

use crate::app::App;
use crate::domain::audit::CallGone;
use crate::domain::{grade, Cx, Error, ItemId, ItemState, QueuedCall};
use crate::store::{audit, queue, submissions};
use serde_json::{json, Value};

/// The context mark of a relayed preview (`connector::relay`).
pub const RELAY: &str = "claude/channel/permission";

/// Whether a submitted call's context marks it as a relayed preview.
pub fn is_relayed(context: Option<&Value>) -> bool {
    context.is_some_and(|c| c.get("relay").and_then(Value::as_str) == Some(RELAY) && c.get("preview") == Some(&Value::Bool(true)))
}

/// The preview a relayed call carries.
fn preview_of(call: &QueuedCall) -> &str {
    call.call.args.get("input_preview").and_then(Value::as_str).unwrap_or("")
}

/// Whether the relayed call `relay` and the hook's call `hook` ask about the same tool call.
fn same_call(relay: &QueuedCall, hook: &QueuedCall) -> bool {
    relay.call.thread_id.is_some()
        && relay.call.thread_id == hook.call.thread_id
        && relay.call.tool_name == hook.call.tool_name
        && crate::domain::preview::shows(preview_of(relay), &hook.call.args)
}

impl App {
    /// After `queued` (submitted by `by` with `context`) went into the queue pending:
    /// joins it with its counterpart, if exactly one fits (see the module). Answers whether the
    /// relayed call of the pair is now joined (the id of the call it joined).
    pub(super) async fn join_relayed(
        &self,
        queued: &QueuedCall,
        context: Option<&Value>,
        by: &Cx<grade::Agent>,
    ) -> Result<Option<(ItemId, ItemId)>, Error> {
        let principal_key = by.principal.key();
        if !crate::engine::kinds::joins_relayed_previews(queued.call.source) || queued.call.thread_id.is_none() {
            return Ok(None);
        }
        let mut pending = queue::pending_entries(&self.db, &queued.call.engine).await?;
        // Only the session's calls are read further (their contexts, their submissions).
        pending.retain(|e| e.queued.state == ItemState::Pending && e.queued.call.thread_id == queued.call.thread_id);
        let ids: Vec<&str> = pending.iter().map(|e| e.queued.id.as_str()).collect();
        let contexts = submissions::contexts_of_items(&self.db, &ids).await?;
        let mut relayed = Vec::new();
        let mut hooks = Vec::new();
        for entry in &pending {
            let Some(submission) = submissions::find(&self.db, &entry.queued.id).await? else { continue };
            if submission.principal_key != principal_key {
                continue;
            }
            if is_relayed(contexts.get(entry.queued.id.as_str())) {
                relayed.push(&entry.queued);
            } else {
                hooks.push(&entry.queued);
            }
        }
        let (relay, hook) = if is_relayed(context) {
            let fits: Vec<_> = hooks.iter().filter(|h| same_call(queued, h)).collect();
            let [hook] = fits.as_slice() else { return Ok(None) };
            (queued, **hook)
        } else {
            let fits: Vec<_> = relayed.iter().filter(|r| same_call(r, queued)).collect();
            let [relay] = fits.as_slice() else { return Ok(None) };
            // And the relayed prompt fits no other hook call: never a guess between two.
            if hooks.iter().filter(|h| same_call(relay, h)).count() != 1 {
                return Ok(None);
            }
            (**relay, queued)
        };
        let request = contexts.get(relay.id.as_str()).or(context).and_then(|c| c.get("requestId")).cloned().unwrap_or(Value::Null);
        let why = format!("joined into call {}: the hook's call for the same tool call, with its whole input", hook.id);
        let actor = format!("agent:{}", by.audit_name());
        let record = audit::Record::of(
            &actor,
            Some((relay.id.as_str(), &relay.call.tool_name, relay.call.fingerprint.as_str())),
            &CallGone::of(&relay.call, &why),
        );
        let channel = json!({ "relay": RELAY, "requestId": request, "joined": relay.id.as_str() });
        if !submissions::join(&self.db, &relay.id, &hook.id, channel, record).await? {
            return Ok(None);
        }
        tracing::info!(relay = %relay.id, hook = %hook.id, "a relayed prompt joined the hook's call");
        Ok(Some((relay.id.clone(), hook.id.clone())))
    }
}
