//! For tests and benchmarks only: the shells (HTTP, CLI, window) never call it, and it is no API.
//! Integration tests go through `App`'s methods, the HTTP API or the CLI; what they truly need
//! besides, and no public method gives, is here, one narrow method each, reached with
//! [`App::testing`]:
//!
//! - the database itself ([`Testing::db`]), for tests that simulate a crash, a corrupted or tampered
//!   database, write calls straight into the store, or read rows no API shows;
//! - one pass of a background worker, run at once instead of on its timer (expiry, grants, outbox);
//! - a decision stored without being delivered, and a delivery on its own (the state a crash
//!   between the two leaves, or two deliverers racing);
//! - an engine of the test's own, the local engine's send path taken apart, notifications alone.

use super::App;
use crate::console::expiry::ExpiringSoon;
use crate::console::{Ask, Decider, How, Target};
use crate::domain::{Decision, DecisionRequest, Error, GrantId, ItemId};
use crate::engine::remote::base::SyncReport;
use crate::engine::Engine;
use crate::notify::Notifier;
use crate::store::{queue, Db};
use serde_json::Value;
use std::sync::Arc;

/// A test's decision request as the kernel takes it: a decider of that name, and what it asks.
fn named(request: DecisionRequest) -> (Decider, Ask) {
    let decider = Decider::named(request.operator, request.operator_key);
    (decider, Ask::Verdict { verdict: request.verdict, fingerprint: request.fingerprint })
}

impl App {
    /// What tests and benchmarks need of the app beyond its methods (see [`crate::app::testing`]).
    #[doc(hidden)]
    pub fn testing(&self) -> Testing<'_> {
        Testing { app: self }
    }
}

/// [`App`] as tests and benchmarks see it; see [`crate::app::testing`].
pub struct Testing<'a> {
    app: &'a App,
}

impl<'a> Testing<'a> {
    /// The database, for raw SQL and the store's own functions: ONLY for a test that simulates what
    /// no method does — a crash (a delivery left `delivering`, a run left `running`), a corrupted or
    /// tampered database (the audit chain, a snapshot edited under the console), calls written
    /// straight into the queue, rows moved in time — or reads what is stored and no API shows
    /// (snapshots, thread memory, settings rows).
    pub fn db(&self) -> &'a Db {
        &self.app.db
    }

    /// What a process killed while a decision's tool ran leaves (issue 46): the stored decision of
    /// entry `id` claimed for delivery (`delivering`), and the run's snapshot saying its tool began
    /// (the local engine writes that just before running it). A restart finds the call `interrupted`.
    pub async fn cut_inside_tool(&self, id: &ItemId) -> Result<(), Error> {
        let entry = self.app.console.item(id).await?;
        let decision = entry.decision.ok_or_else(|| Error::InvalidRequest(format!("entry {id} has no decision")))?;
        crate::store::outbox::claim(&self.app.db, &decision.id).await?;
        self.app.local.mark_began(&entry.queued).await
    }

    /// Points the homes whose agent files revoking a grant may edit (the console user's, Gemini
    /// CLI's; read from `$HOME`/`$GEMINI_CLI_HOME` otherwise) at `home`: a test's temporary home,
    /// as the app runs inside the test's process.
    pub fn agent_home(&self, home: &std::path::Path) {
        let home = Some(home.to_owned());
        self.app.console.set_agent_homes(crate::console::grants::AgentHomes { gemini: home.clone(), home });
    }

    /// Closes the database, as the end of the process would (before a restart over the same data
    /// directory, or at the end of a benchmark).
    pub async fn close(&self) {
        self.app.db.close().await;
    }

    /// The stored queue entry with its decision, as the console reads it (the call as queued, to
    /// hand to an engine or to change as an engine's sync would).
    pub async fn entry(&self, id: &ItemId) -> Result<queue::Entry, Error> {
        self.app.console.item(id).await
    }

    /// Stores a decision and delivers nothing (`pending` in the outbox): the state a console that
    /// stopped right after deciding leaves. It goes through the decision kernel as a decider named
    /// `request.operator` (principal key `request.operator_key`), which no shell can be.
    pub async fn decide(&self, id: &ItemId, request: DecisionRequest) -> Result<Decision, Error> {
        let (decider, ask) = named(request);
        self.app.console.decide_whole(&decider, Target::Id(id), ask, How::Outbox).await
    }

    /// [`Testing::decide`], the decision stored already claimed (`delivering`), as a caller that
    /// delivers at once stores it; delivered by [`Testing::deliver_claimed`].
    pub async fn decide_claimed(&self, id: &ItemId, request: DecisionRequest) -> Result<Decision, Error> {
        let (decider, ask) = named(request);
        self.app.console.decide_whole(&decider, Target::Id(id), ask, How::Claimed).await
    }

    /// Claims a stored decision and delivers it, as the outbox does: `Ok(None)` if it was claimed
    /// already.
    pub async fn deliver(&self, decision: &Decision) -> Result<Option<Value>, Error> {
        let delivered = self.app.console.deliver(decision, None).await;
        self.deliveries_done().await;
        delivered
    }

    /// Delivers a decision stored claimed ([`Testing::decide_claimed`]).
    pub async fn deliver_claimed(&self, decision: &Decision) -> Result<Value, Error> {
        let delivered = self.app.console.deliver_claimed(decision, None).await;
        self.deliveries_done().await;
        delivered
    }

    /// Decides and delivers as the console's own workers do (the expiry worker: its own operator
    /// name, no role), answering the entry once its delivery is over (the console answers a decider
    /// before it: [`Testing::deliveries_done`]).
    pub async fn decide_and_deliver(&self, id: &ItemId, request: DecisionRequest) -> Result<queue::Entry, Error> {
        let (decider, ask) = named(request);
        self.app.console.decide_and_deliver(&decider, id, ask).await?;
        self.deliveries_done().await;
        self.app.console.item(id).await
    }

    /// Waits for what the console set going: the deliveries it started after answering their
    /// deciders, and the local runs those (or a worker's pass, run at once here) let go on — a run
    /// goes on in a task of its own after its delivery (issue 46).
    pub async fn deliveries_done(&self) {
        assert!(self.app.finish_deliveries(std::time::Duration::from_secs(120)).await, "deliveries or runs still going after 120 s");
    }

    /// One pass of the outbox worker; how many decisions it delivered.
    pub async fn deliver_due(&self) -> Result<usize, Error> {
        let delivered = self.app.console.deliver_due().await;
        self.deliveries_done().await;
        delivered
    }

    /// One pass of the expiry worker; how many calls it declined as expired.
    pub async fn expire_due(&self) -> Result<usize, Error> {
        let expired = self.app.console.expire_due().await;
        self.deliveries_done().await;
        expired
    }

    /// The expiry worker's warnings pass; the calls it warned of.
    pub async fn warn_expiring(&self) -> Result<Vec<ExpiringSoon>, Error> {
        self.app.console.warn_expiring().await
    }

    /// The grants worker on one call: the grant that approved it, if one did.
    pub async fn apply_grants(&self, id: &ItemId) -> Result<Option<GrantId>, Error> {
        self.app.console.apply_grants(id).await
    }

    /// The grants worker's approval of call `id` by grant `grant`, as made once the grant was
    /// checked (whatever became of the grant since).
    pub async fn approve_by_grant(&self, id: &ItemId, grant: &GrantId) -> Result<crate::domain::Decision, Error> {
        let grants = self.app.console.grants().await?;
        let grant = grants.iter().find(|g| &g.id == grant).ok_or_else(|| Error::not_found(format!("grant {grant}")))?;
        self.app.console.approve_by_grant(self.app.console.item(id).await?, grant).await
    }

    /// `POST /api/calls` by `by`, as if the check before its transaction had found `grant` live and
    /// covering it (whatever became of the grant since).
    pub async fn submit_call_granted(
        &self,
        call: crate::app::calls::NewCall,
        by: &crate::domain::Actor,
        grant: &GrantId,
    ) -> Result<crate::app::calls::SubmittedCall, Error> {
        let grants = self.app.console.grants().await?;
        let grant = grants.into_iter().find(|g| &g.id == grant).ok_or_else(|| Error::not_found(format!("grant {grant}")))?;
        let by = crate::domain::authority::admit(crate::domain::Op::SubmitCall, by.clone())?.cx()?;
        self.app.submit_call_checked(call, None, &by, Some(grant)).await
    }

    /// One sweep of the grants worker over the waiting calls; how many it approved.
    pub async fn sweep_grants(&self) -> Result<usize, Error> {
        let approved = self.app.console.sweep_grants().await;
        self.deliveries_done().await;
        approved
    }

    /// Connects an engine of the test's own (one that is down, say), as the console connects each.
    pub fn register_engine(&self, engine: Arc<dyn Engine>) {
        self.app.console.register(engine);
    }

    /// The local engine as the console's send path sees it: its id, and its `prepare` and `send`
    /// taken apart (S7: the arguments change between the console's check and the tool).
    pub fn local_engine(&self) -> &'a dyn Engine {
        &self.app.local
    }

    /// Desktop notifications with `notifier`, told as `operator`, without the other background work
    /// of [`App::start`] (no grants worker, no expiry); they stop when `stop` says so.
    pub fn start_notifications(&self, notifier: Arc<dyn Notifier>, operator: String, stop: tokio::sync::watch::Receiver<bool>) {
        self.app.notifications.start(self.app.console.clone(), notifier, operator, stop);
    }

    /// An incremental sync of remote engine `name` (its runs created lately), as its poll loop runs
    /// between complete ones.
    pub async fn incremental_sync(&self, name: &str) -> Result<SyncReport, Error> {
        let engine = self.app.remotes.get(name).ok_or_else(|| Error::not_found(format!("engine {name:?}")))?;
        engine.sync(false).await
    }
}
