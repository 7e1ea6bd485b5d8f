//! The console's vocabulary: ids, paused calls, fingerprints, decisions, errors.

pub mod audit;
pub mod authority;
mod call;
pub mod change;
pub mod context;
mod decision;
mod error;
mod fingerprint;
pub mod grant;
mod ids;
pub mod json;
pub mod lookalike;
pub mod ops;
pub mod plan;
pub mod preview;
pub mod principal;
pub mod reach;
pub mod reason;
pub mod receipt;
pub mod remote;
pub mod risk;
pub mod safety;
pub mod schema;
pub mod session_rule;
pub mod text;

pub use authority::{grade, Cx};
pub use call::{CallKind, CallSource, ChainLink, ItemState, PauseKind, PauseReason, PausedCall, QueuedCall};
pub use decision::{human_secs, Approval, Decision, DecisionKind, DecisionRequest, Delivery, Resolution, ResolveRequest, Verdict};
pub use error::{Error, ErrorCode, ErrorDetails, PathError};
pub use fingerprint::{
    canonical_json, exact_literal, inexact_literals, inexact_numbers, read_exact, ArgsText, CanonicalizeError, Fingerprint, ReadError,
};
pub use ids::{AgentId, DecisionId, EngineId, GrantId, ItemId, RunId, ToolCallId};
pub use ops::Op;
pub use principal::{Actor, Principal, PrincipalKind, Role, StepUpProof};
