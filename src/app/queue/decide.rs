//! Decisions and resolutions an operator takes on the fingerprint that was on screen (C3): each goes
//! to the decision kernel ([`crate::console::Console::decide`]) with the caller as its [`Decider`],
//! where who decides is checked (a paired device's step-up, the high-risk rules).

use super::QueueItem;
use crate::app::App;
use crate::console::{Ask, Decider};
use crate::domain::{grade, Cx, DecisionKind, Error, Fingerprint, ItemId, Resolution, Verdict};
use serde_json::Value;

/// The fingerprint a client sent, parsed.
fn shown(fingerprint: &str) -> Result<Fingerprint, Error> {
    Fingerprint::parse(fingerprint)
        .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))
}

impl App {
    /// Decides with the fingerprint that was on screen (C3) and delivers, as `by` (the audit log
    /// names it). Answers the entry as it is afterwards.
    pub async fn decide_shown(&self, id: &str, verdict: Verdict, fingerprint: &str, by: &Cx<grade::Decide>) -> Result<QueueItem, Error> {
        Ok(self.decide_shown_told(id, verdict, fingerprint, by).await?.0)
    }

    /// [`App::decide_shown`], also saying whether this request recorded an approval short of the
    /// quorum (`true`: the HTTP answer is 202 whatever the entry shows now) or decided the call.
    pub async fn decide_shown_told(
        &self,
        id: &str,
        verdict: Verdict,
        fingerprint: &str,
        by: &Cx<grade::Decide>,
    ) -> Result<(QueueItem, bool), Error> {
        if matches!(verdict, Verdict::Expire { .. }) {
            return Err(Error::InvalidRequest("only the console's time limits expire a call".into()));
        }
        let verdict = match verdict {
            Verdict::Decline { reason } => Verdict::Decline { reason: reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) },
            other => other,
        };
        self.decide_as(&Decider::person(by), id, Ask::Verdict { verdict, fingerprint: shown(fingerprint)? }).await
    }

    /// Sends `ask` through the decision kernel as `decider`, then delivers; the console answers the
    /// entry as shown (nothing is read again here).
    async fn decide_as(&self, decider: &Decider, id: &str, ask: Ask) -> Result<(QueueItem, bool), Error> {
        self.remotes.decide_and_deliver(decider, &ItemId::new(id), ask).await
    }

    /// Resolves an interrupted call as `by`, bound to the fingerprint that was on screen (see
    /// [`crate::console::Console::decide`]). `result` only with `ran`: what the model is told the
    /// tool returned. Answers the entry as it is afterwards (for `run_again`, the new entry).
    pub async fn resolve(
        &self,
        id: &str,
        kind: DecisionKind,
        result: Option<Value>,
        fingerprint: &str,
        by: &Cx<grade::Decide>,
    ) -> Result<QueueItem, Error> {
        let fingerprint = shown(fingerprint)?;
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
        Ok(self.decide_as(&Decider::person(by), id, Ask::Resolve { resolution, fingerprint }).await?.0)
    }

    /// Approves with edited arguments (engines that allow `edit`: the local one), bound to the
    /// fingerprint that was on screen (C3); the edited arguments' fingerprint is computed here.
    pub async fn approve_edited(&self, id: &str, shown: &str, args: Value, by: &Cx<grade::Decide>) -> Result<QueueItem, Error> {
        let entry = self.console.item(&ItemId::new(id)).await?;
        let fingerprint = Fingerprint::of(&entry.queued.call.tool_name, &args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        self.decide_shown(id, Verdict::ApproveEdited { args, fingerprint }, shown, by).await
    }
}
