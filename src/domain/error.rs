//! The one error type of the core. Every variant has a stable `code` that crosses HTTP, IPC and the CLI;
//! clients branch on the code, never on the message.

use super::{DecisionKind, Fingerprint, ItemState, Role};
use serde::Serialize;
use serde_json::Value;

mod details;
pub use details::ErrorDetails;

/// A JSON Schema validation failure at one place of the submitted data.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PathError {
    /// JSON Pointer into the submitted data (`""` is the whole value).
    pub path: String,
    pub message: String,
}

/// Every error's stable, machine-readable code: what clients branch on (never the message). In the
/// OpenAPI document as an enum, so the UI's union of codes is generated from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Unauthorized,
    /// A role below the one the request needs (details: `needed`, `role`); or a stored credential
    /// where only the local admin may (a channel's secret; no details).
    Forbidden,
    NotFound,
    SnapshotNotFound,
    SecretNotFound,
    FingerprintMismatch,
    AlreadyDecided,
    DecisionNotAllowed,
    HighRiskTool,
    /// The two-person rule: this operator approved the call already (details: `approvals`, `quorum`).
    AlreadyApproved,
    /// The two-person rule: the principal that asked for the call (started its run or submitted it)
    /// cannot approve it, through any credential of the same person (details: `startedBy`).
    OwnRun,
    /// The two-person rule: an approval that cannot count towards the tool's quorum — a grant, a
    /// Mastra-shaped route, edited arguments (details: `tool`, `quorum`).
    QuorumTool,
    /// A grant whose conditions would not limit what its calls do: a condition that matches nearly
    /// any text, or none on the command of a shell-like tool (details: `pointer`, `reason`).
    GrantTooBroad,
    AlreadyServing,
    /// A `runId` chosen by a client names a run that exists and has not finished.
    RunExists,
    /// An agent's Idempotency-Key came with another call before (`POST /api/calls`; details: `id`).
    IdempotencyKeyReused,
    /// An agent credential claimed an agent name or source it may not (`POST /api/calls`; details:
    /// `what`, `claimed`, `allowed`).
    ClaimNotAllowed,
    /// The engine did not list the call's arguments: it can only be declined.
    MissingArguments,
    /// Numbers a fingerprint cannot bind, in a call queued already or in edited arguments: integers
    /// no double equals, decimals not written as their double (details: `paths`, JSON Pointers).
    AmbiguousArguments,
    /// A remote engine's new `baseUrl` without its token (nor `keepToken` / `clearToken`).
    TokenRequired,
    InvalidResumeData,
    /// Arguments refused: edited ones that fail the tool's input schema (422), or submitted ones
    /// with numbers a fingerprint cannot bind (400); details: `errors`, each with its JSON Pointer.
    InvalidArguments,
    InvalidRequest,
    PayloadTooLarge,
    /// A credential's quota is used up (calls or runs per second, concurrent long polls or event
    /// streams, connections): HTTP 429 with `Retry-After`; `details.retryAfterSecs` says when to ask again.
    RateLimited,
    EngineError,
    EngineUnreachable,
    KeyringUnavailable,
    KeyringLocked,
    KeyringError,
    StorageBusy,
    StorageUnavailable,
    /// A file or directory another user could change.
    UnsafePermissions,
    /// A decision from a paired device's session needs that device's passkey, asked for this call,
    /// this fingerprint and this decision (`POST /api/remote/step-up`); what was sent was missing,
    /// for another call or decision, used already, expired or did not verify.
    StepUpRequired,
    /// A decision's signed receipt expired before the decision could be sent (its engine was
    /// unreachable that long): nothing was sent, and the call is queued again to be decided anew.
    ReceiptExpired,
    /// A change of the settings or the policy that widens what runs without an operator (a
    /// high-risk tool removed, a quorum lowered, the passkey for high-risk approvals dropped, …),
    /// sent without `"confirmWidening": true` (the CLI: without `--yes`): nothing was stored;
    /// details: `widens`, one line each.
    WideningUnconfirmed,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unauthorized => "unauthorized",
            Self::Forbidden => "forbidden",
            Self::NotFound => "not_found",
            Self::SnapshotNotFound => "snapshot_not_found",
            Self::SecretNotFound => "secret_not_found",
            Self::FingerprintMismatch => "fingerprint_mismatch",
            Self::AlreadyDecided => "already_decided",
            Self::DecisionNotAllowed => "decision_not_allowed",
            Self::HighRiskTool => "high_risk_tool",
            Self::AlreadyApproved => "already_approved",
            Self::OwnRun => "own_run",
            Self::QuorumTool => "quorum_tool",
            Self::GrantTooBroad => "grant_too_broad",
            Self::AlreadyServing => "already_serving",
            Self::RunExists => "run_exists",
            Self::IdempotencyKeyReused => "idempotency_key_reused",
            Self::ClaimNotAllowed => "claim_not_allowed",
            Self::MissingArguments => "missing_arguments",
            Self::AmbiguousArguments => "ambiguous_arguments",
            Self::TokenRequired => "token_required",
            Self::InvalidResumeData => "invalid_resume_data",
            Self::InvalidArguments => "invalid_arguments",
            Self::InvalidRequest => "invalid_request",
            Self::PayloadTooLarge => "payload_too_large",
            Self::RateLimited => "rate_limited",
            Self::EngineError => "engine_error",
            Self::EngineUnreachable => "engine_unreachable",
            Self::KeyringUnavailable => "keyring_unavailable",
            Self::KeyringLocked => "keyring_locked",
            Self::KeyringError => "keyring_error",
            Self::StorageBusy => "storage_busy",
            Self::StorageUnavailable => "storage_unavailable",
            Self::UnsafePermissions => "unsafe_permissions",
            Self::StepUpRequired => "step_up_required",
            Self::ReceiptExpired => "receipt_expired",
            Self::WideningUnconfirmed => "widening_unconfirmed",
            Self::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what} not found")]
    NotFound { what: String },
    #[error("the call changed since it was shown: shown {shown}, now {current}")]
    FingerprintMismatch { shown: Fingerprint, current: Fingerprint },
    #[error("this call was already decided (it is {})", serde_json::to_value(state).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default())]
    AlreadyDecided { state: ItemState },
    #[error("{kind:?} is not possible for this call; it allows {allowed:?}")]
    DecisionNotAllowed { kind: DecisionKind, allowed: Vec<DecisionKind> },
    #[error("resume data does not match the tool's resume schema: {}", .errors.iter().map(|e| format!("{}: {}", if e.path.is_empty() { "/" } else { &e.path }, e.message)).collect::<Vec<_>>().join("; "))]
    InvalidResumeData { errors: Vec<PathError> },
    #[error("the edited arguments do not match the tool's input schema: {}", .errors.iter().map(|e| format!("{}: {}", if e.path.is_empty() { "/" } else { &e.path }, e.message)).collect::<Vec<_>>().join("; "))]
    InvalidArguments { errors: Vec<PathError> },
    #[error("{0}")]
    InvalidRequest(String),
    #[error("snapshot not found for run {run_id}: it finished, or it was never stored")]
    SnapshotNotFound { run_id: String },
    #[error("engine error: {0}")]
    Engine(String),
    /// The engine could not be reached (connection refused, timeout, 5xx, auth refused): worth trying
    /// again later. A decision that meets it stays in the outbox.
    #[error("engine unreachable: {0}")]
    Unreachable(String),
    /// A secret could not be read or stored (the keyring's own code: `keyring_unavailable`, …).
    #[error("{message}")]
    Secret { code: ErrorCode, message: String },
    #[error("the database is busy (locked by another process); nothing was changed, try again")]
    StorageBusy,
    /// The database could not be reached, or its connection was lost (team mode: PostgreSQL
    /// restarting, the network gone). Worth trying again: a write whose commit was not confirmed
    /// may or may not have happened, so a caller re-reads before it repeats one.
    #[error("the database cannot be reached ({0}); try again shortly")]
    StorageUnavailable(String),
    /// The call is high-risk (its arguments, or its tool in the settings' list): it needs an
    /// operator, so no grant may cover it. `why`: the most serious reason.
    #[error("this call of {tool} is high risk ({why}): it cannot be allowed always; decide each call")]
    HighRiskTool { tool: String, why: String },
    /// This operator (principal) already approved the call; a quorum counts each operator once.
    #[error("{operator} already approved this call: it needs {quorum} approvals by different operators, {approvals} so far")]
    AlreadyApproved { operator: String, approvals: u32, quorum: u32 },
    /// Under a quorum, the principal that asked for the call (started its run, or submitted it) may
    /// not approve it, through any credential of the same person.
    #[error("{principal} asked for this call (started its run or submitted it): under the two-person rule nobody approves a call they asked for")]
    OwnRun { principal: String },
    /// The tool needs approvals by several operators (the two-person rule); `why` says what cannot
    /// stand in for them.
    #[error("{tool} needs {quorum} approvals by different operators: {why}")]
    QuorumTool { tool: String, quorum: u32, why: &'static str },
    /// A grant's conditions would not limit what its calls do (`why`); `pointer`: the condition
    /// that matches nearly any text, or the command a shell-like tool's grant needs a condition on.
    #[error("{message}")]
    GrantTooBroad { pointer: String, why: super::grant::TooBroad, message: String },
    /// Another process (the desktop app or `serve`) already serves this data directory.
    #[error("another Approval Console is already serving {data_dir} ({holder}); stop it, or use another data directory")]
    AlreadyServing { data_dir: String, holder: String },
    /// The principal's role does not allow this (see [`super::principal`]).
    #[error("this needs the {needed} role; {principal} is {role}")]
    Forbidden { needed: Role, principal: String, role: Role },
    /// The caller's kind of credential is not one the operation admits (see
    /// [`super::authority`]): a device where only people's tokens are, a token where only the local
    /// admin is, a credential on a listener that does not hear it.
    #[error("{op} is {grade}; {principal} is {kind} (see the authorization table in docs/security.md)")]
    NotAdmitted { op: &'static str, principal: String, kind: &'static str, grade: &'static str },
    /// A run id given by a client names a run that exists and has not finished.
    #[error("run {run_id} exists and has not finished: choose another run id, or leave it out")]
    RunExists { run_id: String },
    /// An idempotency key a credential used already, sent with another request than the first time.
    #[error("idempotency key {key:?} was used for another call ({item}): a retry must send the same request; a new call needs a new key")]
    IdempotencyKeyReused { key: String, item: String },
    /// A credential submitted a call claiming an agent name or a source it may not claim
    /// (`tokens add NAME --agent A --source S` lists what it may).
    #[error("credential {credential} may not submit calls as {what} {claimed:?}; it may claim: {}", .allowed.join(", "))]
    ClaimNotAllowed { credential: String, what: &'static str, claimed: String, allowed: Vec<String> },
    /// The engine did not say with which arguments the call would run: it can only be declined.
    #[error("the engine did not list this call's arguments, so nobody can see what would run: it can only be declined")]
    MissingArguments,
    /// Numbers in the arguments that an IEEE double cannot hold exactly: the fingerprint cannot tell
    /// them from their neighbours, so the call cannot be approved as it is.
    #[error("the arguments hold numbers an IEEE double cannot represent exactly ({}): the fingerprint cannot bind them, so the call cannot be approved as it is; decline it, or approve it with edited arguments", .paths.join(", "))]
    AmbiguousArguments { paths: Vec<String> },
    /// Submitted arguments with numbers an IEEE double cannot carry exactly (an integer no double
    /// equals, a decimal not written as its double's shortest form, one out of range): their
    /// fingerprint would be their neighbours' too, so they are not queued (`invalid_arguments`).
    #[error("the arguments hold numbers an IEEE double cannot carry exactly ({}): their fingerprint would be their neighbours' too; send such a number as a string, or as the double it becomes", .paths.join(", "))]
    InexactNumbers { paths: Vec<String> },
    /// A high-risk call approved through a route without the console's confirm step.
    #[error("this call of {tool} is high risk ({why}): approve it in the console, where its confirm step is")]
    HighRiskNeedsConsole { tool: String, why: String },
    /// A remote engine's URL changed without its token being given again (or kept on purpose).
    #[error("the URL of engine {engine} changes: give its token again (or say to keep the stored token for the new host, or to clear it); nothing was changed")]
    TokenRequired { engine: String },
    /// A file or directory another user could change (or a symlink where none belongs).
    #[error("{path} is not safe to use: {why}")]
    UnsafePermissions { path: String, why: String },
    /// A decision from a paired device's session without a valid passkey assertion bound to it.
    #[error("this decision needs the passkey of the device it comes from, asked for this call and this decision: {why}")]
    StepUpRequired { why: String },
    /// A decision's receipt expired before it was sent (docs/receipts.md): the call is queued again.
    #[error("the decision's signed receipt expired at {expired_at} before the decision could be sent; nothing was sent, and the call is queued again to be decided anew")]
    ReceiptExpired { expired_at: chrono::DateTime<chrono::Utc> },
    /// A change that widens what runs without an operator, not confirmed: nothing was stored.
    #[error("this change lets more through without an operator ({}): confirm it (\"confirmWidening\": true; in the CLI --yes) if that is meant; nothing was changed", .widens.join("; "))]
    WideningUnconfirmed { widens: Vec<String> },
    #[error("storage error: {0}")]
    Storage(String),
}

/// What each place of an [`Error::InexactNumbers`] is told.
const INEXACT: &str = "a number an IEEE double cannot carry exactly (an integer no double equals, a decimal not written as its double's shortest form, or out of range): send it as a string, or as the double it becomes";

impl Error {
    /// The stable, machine-readable code, as text.
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    /// The stable, machine-readable code.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::FingerprintMismatch { .. } => ErrorCode::FingerprintMismatch,
            Self::AlreadyDecided { .. } => ErrorCode::AlreadyDecided,
            Self::DecisionNotAllowed { .. } => ErrorCode::DecisionNotAllowed,
            Self::InvalidResumeData { .. } => ErrorCode::InvalidResumeData,
            Self::InvalidArguments { .. } | Self::InexactNumbers { .. } => ErrorCode::InvalidArguments,
            Self::InvalidRequest(_) => ErrorCode::InvalidRequest,
            Self::SnapshotNotFound { .. } => ErrorCode::SnapshotNotFound,
            Self::Engine(_) => ErrorCode::EngineError,
            Self::Unreachable(_) => ErrorCode::EngineUnreachable,
            Self::Secret { code, .. } => *code,
            Self::StorageBusy => ErrorCode::StorageBusy,
            Self::StorageUnavailable(_) => ErrorCode::StorageUnavailable,
            Self::AlreadyServing { .. } => ErrorCode::AlreadyServing,
            Self::HighRiskTool { .. } | Self::HighRiskNeedsConsole { .. } => ErrorCode::HighRiskTool,
            Self::AlreadyApproved { .. } => ErrorCode::AlreadyApproved,
            Self::OwnRun { .. } => ErrorCode::OwnRun,
            Self::QuorumTool { .. } => ErrorCode::QuorumTool,
            Self::GrantTooBroad { .. } => ErrorCode::GrantTooBroad,
            Self::Forbidden { .. } | Self::NotAdmitted { .. } => ErrorCode::Forbidden,
            Self::RunExists { .. } => ErrorCode::RunExists,
            Self::IdempotencyKeyReused { .. } => ErrorCode::IdempotencyKeyReused,
            Self::ClaimNotAllowed { .. } => ErrorCode::ClaimNotAllowed,
            Self::MissingArguments => ErrorCode::MissingArguments,
            Self::AmbiguousArguments { .. } => ErrorCode::AmbiguousArguments,
            Self::TokenRequired { .. } => ErrorCode::TokenRequired,
            Self::UnsafePermissions { .. } => ErrorCode::UnsafePermissions,
            Self::StepUpRequired { .. } => ErrorCode::StepUpRequired,
            Self::ReceiptExpired { .. } => ErrorCode::ReceiptExpired,
            Self::WideningUnconfirmed { .. } => ErrorCode::WideningUnconfirmed,
            Self::Storage(_) => ErrorCode::Internal,
        }
    }

    /// What the error adds for clients, typed per code (the two fingerprints, the failing paths, …).
    pub fn error_details(&self) -> Option<ErrorDetails> {
        Some(match self {
            Self::FingerprintMismatch { shown, current } => {
                ErrorDetails::FingerprintMismatch { expected: shown.clone(), actual: current.clone() }
            }
            Self::AlreadyDecided { state } => ErrorDetails::AlreadyDecided { state: *state },
            Self::DecisionNotAllowed { allowed, .. } => ErrorDetails::DecisionNotAllowed { allowed: allowed.clone() },
            Self::InvalidResumeData { errors } | Self::InvalidArguments { errors } => ErrorDetails::Invalid { errors: errors.clone() },
            Self::InexactNumbers { paths } => ErrorDetails::Invalid {
                errors: paths.iter().map(|path| PathError { path: path.clone(), message: INEXACT.to_owned() }).collect(),
            },
            Self::Forbidden { needed, role, .. } => ErrorDetails::Forbidden { needed: *needed, role: *role },
            Self::AmbiguousArguments { paths } => ErrorDetails::AmbiguousArguments { paths: paths.clone() },
            Self::UnsafePermissions { path, .. } => ErrorDetails::UnsafePermissions { path: path.clone() },
            Self::AlreadyApproved { approvals, quorum, .. } => ErrorDetails::AlreadyApproved { approvals: *approvals, quorum: *quorum },
            Self::OwnRun { principal } => ErrorDetails::OwnRun { started_by: principal.clone() },
            Self::IdempotencyKeyReused { item, .. } => ErrorDetails::IdempotencyKeyReused { id: item.clone() },
            Self::ClaimNotAllowed { what, claimed, allowed, .. } => {
                ErrorDetails::ClaimNotAllowed { what: (*what).to_owned(), claimed: claimed.clone(), allowed: allowed.clone() }
            }
            Self::QuorumTool { tool, quorum, .. } => ErrorDetails::QuorumTool { tool: tool.clone(), quorum: *quorum },
            Self::GrantTooBroad { pointer, why, .. } => ErrorDetails::GrantTooBroad { pointer: pointer.clone(), reason: *why },
            Self::WideningUnconfirmed { widens } => ErrorDetails::WideningUnconfirmed { widens: widens.clone() },
            _ => return None,
        })
    }

    /// [`Error::error_details`] as JSON.
    pub fn details(&self) -> Option<Value> {
        self.error_details().map(|d| serde_json::to_value(d).expect("error details serialize"))
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        Self::NotFound { what: what.into() }
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        if let sqlx::Error::Database(db) = &e {
            // SQLITE_BUSY (5) and SQLITE_LOCKED (6), after busy_timeout ran out.
            // PostgreSQL: lock_not_available (lock_timeout ran out), serialization_failure, deadlock_detected.
            if matches!(
                db.code().as_deref(),
                Some("5") | Some("6") | Some("517") | Some("262") | Some("55P03") | Some("40001") | Some("40P01")
            ) {
                return Self::StorageBusy;
            }
        }
        if lost_connection(&e) {
            return Self::StorageUnavailable(e.to_string());
        }
        Self::Storage(e.to_string())
    }
}

/// Whether `e` says the database could not be reached or the connection was lost, rather than
/// anything about the query: an I/O error (refused, reset, closed), no connection within the pool's
/// timeout, a closed pool, and PostgreSQL's connection exceptions (class 08), its shutdowns
/// (57P01 admin, 57P02 crash, 57P03 cannot connect now) and too many connections (53300).
pub fn lost_connection(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            db.code().is_some_and(|c| c.starts_with("08") || matches!(c.as_ref(), "57P01" | "57P02" | "57P03" | "53300"))
        }
        _ => false,
    }
}

impl From<sqlx::migrate::MigrateError> for Error {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        Self::Storage(format!("migration failed: {e}"))
    }
}

impl From<crate::secrets::SecretError> for Error {
    fn from(e: crate::secrets::SecretError) -> Self {
        Self::Secret { code: e.error_code(), message: e.to_string() }
    }
}
