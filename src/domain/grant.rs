//! "Always allow" grants (issue 6): a rule, made from a call by an admin, that approves later calls
//! of the same tool within a visible scope (this run, this agent, or this engine), optionally only
//! when the arguments meet conditions, until it expires or is revoked. The types and what a grant
//! covers live here; the console makes, applies and sweeps them (`console::grants`), the store keeps
//! them (`store::grants`). Conditions compare like the engine's approval rules
//! ([`super::json`]: integers exactly, `1` equals `1.0`, paths normalized).

use super::{CallKind, Error, GrantId, QueuedCall};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest a grant lives: 30 days.
pub const MAX_SECS: u64 = 30 * 86_400;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GrantScope {
    /// Later calls of the same run only.
    Run,
    /// Any run of the same agent at the same engine.
    Agent,
    /// Any agent of the same engine.
    Engine,
}

impl GrantScope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Agent => "agent",
            Self::Engine => "engine",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ConditionOp {
    /// The value at `pointer` equals `value` (JSON equality).
    Equals,
    /// A string starting with `value`. When `value` contains `/` it is a path: both are compared as
    /// normalized paths, segment by segment (`/shared` covers `/shared/x`, not `/shared-x`), and a
    /// value with a `..` segment never matches.
    Prefix,
    /// A number ≤ `value`.
    AtMost,
    /// A number ≥ `value`.
    AtLeast,
}

/// One condition on the arguments: the value at a JSON Pointer (`/to/account`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Condition {
    pub pointer: String,
    pub op: ConditionOp,
    pub value: Value,
}

impl Condition {
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::InvalidRequest(format!("condition on {:?}: {m}", self.pointer)));
        if !self.pointer.is_empty() && !self.pointer.starts_with('/') {
            return bad("a JSON Pointer starts with / (\"\" is the whole arguments)");
        }
        match self.op {
            ConditionOp::Prefix if !self.value.is_string() => bad("prefix needs a string"),
            ConditionOp::Prefix if self.value.as_str() == Some("") => bad("an empty prefix matches every string"),
            ConditionOp::AtMost | ConditionOp::AtLeast if !self.value.is_number() => bad("atMost/atLeast need a number"),
            _ => Ok(()),
        }
    }

    /// Whether `args` meet it; a missing value never does.
    pub fn holds(&self, args: &Value) -> bool {
        let Some(v) = args.pointer(&self.pointer) else { return false };
        match self.op {
            ConditionOp::Equals => super::json::json_eq(v, &self.value),
            ConditionOp::Prefix => match (v.as_str(), self.value.as_str()) {
                (Some(s), Some(p)) if p.contains('/') => super::json::path_under(s, p),
                (Some(s), Some(p)) => s.starts_with(p),
                _ => false,
            },
            ConditionOp::AtMost => {
                matches!((v, &self.value), (Value::Number(n), Value::Number(m)) if super::json::compare_numbers(n, m).is_some_and(|o| o.is_le()))
            }
            ConditionOp::AtLeast => {
                matches!((v, &self.value), (Value::Number(n), Value::Number(m)) if super::json::compare_numbers(n, m).is_some_and(|o| o.is_ge()))
            }
        }
    }
}

/// A grant as stored.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub id: GrantId,
    pub tool_name: String,
    pub scope: GrantScope,
    pub engine: String,
    /// Set unless the scope is the engine.
    #[schema(required = true)]
    pub agent_id: Option<String>,
    /// Set for a run's grant.
    #[schema(required = true)]
    pub run_id: Option<String>,
    pub conditions: Vec<Condition>,
    /// The call it was made from.
    #[schema(required = true)]
    pub from_item: Option<String>,
    pub created_at: DateTime<Utc>,
    pub created_by: String,
    pub expires_at: DateTime<Utc>,
    #[schema(required = true)]
    pub revoked_at: Option<DateTime<Utc>>,
    #[schema(required = true)]
    pub revoked_by: Option<String>,
    /// Calls it approved.
    pub uses: u64,
    /// Set when the grant was told not to touch the calls already waiting: it covers only calls
    /// paused from then on.
    #[schema(required = true)]
    pub applies_from: Option<DateTime<Utc>>,
}

impl Grant {
    pub fn live(&self, now: DateTime<Utc>) -> bool {
        self.revoked_at.is_none() && self.expires_at > now
    }

    /// Whether it covers this call (tool, scope, conditions; liveness aside).
    pub fn covers(&self, q: &QueuedCall) -> bool {
        let c = &q.call;
        c.kind == CallKind::Approval
            && c.tool_name == self.tool_name
            && c.engine.as_str() == self.engine
            && self.agent_id.as_deref().is_none_or(|a| a == c.agent_id.as_str())
            && self.run_id.as_deref().is_none_or(|r| r == c.run_id.as_str())
            && self.applies_from.is_none_or(|from| q.paused_at >= from)
            && self.conditions.iter().all(|cond| cond.holds(&c.args))
    }
}

/// A grant to make from a call the operator sees.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewGrant {
    /// The queue entry it is made from: its tool, engine, agent and run set the scope.
    pub from_item: String,
    /// The fingerprint of that call as shown: the grant is refused if the call changed (C3).
    pub fingerprint: String,
    pub scope: GrantScope,
    /// Conditions on later calls' arguments; each must hold for the call it is made from.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Lifetime in seconds (60 s – 30 days).
    pub expires_in_secs: u64,
    /// Whether it also approves the calls it covers that are already waiting — the call it is made
    /// from included (default). `false`: only calls paused after it is made; the waiting ones stay
    /// for the operator.
    #[serde(default = "default_true")]
    #[schema(required = false)]
    pub apply_to_waiting: bool,
}

fn default_true() -> bool {
    true
}

/// A grant just made, and how many waiting calls it approves now.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedGrant {
    pub grant: Grant,
    /// Calls waiting now that it covers: the console approves them at once (0 with
    /// `applyToWaiting: false`).
    pub approves_waiting: u64,
}

/// What a grant would do if it were made now (nothing is stored).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantPreview {
    /// Calls waiting now that it would approve at once, the one it is made from included.
    pub approves_waiting: u64,
    /// Whether the call it is made from is among them.
    pub includes_from_item: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_hold_only_for_present_values_of_the_right_kind() {
        let args = json!({ "to": { "account": "DE-123" }, "amount": 40, "note": "x" });
        let c = |pointer: &str, op, value| Condition { pointer: pointer.into(), op, value };
        assert!(c("/to/account", ConditionOp::Prefix, json!("DE-")).holds(&args));
        assert!(!c("/to/account", ConditionOp::Prefix, json!("FR-")).holds(&args));
        assert!(c("/amount", ConditionOp::AtMost, json!(50)).holds(&args));
        assert!(!c("/amount", ConditionOp::AtMost, json!(39.5)).holds(&args));
        assert!(c("/amount", ConditionOp::AtLeast, json!(40)).holds(&args));
        assert!(!c("/missing", ConditionOp::Equals, json!(null)).holds(&args), "absent is not null");
        assert!(!c("/note", ConditionOp::AtMost, json!(5)).holds(&args), "a string is no number");
        assert!(c("bad", ConditionOp::Equals, json!(1)).check().is_err());
        assert!(c("/x", ConditionOp::Prefix, json!("")).check().is_err());
    }

    #[test]
    fn a_path_prefix_compares_normalized_paths_and_never_lets_dot_dot_climb_out() {
        let under = |path: &str| {
            Condition { pointer: "/path".into(), op: ConditionOp::Prefix, value: json!("/shared") }.holds(&json!({ "path": path }))
        };
        for ok in ["/shared", "/shared/a.txt", "/shared//a/./b", "/shared/"] {
            assert!(under(ok), "{ok}");
        }
        for bad in
            ["/shared/../.ssh/id_rsa", "/shared/a/../../etc", "/shared-secret/x", "/sharedx", "shared/a", "/", "/etc/shared", "/shared/.."]
        {
            assert!(!under(bad), "{bad}");
        }
        let relative = Condition { pointer: "/p".into(), op: ConditionOp::Prefix, value: json!("docs/") };
        assert!(relative.holds(&json!({ "p": "docs/a.md" })));
        assert!(!relative.holds(&json!({ "p": "docs/../secret" })));
        assert!(!relative.holds(&json!({ "p": "/docs/a.md" })));
        let dotted = Condition { pointer: "/p".into(), op: ConditionOp::Prefix, value: json!("/a/../b") };
        assert!(!dotted.holds(&json!({ "p": "/b/x" })), "a prefix with .. matches nothing");
    }
}
