//! The unit of work the store offers the code above it ([`Db::write`]): one write transaction, typed
//! operations on the tables, and the audit entries collected on the way, appended before the commit.
//! The store executes; what to write is decided above it (a decision: `domain::plan`, which this
//! module never names — tests/layers.rs).

use super::audit::{self, Collected};
use super::decisions::approvals;
use super::submissions::{self, NewSubmission, Submitted};
use super::writer::WriteTx;
use super::{credentials, grants, queue, Db};
use crate::domain::audit::{Details, PauseOrigin};
use crate::domain::{Approval, Decision, Error, GrantId, ItemId, ItemState, PausedCall};
use chrono::{DateTime, Utc};

/// One write transaction's work ([`Db::write`]): what its operations write, and the audit entries
/// collected ([`Uow::audit`]), commit together or not at all.
pub struct Uow {
    tx: WriteTx,
    audit: Vec<Collected>,
}

impl Db {
    /// Runs `work` in one write transaction (this process's writers take turns, on every console of
    /// a team: see [`Db::begin_write`]): what it reads it reads as it stands in this transaction, so
    /// what it decides from that holds at the commit. When `work` answers `Ok`, the audit entries
    /// it collected are appended (in order, after what its operations appended themselves) and
    /// everything commits; on an `Err` nothing of it is written.
    pub async fn write<T>(&self, work: impl AsyncFnOnce(&mut Uow) -> Result<T, Error>) -> Result<T, Error> {
        let mut uow = Uow { tx: self.begin_write().await?, audit: vec![] };
        let answer = work(&mut uow).await?;
        let Uow { mut tx, audit } = uow;
        for entry in &audit {
            audit::append(&mut tx, entry.record()).await?;
        }
        tx.commit().await?;
        Ok(answer)
    }
}

impl Uow {
    /// The state of the queue entry `item` (`None`: no such entry).
    pub async fn state(&mut self, item: &ItemId) -> Result<Option<ItemState>, Error> {
        Ok(queue::get(&mut self.tx, item).await?.map(|e| e.queued.state))
    }

    /// The approvals of `item` so far, oldest first (the two-person rule).
    pub async fn approvals(&mut self, item: &ItemId) -> Result<Vec<Approval>, Error> {
        approvals::of(&mut self.tx, item).await
    }

    /// The person the principal key `key` stands for ([`credentials::person_of`]).
    pub async fn person(&mut self, key: &str) -> Result<String, Error> {
        credentials::person_of(&mut self.tx, key).await
    }

    /// Stores an approval of `item`, one of its quorum's; false (nothing stored) if its principal
    /// approved `item` already.
    pub async fn add_approval(&mut self, item: &ItemId, approval: &Approval) -> Result<bool, Error> {
        approvals::insert(&mut self.tx, item, approval).await
    }

    /// Leaves `item` pending, set again, so the change feed tells every screen of what changed
    /// (an approval counted); false if it is no longer pending.
    pub async fn still_pending(&mut self, item: &ItemId) -> Result<bool, Error> {
        queue::transition(&mut self.tx, item, ItemState::Pending, ItemState::Pending).await
    }

    /// Stores `decision` (the outbox's row, with its receipt's id) and takes its entry out of
    /// `pending`; false, and nothing written, if the entry is no longer pending.
    pub async fn decide(&mut self, decision: &Decision, receipt_id: Option<&str>) -> Result<bool, Error> {
        if !queue::transition(&mut self.tx, &decision.item_id, ItemState::Pending, ItemState::Decided).await? {
            return Ok(false);
        }
        super::decisions::insert(&mut self.tx, decision, receipt_id).await?;
        Ok(true)
    }

    /// Counts one use of the grant `id` if it is live at `at`; false (nothing written) if it is not.
    pub async fn use_grant(&mut self, id: &GrantId, at: DateTime<Utc>) -> Result<bool, Error> {
        grants::use_live(&mut self.tx, id, at).await
    }

    /// Records that the grant `id` wrote `rule` back to a coding agent (once per distinct rule).
    pub async fn grant_wrote(
        &mut self,
        id: &GrantId,
        rule: &crate::domain::session_rule::AgentRule,
        at: DateTime<Utc>,
    ) -> Result<(), Error> {
        super::grant_rules::record(&mut self.tx, id, rule, at).await
    }

    /// Queues a submitted call with its submission, or finds what an earlier request with its key
    /// queued ([`submissions::submit_in`]).
    pub async fn submit(
        &mut self,
        actor: &str,
        call: &PausedCall,
        origin: PauseOrigin<'_>,
        s: &NewSubmission<'_>,
    ) -> Result<Submitted, Error> {
        submissions::submit_in(&mut self.tx, actor, call, origin, s).await
    }

    /// An audit entry of `details`' action by `actor` about the entry `item` (id, tool,
    /// fingerprint), appended when this unit of work ends well.
    pub fn audit<D: Details>(&mut self, actor: &str, item: Option<(&str, &str, &str)>, details: &D) {
        self.audit.push(audit::Record::of(actor, item, details).collect());
    }
}
