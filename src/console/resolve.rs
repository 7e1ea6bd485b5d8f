//! Interrupted calls resolved by the operator (issue 15). A call is `interrupted` when the console
//! stopped while its tool ran: nobody knows whether it ran, so it is never run again by itself and
//! its run waits. The operator says what became of it — it ran (with the result, if known), it did
//! not run (the model is told it failed), or, for a tool marked idempotent, run it again — and the
//! run goes on. Like a decision, a resolution is bound to the fingerprint that was on screen, made
//! once (a second one is `already_decided`), and audited.

use super::{Console, Decided, Decider, How};
use crate::domain::{DecisionKind, Error, Fingerprint, ItemState, PausedCall, Resolution, Verdict};
use crate::store::{queue, resolutions};

impl Console {
    /// The resolutions an interrupted call allows: `ran` and `did_not_run` whenever its engine can be
    /// told (it is connected and runs tools itself), `run_again` too when its tool is idempotent.
    pub fn resolutions_allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        let Ok(engine) = self.engine(&call.engine) else { return vec![] };
        if !engine.settles() {
            return vec![];
        }
        let mut kinds = vec![DecisionKind::Ran, DecisionKind::DidNotRun];
        if engine.idempotent(call) && super::approve_block(call).is_none() {
            kinds.push(DecisionKind::RunAgain);
        }
        kinds
    }

    /// Resolves an interrupted call for the decision kernel ([`Console::decide`], which checked who
    /// decides), or refuses and changes nothing: not interrupted (`decision_not_allowed`, with what
    /// the call allows); resolved already (`already_decided`); another fingerprint than the call's
    /// (`fingerprint_mismatch`); a kind the call does not allow (`run_again` of a tool not marked
    /// idempotent: `decision_not_allowed`). Answers the entry as it is afterwards (for `run_again`,
    /// the new entry that runs the call again, its approval committed and being delivered).
    #[tracing::instrument(name = "resolve", skip_all, fields(item = %entry.queued.id, kind = resolution.kind().as_str()))]
    pub(super) async fn resolve_checked(
        &self,
        decider: &Decider,
        entry: queue::Entry,
        resolution: Resolution,
        fingerprint: Fingerprint,
        settings: &crate::store::settings::Snapshot,
    ) -> Result<queue::Entry, Error> {
        let item = &entry.queued;
        let id = &item.id;
        let kind = resolution.kind();
        if item.state != ItemState::Interrupted {
            let allowed = if item.state == ItemState::Pending { self.allowed(&item.call) } else { vec![] };
            return Err(Error::DecisionNotAllowed { kind, allowed });
        }
        if resolutions::find(&self.db, id).await?.is_some() {
            return Err(Error::AlreadyDecided { state: ItemState::Interrupted });
        }
        if fingerprint != item.call.fingerprint {
            return Err(Error::FingerprintMismatch { shown: fingerprint, current: item.call.fingerprint.clone() });
        }
        let allowed = self.resolutions_allowed(&item.call);
        if !allowed.contains(&kind) {
            return Err(Error::DecisionNotAllowed { kind, allowed });
        }
        let engine = self.engine(&item.call.engine)?;
        let key = decider.key();
        // Running it again lets it run: who may (a high-risk call's rules), checked before anything is written.
        let care = self.check_approver(decider, item, kind, settings).await?;
        if let Some(care) = &care {
            // Under a quorum the new entry's approval is this operator's: one the run's own starter
            // may not give (refused here, before anything is written).
            let quorum = care.quorum;
            if quorum > 1 && key.is_some() && engine.started_by(&item.call).await? == key {
                return Err(Error::OwnRun { principal: key.unwrap_or_default() });
            }
        }
        let stored = resolutions::Stored {
            kind,
            result: resolution.told(&item.call.tool_name),
            fingerprint: fingerprint.clone(),
            operator: decider.operator(),
            resolved_at: crate::store::now(),
            retry_item: None,
        };
        match stored.result.clone() {
            // Only run_again tells the model nothing: it runs the call again instead.
            None => {
                // A new entry for the same call, approved at once by this operator through the kernel's
                // own path (checked again, at the engine too; delivered once). Under a quorum this is the
                // resolving operator's approval, one of those the new entry needs.
                let retry = resolutions::record_run_again(&self.db, item, stored).await?;
                let decided = self.record_verdict(decider, &retry, Verdict::Approve, fingerprint, How::Counted, care, settings).await?;
                let now = self.item(&retry.id).await;
                if let Decided::Decision(decision) = decided {
                    // Delivered after the answer, as every operator's decision is (issue 46).
                    self.deliver_later(*decision, retry);
                }
                now
            }
            Some(result) => {
                engine.settle(item, result, &stored).await?;
                self.item(id).await
            }
        }
    }
}
