//! One send of decisions to an engine, in two steps the console takes in order (C3 for every send):
//! the engine *prepares* it — re-reads, right before sending, every call the send would carry (the
//! decision's own and any it carries with it, such as the held requests of one LangGraph interrupt)
//! — and then *sends* a [`Checked`]: a value only [`confirm`] builds, after it found each call as
//! the engine holds it now to be the call decided (same fingerprint). An engine's `send` cannot be
//! called with anything else, so no engine kind, send path (held siblings, batches, retries,
//! take-overs) or caller can skip the comparison.
//!
//! The console (`Console::deliver_claimed`) is the one caller: it records what [`confirm`] refuses —
//! the decision failed (`fingerprint_mismatch`, or `not_found` for a call no longer waiting) and a
//! changed call queued again as new — and sends nothing that time. `confirm` lives here, beside the
//! type it builds, because the `Engine` trait (this layer) names the type and the console is a
//! layer above (tests/layers.rs); engine kinds are sibling modules and cannot build it themselves.

use crate::domain::{Decision, Error, PausedCall, QueuedCall};

/// One decision a send would carry, with its call as the engine holds it now.
#[derive(Clone, Debug)]
pub struct Part {
    pub decision: Decision,
    /// The queue entry the decision was made on (with the call as it was shown).
    pub item: QueuedCall,
    /// The call as the engine re-read it just now; `None` if it no longer waits there.
    pub current: Option<PausedCall>,
}

/// What the engine would send for a decision, as it reads its calls now ([`crate::engine::Engine::prepare`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The decision's own call first, then the others this send carries.
    pub parts: Vec<Part>,
    /// Why nothing is to be sent yet, if so: the decision is *held* (it stays claimed) until other
    /// decisions it goes with are taken, whose send then carries it. Its parts are checked all the
    /// same, so a call that changed meanwhile is found now and not only at the send.
    pub wait: Option<String>,
}

impl Prepared {
    /// A send of one decision, its call read as `current`.
    pub fn single(decision: &Decision, item: &QueuedCall, current: Option<PausedCall>) -> Self {
        Self { parts: vec![Part { decision: decision.clone(), item: item.clone(), current }], wait: None }
    }
}

/// A decision checked for sending: its call as the engine holds it now has the fingerprint decided.
#[derive(Clone, Debug)]
pub struct Sendable {
    pub decision: Decision,
    pub item: QueuedCall,
    /// The call as the engine holds it now (the one decided).
    pub call: PausedCall,
}

/// The decisions of one send, every one checked by [`confirm`]; the only thing an engine sends.
/// No other code can build one (its field is private to this module).
#[derive(Debug)]
pub struct Checked {
    parts: Vec<Sendable>,
}

impl Checked {
    /// The decisions to send: the decision's own first, then the others it carries.
    pub fn parts(&self) -> &[Sendable] {
        &self.parts
    }

    /// The decision the send was asked for.
    pub fn own(&self) -> &Sendable {
        &self.parts[0]
    }
}

/// A decision [`confirm`] refused to send, and why: `fingerprint_mismatch` (its call changed since it
/// was decided: `part.current` holds the call as it is now) or `not_found` (it no longer waits).
#[derive(Debug)]
pub struct Refused {
    pub part: Part,
    pub why: Error,
}

/// When the receipt of a decision that runs a tool expired, if it did: such a decision is not sent
/// (the place where the tool runs would refuse it), and the call is queued again to be decided anew.
fn expired(decision: &Decision) -> Option<chrono::DateTime<chrono::Utc>> {
    use crate::domain::Verdict;
    if !matches!(decision.verdict, Verdict::Approve | Verdict::ApproveEdited { .. } | Verdict::Resume { .. }) {
        return None;
    }
    let (_, claims) = crate::domain::receipt::decode(decision.receipt.as_deref()?).ok()?;
    (chrono::Utc::now().timestamp() >= claims.expires_at).then(|| chrono::DateTime::from_timestamp(claims.expires_at, 0)).flatten()
}

/// C3 for a send: every part's call as the engine holds it now must carry the fingerprint its
/// decision was made on, and a decision that runs a tool a receipt that has not expired. All pass: the [`Checked`] to send. Else every part that did not, and
/// nothing may be sent (the others stay as they are, claimed).
pub fn confirm(prepared: Prepared) -> Result<Checked, Vec<Refused>> {
    if prepared.parts.is_empty() {
        return Err(vec![]);
    }
    let mut parts = Vec::with_capacity(prepared.parts.len());
    let mut refused = Vec::new();
    for part in prepared.parts {
        match &part.current {
            None => {
                let why = Error::not_found(format!(
                    "call {} (no longer waiting at engine {})",
                    part.item.call.tool_call_id, part.item.call.engine
                ));
                refused.push(Refused { part, why });
            }
            Some(now) if now.fingerprint != part.decision.fingerprint => {
                let why = Error::FingerprintMismatch { shown: part.decision.fingerprint.clone(), current: now.fingerprint.clone() };
                refused.push(Refused { part, why });
            }
            Some(_) if expired(&part.decision).is_some() => {
                let why = Error::ReceiptExpired { expired_at: expired(&part.decision).unwrap_or_default() };
                refused.push(Refused { part, why });
            }
            Some(now) => {
                let call = now.clone();
                parts.push(Sendable { decision: part.decision, item: part.item, call });
            }
        }
    }
    if refused.is_empty() {
        Ok(Checked { parts })
    } else {
        Err(refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{DecisionId, Delivery, ItemId, ItemState, ToolCallId, Verdict};
    use serde_json::json;

    fn call(id: &str, args: serde_json::Value) -> PausedCall {
        PausedCall { tool_call_id: ToolCallId::new(id), ..PausedCall::sample("t", args) }
    }

    fn part(shown: &PausedCall, current: Option<PausedCall>) -> Part {
        let item = QueuedCall { id: ItemId::generate(), call: shown.clone(), state: ItemState::Decided, paused_at: crate::store::now() };
        let decision = Decision {
            id: DecisionId::generate(),
            item_id: item.id.clone(),
            verdict: Verdict::Approve,
            fingerprint: shown.fingerprint.clone(),
            operator: "o".into(),
            decided_at: crate::store::now(),
            delivery: Delivery::Delivering,
            outcome: None,
            attempts: 1,
            last_error: None,
            next_attempt_at: None,
            receipt: None,
        };
        Part { decision, item, current }
    }

    #[test]
    fn a_send_is_checked_only_when_every_call_it_carries_is_the_one_decided() {
        let a = call("a", json!({ "path": "/srv/data/old.csv" }));
        let b = call("b", json!({ "path": "/srv/new.csv" }));
        let checked = confirm(Prepared { parts: vec![part(&a, Some(a.clone())), part(&b, Some(b.clone()))], wait: None }).unwrap();
        assert_eq!(checked.parts().len(), 2);
        assert_eq!(checked.own().call.tool_call_id, a.tool_call_id);

        // One sibling changed under the same id: the send is refused, naming that one with both fingerprints.
        let changed = call("b", json!({ "path": "/srv/data", "recursive": true }));
        let refused =
            confirm(Prepared { parts: vec![part(&a, Some(a.clone())), part(&b, Some(changed.clone()))], wait: None }).unwrap_err();
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].part.item.call.tool_call_id, b.tool_call_id);
        assert_eq!(refused[0].why.code(), "fingerprint_mismatch");
        assert_eq!(refused[0].why.details(), Some(json!({ "expected": b.fingerprint, "actual": changed.fingerprint })));

        // A call no longer waiting is refused as not found; an empty send is no send.
        let gone = confirm(Prepared { parts: vec![part(&a, None)], wait: None }).unwrap_err();
        assert_eq!(gone[0].why.code(), "not_found");
        assert!(confirm(Prepared { parts: vec![], wait: None }).unwrap_err().is_empty());
    }
}
