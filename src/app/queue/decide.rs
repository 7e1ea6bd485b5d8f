//! Decisions and resolutions an operator takes on the fingerprint that was on screen (C3).

use super::QueueItem;
use crate::app::App;
use crate::domain::Op;
use crate::domain::{Actor, DecisionKind, DecisionRequest, Error, Fingerprint, ItemId, Resolution, ResolveRequest, Verdict};
use serde_json::Value;

impl App {
    /// Decides with the fingerprint that was on screen (C3) and delivers, as `by` (an operator; the
    /// audit log names it). Answers the entry as it is afterwards.
    pub async fn decide_shown(&self, id: &str, verdict: Verdict, fingerprint: &str, by: &Actor) -> Result<QueueItem, Error> {
        Ok(self.decide_shown_told(id, verdict, fingerprint, by).await?.0)
    }

    /// [`App::decide_shown`], also saying whether this request recorded an approval short of the
    /// quorum (`true`: the HTTP answer is 202 whatever the entry shows now) or decided the call.
    pub async fn decide_shown_told(&self, id: &str, verdict: Verdict, fingerprint: &str, by: &Actor) -> Result<(QueueItem, bool), Error> {
        by.may(match verdict {
            Verdict::Approve => Op::Approve,
            Verdict::ApproveEdited { .. } => Op::ApproveEdited,
            Verdict::Decline { .. } => Op::Decline,
            Verdict::Resume { .. } => Op::Resume,
            // The console's own (no shell offers it); to the engine it is a decline.
            Verdict::Expire { .. } => Op::Decline,
        })?;
        let fingerprint = Fingerprint::parse(fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))?;
        let edited = match &verdict {
            Verdict::ApproveEdited { fingerprint, .. } => Some(fingerprint.clone()),
            _ => None,
        };
        self.check_step_up(id, verdict.kind(), &fingerprint, edited.as_ref(), by).await?;
        if matches!(verdict, Verdict::Approve | Verdict::ApproveEdited { .. }) {
            self.check_high_risk_passkey(id, by).await?;
        }
        let verdict = match verdict {
            Verdict::Decline { reason } => Verdict::Decline { reason: reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) },
            other => other,
        };
        let request = DecisionRequest { verdict, fingerprint, operator: by.audit_name(), operator_key: Some(by.principal.key()) };
        let id = ItemId::new(id);
        let (entry, recorded) = match self.console.decide_and_deliver_told(&id, request.clone()).await {
            // Team mode: a remote engine another console added moments ago, not connected here yet
            // (the engines table is re-read every 2 s). The refusal stored nothing: connect, decide again.
            Err(Error::Engine(_)) if self.db.shared() => {
                self.remotes.load().await?;
                self.console.decide_and_deliver_told(&id, request).await?
            }
            other => other?,
        };
        Ok((self.item_now(entry).await?, recorded))
    }

    /// Resolves an interrupted call as `by` (an operator), bound to the fingerprint that was on screen
    /// (see [`crate::console::Console::resolve`]). `result` only with `ran`: what the model is told
    /// the tool returned. Answers the entry as it is afterwards (for `run_again`, the new entry).
    pub async fn resolve(
        &self,
        id: &str,
        kind: DecisionKind,
        result: Option<Value>,
        fingerprint: &str,
        by: &Actor,
    ) -> Result<QueueItem, Error> {
        by.may(Op::Resolve)?;
        let fingerprint = Fingerprint::parse(fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))?;
        let resolution = match (kind, result) {
            (DecisionKind::Ran, result) => Resolution::Ran { result },
            (DecisionKind::DidNotRun, None) => Resolution::DidNotRun,
            (DecisionKind::RunAgain, None) => Resolution::RunAgain,
            (DecisionKind::DidNotRun | DecisionKind::RunAgain, Some(_)) => {
                return Err(Error::InvalidRequest(format!("a result goes with `ran` only, not with `{}`", kind.as_str())))
            }
            (other, _) => {
                return Err(Error::InvalidRequest(format!("`{}` is not a resolution: give ran, did_not_run or run_again", other.as_str())))
            }
        };
        self.check_step_up(id, kind, &fingerprint, None, by).await?;
        let request = ResolveRequest { resolution, fingerprint, operator: by.audit_name(), operator_key: Some(by.principal.key()) };
        let entry = self.console.resolve(&ItemId::new(id), request).await?;
        self.item_now(entry).await
    }

    /// Approves with edited arguments (engines that allow `edit`: the local one), bound to the
    /// fingerprint that was on screen (C3); the edited arguments' fingerprint is computed here.
    pub async fn approve_edited(&self, id: &str, shown: &str, args: Value, by: &Actor) -> Result<QueueItem, Error> {
        by.may(Op::ApproveEdited)?;
        let entry = self.console.item(&ItemId::new(id)).await?;
        let fingerprint = Fingerprint::of(&entry.queued.call.tool_name, &args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        self.decide_shown(id, Verdict::ApproveEdited { args, fingerprint }, shown, by).await
    }
}
