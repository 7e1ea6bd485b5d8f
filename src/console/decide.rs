//! Deciding: every check of a decision before anything is written (C3, the two-person rule), then
//! the decision made durable — queue state, decision row and audit entry in one transaction.

use super::{approve_block, Console};
use crate::domain::{Approval, Decision, DecisionId, DecisionRequest, Delivery, Error, GrantId, ItemId, ItemState, Verdict};
use crate::store::decisions::{approvals, Counting, Recorded};
use crate::store::{credentials, decisions, queue};

/// Who a decision's receipt names as its approver when no quorum lists them: the deciding
/// principal; for the console's own decisions, the grant (`console:grant:ID`) or the time limit
/// (`console:expiry`); else the name the decider gave (`named:mastra-api`).
pub(super) fn approver_of(request: &DecisionRequest, grant: Option<&GrantId>) -> String {
    match (&request.operator_key, grant, &request.verdict) {
        (Some(key), _, _) => key.clone(),
        (None, Some(grant), _) => crate::domain::receipt::grant_approver(grant),
        (None, None, Verdict::Expire { .. }) => "console:expiry".into(),
        (None, None, _) => format!("named:{}", request.operator),
    }
}

/// What a decision request came to ([`Console::decide_or_approve`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Decided {
    /// The call's decision, stored: to be delivered.
    Decision(Box<Decision>),
    /// One more approval of a call whose tool needs several (the two-person rule), below its
    /// quorum: stored and audited (`approval.recorded`); the call still waits, with these approvals.
    Approval { approvals: Vec<Approval>, quorum: u32 },
}

impl Console {
    /// Records a decision, or refuses it and changes nothing.
    ///
    /// Refused when: the entry is unknown (`not_found`); it is no longer pending (`already_decided`);
    /// the kind is not one the engine allows for it; the fingerprint shown differs from the stored one
    /// or from the call as the engine holds it now (`fingerprint_mismatch`, C3); resume data fails the
    /// resume schema (`invalid_resume_data`). Two concurrent decisions on one entry: exactly one wins,
    /// the other gets `already_decided` (the transaction moves the entry out of `pending`, and the
    /// decisions table holds one row per entry).
    ///
    /// An approval is also refused when the call's arguments cannot be bound by its fingerprint
    /// ([`approve_block`]: `missing_arguments`, `ambiguous_arguments`), whoever asks.
    ///
    /// The two-person rule: an approval of a tool with a quorum of N counts once per operator
    /// (`operator_key`) and becomes the decision only as the N-th. Refused besides: a second
    /// approval by the same operator (`already_approved`), one by the principal that started the
    /// run (`own_run`), one that names no operator or has edited arguments (`quorum_tool`). Here an
    /// approval that would not complete the quorum is refused too (`quorum_tool`), and nothing is
    /// written: callers that record it use [`Console::decide_or_approve`].
    pub async fn decide(&self, id: &ItemId, request: DecisionRequest) -> Result<Decision, Error> {
        Self::whole(self.decide_as(id, request, Delivery::Pending, false).await?)
    }

    /// [`Console::decide`] for a caller that delivers at once ([`Console::deliver_claimed`]): the
    /// decision is stored already claimed (`delivering`), one commit where decide and claim made two.
    /// A crash before the engine acts then leaves it `interrupted` (never run by itself; the
    /// operator says what became of it), where an unclaimed one would be delivered at the next start.
    pub async fn decide_claimed(&self, id: &ItemId, request: DecisionRequest) -> Result<Decision, Error> {
        Self::whole(self.decide_as(id, request, Delivery::Delivering, false).await?)
    }

    /// [`Console::decide_claimed`] on an entry the caller has just read (one read fewer): every
    /// check runs on it, and its state is checked again where the decision is stored (a decision
    /// that won meanwhile makes this one `already_decided`).
    pub async fn decide_entry_claimed(&self, entry: queue::Entry, request: DecisionRequest) -> Result<Decision, Error> {
        Self::whole(self.decide_entry_as(&entry, request, Delivery::Delivering, false, None).await?)
    }

    /// [`Console::decide_entry_claimed`] for an approval `grant` makes: the grant's use is counted
    /// and audited in the decision's own transaction, and only if the grant is still live then
    /// (else `not_found`, and nothing is written).
    pub(super) async fn decide_by_grant(&self, entry: queue::Entry, request: DecisionRequest, grant: &GrantId) -> Result<Decision, Error> {
        Self::whole(self.decide_entry_as(&entry, request, Delivery::Delivering, false, Some(grant)).await?)
    }

    /// [`Console::decide_claimed`], where an approval below its tool's quorum is recorded (and
    /// audited, `approval.recorded`) instead of refused: the call keeps waiting for the other
    /// operators' approvals ([`Decided::Approval`]). The operators' shells (the window, the CLI,
    /// notifications) decide through this.
    pub async fn decide_or_approve(&self, id: &ItemId, request: DecisionRequest) -> Result<Decided, Error> {
        self.decide_as(id, request, Delivery::Delivering, true).await
    }

    /// The decision `request` makes of the entry `item`, decided now, stored as `delivery` says
    /// (claimed for delivery: its first attempt).
    pub(super) fn new_decision(item: &ItemId, request: DecisionRequest, delivery: Delivery) -> Decision {
        Decision {
            id: DecisionId::generate(),
            item_id: item.clone(),
            verdict: request.verdict,
            fingerprint: request.fingerprint,
            operator: request.operator,
            decided_at: crate::store::now(),
            delivery,
            outcome: None,
            attempts: u32::from(delivery == Delivery::Delivering),
            last_error: None,
            next_attempt_at: None,
            receipt: None,
        }
    }

    fn whole(decided: Decided) -> Result<Decision, Error> {
        match decided {
            Decided::Decision(d) => Ok(*d),
            Decided::Approval { .. } => Err(Error::Storage("an approval was recorded where only a whole decision may be".into())),
        }
    }

    async fn decide_as(&self, id: &ItemId, request: DecisionRequest, delivery: Delivery, partial: bool) -> Result<Decided, Error> {
        Ok(self.decide_read(id, request, delivery, partial).await?.0)
    }

    /// [`Console::decide_as`], also answering the entry as read before deciding (for its delivery:
    /// one read fewer).
    #[tracing::instrument(name = "decide", skip_all, fields(item = %id, verdict = request.verdict.name(), by = %request.operator))]
    async fn decide_read(
        &self,
        id: &ItemId,
        request: DecisionRequest,
        delivery: Delivery,
        partial: bool,
    ) -> Result<(Decided, queue::Entry), Error> {
        let entry = self.item(id).await?;
        let decided = self.decide_entry_as(&entry, request, delivery, partial, None).await?;
        Ok((decided, entry))
    }

    async fn decide_entry_as(
        &self,
        entry: &queue::Entry,
        request: DecisionRequest,
        delivery: Delivery,
        partial: bool,
        grant: Option<&GrantId>,
    ) -> Result<Decided, Error> {
        let item = &entry.queued;
        let id = &item.id;
        self.check_decision(id, item, &request).await?;
        let quorum = self.check_quorum(item, &request).await?;
        let approver = approver_of(&request, grant);
        let decision = Self::new_decision(id, request, delivery);
        let counting = quorum.map(|(quorum, operator_key)| Counting { quorum, operator_key, partial });
        self.record_decision(item, &decision, counting, grant, approver).await
    }

    /// The two-person rule's checks of an approval, before anything is written: `None` when the
    /// call needs one approval (the tool has no quorum, or this is no approval); else its quorum and
    /// the approving principal's key. Refused: an approval with edited arguments or naming no
    /// operator (`quorum_tool`), one by the principal that started the run (`own_run`). A second one
    /// by the same operator (`already_approved`) is refused where it is stored.
    async fn check_quorum(&self, item: &crate::domain::QueuedCall, request: &DecisionRequest) -> Result<Option<(u32, String)>, Error> {
        let call = &item.call;
        if call.kind != crate::domain::CallKind::Approval || !matches!(request.verdict, Verdict::Approve | Verdict::ApproveEdited { .. }) {
            return Ok(None);
        }
        let quorum = self.care(item).await?.quorum;
        if quorum <= 1 {
            return Ok(None);
        }
        let refuse = |why| Err(Error::QuorumTool { tool: call.tool_name.clone(), quorum, why });
        if matches!(request.verdict, Verdict::ApproveEdited { .. }) {
            return refuse(
                "each operator approves the same arguments, so it cannot be approved with edited ones; approve it as it is, or decline it",
            );
        }
        let Some(key) = request.operator_key.clone() else {
            return refuse("an approval of it must name its operator, and no grant or automation can stand in for one");
        };
        // Who asked for the call — its submitter, or its run's starter — never counts towards its
        // quorum, through any credential of the same person.
        let requester = match &call.requested_by {
            Some(by) => Some(by.clone()),
            None => self.engine(&call.engine)?.started_by(call).await?,
        };
        if let Some(requester) = requester {
            if credentials::same_person(&self.db, &requester, &key).await? {
                return Err(Error::OwnRun { principal: requester });
            }
        }
        // A second approval by the same operator is refused where the approvals are counted, in the
        // decision's transaction (`record_decision`).
        Ok(Some((quorum, key)))
    }

    /// Every check of [`Console::decide`], in order, before anything is written.
    async fn check_decision(&self, id: &ItemId, item: &crate::domain::QueuedCall, request: &DecisionRequest) -> Result<(), Error> {
        if item.state == ItemState::Gone {
            // The engine changed the call's arguments: the entry was replaced by one with the new fingerprint.
            if let Some(now) = queue::pending_call(&self.db, &item.call.engine, &item.call.run_id, &item.call.tool_call_id).await? {
                if now.queued.call.fingerprint != request.fingerprint {
                    return Err(Error::FingerprintMismatch { shown: request.fingerprint.clone(), current: now.queued.call.fingerprint });
                }
            }
        }
        if item.state != ItemState::Pending {
            return Err(Error::AlreadyDecided { state: item.state });
        }
        match (&request.verdict, approve_block(&item.call)) {
            (Verdict::Approve, Some(why)) | (Verdict::ApproveEdited { .. }, Some(why @ Error::MissingArguments)) => return Err(why),
            (Verdict::ApproveEdited { args, .. }, _) => {
                let paths = crate::domain::inexact_numbers(args);
                if !paths.is_empty() {
                    return Err(Error::AmbiguousArguments { paths });
                }
            }
            _ => {}
        }
        let engine = self.engine(&item.call.engine)?;
        let kind = request.verdict.kind();
        let allowed = engine.allowed(&item.call);
        if !allowed.contains(&kind) {
            return Err(Error::DecisionNotAllowed { kind, allowed });
        }
        if request.fingerprint != item.call.fingerprint {
            return Err(Error::FingerprintMismatch { shown: request.fingerprint.clone(), current: item.call.fingerprint.clone() });
        }
        let reread = match engine.reread(&item.call).await {
            // Cannot re-read now: the decision is stored and the engine re-reads the call before it
            // is sent (C3), whenever it is back.
            Err(Error::Unreachable(why)) => {
                tracing::info!(item = %item.id, "engine unreachable while deciding ({why}); the decision waits in the outbox");
                Ok(Some(item.call.clone()))
            }
            other => other,
        };
        if matches!(reread, Ok(None) | Err(_)) {
            // Another decision may have won meanwhile and its delivery ended the pause (the run
            // finished, its snapshot gone): that is `already_decided`, not a call the engine lost.
            let now = self.item(id).await?.queued.state;
            if now != ItemState::Pending {
                return Err(Error::AlreadyDecided { state: now });
            }
        }
        match reread? {
            None => {
                return Err(Error::not_found(format!("call {} (no longer paused at engine {})", item.call.tool_call_id, item.call.engine)));
            }
            Some(now) if now.fingerprint != request.fingerprint => {
                return Err(Error::FingerprintMismatch { shown: request.fingerprint.clone(), current: now.fingerprint })
            }
            Some(_) => {}
        }
        if let (Verdict::Resume { data }, Some(schema)) = (&request.verdict, &item.call.resume_schema) {
            crate::domain::schema::validate(schema, data)?;
        }
        if let Verdict::ApproveEdited { args, fingerprint } = &request.verdict {
            // The edited arguments' own fingerprint, computed here: never taken from the client.
            let own = crate::domain::Fingerprint::of(&item.call.tool_name, args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
            if &own != fingerprint {
                return Err(Error::InvalidRequest("the edited arguments' fingerprint is the console's to compute".into()));
            }
            engine.check_edit(&item.call, args)?;
        }
        Ok(())
    }

    /// The decision made durable in one transaction ([`decisions::record`]): the entry out of
    /// `pending` (or `already_decided` if another decision won), the decision row (the outbox), the
    /// audit entry; for an approval of a tool that needs several (`counting`), counted with the others.
    async fn record_decision(
        &self,
        item: &crate::domain::QueuedCall,
        decision: &Decision,
        counting: Option<Counting>,
        grant: Option<&GrantId>,
        approver: String,
    ) -> Result<Decided, Error> {
        let (policy, issue) = self.receipt_issue(approver).await?;
        Ok(match decisions::record(&self.db, item, decision, counting, grant, &policy, &issue).await? {
            Recorded::Decision { receipt } => Decided::Decision(Box::new(Decision { receipt: Some(receipt), ..decision.clone() })),
            Recorded::Approval { approvals, quorum } => Decided::Approval { approvals, quorum },
        })
    }

    /// The quorum of a call (the two-person rule: its tool's, or the critical calls' when it is rated
    /// critical; 1 without one) and its approvals so far, oldest first.
    pub async fn approvals(&self, item: &crate::domain::QueuedCall) -> Result<(u32, Vec<Approval>), Error> {
        let quorum = self.care(item).await?.quorum;
        Ok((quorum, approvals::of_call(&self.db, &item.id).await?))
    }

    /// Decide, then deliver; answers the entry as it is afterwards. An approval below its tool's
    /// quorum is recorded ([`Console::decide_or_approve`]) and the entry answered still pending.
    pub async fn decide_and_deliver(&self, id: &ItemId, request: DecisionRequest) -> Result<queue::Entry, Error> {
        Ok(self.decide_and_deliver_told(id, request).await?.0)
    }

    /// [`Console::decide_and_deliver`], also saying what this request did: whether it recorded an
    /// approval short of the quorum (`true`) or stored the call's decision (`false`). The entry is
    /// re-read afterwards and may show another request's decision (one that completed or beat a
    /// recorded approval meanwhile): what this request did is the flag, never the entry's state.
    pub async fn decide_and_deliver_told(&self, id: &ItemId, request: DecisionRequest) -> Result<(queue::Entry, bool), Error> {
        let recorded = match self.decide_read(id, request, Delivery::Delivering, true).await? {
            (Decided::Decision(decision), entry) => {
                // The call as read before deciding; what is sent is the engine's call now, re-read
                // and compared with the decision's fingerprint (C3), never this copy.
                match self.deliver_claimed_call(&decision, &entry.queued, None).await {
                    // Back in the outbox (already logged): an engine down, or another console's to deliver.
                    Ok(_) | Err(Error::Unreachable(_)) => {}
                    Err(e) => tracing::warn!(item = %id, "delivery failed: {e}"),
                }
                false
            }
            (Decided::Approval { .. }, _) => true,
        };
        Ok((self.item(id).await?, recorded))
    }
}
