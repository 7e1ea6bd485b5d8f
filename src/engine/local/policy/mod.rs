//! Whether a tool call needs approval before it runs (SPEC S1–S4): the tool's own flag first, then the
//! request's policy — a flag, declarative [`Rules`], or (from Rust only) a [`Predicate`].
//!
//! # Rules: the JSON shape
//!
//! A rule is an object; a policy is one rule or an array of them. A call needs approval when **any**
//! rule matches it; a rule matches when its `tool` pattern matches the tool name **and** every
//! condition of its `when` holds.
//!
//! ```json
//! [
//!   {"tool": "send_*", "when": [{"pointer": "/amount", "gt": 100}]},
//!   {"tool": "lookup_record", "when": [{"pointer": "/id", "matches": "^vip-"}]},
//!   {"tool": "delete_?"}
//! ]
//! ```
//!
//! The same in TOML (a config file's `[[rules]]` table):
//!
//! ```toml
//! [[rules]]
//! tool = "send_*"
//! when = [{ pointer = "/amount", gt = 100 }]
//! ```
//!
//! - `tool` (default `"*"`): a pattern over the whole tool name, case-sensitive. `*` is any run of
//!   characters (also none), `?` exactly one; everything else is literal. `[`, `]`, `{`, `}` and `\`
//!   are refused, so a pattern written for a richer glob syntax is not silently read as literal text.
//! - `when` (default `[]`): conditions, all of which must hold. A condition is `pointer` — a JSON
//!   Pointer (RFC 6901) into the call's arguments, `""` being the arguments themselves — and exactly
//!   one operator:
//!   - `equals: <json>`: the value equals it (numbers compare by value, so `1` equals `1.0`);
//!   - `in: [<json>, …]`: the value equals one of them;
//!   - `matches: "<regex>"`: the value is a string and the regular expression (Rust `regex` syntax,
//!     linear time) finds a match in it; it is not anchored, write `^…$` for a whole-string match;
//!   - `gt: <number>` / `lt: <number>`: the value is a number greater / less than it.
//!
//! A condition whose pointer finds nothing in the arguments, or whose value has a type the operator
//! does not compare (`gt` on a string, `matches` on a number), does **not** hold: such a rule does not
//! match. Write an explicit rule for the case you want paused.
//!
//! Rules are checked when they are parsed ([`Rules::parse`]): unknown fields, a bad pattern, a bad
//! regular expression, a malformed pointer or an operand of the wrong type are refused with
//! [`Error::InvalidRequest`] naming the rule's index and the field.
//!
//! # Persistence (S4)
//!
//! Rules are data and persist with a run ([`PersistedPolicy`]); a predicate is a function and cannot:
//! a run started with one keeps `Always` ("approval required for every call") in its snapshot.

mod rules;

use crate::domain::{Error, PauseKind, PauseReason};
use rules::kind;
pub use rules::{Condition, Op, Rule, Rules, ToolPattern};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How long a predicate may take before its answer is "approval required" (S3).
pub const PREDICATE_TIMEOUT: Duration = Duration::from_secs(1);

/// The signature of a [`Predicate`]: `(tool name, args, request context)` → needs approval?
pub type PredicateFn = dyn Fn(&str, &Value, &Value) -> Result<bool, String> + Send + Sync;

/// A Rust predicate deciding per call (S3). `Ok(true)` means approval required. An `Err`, a panic or
/// taking longer than [`PREDICATE_TIMEOUT`] also means approval required (fail safe). It runs on a
/// blocking thread, so it may block; one that never returns keeps that thread.
///
/// The request context it gets is `{"runId", "agentId", "threadId", "resourceId"}` of the run; anything
/// else it needs, it captures. Never persisted (S4).
#[derive(Clone)]
pub struct Predicate(Arc<PredicateFn>);

impl Predicate {
    pub fn new(f: impl Fn(&str, &Value, &Value) -> Result<bool, String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }
}

impl fmt::Debug for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Predicate(<closure>)")
    }
}

/// The same closure.
impl PartialEq for Predicate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What a request may ask about approval of its tool calls (S2, S3). Over HTTP: a boolean or rules;
/// a predicate only from Rust.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RequireToolApproval {
    /// Only tools flagged `require_approval` pause (S1).
    #[default]
    Never,
    /// Every call pauses (S2).
    Always,
    /// Calls matching any rule pause (S3).
    Rules(Rules),
    /// The predicate decides per call (S3); not persistable (S4).
    Predicate(Predicate),
}

impl RequireToolApproval {
    /// A predicate policy from a closure.
    pub fn predicate(f: impl Fn(&str, &Value, &Value) -> Result<bool, String> + Send + Sync + 'static) -> Self {
        Self::Predicate(Predicate::new(f))
    }

    /// From a request's JSON: `null` (none), a boolean, or rules (an object or an array of them).
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        match value {
            Value::Null => Ok(Self::Never),
            Value::Bool(b) => Ok((*b).into()),
            Value::Object(_) | Value::Array(_) => Rules::parse(value).map(Self::Rules),
            other => Err(Error::InvalidRequest(format!(
                "must be a boolean or rules ({{\"tool\": …, \"when\": […]}} or an array of them), not {}; predicates are Rust closures",
                kind(other)
            ))),
        }
    }

    /// What may be persisted of it (S4): a predicate becomes `Always`.
    pub fn persisted(&self) -> PersistedPolicy {
        match self {
            Self::Never => PersistedPolicy::Never,
            Self::Always | Self::Predicate(_) => PersistedPolicy::Always,
            Self::Rules(rules) => PersistedPolicy::Rules(rules.clone()),
        }
    }
}

impl From<bool> for RequireToolApproval {
    fn from(b: bool) -> Self {
        if b {
            Self::Always
        } else {
            Self::Never
        }
    }
}

impl From<Rules> for RequireToolApproval {
    fn from(rules: Rules) -> Self {
        Self::Rules(rules)
    }
}

impl From<PersistedPolicy> for RequireToolApproval {
    fn from(p: PersistedPolicy) -> Self {
        match p {
            PersistedPolicy::Never => Self::Never,
            PersistedPolicy::Always => Self::Always,
            PersistedPolicy::Rules(rules) => Self::Rules(rules),
        }
    }
}

/// The request policy as a snapshot keeps it (S4): data only. Serialized as `false`, `true` or the
/// rules array, so snapshots written when the flag was a plain boolean still read.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum PersistedPolicy {
    #[default]
    Never,
    Always,
    Rules(Rules),
}

impl Serialize for PersistedPolicy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Never => s.serialize_bool(false),
            Self::Always => s.serialize_bool(true),
            Self::Rules(rules) => rules.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PersistedPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(false) => Ok(Self::Never),
            Value::Bool(true) => Ok(Self::Always),
            rules @ (Value::Object(_) | Value::Array(_)) => Rules::parse(&rules).map(Self::Rules).map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!("requireToolApproval must be a boolean or rules, not {}", kind(&other)))),
        }
    }
}

/// Whether one call needs approval, and why: in words (for logs and the audit trail) and, when it
/// does, as a [`PauseReason`] (for the operator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub required: bool,
    pub reason: String,
    pub cause: Option<PauseReason>,
}

impl Decision {
    pub fn required(reason: impl Into<String>, cause: PauseReason) -> Self {
        Self { required: true, reason: reason.into(), cause: Some(cause) }
    }

    fn not_required(reason: impl Into<String>) -> Self {
        Self { required: false, reason: reason.into(), cause: None }
    }
}

/// Decides one call (S1–S3): the tool's own flag wins (S1); otherwise the request's policy: `Always`
/// pauses every call (S2), rules pause matching calls, a predicate decides — and a predicate that
/// fails, panics or takes longer than [`PREDICATE_TIMEOUT`] means approval required (logged as a
/// warning). The predicate runs on tokio's blocking pool, never on the async runtime's threads.
pub async fn needs_approval(tool_flag: bool, policy: &RequireToolApproval, tool_name: &str, args: &Value, ctx: &Value) -> Decision {
    decide(PREDICATE_TIMEOUT, tool_flag, policy, tool_name, args, ctx).await
}

async fn decide(limit: Duration, tool_flag: bool, policy: &RequireToolApproval, tool_name: &str, args: &Value, ctx: &Value) -> Decision {
    if tool_flag {
        return Decision::required(format!("tool {tool_name} always requires approval (S1)"), PauseReason::of(PauseKind::Tool));
    }
    match policy {
        RequireToolApproval::Never => Decision::not_required("no approval asked by the tool or the request"),
        RequireToolApproval::Always => {
            Decision::required("the request requires approval of every call (S2)", PauseReason::of(PauseKind::Request))
        }
        RequireToolApproval::Rules(rules) => match rules.first_match(tool_name, args) {
            Some(i) => Decision::required(
                format!("approval rule {i} matched (S3)"),
                PauseReason { rule: Some(i as u32 + 1), ..PauseReason::of(PauseKind::RequestRule) },
            ),
            None => Decision::not_required("no approval rule matched"),
        },
        RequireToolApproval::Predicate(p) => run_predicate(limit, p, tool_name, args, ctx).await,
    }
}

async fn run_predicate(limit: Duration, p: &Predicate, tool_name: &str, args: &Value, ctx: &Value) -> Decision {
    let (f, tool, a, c) = (p.0.clone(), tool_name.to_owned(), args.clone(), ctx.clone());
    // A blocking thread: the predicate may block or spin without stalling the runtime, and a panic
    // comes back as a JoinError instead of unwinding through the run.
    let task = tokio::task::spawn_blocking(move || f(&tool, &a, &c));
    let failure = match tokio::time::timeout(limit, task).await {
        Ok(Ok(Ok(true))) => {
            return Decision::required("the request's predicate requires approval (S3)", PauseReason::of(PauseKind::Predicate))
        }
        Ok(Ok(Ok(false))) => return Decision::not_required("the request's predicate allows the call"),
        Ok(Ok(Err(message))) => format!("failed: {message}"),
        Ok(Err(join)) if join.is_panic() => format!("panicked: {}", panic_message(join.into_panic())),
        Ok(Err(join)) => format!("did not finish: {join}"),
        // The thread goes on until the predicate returns; its answer is dropped.
        Err(_) => format!("took longer than {} ms", limit.as_millis()),
    };
    tracing::warn!(tool = tool_name, "approval predicate {failure}; approval is required (fail safe)");
    Decision::required(
        format!("the request's predicate {failure}; approval required (S3 fail safe)"),
        PauseReason { detail: Some(failure), ..PauseReason::of(PauseKind::PredicateFailed) },
    )
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Rules {
        Rules::parse(&v).unwrap_or_else(|e| panic!("{v} should parse: {e}"))
    }

    #[test]
    fn persisted_policy_reads_old_boolean_snapshots_and_keeps_rules() {
        assert_eq!(serde_json::from_value::<PersistedPolicy>(json!(false)).unwrap(), PersistedPolicy::Never);
        assert_eq!(serde_json::from_value::<PersistedPolicy>(json!(true)).unwrap(), PersistedPolicy::Always);
        assert_eq!(serde_json::to_value(PersistedPolicy::Always).unwrap(), json!(true));
        let p = PersistedPolicy::Rules(rules(json!({"tool": "x"})));
        assert_eq!(serde_json::from_value::<PersistedPolicy>(serde_json::to_value(&p).unwrap()).unwrap(), p);
        assert!(serde_json::from_value::<PersistedPolicy>(json!("yes")).is_err());
    }

    #[test]
    fn s04_a_predicate_persists_as_always() {
        assert_eq!(RequireToolApproval::predicate(|_, _, _| Ok(false)).persisted(), PersistedPolicy::Always);
        assert_eq!(RequireToolApproval::Never.persisted(), PersistedPolicy::Never);
        let r = rules(json!({"tool": "x"}));
        assert_eq!(RequireToolApproval::Rules(r.clone()).persisted(), PersistedPolicy::Rules(r));
    }

    #[test]
    fn request_json_is_a_boolean_or_rules_never_anything_else() {
        assert_eq!(RequireToolApproval::from_json(&json!(null)).unwrap(), RequireToolApproval::Never);
        assert_eq!(RequireToolApproval::from_json(&json!(true)).unwrap(), RequireToolApproval::Always);
        assert!(matches!(RequireToolApproval::from_json(&json!([{"tool": "a"}])).unwrap(), RequireToolApproval::Rules(_)));
        assert!(matches!(RequireToolApproval::from_json(&json!("true")), Err(Error::InvalidRequest(m)) if m.contains("boolean or rules")));
        assert!(matches!(RequireToolApproval::from_json(&json!({"tool": "["})), Err(Error::InvalidRequest(m)) if m.contains("rule 0")));
    }

    async fn decision(tool_flag: bool, policy: RequireToolApproval, tool: &str, args: Value) -> Decision {
        decide(Duration::from_millis(200), tool_flag, &policy, tool, &args, &json!({})).await
    }

    #[tokio::test]
    async fn s01_the_tool_flag_wins_over_every_policy() {
        for policy in
            [RequireToolApproval::Never, RequireToolApproval::Rules(Rules::default()), RequireToolApproval::predicate(|_, _, _| Ok(false))]
        {
            let d = decision(true, policy, "delete_record", json!({})).await;
            assert!(d.required && d.reason.contains("S1"), "{d:?}");
        }
    }

    #[tokio::test]
    async fn s02_always_requires_and_never_does_not() {
        assert!(decision(false, RequireToolApproval::Always, "t", json!({})).await.required);
        assert!(!decision(false, RequireToolApproval::Never, "t", json!({})).await.required);
    }

    #[tokio::test]
    async fn s03_rules_require_approval_for_matching_calls_only() {
        let r = RequireToolApproval::Rules(rules(json!([{"tool": "x"}, {"tool": "send_*", "when": [{"pointer": "/amount", "gt": 100}]}])));
        let d = decision(false, r.clone(), "send_money", json!({"amount": 150})).await;
        assert!(d.required && d.reason.contains("rule 1"), "{d:?}");
        assert!(!decision(false, r, "send_money", json!({"amount": 50})).await.required);
    }

    #[tokio::test]
    async fn s03_the_predicate_sees_tool_args_and_context_and_decides() {
        let p = RequireToolApproval::predicate(|tool, args, ctx| {
            Ok(tool == "pay" && args["amount"].as_i64() > Some(10) && ctx["runId"] == "r1")
        });
        let ctx = json!({"runId": "r1"});
        assert!(decide(PREDICATE_TIMEOUT, false, &p, "pay", &json!({"amount": 11}), &ctx).await.required);
        assert!(!decide(PREDICATE_TIMEOUT, false, &p, "pay", &json!({"amount": 10}), &ctx).await.required);
        assert!(!decide(PREDICATE_TIMEOUT, false, &p, "pay", &json!({"amount": 11}), &json!({"runId": "r2"})).await.required);
    }

    #[tokio::test]
    async fn s03_a_predicate_that_errs_panics_or_hangs_requires_approval() {
        let d = decision(false, RequireToolApproval::predicate(|_, _, _| Err("no database".into())), "t", json!({})).await;
        assert!(d.required && d.reason.contains("failed: no database"), "{d:?}");
        // The queue tells the operator why: the pause reason carries how the predicate failed.
        let cause = d.cause.as_ref().expect("a pause reason");
        assert_eq!(cause.kind, PauseKind::PredicateFailed);
        assert_eq!(cause.detail.as_deref(), Some("failed: no database"));
        // A generous limit here: the panic hook may print a backtrace before the panic comes back.
        let panics = RequireToolApproval::predicate(|_, _, _| panic!("bad predicate"));
        let d = decide(Duration::from_secs(30), false, &panics, "t", &json!({}), &json!({})).await;
        assert!(d.required && d.reason.contains("panicked: bad predicate"), "{d:?}");
        let started = std::time::Instant::now();
        let d = decision(
            false,
            RequireToolApproval::predicate(|_, _, _| {
                std::thread::sleep(Duration::from_millis(600));
                Ok(false)
            }),
            "t",
            json!({}),
        )
        .await;
        assert!(d.required && d.reason.contains("longer than 200 ms"), "{d:?}");
        assert!(started.elapsed() < Duration::from_millis(550), "the decision waited for the predicate");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_slow_predicate_does_not_block_the_runtime() {
        // On a single-threaded runtime, a ticker keeps ticking while a predicate blocks.
        let ticks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let t = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                t.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let p = RequireToolApproval::predicate(|_, _, _| {
            std::thread::sleep(Duration::from_millis(150));
            Ok(true)
        });
        assert!(decision(false, p, "t", json!({})).await.required);
        ticker.abort();
        assert!(ticks.load(std::sync::atomic::Ordering::SeqCst) >= 5, "the runtime was blocked");
    }
}
