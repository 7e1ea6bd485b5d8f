//! Who decides (issue 44): the proof every decision carries into the decision kernel
//! ([`Console::decide`]), and the kernel's checks of it — what each kind of decider may decide, a
//! paired device's passkey step-up bound to that very call and decision, and who may approve a
//! high-risk call. These checks run in [`Console::decide`] and nowhere else.
//!
//! A [`Decider`] is made from an admitted caller's typed context ([`Cx`]: a person deciding, an
//! agent's model answering its own `suspend()`), or by the console itself for its grants and time
//! limits; its fields are private, so a decision cannot name who made it.

use super::super::Console;
use crate::domain::authority::{grade, Scope};
use crate::domain::grant::Grant;
use crate::domain::plan;
use crate::domain::session_rule::{AgentRule, RuleScope};
use crate::domain::{Actor, CallKind, Cx, DecisionKind, Error, Fingerprint, GrantId, PrincipalKind, QueuedCall, Verdict};
use crate::store::settings::Snapshot;
use futures::future::BoxFuture;
use std::sync::Arc;

/// Who decides: made from an admitted caller ([`Decider::person`], …) or by the console for its own
/// decisions (a grant's approval, an expiry). The decision kernel checks it ([`Console::decide`]).
#[derive(Clone, Debug)]
pub struct Decider(Who);

#[derive(Clone, Debug)]
enum Who {
    /// A person through one of their credentials (a token, the local admin, a paired device);
    /// `confirm_step`: the shell shows a high-risk call's confirm step before it sends an approval
    /// (the page, the window, the CLI), which a notification's button and an engine client's route do not.
    /// `in_quorum`: its approval may be one of several a tool with a quorum needs (not through an
    /// engine client's route, which answers with the run going on).
    Person { actor: Actor, confirm_step: bool, in_quorum: bool },
    /// An agent's model answering a `suspend()` of a run in its scope (S10): data, never an approval.
    AutoResume { actor: Actor, scope: Scope },
    /// An "always allow" grant's approval; `rule`: the rule its answer writes back to the call's
    /// agent ([`crate::domain::session_rule`]), recorded with the grant's use; `scope`: the grant's
    /// rule scope, which its receipt claims.
    Grant { id: GrantId, made_by: String, rule: Option<AgentRule>, scope: RuleScope },
    /// A call's time limit ran out.
    Expiry,
    /// A decision a test stores as a named operator would (`App::testing`), never reachable from a shell.
    Named { operator: String, key: Option<String> },
}

impl Decider {
    /// A person deciding in a shell that shows a high-risk call's confirm step first (the page, the
    /// window, the CLI; a paired device's page, with its step-up).
    pub fn person(by: &Cx<grade::Decide>) -> Self {
        Self(Who::Person { actor: by.actor().clone(), confirm_step: true, in_quorum: true })
    }

    /// A person deciding from a desktop notification's button: no confirm step is shown there, so
    /// never an approval of a high-risk call.
    pub fn notification(by: &Cx<grade::Decide>) -> Self {
        Self(Who::Person { actor: by.actor().clone(), confirm_step: false, in_quorum: true })
    }

    /// An operator deciding through an engine client's route (the Mastra-shaped decision routes: an
    /// app with its own approval screen): no confirm step, and the run goes on in the answer, so
    /// never an approval of a high-risk call nor one of a tool with a quorum.
    pub fn engine_client(by: &Cx<grade::Operator>) -> Self {
        Self(Who::Person { actor: by.actor().clone(), confirm_step: false, in_quorum: false })
    }

    /// An agent's model answering a `suspend()` with data (S10 auto-resume), on behalf of `by`: only
    /// a suspended call, only of a run `by` may see ([`Cx::scope`]).
    pub fn auto_resume(by: &Cx<grade::Agent>) -> Self {
        Self(Who::AutoResume { actor: by.actor().clone(), scope: by.scope() })
    }

    pub(in crate::console) fn grant(grant: &Grant) -> Self {
        Self(Who::Grant { id: grant.id.clone(), made_by: grant.created_by.clone(), rule: None, scope: grant.rule_scope })
    }

    /// A grant's approval whose answer writes `rule` back to the call's agent (what
    /// [`crate::domain::session_rule::of`] says for the call, its context and the grant's scope).
    pub(in crate::console) fn grant_writing(grant: &Grant, rule: Option<AgentRule>) -> Self {
        Self(Who::Grant { id: grant.id.clone(), made_by: grant.created_by.clone(), rule, scope: grant.rule_scope })
    }

    /// The rule a grant's approval writes back, if any.
    pub(super) fn session_rule(&self) -> Option<&AgentRule> {
        match &self.0 {
            Who::Grant { rule, .. } => rule.as_ref(),
            _ => None,
        }
    }

    /// The scope its receipt claims for the rule written back: the grant's; the session for anything else.
    pub(super) fn rule_scope(&self) -> RuleScope {
        match &self.0 {
            Who::Grant { scope, .. } => *scope,
            _ => RuleScope::Session,
        }
    }

    pub(in crate::console) fn expiry() -> Self {
        Self(Who::Expiry)
    }

    /// A decision as `operator` (with the principal key `key`, if any), for `App::testing` alone
    /// (tests/layers.rs keeps it there).
    #[doc(hidden)]
    pub(crate) fn named(operator: String, key: Option<String>) -> Self {
        Self(Who::Named { operator, key })
    }

    /// Who decided and through what, as the audit log and the decision name it: `alice (web)`.
    pub fn operator(&self) -> String {
        match &self.0 {
            Who::Person { actor, .. } => actor.audit_name(),
            Who::AutoResume { actor, .. } => format!("auto-resume (model) for {}", actor.audit_name()),
            Who::Grant { id, made_by, .. } => format!("grant {id} (made by {made_by})"),
            Who::Expiry => super::super::expiry::EXPIRY_ACTOR.into(),
            Who::Named { operator, .. } => operator.clone(),
        }
    }

    /// The deciding principal's key (`token:alice`, `local:bob`): whose approval it is under a
    /// quorum. `None` for the console's own decisions: such an approval never counts towards one.
    pub fn key(&self) -> Option<String> {
        match &self.0 {
            Who::Person { actor, .. } | Who::AutoResume { actor, .. } => Some(actor.principal.key()),
            Who::Named { key, .. } => key.clone(),
            Who::Grant { .. } | Who::Expiry => None,
        }
    }

    /// Whether its approval may count towards a quorum (an engine client's may not).
    pub(super) fn in_quorum(&self) -> bool {
        !matches!(self.0, Who::Person { in_quorum: false, .. })
    }

    /// The grant this decision is the approval of.
    pub(super) fn grant_id(&self) -> Option<&GrantId> {
        match &self.0 {
            Who::Grant { id, .. } => Some(id),
            _ => None,
        }
    }

    /// This decider as the decision planner sees it ([`crate::domain::plan`]).
    pub(super) fn planned(&self) -> plan::Decider {
        let source = match &self.0 {
            Who::Person { actor, confirm_step, in_quorum } => plan::Source::Person {
                confirm_step: *confirm_step,
                in_quorum: *in_quorum,
                device: actor.principal.kind == PrincipalKind::Device,
            },
            Who::AutoResume { .. } => plan::Source::Agent,
            Who::Grant { id, .. } => plan::Source::Grant(id.clone()),
            Who::Expiry => plan::Source::Expiry,
            Who::Named { .. } => plan::Source::Named,
        };
        plan::Decider { operator: self.operator(), key: self.key(), source }
    }

    /// A paired device deciding: its decision needs the device's step-up.
    fn device(&self) -> Option<&Actor> {
        match &self.0 {
            Who::Person { actor, .. } if actor.principal.kind == PrincipalKind::Device => Some(actor),
            _ => None,
        }
    }
}

/// What a step-up was asked for, and what a decision asks of it: the device, the call, the
/// fingerprint on screen, the decision and (an edit) the edited arguments' fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub device: String,
    pub item_id: String,
    pub fingerprint: String,
    pub decision: DecisionKind,
    /// Edited arguments' fingerprint (`edit` only).
    pub edited: Option<String>,
}

/// Checks a paired device's passkey step-up for one decision: takes the ceremony the decision
/// presents (once), compares what it was asked for with `asked`, verifies the assertion against the
/// device's passkey; refuses (`step_up_required`, audited) otherwise. The remote listener's relying
/// party implements it (`app::remote::step_up`); the decision kernel alone calls it.
pub trait StepUps: Send + Sync {
    fn check<'a>(&'a self, by: &'a Actor, asked: Binding) -> BoxFuture<'a, Result<(), Error>>;
}

/// What a decision asks: a verdict on the fingerprint shown, or a resolution of an interrupted call.
#[derive(Clone, Debug)]
pub enum Ask {
    Verdict { verdict: Verdict, fingerprint: Fingerprint },
    Resolve { resolution: crate::domain::Resolution, fingerprint: Fingerprint },
}

impl Ask {
    pub(super) fn kind(&self) -> DecisionKind {
        match self {
            Ask::Verdict { verdict, .. } => verdict.kind(),
            Ask::Resolve { resolution, .. } => resolution.kind(),
        }
    }

    pub(super) fn fingerprint(&self) -> &Fingerprint {
        match self {
            Ask::Verdict { fingerprint, .. } | Ask::Resolve { fingerprint, .. } => fingerprint,
        }
    }
}

impl Console {
    /// Turns on the step-up check of paired devices' decisions (the remote listener's core).
    pub fn set_step_ups(&self, step_ups: Arc<dyn StepUps>) {
        *self.step_ups.write().expect("step-ups lock") = Some(step_ups);
    }

    /// The decision kernel's first checks of who decides ([`Console::decide`]), before anything is
    /// written: what this decider may decide at all, and a paired device's step-up bound to exactly
    /// this decision. Who may let the call run is checked once the call was ([`Console::check_approver`]).
    pub(super) async fn check_who(&self, decider: &Decider, item: &QueuedCall, ask: &Ask) -> Result<(), Error> {
        let kind = ask.kind();
        // What each kind of decider may decide at all.
        match (&decider.0, ask) {
            (Who::Person { .. }, Ask::Verdict { verdict: Verdict::Expire { .. }, .. }) => {
                return Err(Error::InvalidRequest("only the console's time limits expire a call".into()))
            }
            (Who::Person { .. } | Who::Named { .. }, _) => {}
            (Who::Grant { .. }, Ask::Verdict { verdict: Verdict::Approve, .. }) => {}
            (Who::Expiry, Ask::Verdict { verdict: Verdict::Expire { .. }, .. }) => {}
            (Who::AutoResume { scope, .. }, Ask::Verdict { verdict: Verdict::Resume { .. }, .. }) => {
                if item.call.kind != CallKind::Suspend {
                    return Err(Error::DecisionNotAllowed { kind, allowed: vec![] });
                }
                let started_by = self.started_by(&item.call).await?;
                if !scope.covers(started_by.as_deref()) {
                    return Err(Error::not_found(format!("a suspended call of run {} started by this credential", item.call.run_id)));
                }
            }
            (Who::Grant { .. } | Who::Expiry | Who::AutoResume { .. }, _) => {
                return Err(Error::DecisionNotAllowed { kind, allowed: vec![] });
            }
        }
        // A paired device decides only with its passkey, asked for exactly this decision.
        if let Some(device) = decider.device() {
            // An engine that is not connected refuses the decision anyway: before the step-up is spent.
            self.engine(&item.call.engine)?;
            let edited = match ask {
                Ask::Verdict { verdict: Verdict::ApproveEdited { fingerprint, .. }, .. } => Some(fingerprint.as_str().to_owned()),
                _ => None,
            };
            let asked = Binding {
                device: device.principal.name.clone(),
                item_id: item.id.to_string(),
                fingerprint: ask.fingerprint().as_str().to_owned(),
                decision: kind,
                edited,
            };
            let step_ups = self.step_ups.read().expect("step-ups lock").clone();
            match step_ups {
                Some(step_ups) => step_ups.check(device, asked).await?,
                None => return Err(Error::StepUpRequired { why: "the remote listener is off".into() }),
            }
        }
        Ok(())
    }

    /// The decision kernel's check of who may let a call run (an approval, an edit, a resolution
    /// that runs it again), once the call itself was checked: the planner's rule ([`plan::risk`]) on
    /// the call's care as the settings are now — a high-risk call only by a person, after the
    /// console's confirm step (never a grant, a notification's button or an engine client's route),
    /// and under the policy `high_risk_passkey` from a paired device only. Answers the call's care;
    /// `None` for what lets nothing run.
    pub(in crate::console) async fn check_approver(
        &self,
        decider: &Decider,
        item: &QueuedCall,
        kind: DecisionKind,
        settings: &Snapshot,
    ) -> Result<Option<crate::domain::safety::Care>, Error> {
        if !plan::lets_run(kind) {
            return Ok(None);
        }
        let context = self.context_of(&item.id, &item.call).await?;
        let care = super::super::care::care_in(&item.call, context.as_ref(), settings)?;
        plan::risk(&decider.planned(), &item.call.tool_name, &care, passkey_only(&care, settings)?)?;
        Ok(Some(care))
    }

    /// [`Console::check_who`] for a grant's approval of a call as it is queued (a submitted call,
    /// stored approved with it): an approval call, judged with what its source sent with it
    /// (`context`) by the planner — never a high-risk call, never one under a quorum. Answers what
    /// the approval comes to, planned on the call as queued (pending, no approvals).
    pub(super) fn check_new_by_grant(
        &self,
        decider: &Decider,
        call: &crate::domain::PausedCall,
        context: Option<&serde_json::Value>,
        settings: &Snapshot,
    ) -> Result<plan::Plan, Error> {
        if decider.grant_id().is_none() || call.kind != CallKind::Approval {
            return Err(Error::DecisionNotAllowed { kind: DecisionKind::Approve, allowed: vec![] });
        }
        let care = super::super::care::care_in(call, context, settings)?;
        plan::plan(&plan::Input {
            tool: &call.tool_name,
            call_kind: call.kind,
            state: crate::domain::ItemState::Pending,
            verdict: &Verdict::Approve,
            decider: &decider.planned(),
            person: None,
            care: Some(&care),
            passkey_only: false,
            requester: None,
            approvals: &[],
            partial: false,
        })
    }
}

/// The policy `high_risk_passkey` under `settings`, where it matters: for a call of this care that is high-risk.
pub(super) fn passkey_only(care: &crate::domain::safety::Care, settings: &Snapshot) -> Result<bool, Error> {
    Ok(care.risk.needs_operator() && settings.get::<crate::domain::safety::SafetySettings>()?.high_risk_passkey)
}
