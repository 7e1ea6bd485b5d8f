//! The console's vocabulary: ids, paused calls, fingerprints, decisions, errors.

mod call;
mod decision;
mod error;
mod fingerprint;
mod ids;
pub mod text;

pub use call::{CallKind, ChainLink, ItemState, PausedCall, QueuedCall};
pub use decision::{Decision, DecisionKind, DecisionRequest, Delivery, Verdict};
pub use error::{Error, PathError};
pub use fingerprint::{canonical_json, CanonicalizeError, Fingerprint};
pub use ids::{AgentId, DecisionId, EngineId, ItemId, RunId, ToolCallId};
