//! What an error adds for clients beyond its code and message, typed per code: in the OpenAPI
//! document as one schema per shape, so a client reads `details` for the code it branches on.

use crate::domain::{DecisionKind, Fingerprint, ItemState, PathError, Role};
use serde::Serialize;

/// An error's `details`, by code (each variant names the codes it goes with).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum ErrorDetails {
    /// `fingerprint_mismatch`: the fingerprint shown and the call's as it is now.
    FingerprintMismatch { expected: Fingerprint, actual: Fingerprint },
    /// `already_decided`: where the call is now.
    AlreadyDecided { state: ItemState },
    /// `decision_not_allowed`: the decisions the call allows.
    DecisionNotAllowed { allowed: Vec<DecisionKind> },
    /// `invalid_resume_data`, `invalid_arguments`: each place the data fails its schema (or, for
    /// submitted arguments, holds a number a fingerprint cannot bind).
    Invalid { errors: Vec<PathError> },
    /// `forbidden`: the role needed and the caller's.
    Forbidden { needed: Role, role: Role },
    /// `ambiguous_arguments`: JSON Pointers to the numbers a fingerprint cannot bind.
    AmbiguousArguments { paths: Vec<String> },
    /// `unsafe_permissions`: the file or directory.
    UnsafePermissions { path: String },
    /// `already_approved`: approvals so far and how many the tool needs.
    AlreadyApproved { approvals: u32, quorum: u32 },
    /// `own_run`: the principal that asked for the call.
    OwnRun { started_by: String },
    /// `idempotency_key_reused`: the call the key queued first.
    IdempotencyKeyReused { id: String },
    /// `claim_not_allowed`: `agent` or `source`, what was claimed, and what may be.
    ClaimNotAllowed { what: String, claimed: String, allowed: Vec<String> },
    /// `quorum_tool`: the tool and its quorum.
    QuorumTool { tool: String, quorum: u32 },
    /// `grant_too_broad`: why, and the JSON Pointer concerned — the condition that matches nearly
    /// any text, or the command that needs a condition.
    GrantTooBroad { pointer: String, reason: crate::domain::grant::TooBroad },
    /// `widening_unconfirmed`: what of the change widens, one line each (as `policy diff` says it).
    WideningUnconfirmed { widens: Vec<String> },
    /// `payload_too_large`: which part of the request, the limit and its size in bytes.
    PayloadTooLarge { field: String, limit: usize, size: usize },
    /// `payload_too_large`: a JSON body with more values (objects, arrays, scalars) than allowed.
    TooManyValues { field: String, max_values: usize, values: usize },
    /// `rate_limited`: which quota, its rate and burst or its cap, and when to ask again.
    RateLimited {
        quota: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        per_sec: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        burst: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<usize>,
        retry_after_secs: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Error;
    use serde_json::json;

    /// The shapes clients read: the keys each code's details always had.
    #[test]
    fn error_details_keep_the_keys_of_their_code() {
        let d = |e: Error| e.details().unwrap();
        assert_eq!(d(Error::OwnRun { principal: "token:a".into() }), json!({ "startedBy": "token:a" }));
        assert_eq!(d(Error::AlreadyDecided { state: ItemState::Delivered }), json!({ "state": "delivered" }));
        let e = Error::ClaimNotAllowed { credential: "c".into(), what: "source", claimed: "mcp".into(), allowed: vec!["http".into()] };
        assert_eq!(d(e), json!({ "what": "source", "claimed": "mcp", "allowed": ["http"] }));
        assert_eq!(Error::MissingArguments.details(), None);
        let widens = Error::WideningUnconfirmed { widens: vec!["- high-risk tool a (widens)".into()] };
        assert_eq!((widens.code(), d(widens)), ("widening_unconfirmed", json!({ "widens": ["- high-risk tool a (widens)"] })));
        let limited =
            ErrorDetails::RateLimited { quota: "calls".into(), per_sec: Some(10.0), burst: Some(30), max: None, retry_after_secs: 1 };
        assert_eq!(serde_json::to_value(limited).unwrap(), json!({ "quota": "calls", "perSec": 10.0, "burst": 30, "retryAfterSecs": 1 }));
    }
}
