//! Calls that agents submit themselves (`POST /api/calls`), for agents without a connector: the
//! call is queued like any paused call (fingerprint, grants, expiry, quorum, notifications, audit),
//! and the agent waits for the decision (`GET /api/calls/{id}?waitSecs=`), or withdraws it when it
//! stops waiting. An idempotency key makes a retry find the call it queued, never queue it twice.

mod join;

pub use join::{is_relayed, RELAY};

use super::App;
use crate::domain::audit::CallGone;
use crate::domain::audit::PauseOrigin;
use crate::domain::{grade, Cx};
use crate::domain::{
    AgentId, CallKind, CallSource, EngineId, Error, Fingerprint, ItemId, ItemState, PauseKind, PauseReason, PausedCall, RunId, ToolCallId,
    Verdict,
};
use crate::engine::kinds;
use crate::store::submissions::{self, NewSubmission, Submitted};
use crate::store::{audit, queue};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::Duration;

/// The longest a wait for a decision holds one request (a client waits longer by asking again).
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// Most bytes of a submission's `context` (as JSON): room for a hook's file before an edit
/// ([`crate::hook::MAX_FILE_JSON`]) and its transcript's tail.
pub const CONTEXT_LIMIT: usize = 512 * 1024;

/// A call an agent asks an operator about.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewCall {
    /// The tool the agent wants to run (1–200 characters).
    pub tool: String,
    /// Its arguments, exactly as it would run them; the fingerprint is over `tool` and `args`.
    pub args: Value,
    /// Which agent asks (1–200 characters): shown to the operator, and a filter of the queue.
    pub agent: String,
    /// The conversation or session the call belongs to, if any (1–200 characters).
    #[serde(default)]
    pub thread: Option<String>,
    /// A call that waits for data rather than a yes or no: the JSON Schema the operator's answer
    /// must meet (`resume` decisions). Without it, the call is approved or declined.
    #[serde(default)]
    pub resume_schema: Option<Value>,
    /// With `resumeSchema`: what the agent asks or shows the operator (its `question`, if it is an
    /// object with one, is the question shown).
    #[serde(default)]
    pub payload: Option<Value>,
    /// Where it comes from: a source of submitted calls, `http` (the default), `claude-code`,
    /// `codex`, `mcp` or `acp`; the hooks, the MCP gate and the ACP relay say theirs.
    #[serde(default)]
    pub source: Option<CallSource>,
    /// What the agent says around the call (a working directory, the event that asked): shown,
    /// never part of the fingerprint; a JSON object of at most 16 KiB.
    #[serde(default)]
    pub context: Option<Value>,
}

/// A submitted call as queued.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubmittedCall {
    pub id: String,
    #[schema(value_type = String)]
    pub fingerprint: Fingerprint,
    pub source: CallSource,
    /// False when the idempotency key found the call an earlier request queued.
    pub created: bool,
    /// Where it stands now (also for a retry that found a call decided meanwhile).
    pub status: CallStatus,
}

/// Where a submitted call stands, as its agent needs to know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Nobody decided yet: ask again.
    #[default]
    Pending,
    /// Run it, with `args` (the operator's edit when `edited`).
    Approved,
    /// Do not run it; `reason` says why (`expired` when nobody decided in time).
    Declined,
    /// The operator answered a call that waits for data: `data`.
    Answered,
    /// It no longer waits: withdrawn by the agent, or ended otherwise. Do not run it.
    Withdrawn,
}

/// A submitted call's decision, as its agent gets it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallStatus {
    pub id: String,
    pub outcome: Outcome,
    /// `approved`: the arguments to run the tool with — the submitted ones, or the operator's edit.
    #[schema(required = true)]
    pub args: Option<Value>,
    /// `approved`: whether the operator changed the arguments (then `args` has their fingerprint
    /// `editedFingerprint`).
    pub edited: bool,
    #[schema(value_type = Option<String>, required = true)]
    pub edited_fingerprint: Option<Fingerprint>,
    /// `declined`: what the operator said, if anything.
    #[schema(required = true)]
    pub reason: Option<String>,
    /// `declined`: nobody decided within the tool's time limit.
    pub expired: bool,
    /// `answered`: the operator's data, valid against the call's `resumeSchema`.
    #[schema(required = true)]
    pub data: Option<Value>,
    /// Once decided: the decision's signed receipt (a JWS, docs/receipts.md), to check before the
    /// tool runs against `/.well-known/jwks.json` and the arguments about to run.
    #[schema(required = true)]
    pub receipt: Option<String>,
    /// `withdrawn`: the call was joined into this one — the same tool call, asked about by another
    /// of the same credential's connectors with its whole input (Claude Code's hook, for its
    /// channel relay's preview): its decision is the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined_into: Option<String>,
}

impl App {
    /// Queues `call` for `by` (an agent credential, or better), under `idempotency_key` if given:
    /// the same key with the same request finds the call queued the first time (`created` false);
    /// with another request it is `idempotency_key_reused`.
    pub async fn submit_call(&self, call: NewCall, idempotency_key: Option<&str>, by: &Cx<grade::Agent>) -> Result<SubmittedCall, Error> {
        self.submit_call_checked(call, idempotency_key, by, None).await
    }

    /// [`App::submit_call`]; `found`: the grant the check before the transaction found, instead of
    /// asking (tests: a grant revoked between that check and the commit).
    pub(crate) async fn submit_call_checked(
        &self,
        call: NewCall,
        idempotency_key: Option<&str>,
        by: &Cx<grade::Agent>,
        found: Option<crate::domain::grant::Grant>,
    ) -> Result<SubmittedCall, Error> {
        let mut paused = checked(&call)?;
        let source = paused.source;
        paused.agent_id = self.claimed_agent(&call, source, by).await?;
        paused.requested_by = Some(by.principal.key());
        let request_hash = {
            // The context is what the agent saw around the call (its working directory, the file
            // before an edit, its transcript's tail): it may change between a hook's retries of the
            // same call, so it is not part of the request an idempotency key names.
            let asked = NewCall { context: None, ..call.clone() };
            let canonical = crate::domain::canonical_json(&serde_json::to_value(&asked).expect("a call serializes"))
                .map_err(|e| Error::InvalidRequest(format!("the call cannot be read as JSON: {e}")))?;
            format!("sha256:{}", hex::encode(Sha256::digest(canonical.as_bytes())))
        };
        let key = match idempotency_key {
            Some(k) => {
                let k = k.trim();
                if k.is_empty() || k.len() > 200 || k.chars().any(char::is_control) {
                    return Err(Error::InvalidRequest("Idempotency-Key: 1–200 characters, none of them control characters".into()));
                }
                k.to_owned()
            }
            None => format!("auto:{}", paused.run_id),
        };
        let principal_key = by.principal.key();
        // The file's text goes apart, kept while the call waits; the context stored and audited
        // has its path, size and hash.
        let sealed = crate::domain::context::seal(call.context);
        let origin = PauseOrigin::Submitted { source: source.as_str(), submitted_by: &principal_key, context: &sealed.context };
        let submission = NewSubmission {
            principal_key: &principal_key,
            idempotency_key: &key,
            request_hash: &request_hash,
            context: &sealed.context,
            file_text: sealed.file_text.as_deref(),
        };
        // A call a grant covers is stored approved with it (through the decision kernel), so its agent
        // (a hook) has the approval in this answer instead of through a poll.
        let grant = match found {
            Some(grant) => Some(grant),
            None => self.console.grant_for_new(&paused, sealed.context.as_ref()).await?,
        };
        match self.console.submit(&format!("agent:{}", by.audit_name()), &paused, origin, &submission, grant.as_ref()).await? {
            Submitted::Queued { item, granted } => {
                // As committed: pending, or approved by the grant (an operator's decision since then
                // is the poll's to tell).
                let entry = queue::Entry { queued: *item, decision: granted.map(|d| *d) };
                let mut status = status_of(&entry);
                let id = entry.queued.id.to_string();
                if entry.decision.is_none() {
                    if let Some((relayed, into)) = self.join_relayed(&entry.queued, sealed.context.as_ref(), by).await? {
                        if relayed == entry.queued.id {
                            status.outcome = Outcome::Withdrawn;
                            status.joined_into = Some(into.to_string());
                        }
                    }
                }
                if let (Some(grant), Some(decision)) = (&grant, entry.decision) {
                    self.console.deliver_granted_later(grant, decision, entry.queued);
                }
                Ok(SubmittedCall { id, fingerprint: paused.fingerprint, source, created: true, status })
            }
            Submitted::Earlier(entry) => {
                let mut status = status_of(&entry);
                if status.outcome == Outcome::Withdrawn {
                    // A relay asking again for its prompt, joined meanwhile: where its answer is.
                    status.joined_into = self.submitted(&entry.queued.id, by).await?.1;
                }
                Ok(SubmittedCall {
                    id: entry.queued.id.to_string(),
                    fingerprint: entry.queued.call.fingerprint.clone(),
                    source,
                    created: false,
                    status,
                })
            }
            Submitted::KeyReused(item) => Err(Error::IdempotencyKeyReused { key, item: item.to_string() }),
        }
    }

    /// The agent a submitted call is queued under: what the credential may claim, never merely what
    /// it says. A credential listed with agent names (`tokens add NAME --agent A`) may claim only
    /// those; one without such a list submits as itself (its own name, whatever the call says). A
    /// credential listed with sources may claim only those. The local admin claims what it says.
    async fn claimed_agent(&self, call: &NewCall, source: CallSource, by: &Cx<grade::Agent>) -> Result<AgentId, Error> {
        let claimed = call.agent.trim();
        let Some(name) = by.token_name() else { return Ok(AgentId::new(claimed)) };
        let credential = crate::store::credentials::find_by_name(&self.db, name)
            .await?
            // Revoked between its check and here: as good as an unknown token.
            .ok_or_else(|| Error::not_found(format!("credential {name:?}")))?;
        if let Some(sources) = &credential.sources {
            if !sources.iter().any(|s| s == source.as_str()) {
                return Err(Error::ClaimNotAllowed {
                    credential: credential.name,
                    what: "source",
                    claimed: source.as_str().to_owned(),
                    allowed: sources.clone(),
                });
            }
        }
        match &credential.agents {
            None => Ok(AgentId::new(&credential.name)),
            Some(agents) if agents.iter().any(|a| a == claimed) => Ok(AgentId::new(claimed)),
            Some(agents) => Err(Error::ClaimNotAllowed {
                credential: credential.name,
                what: "agent",
                claimed: claimed.to_owned(),
                allowed: agents.clone(),
            }),
        }
    }

    /// Where submitted call `id` stands; with `wait`, holds the request until it is decided or
    /// `wait` (at most [`MAX_WAIT`]) passes. An agent sees only the calls it submitted (another's
    /// is `not_found`); operators see any.
    pub async fn call_status(&self, id: &str, wait: Duration, by: &Cx<grade::Agent>) -> Result<CallStatus, Error> {
        let id = ItemId::new(id);
        // Listen before reading: a decision between the read and the wait is not missed.
        let mut events = self.events.subscribe();
        let (mut entry, mut joined) = self.submitted(&id, by).await?;
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        while entry.queued.state == ItemState::Pending {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => break,
                Ok(Ok(e)) if e.id != id => continue,
                // Our call changed, or events were missed (lagged) or the feed stopped: read again.
                Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => {
                    tokio::time::sleep_until(deadline).await;
                }
            }
            entry = self.console.item(&id).await?;
        }
        if entry.queued.state == ItemState::Gone && joined.is_none() {
            // Joined while this request waited: the join and the state change commit together.
            joined = self.submitted(&id, by).await?.1;
        }
        let mut status = status_of(&entry);
        if status.outcome == Outcome::Withdrawn {
            status.joined_into = joined;
        }
        Ok(status)
    }

    /// The agent stopped waiting for submitted call `id` (a hook's timeout): it leaves the queue as
    /// `gone`, audited, so nobody approves what will not run. A call decided already is
    /// `already_decided`; its decision stands (read it with [`App::call_status`]).
    pub async fn withdraw_call(&self, id: &str, by: &Cx<grade::Agent>) -> Result<CallStatus, Error> {
        let id = ItemId::new(id);
        let entry = self.submitted_entry(&id, by).await?;
        let actor = format!("agent:{}", by.audit_name());
        let record = audit::Record::of(
            &actor,
            Some((id.as_str(), &entry.queued.call.tool_name, entry.queued.call.fingerprint.as_str())),
            &CallGone::of(&entry.queued.call, "the agent withdrew the call: it stopped waiting for a decision"),
        );
        if !queue::end_pending(&self.db, &id, record).await? {
            let now = self.console.item(&id).await?;
            return Err(Error::AlreadyDecided { state: now.queued.state });
        }
        Ok(status_of(&self.console.item(&id).await?))
    }

    async fn submitted_entry(&self, id: &ItemId, by: &Cx<grade::Agent>) -> Result<queue::Entry, Error> {
        self.submitted(id, by).await.map(|(entry, _)| entry)
    }

    /// [`submitted_entry`](Self::submitted_entry), with the call it was joined into, if it was.
    async fn submitted(&self, id: &ItemId, by: &Cx<grade::Agent>) -> Result<(queue::Entry, Option<String>), Error> {
        let submission = submissions::find(&self.db, id).await?;
        let hidden = match &submission {
            None => true,
            Some(s) => !by.scope().covers(Some(&s.principal_key)),
        };
        if hidden {
            return Err(Error::not_found(format!("submitted call {id}")));
        }
        let joined = submission.and_then(|s| s.context?.get("joinedInto")?.as_str().map(str::to_owned));
        Ok((self.console.item(id).await?, joined))
    }
}

/// The queue call a submission stands for, or why it is refused.
fn checked(call: &NewCall) -> Result<PausedCall, Error> {
    let text = |what: &str, value: &str| -> Result<(), Error> {
        if value.trim().is_empty() || value.chars().count() > 200 || value.chars().any(char::is_control) {
            return Err(Error::InvalidRequest(format!("{what}: 1–200 characters, none of them control characters")));
        }
        Ok(())
    };
    text("tool", &call.tool)?;
    text("agent", &call.agent)?;
    if let Some(thread) = &call.thread {
        text("thread", thread)?;
    }
    if let Some(context) = &call.context {
        if !context.is_object() {
            return Err(Error::InvalidRequest("context: a JSON object".into()));
        }
        if context.to_string().len() > CONTEXT_LIMIT {
            return Err(Error::InvalidRequest(format!("context: at most {CONTEXT_LIMIT} bytes of JSON")));
        }
    }
    if call.payload.is_some() && call.resume_schema.is_none() {
        return Err(Error::InvalidRequest("payload goes with resumeSchema: a call that waits for data".into()));
    }
    if let Some(schema) = &call.resume_schema {
        if !schema.is_object() && !schema.is_boolean() {
            return Err(Error::InvalidRequest("resumeSchema: a JSON Schema (an object)".into()));
        }
        jsonschema::validator_for(schema).map_err(|e| Error::InvalidRequest(format!("resumeSchema is not a usable JSON Schema: {e}")))?;
    }
    // What a `Value` still tells (its integers; the HTTP route judged the text's decimals too):
    // never two different arguments with one fingerprint.
    let paths = crate::domain::inexact_numbers(&call.args);
    if !paths.is_empty() {
        return Err(Error::InexactNumbers { paths });
    }
    let fingerprint =
        Fingerprint::of(&call.tool, &call.args).map_err(|e| Error::InvalidRequest(format!("args cannot be fingerprinted: {e}")))?;
    let suspend = call.resume_schema.is_some();
    let source = match call.source {
        None => CallSource::Http,
        Some(s) if kinds::is_submitted(s) => s,
        Some(s) => {
            return Err(Error::InvalidRequest(format!("source {:?}: use {}", s.as_str(), kinds::names(kinds::submitted()))));
        }
    };
    Ok(PausedCall {
        engine: EngineId::new(source.as_str()),
        source,
        agent_id: AgentId::new(call.agent.trim()),
        agent_name: None,
        thread_id: call.thread.clone(),
        resource_id: None,
        run_id: RunId::new(format!("sub_{}", uuid::Uuid::now_v7().simple())),
        tool_call_id: ToolCallId::new("call"),
        tool_name: call.tool.clone(),
        args: call.args.clone(),
        fingerprint,
        kind: if suspend { CallKind::Suspend } else { CallKind::Approval },
        suspend_payload: call.payload.clone(),
        resume_schema: call.resume_schema.clone(),
        chain: vec![],
        pause_reason: Some(PauseReason::of(PauseKind::Submitted)),
        requested_by: None,
    })
}

/// What a queue entry means to the agent that submitted it.
fn status_of(entry: &queue::Entry) -> CallStatus {
    let mut s = CallStatus {
        id: entry.queued.id.to_string(),
        receipt: entry.decision.as_ref().and_then(|d| d.receipt.clone()),
        ..Default::default()
    };
    match (&entry.decision, entry.queued.state) {
        (Some(d), _) => match &d.verdict {
            Verdict::Approve => {
                s.outcome = Outcome::Approved;
                s.args = Some(entry.queued.call.args.clone());
            }
            Verdict::ApproveEdited { args, fingerprint } => {
                s.outcome = Outcome::Approved;
                s.args = Some(args.clone());
                s.edited = true;
                s.edited_fingerprint = Some(fingerprint.clone());
            }
            Verdict::Decline { reason } => {
                s.outcome = Outcome::Declined;
                s.reason = reason.clone();
            }
            Verdict::Expire { after_secs } => {
                s.outcome = Outcome::Declined;
                s.expired = true;
                s.reason = Some(format!("nobody decided within {after_secs} s"));
            }
            Verdict::Resume { data } => {
                s.outcome = Outcome::Answered;
                s.data = Some(data.clone());
            }
        },
        (None, ItemState::Pending | ItemState::Decided) => {}
        (None, _) => s.outcome = Outcome::Withdrawn,
    }
    s
}
