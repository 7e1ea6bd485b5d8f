//! The console: one queue over every engine, and the one path every decision takes — checked
//! (pending? same fingerprint, also at the engine?), made durable (queue state, decision row and audit
//! entry in one transaction), then delivered to the engine.

pub mod expiry;
pub mod grants;
pub mod recover;
pub mod remotes;
pub mod resolve;

// The change feed is the store's (it reads the database); the console's users find it here too.
pub use crate::store::feed::{Change, Events, QueueEvent};
use crate::store::outbox;

use crate::domain::{Approval, Decision, DecisionId, DecisionRequest, Delivery, EngineId, Error, ItemId, ItemState, Verdict};
use crate::engine::{send, ChunkSink, Engine};
use crate::store::decisions::approvals;
use crate::store::{audit, credentials, decisions, queue, Db};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// How long a stored decision is left to the process that took it before the outbox worker delivers it.
const OUTBOX_GRACE: chrono::Duration = chrono::Duration::seconds(10);
/// How often the outbox worker looks for due deliveries when nothing woke it.
const OUTBOX_TICK: Duration = Duration::from_secs(1);
/// Longest wait between two delivery attempts of one decision.
const MAX_RETRY: Duration = Duration::from_secs(60);
/// At most this many prepare-and-check rounds for one send (each fails a decision it carried).
const MAX_SEND_ROUNDS: usize = 8;

/// What a decision request came to ([`Console::decide_or_approve`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Decided {
    /// The call's decision, stored: to be delivered.
    Decision(Box<Decision>),
    /// One more approval of a call whose tool needs several (the two-person rule), below its
    /// quorum: stored and audited (`approval.recorded`); the call still waits, with these approvals.
    Approval { approvals: Vec<Approval>, quorum: u32 },
}

/// Cheap to clone.
#[derive(Clone)]
pub struct Console {
    db: Db,
    events: Events,
    engines: Arc<RwLock<HashMap<EngineId, Arc<dyn Engine>>>>,
    outbox_wake: Arc<tokio::sync::Notify>,
    /// Calls about to expire (see [`expiry`]).
    expiring: tokio::sync::broadcast::Sender<expiry::ExpiringSoon>,
    /// Wakes the grants worker for a sweep (a new grant).
    grants_wake: Arc<tokio::sync::Notify>,
    /// Sends of one run, one at a time in this process (see [`Console::send`]).
    sending: Arc<crate::engine::locks::KeyedLocks<(EngineId, crate::domain::RunId)>>,
}

impl Console {
    pub fn new(db: Db, events: Events, engines: Vec<Arc<dyn Engine>>) -> Self {
        let engines = engines.into_iter().map(|e| (e.id(), e)).collect();
        Self {
            db,
            events,
            engines: Arc::new(RwLock::new(engines)),
            outbox_wake: Arc::default(),
            expiring: tokio::sync::broadcast::channel(256).0,
            grants_wake: Arc::default(),
            sending: Arc::default(),
        }
    }

    /// Connects an engine (replacing one with the same id).
    pub fn register(&self, engine: Arc<dyn Engine>) {
        self.engines.write().expect("engines lock").insert(engine.id(), engine);
        self.outbox_wake.notify_one();
    }

    /// Disconnects an engine; its entries stay, undecidable until it is connected again.
    pub fn unregister(&self, id: &EngineId) {
        self.engines.write().expect("engines lock").remove(id);
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub fn events(&self) -> &Events {
        &self.events
    }

    fn engine(&self, id: &EngineId) -> Result<Arc<dyn Engine>, Error> {
        if let Some(engine) = self.engines.read().expect("engines lock").get(id).cloned() {
            return Ok(engine);
        }
        // Team mode: another console's local engine, known from its calls in the shared queue.
        if self.db.dialect() == crate::store::Dialect::Postgres && crate::engine::kinds::local_instance(id.as_str()).is_some() {
            let peer: Arc<dyn Engine> = Arc::new(crate::engine::local::peer::Peer::new(id.clone(), self.db.clone()));
            self.engines.write().expect("engines lock").insert(id.clone(), peer.clone());
            return Ok(peer);
        }
        Err(Error::Engine(format!("engine {id} is not connected")))
    }

    /// The decision kinds a call allows (none if its engine is not connected): its engine's, less an
    /// approval that [`approve_block`] refuses (and an edit of a call whose arguments are unknown).
    pub fn allowed(&self, call: &crate::domain::PausedCall) -> Vec<crate::domain::DecisionKind> {
        use crate::domain::DecisionKind;
        let mut kinds = self.engine(&call.engine).map(|e| e.allowed(call)).unwrap_or_default();
        match approve_block(call) {
            Some(Error::MissingArguments) => kinds.retain(|k| !matches!(k, DecisionKind::Approve | DecisionKind::Edit)),
            Some(_) => kinds.retain(|k| *k != DecisionKind::Approve),
            None => {}
        }
        kinds
    }

    /// One queue entry with its decision.
    pub async fn item(&self, id: &ItemId) -> Result<queue::Entry, Error> {
        let mut conn = self.db.pool().acquire().await?;
        queue::get(&mut conn, id).await?.ok_or_else(|| Error::not_found(format!("queue item {id}")))
    }

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

    /// [`Console::decide_claimed`], where an approval below its tool's quorum is recorded (and
    /// audited, `approval.recorded`) instead of refused: the call keeps waiting for the other
    /// operators' approvals ([`Decided::Approval`]). The operators' shells (the window, the CLI,
    /// notifications) decide through this.
    pub async fn decide_or_approve(&self, id: &ItemId, request: DecisionRequest) -> Result<Decided, Error> {
        self.decide_as(id, request, Delivery::Delivering, true).await
    }

    fn whole(decided: Decided) -> Result<Decision, Error> {
        match decided {
            Decided::Decision(d) => Ok(*d),
            Decided::Approval { .. } => Err(Error::Storage("an approval was recorded where only a whole decision may be".into())),
        }
    }

    #[tracing::instrument(name = "decide", skip_all, fields(item = %id, verdict = request.verdict.name(), by = %request.operator))]
    async fn decide_as(&self, id: &ItemId, request: DecisionRequest, delivery: Delivery, partial: bool) -> Result<Decided, Error> {
        let entry = self.item(id).await?;
        let item = &entry.queued;
        self.check_decision(id, item, &request).await?;
        let quorum = self.check_quorum(item, &request).await?;
        let decision = Decision {
            id: DecisionId::generate(),
            item_id: item.id.clone(),
            verdict: request.verdict,
            fingerprint: request.fingerprint,
            operator: request.operator,
            decided_at: crate::store::now(),
            delivery,
            outcome: None,
            attempts: u32::from(delivery == Delivery::Delivering),
            last_error: None,
            next_attempt_at: None,
        };
        self.record_decision(item, &decision, quorum.map(|(n, key)| (n, key, partial))).await
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
        let quorum = crate::store::settings::quorum(&self.db).await?.quorum(&call.tool_name);
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
            let mut conn = self.db.pool().acquire().await?;
            if credentials::person_of(&mut conn, &requester).await? == credentials::person_of(&mut conn, &key).await? {
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
            let mut conn = self.db.pool().acquire().await?;
            if let Some(now) = queue::find_pending(&mut conn, &item.call.engine, &item.call.run_id, &item.call.tool_call_id).await? {
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
        match engine.reread(&item.call).await.or_else(|e| match e {
            // Cannot re-read now: the decision is stored and the engine re-reads the call before it
            // is sent (C3), whenever it is back.
            Error::Unreachable(why) => {
                tracing::info!(item = %item.id, "engine unreachable while deciding ({why}); the decision waits in the outbox");
                Ok(Some(item.call.clone()))
            }
            other => Err(other),
        })? {
            None => {
                // Another decision may have won meanwhile and its delivery ended the pause: that is
                // `already_decided`, not a call the engine lost.
                let now = self.item(id).await?.queued.state;
                if now != ItemState::Pending {
                    return Err(Error::AlreadyDecided { state: now });
                }
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

    /// The decision made durable in one transaction: the entry out of `pending` (or `already_decided`
    /// if another decision won), the decision row (the outbox), the audit entry.
    ///
    /// `quorum` (an approval of a tool that needs several: the quorum, the operator's key, and
    /// whether an approval below the quorum may be recorded): the approval is stored with the
    /// others, counted in this transaction — writers take turns, on every console of a team, so two
    /// operators approving at once count each other. Below the quorum it is all that is written,
    /// with its audit entry (`approval.recorded`), and the entry stays `pending` (set again, so the
    /// change feed tells every screen of the new approval); the approval that completes the quorum
    /// becomes the decision, its audit entry listing every approval.
    async fn record_decision(
        &self,
        item: &crate::domain::QueuedCall,
        decision: &Decision,
        quorum: Option<(u32, String, bool)>,
    ) -> Result<Decided, Error> {
        let mut tx = self.db.begin_write().await?;
        let mut counted: Option<(Vec<Approval>, u32)> = None;
        if let Some((n, key, partial)) = quorum {
            let mut approvals = approvals::of(&mut tx, &item.id).await?;
            let already = |approvals: &[Approval]| Error::AlreadyApproved {
                operator: decision.operator.clone(),
                approvals: approvals.len() as u32,
                quorum: n,
            };
            // One person counts once, whichever of their credentials (or the local admin of the
            // same name) approved before.
            let person = credentials::person_of(&mut tx, &key).await?;
            for a in &approvals {
                if credentials::person_of(&mut tx, &a.operator_key).await? == person {
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
            if !approvals::insert(&mut tx, &item.id, &mine).await? {
                return Err(already(&approvals));
            }
            approvals.push(mine);
            if !complete {
                // Still pending, set again: the change feed stamps the entry, so screens show the count.
                if !queue::transition(&mut tx, &item.id, ItemState::Pending, ItemState::Pending).await? {
                    let state = queue::get(&mut tx, &item.id).await?.map(|e| e.queued.state).unwrap_or(ItemState::Decided);
                    return Err(Error::AlreadyDecided { state });
                }
                audit::append(
                    &mut tx,
                    audit::Record {
                        actor: &decision.operator,
                        action: crate::domain::audit::AuditAction::ApprovalRecorded,
                        queue_item_id: Some(item.id.as_str()),
                        tool_name: Some(&item.call.tool_name),
                        fingerprint: Some(decision.fingerprint.as_str()),
                        details: json!({
                            "engine": item.call.engine, "agentId": item.call.agent_id, "runId": item.call.run_id,
                            "toolCallId": item.call.tool_call_id, "args": item.call.args,
                            "approvals": approvals.len(), "quorum": n, "approvedBy": approval_list(&approvals),
                        }),
                    },
                )
                .await?;
                tx.commit().await?;
                return Ok(Decided::Approval { approvals, quorum: n });
            }
            counted = Some((approvals, n));
        }
        if !queue::transition(&mut tx, &item.id, ItemState::Pending, ItemState::Decided).await? {
            let state = queue::get(&mut tx, &item.id).await?.map(|e| e.queued.state).unwrap_or(ItemState::Decided);
            return Err(Error::AlreadyDecided { state });
        }
        decisions::insert(&mut tx, decision).await?;
        let details = match &decision.verdict {
            Verdict::Approve => json!({}),
            Verdict::Decline { reason } => json!({ "reason": reason }),
            Verdict::Resume { data } => json!({ "data": data }),
            Verdict::Expire { after_secs } => json!({ "afterSecs": after_secs, "reason": Verdict::expiry_text(*after_secs) }),
            Verdict::ApproveEdited { args, fingerprint } => json!({ "editedArgs": args, "editedFingerprint": fingerprint }),
        };
        let mut details = json!({
            "decisionId": decision.id, "engine": item.call.engine, "agentId": item.call.agent_id,
            "runId": item.call.run_id, "toolCallId": item.call.tool_call_id, "args": item.call.args,
            "verdict": details,
        });
        if let Some((approvals, n)) = &counted {
            details["quorum"] = json!(n);
            details["approvedBy"] = approval_list(approvals);
        }
        audit::append(
            &mut tx,
            audit::Record {
                actor: &decision.operator,
                action: crate::domain::audit::AuditAction::of_decision(&decision.verdict),
                queue_item_id: Some(item.id.as_str()),
                tool_name: Some(&item.call.tool_name),
                fingerprint: Some(decision.fingerprint.as_str()),
                details,
            },
        )
        .await?;
        tx.commit().await?;
        Ok(Decided::Decision(Box::new(decision.clone())))
    }

    /// The quorum of a call's tool (the two-person rule: 1 for a tool without one) and its approvals
    /// so far, oldest first.
    pub async fn approvals(&self, item: &crate::domain::QueuedCall) -> Result<(u32, Vec<Approval>), Error> {
        let quorum = crate::store::settings::quorum(&self.db).await?.quorum(&item.call.tool_name);
        let mut conn = self.db.pool().acquire().await?;
        Ok((quorum, approvals::of(&mut conn, &item.id).await?))
    }

    /// The principal that started the call's run, if its engine says (see [`Engine::started_by`]).
    pub async fn started_by(&self, call: &crate::domain::PausedCall) -> Result<Option<String>, Error> {
        self.engine(&call.engine)?.started_by(call).await
    }

    /// Delivers a stored decision to its engine, once: the claim (`pending → delivering`) is committed
    /// before the engine acts, so a second caller, or a restart, never delivers it again.
    /// Returns the engine's outcome; `Ok(None)` if someone else had claimed it.
    #[tracing::instrument(name = "deliver", skip_all, fields(item = %decision.item_id, decision = %decision.id))]
    pub async fn deliver(&self, decision: &Decision, sink: Option<ChunkSink>) -> Result<Option<Value>, Error> {
        {
            let mut tx = self.db.begin_write().await?;
            if !decisions::claim(&mut tx, &decision.id).await? {
                return Ok(None);
            }
            tx.commit().await?;
        }
        self.deliver_claimed(decision, sink).await.map(Some)
    }

    /// Delivers a decision this caller claimed ([`Console::decide_claimed`], or the claim in
    /// [`Console::deliver`]): the engine acts, and records its outcome.
    pub async fn deliver_claimed(&self, decision: &Decision, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let entry = self.item(&decision.item_id).await?;
        let engine = match self.engine(&entry.queued.call.engine) {
            Ok(engine) => engine,
            Err(e) => {
                // Not connected (now): back to the outbox, for when it is.
                self.defer(decision, &entry.queued, &e.to_string()).await?;
                return Err(e);
            }
        };
        if !engine.delivers_here() {
            // Team mode: another console delivers this engine's decisions (its own local engine's,
            // or a remote engine's lease holder); the outbox keeps it for that console.
            let why = format!("delivered by the console that runs engine {}", entry.queued.call.engine);
            self.defer_as(decision, &entry.queued, &why, true).await?;
            return Err(Error::Unreachable(why));
        }
        match self.send(engine.as_ref(), decision, &entry.queued, sink).await {
            Ok(outcome) => Ok(outcome),
            Err(Error::Unreachable(why)) => {
                self.defer(decision, &entry.queued, &why).await?;
                Err(Error::Unreachable(why))
            }
            Err(e) => {
                let outcome = json!({ "status": "failed", "code": e.code(), "error": e.to_string() });
                let mut tx = self.db.begin_write().await?;
                if outbox::record(&mut tx, decision, &entry.queued, &outcome, Some(&e.to_string())).await? {
                    tx.commit().await?;
                }
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
    /// audit entry (`delivery.failed`); a call that changed is queued again as it is now — a new
    /// pending entry with its new fingerprint (`call.changed` on the old entry, `call.paused` on the
    /// new) — for the operator to decide. `false` when the decision's outcome was recorded already
    /// (then nothing is written).
    async fn refuse(&self, refused: &send::Refused) -> Result<bool, Error> {
        let send::Refused { part, why } = refused;
        let (decision, item) = (&part.decision, &part.item);
        let mut outcome = json!({ "status": "failed", "code": why.code(), "error": why.to_string() });
        if let Some(details) = why.details() {
            outcome["details"] = details;
        }
        let mut tx = self.db.begin_write().await?;
        let changed = match (why, &part.current) {
            (Error::FingerprintMismatch { .. }, Some(now)) => Some(now),
            _ => None,
        };
        let mut replaced_by = None;
        if let Some(now) = changed {
            let c = &item.call;
            if queue::find_pending(&mut tx, &c.engine, &c.run_id, &c.tool_call_id).await?.is_none() {
                let actor = format!("engine:{}", c.engine);
                let why = "the call changed at the engine after it was decided; the decision was not sent";
                let new = queue::requeue_changed(&mut tx, &actor, item, now, Some(why)).await?;
                replaced_by = Some(new.id);
            }
        }
        if let Some(id) = &replaced_by {
            outcome["replacedBy"] = json!(id);
        }
        if !outbox::record(&mut tx, decision, item, &outcome, Some(&why.to_string())).await? {
            // Its delivery was recorded meanwhile: nothing of this is written.
            return Ok(false);
        }
        tx.commit().await?;
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
        let mut tx = self.db.begin_write().await?;
        let attempts = decisions::attempts(&mut tx, &decision.id).await?.map(|a| a.attempts).unwrap_or(1);
        // A handover is due at once: the console that delivers it is woken by the notification below.
        let wait = if handover { Duration::ZERO } else { retry_delay(attempts) };
        let next = crate::store::now() + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(60));
        if !decisions::defer(&mut tx, &decision.id, why, next).await? {
            return Ok(());
        }
        if handover {
            crate::store::feed::notify_outboxes(&mut tx).await?;
        }
        if attempts <= 1 {
            audit::append(
                &mut tx,
                audit::Record {
                    actor: "console",
                    action: crate::domain::audit::AuditAction::DeliveryDeferred,
                    queue_item_id: Some(item.id.as_str()),
                    tool_name: Some(&item.call.tool_name),
                    fingerprint: Some(decision.fingerprint.as_str()),
                    details: json!({ "decisionId": decision.id, "engine": item.call.engine, "error": why, "nextAttemptAt": next }),
                },
            )
            .await?;
        }
        tx.commit().await?;
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
        let team = self.db.dialect() == crate::store::Dialect::Postgres;
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
        let mine: Option<Vec<String>> = (self.db.dialect() == crate::store::Dialect::Postgres).then(|| {
            self.engines.read().expect("engines lock").values().filter(|e| e.delivers_here()).map(|e| e.id().to_string()).collect()
        });
        let due = {
            let mut conn = self.db.pool().acquire().await?;
            decisions::due(&mut conn, OUTBOX_GRACE, mine.as_deref()).await?
        };
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
        let recorded = match self.decide_or_approve(id, request).await? {
            Decided::Decision(decision) => {
                match self.deliver_claimed(&decision, None).await {
                    // Back in the outbox (already logged): an engine down, or another console's to deliver.
                    Ok(_) | Err(Error::Unreachable(_)) => {}
                    Err(e) => tracing::warn!(item = %id, "delivery failed: {e}"),
                }
                false
            }
            Decided::Approval { .. } => true,
        };
        Ok((self.item(id).await?, recorded))
    }
}

/// Approvals as the audit log lists them: `[{operator, at}]`, oldest first.
fn approval_list(approvals: &[Approval]) -> Value {
    approvals.iter().map(|a| json!({ "operator": a.operator, "at": a.approved_at })).collect()
}

/// Why a call cannot be approved as it is, if it cannot: its engine did not list its arguments
/// (`missing_arguments`: nobody saw what would run; it can only be declined), or they hold integers
/// the fingerprint cannot tell from their neighbours (`ambiguous_arguments`; decline or
/// edit-then-approve remain).
pub fn approve_block(call: &crate::domain::PausedCall) -> Option<Error> {
    if call.kind != crate::domain::CallKind::Approval {
        return None;
    }
    if call.args.is_null() {
        return Some(Error::MissingArguments);
    }
    let paths = crate::domain::inexact_numbers(&call.args);
    (!paths.is_empty()).then_some(Error::AmbiguousArguments { paths })
}

/// Wait before the next delivery attempt after `attempts` failed ones: 1 s, 2 s, 4 s … up to a minute.
fn retry_delay(attempts: u32) -> Duration {
    Duration::from_secs(1u64 << attempts.saturating_sub(1).min(6)).min(MAX_RETRY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallKind, PausedCall};

    fn call(kind: CallKind, args: Value) -> PausedCall {
        PausedCall { kind, ..PausedCall::sample("t", args) }
    }

    #[test]
    fn an_approval_listed_without_arguments_or_with_inexact_integers_cannot_be_approved() {
        // A remote engine's listing without `args` becomes null arguments.
        assert_eq!(approve_block(&call(CallKind::Approval, Value::Null)).map(|e| e.code()), Some("missing_arguments"));
        assert_eq!(
            approve_block(&call(CallKind::Approval, json!({ "n": 9_007_199_254_740_993u64 }))).map(|e| e.code()),
            Some("ambiguous_arguments")
        );
        assert!(approve_block(&call(CallKind::Approval, json!({ "n": 1 }))).is_none());
        // A suspended call is answered, not approved: Mastra never lists a suspended call's arguments.
        assert!(approve_block(&call(CallKind::Suspend, Value::Null)).is_none());
    }
}
