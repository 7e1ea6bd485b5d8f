//! The decision kernel (issue 44): the one function through which every decision reaches the queue,
//! [`Console::decide`]. Whoever decides — an operator's page, the window, the CLI, a notification's
//! button, a paired device, the Mastra-shaped routes, an agent's auto-resume, a grant, a time limit —
//! comes with a [`Decider`]; the kernel checks who decides first ([`who`]: what that decider may
//! decide, a device's step-up bound to the call, who may approve a high-risk call), then the call
//! ([`checks`]: pending, allowed, the fingerprint shown and at the engine (C3), resume data, the
//! two-person rule), and only then makes the decision durable — queue state, decision row, receipt
//! and audit entry in one transaction. The store's writers of decisions are called from this module
//! alone (tests/layers.rs).

mod checks;
mod record;
pub mod who;

use super::view::QueueItem;
use super::Console;
use crate::domain::plan;
use crate::domain::{Approval, Decision, DecisionId, Delivery, Error, Fingerprint, ItemId, QueuedCall, Verdict};
use crate::store::decisions::approvals;
use crate::store::queue;
use crate::store::settings::Snapshot;
use crate::store::submissions::{NewSubmission, Submitted};
pub use who::{Ask, Binding, Decider, StepUps};

/// What a decision request came to ([`Console::decide`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Decided {
    /// The call's decision, stored: to be delivered.
    Decision(Box<Decision>),
    /// One more approval of a call whose tool needs several (the two-person rule), below its
    /// quorum: stored and audited (`approval.recorded`); the call still waits, with these approvals.
    Approval { approvals: Vec<Approval>, quorum: u32 },
    /// An interrupted call resolved: the entry as it is afterwards (for `run_again`, the new entry
    /// that ran the call again, delivered).
    Resolved(Box<queue::Entry>),
}

/// The call a decision is of.
pub enum Target<'a> {
    /// A queue entry by its id (read by the kernel).
    Id(&'a ItemId),
    /// An entry the caller has just read (one read fewer): every check runs on it, and its state is
    /// checked again where the decision is stored (a decision that won meanwhile makes this one
    /// `already_decided`).
    Entry(Box<queue::Entry>),
}

/// How a decision is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// In the outbox (`pending`), for the outbox worker or the caller to deliver.
    Outbox,
    /// Claimed for delivery (`delivering`), one commit where decide and claim made two: the caller
    /// delivers at once ([`Console::deliver_claimed`]). A crash before the engine acts leaves it
    /// `interrupted` (never run by itself), where an unclaimed one would be delivered at the next start.
    Claimed,
    /// [`How::Claimed`], where an approval below its tool's quorum is recorded (and audited,
    /// `approval.recorded`) instead of refused: the operators' shells decide this way.
    Counted,
}

/// The approval `grant` makes of the call `q` as it is queued, claimed for delivery (see
/// [`Console::submit`]).
fn grant_approval(grant: &crate::domain::grant::Grant, q: &QueuedCall) -> Decision {
    Console::new_decision(&q.id, Verdict::Approve, q.call.fingerprint.clone(), Decider::grant(grant).operator(), Delivery::Delivering)
}

impl Console {
    /// THE decision kernel: records `decider`'s decision of the call `target`, or refuses it and
    /// changes nothing.
    ///
    /// Who decides is checked first ([`who`]): a grant only approves, a time limit only expires, an
    /// agent's model only answers a `suspend()` of a run in its scope; a paired device decides only
    /// with its passkey step-up bound to this call, fingerprint and decision; a high-risk call is
    /// approved by a person after the console's confirm step only (never by a grant, a notification's
    /// button or an engine client's route), and, under the policy `high_risk_passkey`, from a paired
    /// device only.
    ///
    /// Then the call ([`checks`]): unknown (`not_found`); no longer pending (`already_decided`); a
    /// kind the engine does not allow; the fingerprint shown differs from the stored one or from the
    /// call as the engine holds it now (`fingerprint_mismatch`, C3); resume data that fails the resume
    /// schema (`invalid_resume_data`); arguments a fingerprint cannot bind (`missing_arguments`,
    /// `ambiguous_arguments`). Two concurrent decisions on one entry: exactly one wins, the other gets
    /// `already_decided`. The two-person rule: an approval of a tool with a quorum of N counts once
    /// per person and becomes the decision only as the N-th; refused: a second approval by the same
    /// person (`already_approved`), one by whoever asked for the call (`own_run`), one that names no
    /// person or has edited arguments (`quorum_tool`), and — unless `how` is [`How::Counted`] — one
    /// that would not complete the quorum (`quorum_tool`).
    #[tracing::instrument(name = "decide", skip_all, fields(verdict = ?ask.kind(), by = %decider.operator()))]
    pub async fn decide(&self, decider: &Decider, target: Target<'_>, ask: Ask, how: How) -> Result<Decided, Error> {
        let settings = crate::store::settings::snapshot(&self.db).await?;
        self.decide_under(decider, target, ask, how, &settings).await
    }

    /// [`Console::decide`] under the settings `settings` (read once by the caller): every rule the
    /// decision checks — risk, quorum, `high_risk_passkey`, the receipt's terms and policy version —
    /// is read from this one snapshot.
    async fn decide_under(&self, decider: &Decider, target: Target<'_>, ask: Ask, how: How, settings: &Snapshot) -> Result<Decided, Error> {
        let entry = match target {
            Target::Id(id) => self.item(id).await?,
            Target::Entry(entry) => *entry,
        };
        self.check_who(decider, &entry.queued, &ask).await?;
        match ask {
            Ask::Verdict { verdict, fingerprint } => {
                self.record_verdict(decider, &entry.queued, verdict, fingerprint, how, None, settings).await
            }
            Ask::Resolve { resolution, fingerprint } => {
                let entry = self.resolve_checked(decider, entry, resolution, fingerprint, settings).await?;
                Ok(Decided::Resolved(Box::new(entry)))
            }
        }
    }

    /// The second half of [`Console::decide`], once who decides was checked: the call's checks, who
    /// may let it run ([`Console::check_approver`], unless the caller did: `care`), the two-person
    /// rule, the decision made durable. Also the approval of the new entry a `run_again` resolution
    /// makes (the same decider's, checked with the resolution). The rules are `settings`'.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn record_verdict(
        &self,
        decider: &Decider,
        item: &QueuedCall,
        verdict: Verdict,
        fingerprint: Fingerprint,
        how: How,
        care: Option<crate::domain::safety::Care>,
        settings: &Snapshot,
    ) -> Result<Decided, Error> {
        self.check_decision(&item.id, item, &verdict, &fingerprint).await?;
        let care = match care {
            Some(care) => Some(care),
            None => self.check_approver(decider, item, verdict.kind(), settings).await?,
        };
        let passkey_only = match &care {
            Some(care) => who::passkey_only(care, settings)?,
            None => false,
        };
        // Who asked for the call, when the approval may count towards a quorum (its person is read,
        // and compared, in the decision's unit of work).
        let counts = plan::quorum(item.call.kind, &verdict, care.as_ref()).is_some()
            && decider.in_quorum()
            && decider.key().is_some()
            && !matches!(verdict, Verdict::ApproveEdited { .. });
        let requester = if counts { self.requester(item).await? } else { None };
        let approver = plan::approver(&decider.planned(), &verdict);
        let delivery = if how == How::Outbox { Delivery::Pending } else { Delivery::Delivering };
        let decision = Self::new_decision(&item.id, verdict, fingerprint, decider.operator(), delivery);
        let (policy, issue) = self.receipt_issue(settings, approver).await?;
        let recording = record::Recording {
            item,
            decision,
            care: care.as_ref(),
            passkey_only,
            requester,
            partial: how == How::Counted,
            policy_version: &policy,
            issue: &issue,
        };
        self.record(decider, recording).await
    }

    /// The decision of the entry `item`, decided now, stored as `delivery` says (claimed for
    /// delivery: its first attempt).
    fn new_decision(item: &ItemId, verdict: Verdict, fingerprint: Fingerprint, operator: String, delivery: Delivery) -> Decision {
        Decision {
            id: DecisionId::generate(),
            item_id: item.clone(),
            verdict,
            fingerprint,
            operator,
            decided_at: crate::store::now(),
            delivery,
            outcome: None,
            attempts: u32::from(delivery == Delivery::Delivering),
            last_error: None,
            next_attempt_at: None,
            receipt: None,
        }
    }

    /// [`Console::decide`], answering the decision itself: for callers that store whole decisions
    /// only ([`How::Outbox`], [`How::Claimed`]).
    pub async fn decide_whole(&self, decider: &Decider, target: Target<'_>, ask: Ask, how: How) -> Result<Decision, Error> {
        match self.decide(decider, target, ask, how).await? {
            Decided::Decision(d) => Ok(*d),
            other => Err(Error::Storage(format!("a whole decision was asked for, and this came: {other:?}"))),
        }
    }

    /// Decide ([`How::Counted`]), then deliver (issue 46): answers as soon as the decision is
    /// committed — the entry as the shells show it then ([`super::view`]), its decision
    /// `delivering` with its receipt, built under the settings the decision was checked under — and
    /// whether this request recorded an approval short of the quorum (`true`) or stored the call's
    /// decision (`false`). The delivery runs after the answer, in a task of its own
    /// ([`Console::deliver_later`]): the decider never waits for the engine, the tool or the agent's
    /// next model turn; the change feed shows the send and its outcome as they happen. The entry may
    /// show another request's decision (one that completed or beat a recorded approval meanwhile):
    /// what this request did is the flag, never the entry's state. A resolution answers its entry as
    /// it is afterwards.
    pub async fn decide_and_deliver(&self, decider: &Decider, id: &ItemId, ask: Ask) -> Result<(QueueItem, bool), Error> {
        let settings = crate::store::settings::snapshot(&self.db).await?;
        let entry = self.item(id).await?;
        let queued = entry.queued.clone();
        let (now, recorded, deliver) =
            match self.decide_under(decider, Target::Entry(Box::new(entry)), ask, How::Counted, &settings).await? {
                Decided::Decision(decision) => (self.item(id).await?, false, Some(decision)),
                Decided::Approval { .. } => (self.item(id).await?, true, None),
                Decided::Resolved(entry) => (*entry, false, None),
            };
        let shown = self.view(vec![now], &settings).await?.remove(0);
        if let Some(decision) = deliver {
            self.deliver_later(*decision, queued);
        }
        Ok((shown, recorded))
    }

    /// Delivers a decision stored claimed ([`How::Claimed`], [`How::Counted`]) in a task of its own,
    /// tracked so that a stopping console lets it finish ([`Console::deliveries_done`]). `queued` is
    /// the call as read before deciding; what is sent is the engine's call now, re-read and compared
    /// with the decision's fingerprint (C3), never this copy. An engine that cannot be reached puts
    /// it back in the outbox; every other failure is recorded as the decision's outcome.
    pub(crate) fn deliver_later(&self, decision: Decision, queued: QueuedCall) {
        let this = self.clone();
        self.deliveries.spawn(async move {
            match this.deliver_claimed_call(&decision, &queued, None).await {
                // Back in the outbox (already logged): an engine down, or another console's to deliver.
                Ok(_) | Err(Error::Unreachable(_)) => {}
                Err(e) => tracing::warn!(item = %queued.id, "delivery failed: {e}"),
            }
        });
    }

    /// Waits, at most `within`, for the deliveries [`Console::deliver_later`] started to finish;
    /// whether they all did. A console that stops calls it first, so a delivery under way is not cut
    /// short by the stop (one that is would be `interrupted` at the next start).
    pub async fn deliveries_done(&self, within: std::time::Duration) -> bool {
        tokio::time::timeout(within, self.deliveries.wait()).await.is_ok()
    }

    /// Queues a submitted call; with `grant` (one [`Console::grant_for_new`] found covering it), the
    /// grant's approval is checked here as every decision is ([`Console::check_who`]'s rules for a
    /// grant) and stored with the call in one transaction (the call, its submission, the grant's
    /// decision and its use), so its agent has the approval in the submit's answer.
    pub async fn submit(
        &self,
        actor: &str,
        call: &crate::domain::PausedCall,
        origin: crate::domain::audit::PauseOrigin<'_>,
        submission: &NewSubmission<'_>,
        grant: Option<&crate::domain::grant::Grant>,
    ) -> Result<Submitted, Error> {
        let settings = match grant {
            Some(_) => Some(crate::store::settings::snapshot(&self.db).await?),
            None => None,
        };
        let planned = match (grant, &settings) {
            (Some(grant), Some(settings)) => {
                match self.check_new_by_grant(&Decider::grant(grant), call, submission.context.as_ref(), settings) {
                    Ok(plan::Plan::Decision { approvers, .. }) => Some((grant, approvers)),
                    Ok(plan::Plan::Approval { .. }) => {
                        return Err(Error::Storage("a grant's approval was planned as one of a quorum".into()))
                    }
                    Err(e) => {
                        // The settings changed since the grant was found: the call waits for an operator.
                        tracing::info!(grant = %grant.id, "grant not used: {e}");
                        None
                    }
                }
            }
            _ => None,
        };
        let receipt = match (&planned, &settings) {
            (Some((grant, _)), Some(settings)) => {
                Some(self.receipt_issue(settings, crate::domain::receipt::grant_approver(&grant.id)).await?)
            }
            _ => None,
        };
        self.db
            .write(async |uow| {
                let submitted = uow.submit(actor, call, origin, submission).await?;
                let (Some((grant, approvers)), Some((policy, issue)), Submitted::Queued { item, .. }) = (planned, &receipt, &submitted)
                else {
                    return Ok(submitted);
                };
                if !grant.covers(item) {
                    return Ok(submitted);
                }
                let rule = crate::domain::session_rule::of(call.source, &call.args, submission.context.as_ref(), grant.rule_scope);
                let decider = Decider::grant_writing(grant, rule);
                let terms = record::Terms { approvers, counted: None, policy_version: policy, issue };
                match record::store(uow, &decider, item, grant_approval(grant, item), terms).await {
                    Ok(decision) => Ok(Submitted::Queued { item: item.clone(), granted: Some(Box::new(decision)) }),
                    // Revoked or expired since it was checked: nothing of it was written.
                    Err(Error::NotFound { .. }) => {
                        tracing::info!(item = %item.id, grant = %grant.id, "grant not used: no longer live");
                        Ok(submitted)
                    }
                    Err(e) => Err(e),
                }
            })
            .await
    }

    /// The quorum of a call (the two-person rule: its tool's, or the critical calls' when it is rated
    /// critical; 1 without one) and its approvals so far, oldest first.
    pub async fn approvals(&self, item: &QueuedCall) -> Result<(u32, Vec<Approval>), Error> {
        let quorum = self.care(item).await?.quorum;
        Ok((quorum, approvals::of_call(&self.db, &item.id).await?))
    }
}
