//! Delivering: the claim, the one send path of every decision to every engine (C3 before each
//! send), deferrals back to the outbox, and the outbox worker that retries them (C5).

use super::Console;
use crate::domain::{Decision, Error};
use crate::engine::{send, ChunkSink, Engine};
use crate::store::outbox;
use serde_json::{json, Value};
use std::time::Duration;

/// How long a stored decision is left to the process that took it before the outbox worker delivers it.
const OUTBOX_GRACE: chrono::Duration = chrono::Duration::seconds(10);
/// How often the outbox worker looks for due deliveries when nothing woke it.
const OUTBOX_TICK: Duration = Duration::from_secs(1);
/// Longest wait between two delivery attempts of one decision.
const MAX_RETRY: Duration = Duration::from_secs(60);
/// At most this many prepare-and-check rounds for one send (each fails a decision it carried).
const MAX_SEND_ROUNDS: usize = 8;

impl Console {
    /// Delivers a stored decision to its engine, once: the claim (`pending → delivering`) is committed
    /// before the engine acts, so a second caller, or a restart, never delivers it again.
    /// Returns the engine's outcome; `Ok(None)` if someone else had claimed it.
    #[tracing::instrument(name = "deliver", skip_all, fields(item = %decision.item_id, decision = %decision.id))]
    pub async fn deliver(&self, decision: &Decision, sink: Option<ChunkSink>) -> Result<Option<Value>, Error> {
        if !outbox::claim(&self.db, &decision.id).await? {
            return Ok(None);
        }
        self.deliver_claimed(decision, sink).await.map(Some)
    }

    /// Delivers a decision this caller claimed (stored [`super::How::Claimed`], or the claim in
    /// [`Console::deliver`]): the engine acts, and records its outcome.
    pub async fn deliver_claimed(&self, decision: &Decision, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let entry = self.item(&decision.item_id).await?;
        self.deliver_claimed_call(decision, &entry.queued, sink).await
    }

    /// [`Console::deliver_claimed`] with the decided call as the caller read it before deciding
    /// (one read fewer): what is sent is the call as the engine holds it now, re-read and compared
    /// with the decision's fingerprint ([`Console::send`]), never this copy.
    pub async fn deliver_claimed_call(
        &self,
        decision: &Decision,
        queued: &crate::domain::QueuedCall,
        sink: Option<ChunkSink>,
    ) -> Result<Value, Error> {
        let engine = match self.engine(&queued.call.engine) {
            Ok(engine) => engine,
            Err(e) => {
                // Not connected (now): back to the outbox, for when it is.
                self.defer(decision, queued, &e.to_string()).await?;
                return Err(e);
            }
        };
        if !engine.delivers_here() {
            // Team mode: another console delivers this engine's decisions (its own local engine's,
            // or a remote engine's lease holder); the outbox keeps it for that console.
            let why = format!("delivered by the console that runs engine {}", queued.call.engine);
            self.defer_as(decision, queued, &why, true).await?;
            return Err(Error::Unreachable(why));
        }
        match self.send(engine.as_ref(), decision, queued, sink).await {
            Ok(outcome) => Ok(outcome),
            Err(Error::Unreachable(why)) => {
                self.defer(decision, queued, &why).await?;
                Err(Error::Unreachable(why))
            }
            Err(e) => {
                let outcome = json!({ "status": "failed", "code": e.code(), "error": e.to_string() });
                outbox::record_outcome(&self.db, decision, queued, &outcome, Some(&e.to_string())).await?;
                Err(e)
            }
        }
    }

    /// The one send path of every decision to every engine (C3 for every send): the engine prepares
    /// the send — re-reads each call it would carry, the decision's own and any held with it — and
    /// [`send::confirm`] compares each with the fingerprint it was decided on. Only a send whose every
    /// part passed is sent ([`Engine::send`] takes nothing else). A part that did not is failed here
    /// ([`Console::refuse`]: `fingerprint_mismatch` with the call queued again as it is now, or
    /// `not_found`) and nothing is sent; if the decision's own part passed, the engine prepares again
    /// without the failed ones (held again, or sent with the others). A held decision answers
    /// `{"status": "held"}` and stays claimed.
    ///
    /// The sends of one run take turns (prepare to answer): two decisions that go together — the
    /// requests of one LangGraph interrupt, one delivered by the outbox and one by its operator —
    /// prepared at once would each find the other held and both send the same answer. In team mode
    /// only one console delivers an engine, so turns within this process are enough.
    async fn send(
        &self,
        engine: &dyn Engine,
        decision: &Decision,
        item: &crate::domain::QueuedCall,
        sink: Option<ChunkSink>,
    ) -> Result<Value, Error> {
        let _turn = self.sending.lock(&(item.call.engine.clone(), item.call.run_id.clone())).await;
        // Each round fails at least one claimed decision, which no later round carries again.
        for _ in 0..MAX_SEND_ROUNDS {
            let prepared = engine.prepare(decision, item).await?;
            let wait = prepared.wait.clone();
            match send::confirm(prepared) {
                Ok(checked) => {
                    if let Some(why) = wait {
                        tracing::info!(item = %item.id, "decision held: {why}");
                        return Ok(json!({ "status": "held", "why": why }));
                    }
                    return engine.send(checked, sink).await;
                }
                Err(refused) => {
                    let mut own = None;
                    for r in refused {
                        let recorded = self.refuse(&r).await?;
                        if r.part.decision.id == decision.id {
                            own = Some((r.why, recorded));
                        }
                    }
                    match own {
                        // Sent meanwhile with the send of a decision it went with, which took its
                        // turn first and recorded both: that outcome is its own.
                        Some((_, false)) => {
                            if let Some(outcome) = self.item(&decision.item_id).await?.decision.and_then(|d| d.outcome) {
                                return Ok(outcome);
                            }
                        }
                        Some((why, true)) => return Err(why),
                        None => {}
                    }
                }
            }
        }
        Err(Error::Engine(format!("the send of decision {} kept changing while it was checked; it waits, claimed", decision.id)))
    }

    /// Fails a decision [`send::confirm`] refused to send, in one transaction: the decision `failed`
    /// with its code and details (the fingerprint shown and the current one), its entry `failed`, the
    /// audit entry (`delivery.failed`); a call that changed, or whose decision's receipt expired, is
    /// queued again as it is now — a new pending entry (`call.changed` on the old entry, saying why;
    /// `call.paused` on the new) — for the operator to decide. `false` when the decision's outcome was recorded already
    /// (then nothing is written).
    async fn refuse(&self, refused: &send::Refused) -> Result<bool, Error> {
        let send::Refused { part, why } = refused;
        let (decision, item) = (&part.decision, &part.item);
        let mut outcome = json!({ "status": "failed", "code": why.code(), "error": why.to_string() });
        if let Some(details) = why.details() {
            outcome["details"] = details;
        }
        let again = match (why, &part.current) {
            (Error::FingerprintMismatch { .. }, Some(now)) => {
                Some((now, "the call changed at the engine after it was decided; the decision was not sent"))
            }
            (Error::ReceiptExpired { .. }, Some(now)) => {
                Some((now, "the decision's receipt expired before it could be sent; the decision was not sent"))
            }
            _ => None,
        };
        if !outbox::fail_refused(&self.db, decision, item, again, outcome, &why.to_string()).await? {
            // Its delivery was recorded meanwhile: nothing of this is written.
            return Ok(false);
        }
        tracing::warn!(item = %item.id, decision = %decision.id, "decision not sent: {why}");
        Ok(true)
    }

    /// Gives a claimed decision back to the outbox, to be tried again after a backoff (C5). The first
    /// deferral is audited; later attempts only update the decision row.
    async fn defer(&self, decision: &Decision, item: &crate::domain::QueuedCall, why: &str) -> Result<(), Error> {
        self.defer_as(decision, item, why, false).await
    }

    /// [`Console::defer`]; `handover`: not a failure but another console's to deliver (team mode).
    async fn defer_as(&self, decision: &Decision, item: &crate::domain::QueuedCall, why: &str, handover: bool) -> Result<(), Error> {
        // A handover is due at once: the console that delivers it is woken (`outbox::defer` notifies it).
        let wait = |attempts| if handover { Duration::ZERO } else { retry_delay(attempts) };
        let Some((attempts, wait)) = outbox::defer(&self.db, decision, item, why, handover, wait).await? else { return Ok(()) };
        if handover {
            tracing::info!(item = %item.id, "decision left in the outbox: {why}");
        } else {
            tracing::warn!(item = %item.id, attempts, "engine unreachable, delivery deferred {}s: {why}", wait.as_secs());
        }
        Ok(())
    }

    /// Delivers decisions that wait in the outbox: deferred ones when their retry is due, and ones
    /// their deciding process did not deliver. Runs until `stop` flips.
    pub fn spawn_outbox(&self, mut stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        // Team mode: a decision another console hands over to this one comes with a notification,
        // which wakes the worker at once instead of at its next tick.
        let team = self.db.topology() == crate::store::Topology::Team;
        tokio::spawn(async move {
            loop {
                match this.deliver_due().await {
                    Ok(_) => {}
                    Err(e) => tracing::warn!("outbox: {e}"),
                }
                tokio::select! {
                    _ = tokio::time::sleep(OUTBOX_TICK) => {}
                    _ = this.outbox_wake.notified() => {}
                    _ = this.events.notified_by_database(), if team => {}
                    _ = stop.changed() => return,
                }
                if *stop.borrow() {
                    return;
                }
            }
        })
    }

    /// One pass of the outbox worker; returns how many were delivered.
    pub async fn deliver_due(&self) -> Result<usize, Error> {
        // Team mode: only the calls of engines this console delivers (its local engine, the remote
        // engines whose lease it holds); the others' wait for their own console.
        let mine: Option<Vec<String>> = (self.db.topology() == crate::store::Topology::Team).then(|| {
            self.engines.read().expect("engines lock").values().filter(|e| e.delivers_here()).map(|e| e.id().to_string()).collect()
        });
        let due = outbox::due(&self.db, OUTBOX_GRACE, mine.as_deref()).await?;
        let mut delivered = 0;
        for d in due {
            let engine_id = match self.item(&d.item_id).await {
                Ok(e) => e.queued.call.engine,
                Err(_) => continue,
            };
            if !self.engine(&engine_id).is_ok_and(|e| e.delivers_here()) {
                continue;
            }
            match self.deliver(&d, None).await {
                Ok(Some(_)) => delivered += 1,
                Ok(None) => {}
                Err(Error::Unreachable(_)) => {}
                Err(e) => tracing::warn!(item = %d.item_id, "delivery failed: {e}"),
            }
        }
        Ok(delivered)
    }
}

/// Wait before the next delivery attempt after `attempts` failed ones: 1 s, 2 s, 4 s … up to a minute.
fn retry_delay(attempts: u32) -> Duration {
    Duration::from_secs(1u64 << attempts.saturating_sub(1).min(6)).min(MAX_RETRY)
}
