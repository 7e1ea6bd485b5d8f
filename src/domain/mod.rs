//! The console's vocabulary: ids, paused calls, fingerprints, decisions, errors.

mod call;
mod decision;
mod error;
mod fingerprint;
mod ids;
pub mod lookalike;
pub mod principal;
pub mod text;

pub use call::{CallKind, ChainLink, ItemState, PausedCall, QueuedCall};
pub use decision::{human_secs, Decision, DecisionKind, DecisionRequest, Delivery, Verdict};
pub use error::{Error, PathError};
pub use fingerprint::{canonical_json, inexact_numbers, CanonicalizeError, Fingerprint};
pub use ids::{AgentId, DecisionId, EngineId, GrantId, ItemId, RunId, ToolCallId};
pub use principal::{Actor, Principal, PrincipalKind, Role};
