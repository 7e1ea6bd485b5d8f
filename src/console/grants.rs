//! "Always allow" grants (issue 6): a rule, made from a call by an operator, that approves later calls
//! of the same tool within a visible scope (this run, this agent, or this engine), optionally only
//! when the arguments meet conditions, until it expires or is revoked. A matching call is approved by
//! the console as soon as it is queued — bound to that call's own fingerprint, like any decision (C3)
//! — and each use is audited (`grant.used`, and the decision's operator names the grant). High-risk
//! tools (settings) never get a grant, and a grant stops applying if its tool becomes high-risk.

use super::{Change, Console};
use crate::domain::{CallKind, DecisionRequest, Error, Fingerprint, GrantId, ItemId, ItemState, QueuedCall, Verdict};
use crate::notify::settings::NotificationSettings;
use crate::store::{audit, grants};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The longest a grant lives: 30 days.
const MAX_SECS: u64 = 30 * 86_400;
/// Calls read per batch in a sweep (a sweep goes through every waiting call).
const SWEEP: i64 = 500;

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
    fn check(&self) -> Result<(), Error> {
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
            ConditionOp::Equals => v == &self.value,
            ConditionOp::Prefix => match (v.as_str(), self.value.as_str()) {
                (Some(s), Some(p)) if p.contains('/') => path_under(s, p),
                (Some(s), Some(p)) => s.starts_with(p),
                _ => false,
            },
            ConditionOp::AtMost => matches!((v.as_f64(), self.value.as_f64()), (Some(n), Some(m)) if n <= m),
            ConditionOp::AtLeast => matches!((v.as_f64(), self.value.as_f64()), (Some(n), Some(m)) if n >= m),
        }
    }
}

/// Whether `path` lies under `prefix` as paths: `.` and empty segments ignored, and a `..` segment in
/// either never matches (it could climb out of the folder granted). An absolute prefix needs an
/// absolute path, and a relative one a relative path.
fn path_under(path: &str, prefix: &str) -> bool {
    fn segments(p: &str) -> Option<Vec<&str>> {
        let parts: Vec<&str> = p.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
        (!parts.contains(&"..")).then_some(parts)
    }
    if path.starts_with('/') != prefix.starts_with('/') {
        return false;
    }
    match (segments(path), segments(prefix)) {
        (Some(path), Some(prefix)) => path.len() >= prefix.len() && path[..prefix.len()] == prefix[..],
        _ => false,
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

impl Console {
    /// Makes a grant from a call. Refused for a high-risk tool (`high_risk_tool`), a suspend call, a
    /// changed call (`fingerprint_mismatch`), or conditions the call itself does not meet. Audited,
    /// with the number of waiting calls it approves at once.
    pub async fn create_grant(&self, new: &NewGrant, operator: &str) -> Result<CreatedGrant, Error> {
        let grant = self.grant_from(new, operator).await?;
        let approves_waiting = self.waiting_covered(&grant).await?.len() as u64;
        let q_id = grant.from_item.clone().unwrap_or_default();
        let mut tx = self.db.begin_write().await?;
        grants::insert(&mut tx, &grant).await?;
        audit::append(&mut tx, audit::Record {
            actor: operator,
            action: "grant.created",
            queue_item_id: Some(&q_id),
            tool_name: Some(&grant.tool_name),
            fingerprint: Some(&new.fingerprint),
            details: json!({ "grant": grant, "approvesWaiting": approves_waiting }),
        })
        .await?;
        tx.commit().await?;
        self.grants_wake.notify_one();
        Ok(CreatedGrant { grant, approves_waiting })
    }

    /// How many waiting calls a grant would approve if it were made now; checked like
    /// [`Console::create_grant`], nothing stored.
    pub async fn preview_grant(&self, new: &NewGrant) -> Result<GrantPreview, Error> {
        let grant = self.grant_from(new, "preview").await?;
        let covered = self.waiting_covered(&grant).await?;
        let from = grant.from_item.as_deref().unwrap_or_default();
        Ok(GrantPreview { approves_waiting: covered.len() as u64, includes_from_item: covered.iter().any(|id| id.as_str() == from) })
    }

    /// The waiting calls a live grant covers now (all of them, however many).
    async fn waiting_covered(&self, grant: &Grant) -> Result<Vec<ItemId>, Error> {
        let mut covered = Vec::new();
        let mut after = 0;
        loop {
            let batch = {
                let mut conn = self.db.pool().acquire().await?;
                grants::pending_of_tool(&mut conn, &grant.tool_name, after, SWEEP).await?
            };
            let Some(&(last, _)) = batch.last() else { break };
            after = last;
            for (_, id) in batch {
                if let Ok(entry) = self.item(&id).await {
                    if grant.covers(&entry.queued) {
                        covered.push(id);
                    }
                }
            }
        }
        Ok(covered)
    }

    /// The grant `new` describes, checked; not stored.
    async fn grant_from(&self, new: &NewGrant, operator: &str) -> Result<Grant, Error> {
        if !(60..=MAX_SECS).contains(&new.expires_in_secs) {
            return Err(Error::InvalidRequest(format!("a grant lives 60 s to {MAX_SECS} s (30 days), not {}", new.expires_in_secs)));
        }
        let entry = self.item(&ItemId::new(&new.from_item)).await?;
        let q = &entry.queued;
        let c = &q.call;
        if c.kind != CallKind::Approval {
            return Err(Error::InvalidRequest("only approval calls can be allowed always; a suspended tool asks something each time".into()));
        }
        if NotificationSettings::load(&self.db).await?.high_risk(&c.tool_name) {
            return Err(Error::HighRiskTool { tool: c.tool_name.clone() });
        }
        let shown = Fingerprint::parse(&new.fingerprint).ok_or_else(|| Error::InvalidRequest(format!("{:?} is not a fingerprint", new.fingerprint)))?;
        if shown != c.fingerprint {
            return Err(Error::FingerprintMismatch { shown, current: c.fingerprint.clone() });
        }
        for cond in &new.conditions {
            cond.check()?;
            if !cond.holds(&c.args) {
                return Err(Error::InvalidRequest(format!("condition on {:?} does not hold for the call it is made from", cond.pointer)));
            }
        }
        let now = crate::store::now();
        Ok(Grant {
            id: GrantId::generate(),
            tool_name: c.tool_name.clone(),
            scope: new.scope,
            engine: c.engine.to_string(),
            agent_id: (new.scope != GrantScope::Engine).then(|| c.agent_id.to_string()),
            run_id: (new.scope == GrantScope::Run).then(|| c.run_id.to_string()),
            conditions: new.conditions.clone(),
            from_item: Some(q.id.to_string()),
            created_at: now,
            created_by: operator.to_owned(),
            expires_at: now + chrono::Duration::seconds(new.expires_in_secs as i64),
            revoked_at: None,
            revoked_by: None,
            uses: 0,
            applies_from: (!new.apply_to_waiting).then_some(now),
        })
    }

    pub async fn grants(&self) -> Result<Vec<Grant>, Error> {
        let mut conn = self.db.pool().acquire().await?;
        grants::all(&mut conn).await
    }

    /// Revokes a grant (audited); `already_decided`-like refusal is not needed: revoking twice says so.
    pub async fn revoke_grant(&self, id: &GrantId, operator: &str) -> Result<Grant, Error> {
        let mut tx = self.db.begin_write().await?;
        let grant = grants::get(&mut tx, id).await?.ok_or_else(|| Error::not_found(format!("grant {id}")))?;
        if !grants::revoke(&mut tx, id, operator, crate::store::now()).await? {
            return Err(Error::InvalidRequest(format!("grant {id} is already revoked")));
        }
        audit::append(&mut tx, audit::Record {
            actor: operator,
            action: "grant.revoked",
            queue_item_id: None,
            tool_name: Some(&grant.tool_name),
            fingerprint: None,
            details: json!({ "grantId": id, "uses": grant.uses }),
        })
        .await?;
        let revoked = grants::get(&mut tx, id).await?.expect("still there");
        tx.commit().await?;
        Ok(revoked)
    }

    /// The live grant that covers this pending approval, unless its tool is high-risk now. The
    /// notifications ask too: a call a grant is about to approve is not told to the operator.
    pub async fn grant_for(&self, q: &QueuedCall) -> Result<Option<Grant>, Error> {
        if q.state != ItemState::Pending || q.call.kind != CallKind::Approval {
            return Ok(None);
        }
        let live = {
            let mut conn = self.db.pool().acquire().await?;
            grants::live_for(&mut conn, &q.call.tool_name, &q.call.engine, crate::store::now()).await?
        };
        let Some(grant) = live.into_iter().find(|g| g.covers(q)) else { return Ok(None) };
        if NotificationSettings::load(&self.db).await?.high_risk(&q.call.tool_name) {
            tracing::info!(grant = %grant.id, item = %q.id, "grant not used: {} is high-risk now", q.call.tool_name);
            return Ok(None);
        }
        Ok(Some(grant))
    }

    /// Approves `id` if a live grant covers it and its tool is not high-risk; returns the grant used.
    pub async fn apply_grants(&self, id: &ItemId) -> Result<Option<GrantId>, Error> {
        let entry = self.item(id).await?;
        let q = &entry.queued;
        let Some(grant) = self.grant_for(q).await? else { return Ok(None) };
        let request = DecisionRequest {
            verdict: Verdict::Approve,
            fingerprint: q.call.fingerprint.clone(),
            operator: format!("grant {} (made by {})", grant.id, grant.created_by),
        };
        let decision = match self.decide(id, request).await {
            Ok(d) => d,
            Err(e @ (Error::AlreadyDecided { .. } | Error::FingerprintMismatch { .. } | Error::NotFound { .. })) => {
                tracing::info!(item = %id, "grant not used: {e}");
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let mut tx = self.db.begin_write().await?;
        grants::count_use(&mut tx, &grant.id).await?;
        audit::append(&mut tx, audit::Record {
            actor: &decision.operator,
            action: "grant.used",
            queue_item_id: Some(id.as_str()),
            tool_name: Some(&q.call.tool_name),
            fingerprint: Some(q.call.fingerprint.as_str()),
            details: json!({ "grantId": grant.id, "decisionId": decision.id, "args": q.call.args }),
        })
        .await?;
        tx.commit().await?;
        match self.deliver(&decision, None).await {
            Ok(_) | Err(Error::Unreachable(_)) => {}
            Err(e) => tracing::warn!(item = %id, "delivery of a granted approval failed: {e}"),
        }
        Ok(Some(grant.id))
    }

    /// Pending calls of tools with a live grant, every one looked at again (after missed events, a
    /// new grant), in batches of [`SWEEP`].
    pub async fn sweep_grants(&self) -> Result<usize, Error> {
        let tools = {
            let mut conn = self.db.pool().acquire().await?;
            grants::live_tools(&mut conn, crate::store::now()).await?
        };
        let mut used = 0;
        for tool in tools {
            let mut after = 0;
            loop {
                let batch = {
                    let mut conn = self.db.pool().acquire().await?;
                    grants::pending_of_tool(&mut conn, &tool, after, SWEEP).await?
                };
                let Some(&(last, _)) = batch.last() else { break };
                after = last;
                for (_, id) in batch {
                    if self.apply_grants(&id).await?.is_some() {
                        used += 1;
                    }
                }
            }
        }
        Ok(used)
    }

    /// Applies grants to each call as it is queued, and sweeps at start, after a new grant and after
    /// missed events; until `stop` flips.
    pub fn spawn_grants(&self, mut stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        let mut events = self.events.subscribe();
        tokio::spawn(async move {
            let mut sweep = true;
            loop {
                if std::mem::take(&mut sweep) {
                    if let Err(e) = this.sweep_grants().await {
                        tracing::warn!("grants: {e}");
                    }
                }
                tokio::select! {
                    e = events.recv() => match e {
                        Ok(e) if e.kind == Change::Added => {
                            if let Err(err) = this.apply_grants(&e.id).await {
                                tracing::warn!(item = %e.id, "grants: {err}");
                            }
                        }
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => sweep = true,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    },
                    _ = this.grants_wake.notified() => sweep = true,
                    _ = stop.changed() => return,
                }
                if *stop.borrow() {
                    return;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let under = |path: &str| Condition { pointer: "/path".into(), op: ConditionOp::Prefix, value: json!("/shared") }.holds(&json!({ "path": path }));
        for ok in ["/shared", "/shared/a.txt", "/shared//a/./b", "/shared/"] {
            assert!(under(ok), "{ok}");
        }
        for bad in ["/shared/../.ssh/id_rsa", "/shared/a/../../etc", "/shared-secret/x", "/sharedx", "shared/a", "/", "/etc/shared", "/shared/.."] {
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
