//! Grants at work (the types: [`crate::domain::grant`]): a matching call is approved by the console as
//! soon as it is queued — bound to that call's own fingerprint, like any decision (C3) — and each use
//! is audited (`grant.used`, and the decision's operator names the grant). A call rated high or
//! critical (by its arguments, or its tool listed high-risk in the settings) and a call under a
//! quorum (the two-person rule) are never approved by a grant ([`super::care`]), whenever the grant
//! was made; no grant is made from such a call.

mod rules;

pub use rules::AgentHomes;

use super::approve_block;
use super::{Change, Console};
use crate::domain::grant::MAX_SECS;
pub use crate::domain::grant::{
    AgentRulePreview, Condition, ConditionOp, CreatedGrant, Grant, GrantPreview, GrantScope, NewGrant, WaitingCall, PREVIEW_CALLS,
};
use crate::domain::session_rule;
use crate::domain::{CallKind, Decision, DecisionKind, Error, Fingerprint, GrantId, ItemId, ItemState, PausedCall, QueuedCall, Verdict};
use crate::store::grants;
use chrono::{DateTime, Utc};

/// Calls read per batch in a sweep (a sweep goes through every waiting call).
const SWEEP: i64 = 500;

/// Where what a call's source sent with it (its risk's scene) comes from: known to the caller, or
/// stored with the call's submission.
enum Scene<'a> {
    Known(Option<&'a serde_json::Value>),
    Stored(&'a ItemId),
}

/// A grant's decision, stored and claimed, to be delivered.
struct Granted {
    grant: GrantId,
    decision: crate::domain::Decision,
    queued: QueuedCall,
}

impl Console {
    /// Makes a grant from a call. Refused for a high-risk tool (`high_risk_tool`), a tool with a
    /// quorum (`quorum_tool`), a suspend call, a
    /// changed call (`fingerprint_mismatch`), conditions the call itself does not meet, or
    /// conditions that limit nothing (`grant_too_broad`: one matching nearly any text, or a
    /// shell-like tool's without one on its command; [`crate::domain::grant::check_conditions`]). Audited,
    /// with the number of waiting calls it approves at once.
    pub async fn create_grant(&self, new: &NewGrant, operator: &str) -> Result<CreatedGrant, Error> {
        let grant = self.grant_from(new, operator).await?;
        // A shadow grant approves nothing, waiting or new.
        let approves_waiting = if grant.shadow { 0 } else { self.waiting_covered(&grant).await?.len() as u64 };
        grants::create_audited(&self.db, &grant, operator, &new.fingerprint, approves_waiting).await?;
        if !grant.shadow {
            self.grants_wake.notify_one();
        }
        Ok(CreatedGrant { grant, approves_waiting })
    }

    /// How many waiting calls a grant would approve if it were made now; checked like
    /// [`Console::create_grant`], nothing stored.
    pub async fn preview_grant(&self, new: &NewGrant) -> Result<GrantPreview, Error> {
        let grant = self.grant_from(new, "preview").await?;
        let covered = self.waiting_covered(&grant).await?;
        let from = grant.from_item.as_deref().unwrap_or_default();
        let mut waiting = Vec::with_capacity(covered.len().min(PREVIEW_CALLS));
        for id in covered.iter().take(PREVIEW_CALLS) {
            let Ok(entry) = self.item(id).await else { continue };
            let (q, c) = (&entry.queued, &entry.queued.call);
            waiting.push(WaitingCall {
                id: q.id.to_string(),
                tool_name: c.tool_name.clone(),
                agent_id: c.agent_id.to_string(),
                run_id: c.run_id.to_string(),
                args: c.args.clone(),
                fingerprint: c.fingerprint.clone(),
                paused_at: q.paused_at,
                requested_by: c.requested_by.clone(),
            });
        }
        let from_item = self.item(&ItemId::new(from)).await?;
        let call = &from_item.queued.call;
        let context = self.context_of(&from_item.queued.id, call).await?;
        // Shown where the agent takes a rule: a scope to pick, or a rule it is told.
        let scopes = session_rule::scopes(call.source, context.as_ref());
        let rule = session_rule::of(call.source, &call.args, context.as_ref(), grant.rule_scope);
        let agent_rule = (scopes.len() > 1 || rule.is_some()).then(|| AgentRulePreview {
            agent: call.source.as_str().to_owned(),
            scopes: scopes.to_vec(),
            rule,
        });
        Ok(GrantPreview {
            approves_waiting: covered.len() as u64,
            includes_from_item: covered.iter().any(|id| id.as_str() == from),
            waiting,
            agent_rule,
        })
    }

    /// The waiting calls a live grant covers now (all of them, however many).
    async fn waiting_covered(&self, grant: &Grant) -> Result<Vec<ItemId>, Error> {
        let mut covered = Vec::new();
        let mut after = 0;
        loop {
            let batch = grants::pending_batch(&self.db, &grant.tool_name, after, SWEEP).await?;
            let Some(&(last, _)) = batch.last() else { break };
            after = last;
            for (_, id) in batch {
                if let Ok(entry) = self.item(&id).await {
                    // A waiting call it covers that is high-risk or under a quorum it would not approve.
                    if grant.covers(&entry.queued) && self.care(&entry.queued).await?.grantable() {
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
            return Err(Error::InvalidRequest(
                "only approval calls can be allowed always; a suspended tool asks something each time".into(),
            ));
        }
        let care = self.care(q).await?;
        if care.risk.needs_operator() {
            return Err(Error::HighRiskTool { tool: c.tool_name.clone(), why: care.risk.first_reason().to_owned() });
        }
        let quorum = care.quorum;
        if quorum > 1 {
            return Err(Error::QuorumTool {
                tool: c.tool_name.clone(),
                quorum,
                why: "a grant cannot allow it always; each call needs its operators' approvals",
            });
        }
        let shown = Fingerprint::parse(&new.fingerprint)
            .ok_or_else(|| Error::InvalidRequest(format!("{:?} is not a fingerprint", new.fingerprint)))?;
        if shown != c.fingerprint {
            return Err(Error::FingerprintMismatch { shown, current: c.fingerprint.clone() });
        }
        crate::domain::grant::check_conditions(&c.tool_name, &c.args, &new.conditions)?;
        // A rule kept beyond the agent's session only where the call's agent takes one.
        if !session_rule::scopes(c.source, self.context_of(&q.id, c).await?.as_ref()).contains(&new.rule_scope) {
            return Err(Error::InvalidRequest(format!(
                "a call of source {} asked this way takes no rule in {} scope; pick one its agent takes (the preview's agentRule.scopes)",
                c.source.as_str(),
                new.rule_scope.as_str()
            )));
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
            requested_by: if new.scope == GrantScope::Engine { None } else { c.requested_by.clone() },
            shadow: new.shadow,
            rule_scope: new.rule_scope,
            written: Vec::new(),
            removals: Vec::new(),
        })
    }

    /// Every grant, newest first, each with the rules its approvals wrote back (deduplicated; all
    /// grants' read in one query).
    pub async fn grants(&self) -> Result<Vec<Grant>, Error> {
        let mut all = grants::list_all(&self.db).await?;
        let mut written = crate::store::grant_rules::all(&self.db).await?;
        for g in &mut all {
            for rule in written.remove(g.id.as_str()).unwrap_or_default() {
                for w in session_rule::written::shown(&rule) {
                    if !g.written.contains(&w) {
                        g.written.push(w);
                    }
                }
            }
        }
        Ok(all)
    }

    /// Revokes a grant (audited); `already_decided`-like refusal is not needed: revoking twice says so.
    /// The answer says, per rule the grant wrote back, whether the console removed it (after a
    /// backup) or what the operator removes by hand ([`rules`]); that never fails the revocation.
    pub async fn revoke_grant(&self, id: &GrantId, operator: &str) -> Result<Grant, Error> {
        let mut revoked = match grants::revoke_audited(&self.db, id, operator, crate::store::now()).await? {
            grants::Revoked::Unknown => return Err(Error::not_found(format!("grant {id}"))),
            grants::Revoked::Already => return Err(Error::InvalidRequest(format!("grant {id} is already revoked"))),
            grants::Revoked::Now(revoked) => *revoked,
        };
        match self.remove_written(id, operator).await {
            Ok(removals) => revoked.removals = removals,
            Err(e) => tracing::warn!(grant = %id, "revoked; its written rules not looked at: {e}"),
        }
        Ok(revoked)
    }

    /// The homes whose agent files revoking may edit.
    fn agent_homes(&self) -> AgentHomes {
        self.agent_homes.read().expect("agent homes").clone()
    }

    /// Sets the homes revoking may edit agent files under (tests: a temporary home).
    pub fn set_agent_homes(&self, homes: AgentHomes) {
        *self.agent_homes.write().expect("agent homes") = homes;
    }

    /// The live grant that covers this pending approval, unless the call is high-risk or under a
    /// quorum now. The notifications ask too: a call a grant is about to approve is not told to the
    /// operator.
    pub async fn grant_for(&self, q: &QueuedCall) -> Result<Option<Grant>, Error> {
        if q.state != ItemState::Pending {
            return Ok(None);
        }
        self.grant_covering(&q.call, Scene::Stored(&q.id), q.paused_at, q.id.as_str()).await
    }

    /// The live grant that would approve `call` if it were queued now ([`Console::grant_for`]), and
    /// only if such an approval passes the checks of any decision on it (its arguments can be bound by
    /// its fingerprint, its engine takes an approval of it): a submitted call is queued with it
    /// ([`Console::submit`]), which checks again that it covers the call as queued.
    /// `context`: what the call's source sends with it (its working directory, MCP annotations).
    pub async fn grant_for_new(&self, call: &PausedCall, context: Option<&serde_json::Value>) -> Result<Option<Grant>, Error> {
        if approve_block(call).is_some() || !self.engine(&call.engine)?.allowed(call).contains(&DecisionKind::Approve) {
            return Ok(None);
        }
        self.grant_covering(call, Scene::Known(context), crate::store::now(), "(new)").await
    }

    async fn grant_covering(
        &self,
        call: &PausedCall,
        scene: Scene<'_>,
        paused_at: DateTime<Utc>,
        item: &str,
    ) -> Result<Option<Grant>, Error> {
        if call.kind != CallKind::Approval {
            return Ok(None);
        }
        let live = grants::live_of_tool(&self.db, &call.tool_name, &call.engine, crate::store::now()).await?;
        let Some(grant) = live.into_iter().find(|g| g.covers_call(call, paused_at)) else { return Ok(None) };
        // Read only once a grant covers the call: most calls have none.
        let context = match scene {
            Scene::Known(context) => context.cloned(),
            Scene::Stored(id) => self.context_of(id, call).await?,
        };
        let care = super::care::care_in(call, context.as_ref(), &crate::store::settings::snapshot(&self.db).await?)?;
        if care.risk.needs_operator() {
            let why = care.risk.first_reason();
            tracing::info!(grant = %grant.id, item, "grant not used: this call of {} is {} risk ({why})", call.tool_name, care.risk.level.as_str());
            return Ok(None);
        }
        if care.quorum > 1 {
            tracing::info!(grant = %grant.id, item, "grant not used: this call of {} needs {} operators' approvals now", call.tool_name, care.quorum);
            return Ok(None);
        }
        Ok(Some(grant))
    }

    /// Approves `id` if a live grant covers it and its tool is neither high-risk nor under a quorum;
    /// returns the grant used. The decision, the grant's use and their audit entries are one
    /// commit, the delivery the next; a grant revoked meanwhile approves nothing.
    pub async fn apply_grants(&self, id: &ItemId) -> Result<Option<GrantId>, Error> {
        let Some(granted) = self.decide_by_grants(id).await? else { return Ok(None) };
        Ok(Some(self.deliver_granted(granted).await))
    }

    /// The deciding half of [`Console::apply_grants`]: the grant's decision stored (claimed for
    /// delivery), or `None` when no grant applies or another decision or a revocation won.
    async fn decide_by_grants(&self, id: &ItemId) -> Result<Option<Granted>, Error> {
        if !grants::any_live_for_pending(&self.db, id, crate::store::now()).await? {
            return Ok(None);
        }
        let entry = self.item(id).await?;
        let Some(grant) = self.grant_for(&entry.queued).await? else { return Ok(None) };
        let queued = entry.queued.clone();
        match self.approve_by_grant(entry, &grant).await {
            Ok(decision) => Ok(Some(Granted { grant: grant.id, decision, queued })),
            Err(e @ (Error::AlreadyDecided { .. } | Error::FingerprintMismatch { .. } | Error::NotFound { .. })) => {
                tracing::info!(item = %id, "grant not used: {e}");
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The delivering half of [`Console::apply_grants`]; a failure is logged (the outbox has it).
    async fn deliver_granted(&self, granted: Granted) -> GrantId {
        match self.deliver_claimed_call(&granted.decision, &granted.queued, None).await {
            Ok(_) | Err(Error::Unreachable(_)) => {}
            Err(e) => tracing::warn!(item = %granted.queued.id, "delivery of a granted approval failed: {e}"),
        }
        granted.grant
    }

    /// A grant's approval stored with its call ([`Console::grant_for_new`]), delivered in a task of
    /// its own: its agent has heard of the approval already; a failure is logged (the outbox has it).
    pub fn deliver_granted_later(&self, grant: &Grant, decision: Decision, queued: QueuedCall) {
        let this = self.clone();
        let granted = Granted { grant: grant.id.clone(), decision, queued };
        tokio::spawn(async move {
            this.deliver_granted(granted).await;
        });
    }

    /// The approval `grant` makes of the call in `entry` (checked by [`Console::grant_for`]), stored
    /// claimed for delivery with the grant's use; `not_found` if the grant was revoked or expired
    /// since it was checked (nothing is written).
    pub(crate) async fn approve_by_grant(
        &self,
        entry: crate::store::queue::Entry,
        grant: &Grant,
    ) -> Result<crate::domain::Decision, Error> {
        let ask = super::Ask::Verdict { verdict: Verdict::Approve, fingerprint: entry.queued.call.fingerprint.clone() };
        let call = &entry.queued.call;
        let rule = session_rule::of(call.source, &call.args, self.context_of(&entry.queued.id, call).await?.as_ref(), grant.rule_scope);
        self.decide_whole(&super::Decider::grant_writing(grant, rule), super::Target::Entry(Box::new(entry)), ask, super::How::Claimed)
            .await
    }

    /// Pending calls of tools with a live grant, every one looked at again (after missed events, a
    /// new grant), in batches of [`SWEEP`].
    pub async fn sweep_grants(&self) -> Result<usize, Error> {
        let tools = grants::tools_with_live(&self.db, crate::store::now()).await?;
        let mut used = 0;
        for tool in tools {
            let mut after = 0;
            loop {
                let batch = grants::pending_batch(&self.db, &tool, after, SWEEP).await?;
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
