//! The decision kernel's checks of the call itself, before anything is written: pending, allowed,
//! bound to the fingerprint shown and to the call as its engine holds it now (C3), resume data that
//! fits its schema; and who asked for it, for the two-person rule (C8), which the planner applies
//! (`domain::plan`).

use super::super::{approve_block, Console};
use crate::domain::{Error, Fingerprint, ItemId, ItemState, QueuedCall, Verdict};
use crate::store::queue;

impl Console {
    /// Who asked for the call — its submitter, or its run's starter — whose person never counts
    /// towards its quorum (the planner's rule, `own_run`): read from the engine before the
    /// decision's unit of work, where its person is read.
    pub(super) async fn requester(&self, item: &QueuedCall) -> Result<Option<String>, Error> {
        match &item.call.requested_by {
            Some(by) => Ok(Some(by.clone())),
            None => self.engine(&item.call.engine)?.started_by(&item.call).await,
        }
    }

    /// Every check of the call a decision makes, in order, before anything is written.
    pub(super) async fn check_decision(
        &self,
        id: &ItemId,
        item: &QueuedCall,
        verdict: &Verdict,
        fingerprint: &Fingerprint,
    ) -> Result<(), Error> {
        if item.state == ItemState::Gone {
            // The engine changed the call's arguments: the entry was replaced by one with the new fingerprint.
            if let Some(now) = queue::pending_call(&self.db, &item.call.engine, &item.call.run_id, &item.call.tool_call_id).await? {
                if now.queued.call.fingerprint != *fingerprint {
                    return Err(Error::FingerprintMismatch { shown: fingerprint.clone(), current: now.queued.call.fingerprint });
                }
            }
        }
        if item.state != ItemState::Pending {
            return Err(Error::AlreadyDecided { state: item.state });
        }
        match (verdict, approve_block(&item.call)) {
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
        let kind = verdict.kind();
        let allowed = engine.allowed(&item.call);
        if !allowed.contains(&kind) {
            return Err(Error::DecisionNotAllowed { kind, allowed });
        }
        if *fingerprint != item.call.fingerprint {
            return Err(Error::FingerprintMismatch { shown: fingerprint.clone(), current: item.call.fingerprint.clone() });
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
            Some(now) if now.fingerprint != *fingerprint => {
                return Err(Error::FingerprintMismatch { shown: fingerprint.clone(), current: now.fingerprint })
            }
            Some(_) => {}
        }
        if let (Verdict::Resume { data }, Some(schema)) = (verdict, &item.call.resume_schema) {
            crate::domain::schema::validate(schema, data)?;
        }
        if let Verdict::ApproveEdited { args, fingerprint } = verdict {
            // The edited arguments' own fingerprint, computed here: never taken from the client.
            let own = crate::domain::Fingerprint::of(&item.call.tool_name, args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
            if &own != fingerprint {
                return Err(Error::InvalidRequest("the edited arguments' fingerprint is the console's to compute".into()));
            }
            engine.check_edit(&item.call, args)?;
        }
        Ok(())
    }
}
