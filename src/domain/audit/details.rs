//! What each audit action records: one type per action (or per family of actions, whose value
//! says which), serialized once. The store writes an entry only from one of these
//! (`store::audit::Record::of`), so an action cannot be paired with another's details, and each
//! action's keys are written in this one file.

use super::AuditAction;
use crate::domain::{
    AgentId, Approval, CallSource, DecisionId, DecisionKind, EngineId, Fingerprint, ItemId, PausedCall, Role, RunId, ToolCallId, Verdict,
};
use serde::Serialize;
use serde_json::Value;

/// The details of audit entries, typed: the value names its action.
pub trait Details: Serialize {
    fn action(&self) -> AuditAction;
}

/// `grant.created`: the grant as made, and how many waiting calls it approved at once.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantCreated<'a, G: Serialize> {
    pub grant: &'a G,
    pub approves_waiting: u64,
}

impl<G: Serialize> Details for GrantCreated<'_, G> {
    fn action(&self) -> AuditAction {
        AuditAction::GrantCreated
    }
}

/// `grant.revoked`: which grant, and how many calls it had approved.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRevoked<'a> {
    pub grant_id: &'a str,
    pub uses: u64,
}

impl Details for GrantRevoked<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::GrantRevoked
    }
}

/// `grant.rule_removed`: revoking `grant_id` took `rule` (as the grants view lists it) of `agent` out
/// of `file`, after copying the file to `backup`; never the file's contents.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRuleRemoved<'a> {
    pub grant_id: &'a str,
    pub agent: &'a str,
    pub rule: &'a str,
    pub file: &'a str,
    pub backup: &'a str,
}

impl Details for GrantRuleRemoved<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::GrantRuleRemoved
    }
}

/// `grant.used`: the grant that approved a call, the decision it made, the arguments approved, and
/// the rule its answer writes back to the call's agent, if any, with its scope and where the agent
/// keeps it (issue 47).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantUsed<'a> {
    pub grant_id: &'a str,
    pub decision_id: &'a str,
    pub args: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_rule: Option<&'a crate::domain::session_rule::AgentRule>,
}

impl Details for GrantUsed<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::GrantUsed
    }
}

/// `call.snoozed`: the call's deadline before and after (RFC 3339).
#[derive(Clone, Debug, Serialize)]
pub struct CallSnoozed<T: Serialize> {
    pub from: T,
    pub until: T,
}

impl<T: Serialize> Details for CallSnoozed<T> {
    fn action(&self) -> AuditAction {
        AuditAction::CallSnoozed
    }
}

/// `call.gone`: a pending call that no longer waits — its run ended at its engine, or the agent
/// that submitted it withdrew it — and why.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallGone<'a> {
    pub run_id: &'a RunId,
    pub tool_call_id: &'a ToolCallId,
    pub why: &'a str,
}

impl<'a> CallGone<'a> {
    pub fn of(call: &'a PausedCall, why: &'a str) -> Self {
        Self { run_id: &call.run_id, tool_call_id: &call.tool_call_id, why }
    }
}

impl Details for CallGone<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::CallGone
    }
}

/// A call's arguments at one moment, as `call.changed` records them.
#[derive(Clone, Debug, Serialize)]
pub struct ArgsSeen<'a> {
    pub fingerprint: &'a Fingerprint,
    pub args: &'a Value,
}

/// `call.changed`: a remote call whose arguments changed; its old entry is replaced by a new one.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallChanged<'a> {
    pub run_id: &'a RunId,
    pub tool_call_id: &'a ToolCallId,
    pub replaced_by: &'a ItemId,
    pub before: ArgsSeen<'a>,
    pub after: ArgsSeen<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'a str>,
}

impl<'a> CallChanged<'a> {
    /// `old` replaced by `now`, queued as `new`.
    pub fn of(old: &'a PausedCall, now: &'a PausedCall, new: &'a ItemId, why: Option<&'a str>) -> Self {
        Self {
            run_id: &now.run_id,
            tool_call_id: &now.tool_call_id,
            replaced_by: new,
            before: ArgsSeen { fingerprint: &old.fingerprint, args: &old.args },
            after: ArgsSeen { fingerprint: &now.fingerprint, args: &now.args },
            why,
        }
    }
}

impl Details for CallChanged<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::CallChanged
    }
}

/// The call a decision or approval is about, as their entries record it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRef<'a> {
    pub engine: &'a EngineId,
    pub agent_id: &'a AgentId,
    pub run_id: &'a RunId,
    pub tool_call_id: &'a ToolCallId,
}

impl<'a> CallRef<'a> {
    pub fn of(call: &'a PausedCall) -> Self {
        Self { engine: &call.engine, agent_id: &call.agent_id, run_id: &call.run_id, tool_call_id: &call.tool_call_id }
    }
}

/// Who approved, for a call under the two-person rule.
#[derive(Clone, Debug, Serialize)]
pub struct ApprovedBy<'a> {
    pub operator: &'a str,
    pub at: &'a chrono::DateTime<chrono::Utc>,
}

impl<'a> ApprovedBy<'a> {
    pub fn list(approvals: &'a [Approval]) -> Vec<Self> {
        approvals.iter().map(|a| Self { operator: &a.operator, at: &a.approved_at }).collect()
    }
}

/// `approval.recorded`: one operator's approval below the quorum; the call still waits.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRecorded<'a> {
    #[serde(flatten)]
    pub call: CallRef<'a>,
    pub args: &'a Value,
    pub approvals: usize,
    pub quorum: u32,
    pub approved_by: Vec<ApprovedBy<'a>>,
    /// The version of the policy in force when it was given.
    pub policy_version: &'a str,
}

impl Details for ApprovalRecorded<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::ApprovalRecorded
    }
}

/// `decision.approve|decline|resume|edit|expire` (by its verdict): the decision and the call as the
/// operator saw it; under a quorum, every approval.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionMade<'a> {
    pub decision_id: &'a DecisionId,
    #[serde(flatten)]
    pub call: CallRef<'a>,
    pub args: &'a Value,
    #[serde(serialize_with = "verdict_details")]
    pub verdict: &'a Verdict,
    /// The version of the policy in force when it was decided (`approval-console policy`).
    pub policy_version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quorum: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<Vec<ApprovedBy<'a>>>,
    /// Its signed receipt (docs/receipts.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<&'a str>,
}

/// What a verdict adds: the reason, the data, the edited arguments, the time limit run out.
fn verdict_details<S: serde::Serializer>(verdict: &&Verdict, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(untagged, rename_all_fields = "camelCase")]
    enum Shown<'a> {
        Approve {},
        Decline { reason: &'a Option<String> },
        Resume { data: &'a Value },
        Expire { after_secs: u64, reason: String },
        Edited { edited_args: &'a Value, edited_fingerprint: &'a Fingerprint },
    }
    match verdict {
        Verdict::Approve => Shown::Approve {},
        Verdict::Decline { reason } => Shown::Decline { reason },
        Verdict::Resume { data } => Shown::Resume { data },
        Verdict::Expire { after_secs } => Shown::Expire { after_secs: *after_secs, reason: Verdict::expiry_text(*after_secs) },
        Verdict::ApproveEdited { args, fingerprint } => Shown::Edited { edited_args: args, edited_fingerprint: fingerprint },
    }
    .serialize(s)
}

impl Details for DecisionMade<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::of_decision(self.verdict)
    }
}

/// `delivery.delivered` or, with an error, `delivery.failed`: what the engine answered.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryOutcome<'a> {
    pub decision_id: &'a DecisionId,
    pub outcome: &'a Value,
    pub error: Option<&'a str>,
}

impl Details for DeliveryOutcome<'_> {
    fn action(&self) -> AuditAction {
        match self.error {
            None => AuditAction::DeliveryDelivered,
            Some(_) => AuditAction::DeliveryFailed,
        }
    }
}

/// `delivery.deferred`: the engine could not be reached; the decision waits in the outbox.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryDeferred<'a> {
    pub decision_id: &'a DecisionId,
    pub engine: &'a EngineId,
    pub error: &'a str,
    pub next_attempt_at: &'a chrono::DateTime<chrono::Utc>,
}

impl Details for DeliveryDeferred<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::DeliveryDeferred
    }
}

/// `delivery.retry`: a delivery cut by a stop is sent again (engines that refuse repeats).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryRetry<'a> {
    pub decision_id: &'a DecisionId,
    pub why: &'a str,
}

impl Details for DeliveryRetry<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::DeliveryRetry
    }
}

/// `delivery.interrupted`: the console stopped while the tool ran; never run again.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryInterrupted<'a> {
    pub decision_id: &'a DecisionId,
    pub outcome: &'a Value,
}

impl Details for DeliveryInterrupted<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::DeliveryInterrupted
    }
}

/// `resolution.ran|did_not_run|run_again`: what the operator said of an interrupted call, what the
/// model was told, and (run again) the new entry.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolutionRecorded<'a> {
    /// `ran`, `did_not_run` or `run_again`.
    #[serde(skip)]
    pub kind: DecisionKind,
    #[serde(flatten)]
    pub call: CallRef<'a>,
    pub told: &'a Option<Value>,
    pub retry_item: &'a Option<ItemId>,
}

impl Details for ResolutionRecorded<'_> {
    fn action(&self) -> AuditAction {
        match self.kind {
            DecisionKind::Ran => AuditAction::ResolutionRan,
            DecisionKind::DidNotRun => AuditAction::ResolutionDidNotRun,
            _ => AuditAction::ResolutionRunAgain,
        }
    }
}

/// `tool.interrupted`: a plain tool was running when the console stopped; not run again.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInterrupted<'a> {
    pub run_id: &'a RunId,
    pub agent_id: &'a AgentId,
    pub tool_call_id: &'a str,
    pub step: u32,
}

impl Details for ToolInterrupted<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::ToolInterrupted
    }
}

/// `run.failed`: a local run ended because its model failed; the error's code and text.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFailed<'a> {
    pub run_id: &'a RunId,
    pub agent_id: &'a AgentId,
    pub step: u32,
    pub code: &'a str,
    pub error: String,
}

impl Details for RunFailed<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::RunFailed
    }
}

/// `credential.created` (with what it may claim) or `credential.revoked`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum CredentialChanged<'a> {
    Created { name: &'a str, role: Role, person: &'a str, agents: &'a Option<Vec<String>>, sources: &'a Option<Vec<String>> },
    Revoked { name: &'a str, role: Role },
}

impl Details for CredentialChanged<'_> {
    fn action(&self) -> AuditAction {
        match self {
            Self::Created { .. } => AuditAction::CredentialCreated,
            Self::Revoked { .. } => AuditAction::CredentialRevoked,
        }
    }
}

/// A remote engine's settings as the audit log records them: where its token is kept (`keyring`,
/// `session` or `none`), never the token.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSeen<'a> {
    pub kind: CallSource,
    pub base_url: &'a str,
    pub poll_ms: u32,
    pub token: &'a str,
}

/// `engine.added`, `engine.changed` (with what became of its token) or `engine.removed`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum EngineChanged<'a> {
    Added { engine: &'a str, after: EngineSeen<'a>, token_change: &'a str },
    Changed { engine: &'a str, before: EngineSeen<'a>, after: EngineSeen<'a>, token_change: &'a str },
    Removed { engine: &'a str, before: Option<EngineSeen<'a>> },
}

impl Details for EngineChanged<'_> {
    fn action(&self) -> AuditAction {
        match self {
            Self::Added { .. } => AuditAction::EngineAdded,
            Self::Changed { .. } => AuditAction::EngineChanged,
            Self::Removed { .. } => AuditAction::EngineRemoved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(d: &impl Details) -> Vec<String> {
        let mut k: Vec<String> = serde_json::to_value(d).unwrap().as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    }

    /// The keys each action always had (stored entries and the audit views read them), and the
    /// action each value names.
    #[test]
    fn decisions_engines_and_credentials_keep_their_keys_and_name_their_action() {
        let call = PausedCall::sample("delete_record", json!({ "id": "r-1" }));
        let id = DecisionId::new("d-1");
        let verdict = Verdict::Expire { after_secs: 60 };
        let made = DecisionMade {
            decision_id: &id,
            call: CallRef::of(&call),
            args: &call.args,
            verdict: &verdict,
            policy_version: "p-0123456789ab",
            quorum: None,
            approved_by: None,
            receipt: None,
        };
        assert_eq!(made.action(), AuditAction::DecisionExpire);
        assert_eq!(keys(&made), ["agentId", "args", "decisionId", "engine", "policyVersion", "runId", "toolCallId", "verdict"]);
        let v = serde_json::to_value(&made).unwrap();
        assert_eq!(v["verdict"]["afterSecs"], 60);
        let edited = Verdict::ApproveEdited { args: json!({}), fingerprint: call.fingerprint.clone() };
        let v =
            serde_json::to_value(DecisionMade { verdict: &edited, quorum: Some(2), approved_by: Some(vec![]), ..made.clone() }).unwrap();
        assert_eq!((v["verdict"]["editedArgs"].clone(), v["quorum"].clone(), v["approvedBy"].clone()), (json!({}), json!(2), json!([])));

        let seen = EngineSeen { kind: CallSource::Langgraph, base_url: "http://h", poll_ms: 1000, token: "none" };
        let added = EngineChanged::Added { engine: "lg", after: seen.clone(), token_change: "none" };
        assert_eq!(added.action(), AuditAction::EngineAdded);
        assert_eq!(keys(&added), ["after", "engine", "tokenChange"]);
        assert_eq!(
            serde_json::to_value(&seen).unwrap(),
            json!({ "kind": "langgraph", "baseUrl": "http://h", "pollMs": 1000, "token": "none" })
        );
        let removed = EngineChanged::Removed { engine: "lg", before: None };
        assert_eq!((removed.action(), keys(&removed)), (AuditAction::EngineRemoved, vec!["before".to_owned(), "engine".to_owned()]));

        let (agents, sources) = (Some(vec!["a".to_owned()]), None);
        let created = CredentialChanged::Created { name: "ci", role: Role::Agent, person: "ci", agents: &agents, sources: &sources };
        assert_eq!((created.action(), keys(&created).len()), (AuditAction::CredentialCreated, 5));
        let revoked = CredentialChanged::Revoked { name: "ci", role: Role::Agent };
        assert_eq!((revoked.action(), keys(&revoked)), (AuditAction::CredentialRevoked, vec!["name".to_owned(), "role".to_owned()]));

        let outcome = json!({});
        assert_eq!(DeliveryOutcome { decision_id: &id, outcome: &outcome, error: None }.action(), AuditAction::DeliveryDelivered);
        let failed = DeliveryOutcome { decision_id: &id, outcome: &outcome, error: Some("x") };
        assert_eq!(
            (failed.action(), keys(&failed)),
            (AuditAction::DeliveryFailed, vec!["decisionId".into(), "error".into(), "outcome".into()])
        );
    }
}
