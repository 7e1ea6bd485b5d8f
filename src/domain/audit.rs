//! What the audit log records: every action has its name here, once (`call.paused`, `decision.approve`,
//! …), so no caller can write a new spelling. Entries already stored are read as the text they hold
//! (an older version may have written others).

use serde::Serialize;
use serde_json::Value;

mod details;
mod devices;
mod reach;
mod receipts;
mod settings;
pub use details::*;
pub use devices::*;
pub use reach::*;
pub use receipts::*;
pub use settings::*;

/// The action of an audit entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
pub enum AuditAction {
    /// A call paused and was queued.
    #[serde(rename = "call.paused")]
    CallPaused,
    /// A remote call's arguments changed: its entry was replaced.
    #[serde(rename = "call.changed")]
    CallChanged,
    /// A remote call is no longer waiting (it ended elsewhere).
    #[serde(rename = "call.gone")]
    CallGone,
    /// A call's deadline was moved.
    #[serde(rename = "call.snoozed")]
    CallSnoozed,
    #[serde(rename = "decision.approve")]
    DecisionApprove,
    #[serde(rename = "decision.decline")]
    DecisionDecline,
    #[serde(rename = "decision.resume")]
    DecisionResume,
    /// Approved with edited arguments.
    #[serde(rename = "decision.edit")]
    DecisionEdit,
    /// Nobody decided in time: declined as expired.
    #[serde(rename = "decision.expire")]
    DecisionExpire,
    /// One operator's approval of a call whose tool needs several (the two-person rule), below the
    /// quorum: the call still waits. The approval that completes the quorum is the decision
    /// (`decision.approve`, listing every approval).
    #[serde(rename = "approval.recorded")]
    ApprovalRecorded,
    #[serde(rename = "delivery.delivered")]
    DeliveryDelivered,
    #[serde(rename = "delivery.failed")]
    DeliveryFailed,
    /// The engine could not be reached: the decision waits in the outbox.
    #[serde(rename = "delivery.deferred")]
    DeliveryDeferred,
    /// A delivery cut by a stop is sent again (engines that refuse repeats).
    #[serde(rename = "delivery.retry")]
    DeliveryRetry,
    /// The console stopped while the tool ran: never run again.
    #[serde(rename = "delivery.interrupted")]
    DeliveryInterrupted,
    /// An interrupted call resolved: the operator says it ran.
    #[serde(rename = "resolution.ran")]
    ResolutionRan,
    /// An interrupted call resolved: the operator says it did not run.
    #[serde(rename = "resolution.did_not_run")]
    ResolutionDidNotRun,
    /// An interrupted call resolved: run again, through a new entry approved by the operator.
    #[serde(rename = "resolution.run_again")]
    ResolutionRunAgain,
    #[serde(rename = "grant.created")]
    GrantCreated,
    #[serde(rename = "grant.used")]
    GrantUsed,
    #[serde(rename = "grant.revoked")]
    GrantRevoked,
    /// Revoking a grant took a rule it wrote back out of an agent's file (after a backup).
    #[serde(rename = "grant.rule_removed")]
    GrantRuleRemoved,
    /// A plain tool was running when the console stopped: not run again, the model told so.
    #[serde(rename = "tool.interrupted")]
    ToolInterrupted,
    /// A local run ended because its model failed.
    #[serde(rename = "run.failed")]
    RunFailed,
    #[serde(rename = "credential.created")]
    CredentialCreated,
    #[serde(rename = "credential.revoked")]
    CredentialRevoked,
    /// A settings document changed (notifications, safety, quorum, expiry): `details` name it
    /// (`setting`) and hold it `before` and `after`.
    #[serde(rename = "settings.changed")]
    SettingsChanged,
    /// A policy file was put in force (`policy apply`): `details.before` and `after` are the
    /// policy's versions; each document it changed has its `settings.changed` entry.
    #[serde(rename = "policy.applied")]
    PolicyApplied,
    /// A remote engine was added (`details.after`: its kind, URL, poll interval and where its token
    /// is kept, never the token).
    #[serde(rename = "engine.added")]
    EngineAdded,
    /// A remote engine's URL, poll interval or token changed (`before`, `after`, and what became of
    /// the token: `tokenChange`, never the token).
    #[serde(rename = "engine.changed")]
    EngineChanged,
    #[serde(rename = "engine.removed")]
    EngineRemoved,
    /// An admin started pairing a device: its name, whose it will be, until when the code holds.
    #[serde(rename = "device.pairing_started")]
    DevicePairingStarted,
    /// A pairing code was refused on the remote listener (wrong, used, expired, too many tries).
    #[serde(rename = "device.pairing_failed")]
    DevicePairingFailed,
    /// A pairing's code died unused: it saw too many wrong codes while it was live (guessing).
    #[serde(rename = "device.pairing_ended")]
    DevicePairingEnded,
    /// A device proved its pairing code and registered its passkey.
    #[serde(rename = "device.paired")]
    DevicePaired,
    #[serde(rename = "device.renamed")]
    DeviceRenamed,
    /// A device was revoked: its sessions ended in the same transaction.
    #[serde(rename = "device.revoked")]
    DeviceRevoked,
    /// A paired device signed in with its passkey.
    #[serde(rename = "device.signed_in")]
    DeviceSignedIn,
    /// Refused on the remote listener: a sign-in or a decision's passkey step-up that failed, a
    /// plain-HTTP request, a credential that listener does not take (`details.reason` says which).
    #[serde(rename = "remote.refused")]
    RemoteRefused,
    /// An operator claimed a call ("I'm on it"): shown to everyone; its escalation stops.
    #[serde(rename = "call.claimed")]
    CallClaimed,
    /// A channel's message about a call was given up on after its attempts.
    #[serde(rename = "reach.failed")]
    ReachFailed,
    /// The local admin set a channel's secret (where it is kept; never the value).
    #[serde(rename = "channel_secret.set")]
    ChannelSecretSet,
    /// The local admin removed a channel's secret (from where).
    #[serde(rename = "channel_secret.removed")]
    ChannelSecretRemoved,
    /// A console made its receipts' signing key (its first start, or its kept key was not found).
    #[serde(rename = "receipt_key.created")]
    ReceiptKeyCreated,
    /// A console's signing key was rotated: the new key signs from now on; the old one is retired
    /// (still published, so what it signed before still verifies).
    #[serde(rename = "receipt_key.rotated")]
    ReceiptKeyRotated,
}

impl AuditAction {
    /// Every action, for the documentation and its test.
    pub const ALL: [Self; 45] = [
        Self::CallPaused,
        Self::CallChanged,
        Self::CallGone,
        Self::CallSnoozed,
        Self::DecisionApprove,
        Self::DecisionDecline,
        Self::DecisionResume,
        Self::DecisionEdit,
        Self::DecisionExpire,
        Self::ApprovalRecorded,
        Self::DeliveryDelivered,
        Self::DeliveryFailed,
        Self::DeliveryDeferred,
        Self::DeliveryRetry,
        Self::DeliveryInterrupted,
        Self::ResolutionRan,
        Self::ResolutionDidNotRun,
        Self::ResolutionRunAgain,
        Self::GrantCreated,
        Self::GrantUsed,
        Self::GrantRevoked,
        Self::GrantRuleRemoved,
        Self::ToolInterrupted,
        Self::RunFailed,
        Self::CredentialCreated,
        Self::CredentialRevoked,
        Self::SettingsChanged,
        Self::PolicyApplied,
        Self::EngineAdded,
        Self::EngineChanged,
        Self::EngineRemoved,
        Self::DevicePairingStarted,
        Self::DevicePairingFailed,
        Self::DevicePairingEnded,
        Self::DevicePaired,
        Self::DeviceRenamed,
        Self::DeviceRevoked,
        Self::DeviceSignedIn,
        Self::RemoteRefused,
        Self::CallClaimed,
        Self::ReachFailed,
        Self::ChannelSecretSet,
        Self::ChannelSecretRemoved,
        Self::ReceiptKeyCreated,
        Self::ReceiptKeyRotated,
    ];

    /// The name as stored and shown (`decision.approve`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CallPaused => "call.paused",
            Self::CallChanged => "call.changed",
            Self::CallGone => "call.gone",
            Self::CallSnoozed => "call.snoozed",
            Self::DecisionApprove => "decision.approve",
            Self::DecisionDecline => "decision.decline",
            Self::DecisionResume => "decision.resume",
            Self::DecisionEdit => "decision.edit",
            Self::DecisionExpire => "decision.expire",
            Self::ApprovalRecorded => "approval.recorded",
            Self::DeliveryDelivered => "delivery.delivered",
            Self::DeliveryFailed => "delivery.failed",
            Self::DeliveryDeferred => "delivery.deferred",
            Self::DeliveryRetry => "delivery.retry",
            Self::DeliveryInterrupted => "delivery.interrupted",
            Self::ResolutionRan => "resolution.ran",
            Self::ResolutionDidNotRun => "resolution.did_not_run",
            Self::ResolutionRunAgain => "resolution.run_again",
            Self::GrantCreated => "grant.created",
            Self::GrantUsed => "grant.used",
            Self::GrantRevoked => "grant.revoked",
            Self::GrantRuleRemoved => "grant.rule_removed",
            Self::ToolInterrupted => "tool.interrupted",
            Self::RunFailed => "run.failed",
            Self::CredentialCreated => "credential.created",
            Self::CredentialRevoked => "credential.revoked",
            Self::SettingsChanged => "settings.changed",
            Self::PolicyApplied => "policy.applied",
            Self::EngineAdded => "engine.added",
            Self::EngineChanged => "engine.changed",
            Self::EngineRemoved => "engine.removed",
            Self::DevicePairingStarted => "device.pairing_started",
            Self::DevicePairingFailed => "device.pairing_failed",
            Self::DevicePairingEnded => "device.pairing_ended",
            Self::DevicePaired => "device.paired",
            Self::DeviceRenamed => "device.renamed",
            Self::DeviceRevoked => "device.revoked",
            Self::DeviceSignedIn => "device.signed_in",
            Self::RemoteRefused => "remote.refused",
            Self::CallClaimed => "call.claimed",
            Self::ReachFailed => "reach.failed",
            Self::ChannelSecretSet => "channel_secret.set",
            Self::ChannelSecretRemoved => "channel_secret.removed",
            Self::ReceiptKeyCreated => "receipt_key.created",
            Self::ReceiptKeyRotated => "receipt_key.rotated",
        }
    }

    /// The action recording a decision of this verdict.
    pub fn of_decision(verdict: &super::Verdict) -> Self {
        match verdict {
            super::Verdict::Approve => Self::DecisionApprove,
            super::Verdict::Decline { .. } => Self::DecisionDecline,
            super::Verdict::Resume { .. } => Self::DecisionResume,
            super::Verdict::ApproveEdited { .. } => Self::DecisionEdit,
            super::Verdict::Expire { .. } => Self::DecisionExpire,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_is_spelled_once_the_same_as_it_serializes() {
        let mut seen = std::collections::HashSet::new();
        for a in AuditAction::ALL {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
            assert!(seen.insert(a.as_str()), "{} twice", a.as_str());
        }
        assert_eq!(AuditAction::of_decision(&super::super::Verdict::Expire { after_secs: 1 }).as_str(), "decision.expire");
    }
}

/// The details of `call.paused`, written by `store::queue::pause` alone: the call as queued (its
/// run, tool call, agent, kind, arguments and chain) and where it came from — a call an agent
/// submitted (`source`, `submittedBy`, `context`) or a local run's (`approvalReason`, `startedBy`).
/// A remote engine's call carries neither.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallPaused<'a> {
    pub run_id: &'a super::RunId,
    pub tool_call_id: &'a super::ToolCallId,
    pub agent_id: &'a super::AgentId,
    pub kind: super::CallKind,
    pub args: &'a Value,
    pub chain: &'a [super::ChainLink],
    #[serde(flatten)]
    pub origin: PauseOrigin<'a>,
}

impl Details for CallPaused<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::CallPaused
    }
}

/// Where a paused call came from, as `call.paused` records it.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum PauseOrigin<'a> {
    /// A remote engine's listing: nothing more than the call.
    Engine {},
    /// Submitted by an agent (`POST /api/calls`, hooks, the MCP gate).
    /// Its `context` as [`super::context::audited`] gives it: never a file's text, nor a transcript's words.
    Submitted {
        source: &'a str,
        submitted_by: &'a str,
        #[serde(serialize_with = "audited_context")]
        context: &'a Option<Value>,
    },
    /// A local run's call: why its policy asked, and who started the run.
    LocalRun { approval_reason: Option<&'a str>, started_by: Option<&'a str> },
}

fn audited_context<S: serde::Serializer>(context: &&Option<Value>, s: S) -> Result<S::Ok, S::Error> {
    context.as_ref().map(super::context::audited).serialize(s)
}

impl<'a> CallPaused<'a> {
    /// `call`'s details, from `origin`.
    pub fn of(call: &'a super::PausedCall, origin: PauseOrigin<'a>) -> Self {
        Self {
            run_id: &call.run_id,
            tool_call_id: &call.tool_call_id,
            agent_id: &call.agent_id,
            kind: call.kind,
            args: &call.args,
            chain: &call.chain,
            origin,
        }
    }
}

#[cfg(test)]
mod call_paused_tests {
    use super::*;
    use crate::domain::PausedCall;
    use serde_json::json;

    fn keys(origin: PauseOrigin<'_>) -> Value {
        let call = PausedCall::sample("delete_record", json!({ "id": "r-1" }));
        let details = serde_json::to_value(CallPaused::of(&call, origin)).unwrap();
        let mut keys: Vec<&str> = details.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        json!(keys)
    }

    /// One type writes `call.paused` for every source; each origin adds its own keys, no other.
    #[test]
    fn call_paused_has_the_calls_keys_and_those_of_its_origin() {
        let call = ["agentId", "args", "chain", "kind", "runId", "toolCallId"];
        let with = |more: &[&str]| {
            let mut all: Vec<&str> = call.iter().chain(more).copied().collect();
            all.sort();
            json!(all)
        };
        assert_eq!(keys(PauseOrigin::Engine {}), with(&[]));
        let context = Some(json!({ "cwd": "/srv" }));
        assert_eq!(
            keys(PauseOrigin::Submitted { source: "claude-code", submitted_by: "token:hook", context: &context }),
            with(&["context", "source", "submittedBy"])
        );
        assert_eq!(
            keys(PauseOrigin::LocalRun { approval_reason: Some("rule 0 matched"), started_by: None }),
            with(&["approvalReason", "startedBy"])
        );
    }

    /// Whatever context the caller passes, `call.paused` records the file's path, size and hash, never
    /// its text, and the transcript's hash, never its words.
    #[test]
    fn call_paused_records_a_files_hash_not_its_text() {
        let call = PausedCall::sample("Edit", json!({ "file_path": "cfg.ini", "old_string": "a", "new_string": "b" }));
        let secret = "AKIAIOSFODNN7EXAMPLE";
        let context = Some(json!({ "cwd": "/repo", "file": { "path": "cfg.ini", "exists": true, "text": format!("key={secret}\n") },
            "transcript": [{ "role": "user", "text": secret }] }));
        let origin = PauseOrigin::Submitted { source: "claude-code", submitted_by: "token:hook", context: &context };
        let details = serde_json::to_value(CallPaused::of(&call, origin)).unwrap();
        assert!(!details.to_string().contains(secret), "{details}");
        assert_eq!(details["context"]["file"]["path"], "cfg.ini");
        assert_eq!(details["context"]["file"]["sha256"], crate::domain::context::sha256(format!("key={secret}\n").as_bytes()));
        assert_eq!(details["context"]["transcript"]["messages"], 1);
    }
}

#[cfg(test)]
mod typed_details_tests {
    use super::*;
    use serde_json::json;

    /// Each typed details struct writes the keys its action always had (stored entries and the audit
    /// views read them), and names its own action.
    #[test]
    fn typed_details_keep_their_actions_keys_and_name_their_action() {
        let args = json!({ "id": "r-1" });
        let used = GrantUsed { grant_id: "g-1", decision_id: "d-1", args: &args, session_rule: None };
        assert_eq!(serde_json::to_value(&used).unwrap(), json!({ "grantId": "g-1", "decisionId": "d-1", "args": { "id": "r-1" } }));
        assert_eq!(used.action(), AuditAction::GrantUsed);
        let made = GrantCreated { grant: &json!({ "id": "g-1" }), approves_waiting: 3 };
        assert_eq!(serde_json::to_value(&made).unwrap(), json!({ "grant": { "id": "g-1" }, "approvesWaiting": 3 }));
        assert_eq!(made.action(), AuditAction::GrantCreated);
        let revoked = GrantRevoked { grant_id: "g-1", uses: 2 };
        assert_eq!(serde_json::to_value(&revoked).unwrap(), json!({ "grantId": "g-1", "uses": 2 }));
        assert_eq!(revoked.action(), AuditAction::GrantRevoked);
        let snoozed = CallSnoozed { from: "a", until: "b" };
        assert_eq!(serde_json::to_value(&snoozed).unwrap(), json!({ "from": "a", "until": "b" }));
        assert_eq!(snoozed.action(), AuditAction::CallSnoozed);
        let set = ChannelSecretChanged::Set { channel: "ops", kept: crate::domain::reach::SecretPlace::File };
        assert_eq!(serde_json::to_value(&set).unwrap(), json!({ "channel": "ops", "kept": "file" }));
        assert_eq!(set.action(), AuditAction::ChannelSecretSet);
        let removed = ChannelSecretChanged::Removed { channel: "ops", removed_from: &[crate::domain::reach::SecretPlace::Keyring] };
        assert_eq!(serde_json::to_value(&removed).unwrap(), json!({ "channel": "ops", "removedFrom": ["keyring"] }));
        assert_eq!(removed.action(), AuditAction::ChannelSecretRemoved);
    }
}
