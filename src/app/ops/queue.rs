//! The queue: pages, counts, one call, and what an operator does with a call.

use crate::app::presence::Presence;
use crate::app::query::{QueueCountsQuery, QueueQuery};
use crate::app::queue::{PreviousCall, QueueCounts, QueueItem, QueuePage};
use crate::domain::reason::CallReason;
use crate::domain::{ArgsText, DecisionKind, Error, ReadError, Verdict};
use serde::Deserialize;
use serde_json::Value;

/// `{fingerprint}`: the fingerprint that was on screen (C3).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ApproveBody {
    pub fingerprint: String,
}

/// `{fingerprint, args}`: the fingerprint that was on screen (C3) and the arguments as edited.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveEditedBody {
    pub fingerprint: String,
    /// As written: their numbers are judged on this text (exact fingerprints).
    #[schema(value_type = Value)]
    pub args: ArgsText,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct DeclineBody {
    pub fingerprint: String,
    pub reason: Option<String>,
}

/// What became of an interrupted call (the console stopped while its tool ran).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResolveBody {
    /// `ran`, `did_not_run`, or `run_again` (offered only for tools marked idempotent: see the
    /// call's `allowed`).
    pub resolution: DecisionKind,
    /// The fingerprint that was on screen.
    pub fingerprint: String,
    /// With `ran` only: what the tool returned, as the model is to be told; a sentence saying it
    /// ran and its result was lost when left out.
    pub result: Option<Value>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResumeBody {
    pub fingerprint: String,
    /// Validated against the call's resume schema.
    pub data: Value,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnoozeBody {
    /// The new deadline, in seconds from now (60 s – 30 days); never earlier than the current one.
    pub secs: u64,
}

const DECIDED: &str = "Decided; the call as it is after delivery";

crate::declare_operations! {
    QueuePage(Nothing, query QueueQuery, window "query") -> QueuePage, 200 "Newest first";
        errors []
        |app, _, q, by| { Ok(app.queue_page(&q, by).await?.into()) }

    QueueCounts(Nothing, query QueueCountsQuery, window "query") -> QueueCounts, 200 "Calls per tab of the queue view under these filters and search";
        errors []
        |app, _, q, by| { Ok(app.queue_counts(&q, by).await?.into()) }

    QueueItem(Id, none) -> QueueItem, 200 "The call";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.queue_item(&p.id, by).await?.into()) }

    PreviousCall(Id, none) -> PreviousCall, 200 "The call of the same tool in the same thread decided last before this one (null if none), to show what changed";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.previous_call(&p.id, by).await?.into()) }

    CallReason(Id, none) -> CallReason, 200 "What led to the call: its conversation's last messages, oldest first (untrusted text), from its agent's transcript or its engine; `unavailable` says why there are none";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.call_reason(&p.id, by).await?.into()) }

    Approve(Id, body ApproveBody) -> QueueItem, 200 DECIDED;
        errors [202 "An approval of a tool with a quorum (the two-person rule) that did not complete it: recorded, and the call still waits for other operators' approvals (it is `pending`, its `approvals` list this one)",
            403 "forbidden; own_run (under a quorum, the principal that started the run cannot approve its calls)", 404 "not_found",
            409 "fingerprint_mismatch, already_decided, decision_not_allowed, already_approved (this operator approved the call already) or quorum_tool (an approval that cannot count towards the quorum)",
            503 "storage_busy"]
        |app, p, b, by| {
            // What this request did, not what the call shows now: an approval recorded short of its
            // quorum is 202 even if another operator's decision completed or declined the call meanwhile.
            let (item, accepted) = app.decide_shown_told(&p.id, Verdict::Approve, &b.fingerprint, by).await?;
            Ok(crate::app::operation::Reply { body: item, accepted })
        }

    /// Approve with edited arguments (local engine), bound to the fingerprint shown.
    ApproveEdited(Id, body ApproveEditedBody) -> QueueItem, 200 "Approved with the edited arguments (local engine); the decision holds both fingerprints";
        errors [404 "not_found", 409 "fingerprint_mismatch, already_decided, decision_not_allowed (an engine that cannot run edited arguments) or quorum_tool (a tool with a quorum is approved as it is)",
            422 "invalid_arguments: the edited arguments fail the tool's input schema (errors by path); ambiguous_arguments: they hold numbers a fingerprint cannot bind — an integer no double equals, a decimal not written as its double's shortest form (details: paths)"]
        |app, p, b, by| {
            let args = match b.args.read() {
                Ok(args) => args,
                Err(ReadError::Inexact(paths)) => return Err(Error::AmbiguousArguments { paths }),
                Err(ReadError::Json(e)) => return Err(Error::InvalidRequest(format!("args: {e}"))),
            };
            Ok(app.approve_edited(&p.id, &b.fingerprint, args, by).await?.into())
        }

    Decline(Id, body DeclineBody) -> QueueItem, 200 DECIDED;
        errors [404 "not_found", 409 "fingerprint_mismatch, already_decided or decision_not_allowed", 503 "storage_busy"]
        |app, p, b, by| {
            let reason = b.reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty());
            Ok(app.decide_shown(&p.id, Verdict::Decline { reason }, &b.fingerprint, by).await?.into())
        }

    Resume(Id, body ResumeBody) -> QueueItem, 200 DECIDED;
        errors [404 "not_found", 409 "fingerprint_mismatch, already_decided or decision_not_allowed",
            422 "invalid_resume_data, with the failing JSON paths", 503 "storage_busy"]
        |app, p, b, by| { Ok(app.decide_shown(&p.id, Verdict::Resume { data: b.data }, &b.fingerprint, by).await?.into()) }

    /// Says what became of an interrupted call (`ran` with an optional result, `did_not_run`,
    /// `run_again`), bound to the fingerprint shown.
    Resolve(Id, body ResolveBody) -> QueueItem, 200 "Resolved; the run went on. For run_again, the new entry that ran the call again, as it is after delivery";
        errors [400 "invalid_request (a result with another resolution than ran, a malformed fingerprint)", 404 "not_found",
            409 "decision_not_allowed (not interrupted, or run_again of a tool not marked idempotent), already_decided (resolved already), fingerprint_mismatch",
            503 "storage_busy"]
        |app, p, b, by| { Ok(app.resolve(&p.id, b.resolution, b.result, &b.fingerprint, by).await?.into()) }

    /// Moves a waiting call's deadline later.
    Snooze(Id, body SnoozeBody) -> QueueItem, 200 "The call with its new deadline (`expiresAt`)";
        errors [400 "invalid_request: no time limit applies to this call, or secs out of range", 404 "not_found", 409 "already_decided"]
        |app, p, b, by| { Ok(app.snooze(&p.id, b.secs, by).await?.into()) }

    /// The caller has the call open (say so every `heartbeatSecs` while it stays open): who else has.
    Viewing(Id, none) -> Presence, 200 "Recorded; the others who have the call open, on any console of the team";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.viewing(&p.id, by).await?.into()) }

    /// The caller closed the call: the others stop seeing them at once.
    StopViewing(Id, none) -> nothing, 204 "No longer listed (also when the caller was not)";
        errors []
        |app, p, _, by| { Ok(app.stop_viewing(&p.id, by).await?.into()) }
}
