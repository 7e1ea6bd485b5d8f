//! The decision kernel's last step: the decision planned ([`plan`]) and carried out in one of the
//! store's units of work ([`crate::store::Db::write`]). What the plan depends on — the call still
//! pending, its approvals so far and whose they are — is read inside that unit of work, where
//! writers take turns (on every console of a team), so two operators approving at once are counted
//! one after the other, each seeing the other's approval: one person counts once.

use super::{Decided, Decider};
use crate::console::Console;
use crate::domain::audit::{ApprovalRecorded, ApprovedBy, CallRef, DecisionMade, GrantUsed};
use crate::domain::plan::{self, Plan};
use crate::domain::receipt::Issue;
use crate::domain::safety::Care;
use crate::domain::{Approval, Decision, Error, ItemState, QueuedCall};
use crate::store::uow::Uow;

/// What a decision is recorded with, besides who decides ([`Console::record`]).
pub(super) struct Recording<'a> {
    pub item: &'a QueuedCall,
    /// The decision, as it is stored if it is one (its receipt is added).
    pub decision: Decision,
    /// The call's care, when the decision lets it run.
    pub care: Option<&'a Care>,
    pub passkey_only: bool,
    /// Who asked for the call (a principal key), when an approval is counted towards a quorum.
    pub requester: Option<String>,
    /// An approval below the quorum is recorded, not refused.
    pub partial: bool,
    pub policy_version: &'a str,
    pub issue: &'a Issue,
}

impl Console {
    /// Plans `decider`'s decision on what one unit of work reads, and carries the plan out in it:
    /// an approval below the quorum (`approval.recorded`, the entry left pending and stamped), or
    /// the decision — a grant's use counted if the grant is still live (`not_found` otherwise), the
    /// approval that completes a quorum stored beside it, the entry out of `pending`, the decision
    /// row with its signed receipt, `decision.made` (and `grant.used`). A refusal writes nothing.
    pub(super) async fn record(&self, decider: &Decider, r: Recording<'_>) -> Result<Decided, Error> {
        let who = decider.planned();
        let item = r.item;
        let counted = plan::quorum(item.call.kind, &r.decision.verdict, r.care).is_some();
        self.db
            .write(async |uow| {
                let state = uow.state(&item.id).await?.ok_or_else(|| Error::not_found(format!("queue item {}", item.id)))?;
                let (mut approvals, mut persons, mut person, mut requester) = (vec![], vec![], None, None);
                if counted {
                    approvals = uow.approvals(&item.id).await?;
                    for a in &approvals {
                        persons.push(uow.person(&a.operator_key).await?);
                    }
                    if let Some(key) = &who.key {
                        person = Some(uow.person(key).await?);
                    }
                    if let Some(key) = &r.requester {
                        requester = Some((key.as_str(), uow.person(key).await?));
                    }
                }
                let so_far: Vec<plan::Counted<'_>> =
                    approvals.iter().zip(&persons).map(|(approval, person)| plan::Counted { approval, person }).collect();
                let planned = plan::plan(&plan::Input {
                    tool: &item.call.tool_name,
                    call_kind: item.call.kind,
                    state,
                    verdict: &r.decision.verdict,
                    decider: &who,
                    person: person.as_deref(),
                    care: r.care,
                    passkey_only: r.passkey_only,
                    requester: requester.as_ref().map(|(key, person)| plan::Person { key, person }),
                    approvals: &so_far,
                    partial: r.partial,
                })?;
                let mine = Approval {
                    operator: r.decision.operator.clone(),
                    operator_key: who.key.clone().unwrap_or_default(),
                    fingerprint: r.decision.fingerprint.clone(),
                    approved_at: r.decision.decided_at,
                };
                match planned {
                    Plan::Approval { quorum, .. } => {
                        count(uow, item, &mine, &mut approvals, quorum).await?;
                        if !uow.still_pending(&item.id).await? {
                            return Err(already_decided(uow, item).await);
                        }
                        let details = ApprovalRecorded {
                            call: CallRef::of(&item.call),
                            args: &item.call.args,
                            approvals: approvals.len(),
                            quorum,
                            approved_by: ApprovedBy::list(&approvals),
                            policy_version: r.policy_version,
                        };
                        uow.audit(&r.decision.operator, Some(entry(item, &r.decision)), &details);
                        Ok(Decided::Approval { approvals, quorum })
                    }
                    Plan::Decision { approvers, quorum } => {
                        let counted = match quorum {
                            Some(n) => {
                                count(uow, item, &mine, &mut approvals, n).await?;
                                Some((n, approvals))
                            }
                            None => None,
                        };
                        let terms = Terms { approvers, counted, policy_version: r.policy_version, issue: r.issue };
                        let decision = store(uow, decider, item, r.decision, terms).await?;
                        Ok(Decided::Decision(Box::new(decision)))
                    }
                }
            })
            .await
    }
}

/// Stores `mine` among the approvals of `item` (the primary key refuses a second one by the same
/// principal, whatever was planned: `already_approved`).
async fn count(uow: &mut Uow, item: &QueuedCall, mine: &Approval, approvals: &mut Vec<Approval>, quorum: u32) -> Result<(), Error> {
    if !uow.add_approval(&item.id, mine).await? {
        return Err(Error::AlreadyApproved { operator: mine.operator.clone(), approvals: approvals.len() as u32, quorum });
    }
    approvals.push(mine.clone());
    Ok(())
}

/// The entry's id, tool and fingerprint, as its audit entries name them.
fn entry<'a>(item: &'a QueuedCall, decision: &'a Decision) -> (&'a str, &'a str, &'a str) {
    (item.id.as_str(), item.call.tool_name.as_str(), decision.fingerprint.as_str())
}

async fn already_decided(uow: &mut Uow, item: &QueuedCall) -> Error {
    match uow.state(&item.id).await {
        Ok(state) => Error::AlreadyDecided { state: state.unwrap_or(ItemState::Decided) },
        Err(e) => e,
    }
}

/// The terms a planned decision is stored with: its receipt's approvers (the plan's), the quorum it
/// completed with every approval counted, the policy in force and the receipt's key and lifetime.
pub(super) struct Terms<'a> {
    pub approvers: Vec<String>,
    pub counted: Option<(u32, Vec<Approval>)>,
    pub policy_version: &'a str,
    pub issue: &'a Issue,
}

/// Carries out a planned decision in `uow`: the grant's use (if the decider is a grant; `not_found`
/// and nothing written when it is no longer live), the entry out of `pending` with the decision row
/// and its receipt naming the plan's approvers, `decision.made` (listing a quorum's approvals) and
/// `grant.used`. Answers the decision as stored.
pub(super) async fn store(
    uow: &mut Uow,
    decider: &Decider,
    item: &QueuedCall,
    decision: Decision,
    terms: Terms<'_>,
) -> Result<Decision, Error> {
    let Terms { approvers, counted, policy_version, issue } = terms;
    if let Some(grant) = decider.grant_id() {
        if !uow.use_grant(grant, decision.decided_at).await? {
            return Err(Error::not_found(format!("live grant {grant}")));
        }
    }
    let signed = issue.receipt(
        item,
        &decision.verdict,
        &decision.fingerprint,
        Some(approvers),
        policy_version,
        decision.decided_at,
        decider.rule_scope(),
    );
    let decision = Decision { receipt: Some(signed.text), ..decision };
    if !uow.decide(&decision, Some(&signed.id)).await? {
        return Err(already_decided(uow, item).await);
    }
    let details = DecisionMade {
        decision_id: &decision.id,
        call: CallRef::of(&item.call),
        args: &item.call.args,
        verdict: &decision.verdict,
        policy_version,
        quorum: counted.as_ref().map(|(n, _)| *n),
        approved_by: counted.as_ref().map(|(_, approvals)| ApprovedBy::list(approvals)),
        receipt: decision.receipt.as_deref(),
    };
    uow.audit(&decision.operator, Some(entry(item, &decision)), &details);
    if let Some(grant) = decider.grant_id() {
        if let Some(rule) = decider.session_rule() {
            uow.grant_wrote(grant, rule, decision.decided_at).await?;
        }
        let used = GrantUsed {
            grant_id: grant.as_str(),
            decision_id: decision.id.as_str(),
            args: &item.call.args,
            session_rule: decider.session_rule(),
        };
        uow.audit(&decision.operator, Some(entry(item, &decision)), &used);
    }
    Ok(decision)
}
