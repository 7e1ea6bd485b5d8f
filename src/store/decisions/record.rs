//! A decision made durable in one transaction: the entry out of `pending`, the decision row (the
//! outbox), the audit entry; or, for a tool with a quorum, the approval counted with the others.

use super::approvals;
use crate::domain::audit::{ApprovalRecorded, ApprovedBy, CallRef, DecisionMade, GrantUsed};
use crate::domain::receipt::Issue;
use crate::domain::{Approval, Decision, Error, GrantId, ItemState, QueuedCall};
use crate::store::writer::WriteTx;
use crate::store::{audit, credentials, grants, queue, Db};

/// How an approval of a tool that needs several (the two-person rule) is counted by [`record`].
#[derive(Clone, Debug)]
pub struct Counting {
    /// How many approvals the tool needs.
    pub quorum: u32,
    /// The approving principal's key.
    pub operator_key: String,
    /// Whether an approval below the quorum may be recorded (else it is refused, `quorum_tool`).
    pub partial: bool,
}

/// What [`record`] stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// The decision, to be delivered.
    Decision {
        /// Its signed receipt, stored with it.
        receipt: String,
    },
    /// One more approval below the quorum: the call still waits, with these approvals.
    Approval { approvals: Vec<Approval>, quorum: u32 },
}

/// Stores `decision` on `item` in one transaction (or `already_decided` if another decision won):
/// the entry out of `pending`, the decision row, its audit entry (`decision.made`).
///
/// With `counting` (an approval of a tool that needs several), the approval is stored with the
/// others, counted in this transaction — writers take turns, on every console of a team, so two
/// operators approving at once count each other; one person counts once, whichever of their
/// credentials approved (`already_approved`). Below the quorum it is all that is written, with its
/// audit entry (`approval.recorded`), and the entry stays `pending` (set again, so the change feed
/// tells every screen of the new approval); the approval that completes the quorum becomes the
/// decision, its audit entry listing every approval.
///
/// Its audit entry names `policy_version`, the version of the policy in force when it was checked
/// ([`crate::console::policy`]).
///
/// With `grant` (an approval a grant makes), its use is counted and audited (`grant.used`, after
/// `decision.made`) in the same transaction, if the grant is still live then: one revoked or
/// expired since it was checked approves nothing (`not_found`: no live grant).
pub async fn record(
    db: &Db,
    item: &QueuedCall,
    decision: &Decision,
    counting: Option<Counting>,
    grant: Option<&GrantId>,
    policy_version: &str,
    issue: &Issue,
) -> Result<Recorded, Error> {
    let mut tx = db.begin_write().await?;
    let recorded = record_in(&mut tx, item, decision, counting, grant, policy_version, issue).await?;
    tx.commit().await?;
    Ok(recorded)
}

/// [`record`] in the caller's transaction, which commits it (or rolls it all back on an error).
/// A `grant` no longer live is refused (`not_found`) before anything is written here: the caller may
/// commit what it wrote before (a submitted call, queued without the grant's approval).
pub async fn record_in(
    tx: &mut WriteTx,
    item: &QueuedCall,
    decision: &Decision,
    counting: Option<Counting>,
    grant: Option<&GrantId>,
    policy_version: &str,
    issue: &Issue,
) -> Result<Recorded, Error> {
    // The grant's use first: a grant revoked or expired since it was checked writes nothing.
    if let Some(grant) = grant {
        if !grants::use_live(tx, grant, decision.decided_at).await? {
            return Err(Error::not_found(format!("live grant {grant}")));
        }
    }
    let mut counted: Option<(Vec<Approval>, u32)> = None;
    if let Some(Counting { quorum: n, operator_key: key, partial }) = counting {
        let mut approvals = approvals::of(tx, &item.id).await?;
        let already = |approvals: &[Approval]| Error::AlreadyApproved {
            operator: decision.operator.clone(),
            approvals: approvals.len() as u32,
            quorum: n,
        };
        // One person counts once, whichever of their credentials (or the local admin of the
        // same name) approved before.
        let person = credentials::person_of(tx, &key).await?;
        for a in &approvals {
            if credentials::person_of(tx, &a.operator_key).await? == person {
                return Err(already(&approvals));
            }
        }
        let complete = approvals.len() as u32 + 1 >= n;
        if !complete && !partial {
            return Err(Error::QuorumTool {
                tool: item.call.tool_name.clone(),
                quorum: n,
                why: "approve it in the console, where each operator's approval is counted",
            });
        }
        let mine = Approval {
            operator: decision.operator.clone(),
            operator_key: key,
            fingerprint: decision.fingerprint.clone(),
            approved_at: decision.decided_at,
        };
        if !approvals::insert(tx, &item.id, &mine).await? {
            return Err(already(&approvals));
        }
        approvals.push(mine);
        if !complete {
            // Still pending, set again: the change feed stamps the entry, so screens show the count.
            if !queue::transition(tx, &item.id, ItemState::Pending, ItemState::Pending).await? {
                let state = queue::get(tx, &item.id).await?.map(|e| e.queued.state).unwrap_or(ItemState::Decided);
                return Err(Error::AlreadyDecided { state });
            }
            let details = ApprovalRecorded {
                call: CallRef::of(&item.call),
                args: &item.call.args,
                approvals: approvals.len(),
                quorum: n,
                approved_by: ApprovedBy::list(&approvals),
                policy_version,
            };
            let entry = (item.id.as_str(), item.call.tool_name.as_str(), decision.fingerprint.as_str());
            audit::append(tx, audit::Record::of(&decision.operator, Some(entry), &details)).await?;
            return Ok(Recorded::Approval { approvals, quorum: n });
        }
        counted = Some((approvals, n));
    }
    if !queue::transition(tx, &item.id, ItemState::Pending, ItemState::Decided).await? {
        let state = queue::get(tx, &item.id).await?.map(|e| e.queued.state).unwrap_or(ItemState::Decided);
        return Err(Error::AlreadyDecided { state });
    }
    // Its receipt names every approver of a quorum (in this transaction's count), else the decider.
    let approvers = counted.as_ref().map(|(approvals, _)| approvals.iter().map(|a| a.operator_key.clone()).collect());
    let signed = issue.receipt(item, &decision.verdict, &decision.fingerprint, approvers, policy_version, decision.decided_at);
    let receipt = signed.text;
    let decision = &Decision { receipt: Some(receipt.clone()), ..decision.clone() };
    super::insert(tx, decision, Some(&signed.id)).await?;
    let details = DecisionMade {
        decision_id: &decision.id,
        call: CallRef::of(&item.call),
        args: &item.call.args,
        verdict: &decision.verdict,
        policy_version,
        quorum: counted.as_ref().map(|(_, n)| *n),
        approved_by: counted.as_ref().map(|(approvals, _)| ApprovedBy::list(approvals)),
        receipt: Some(&receipt),
    };
    let entry = (item.id.as_str(), item.call.tool_name.as_str(), decision.fingerprint.as_str());
    audit::append(tx, audit::Record::of(&decision.operator, Some(entry), &details)).await?;
    if let Some(grant) = grant {
        let used = GrantUsed { grant_id: grant.as_str(), decision_id: decision.id.as_str(), args: &item.call.args };
        audit::append(tx, audit::Record::of(&decision.operator, Some(entry), &used)).await?;
    }
    Ok(Recorded::Decision { receipt })
}
