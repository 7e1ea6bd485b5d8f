//! Desktop notifications for new pending calls (C4), with Approve / Decline / Open actions bound to
//! the fingerprint they showed (C3). Used by `serve --notify` and the desktop app alike.
//!
//! New calls arriving less than [`QUIET`] apart are told together ("7 calls waiting"), waiting at
//! most [`GATHER`] in all; a lone call is told [`QUIET`] after it paused.
//! Without a notification service the console keeps working: the failure is logged once, shown in
//! [`NotifyStatus`], and showing is tried again after [`RETRY`].

pub mod desktop;
mod notice;
pub mod reach;
pub mod settings;
pub mod words;

use crate::console::{Change, Console, Decided};
use crate::domain::{Error, Fingerprint, ItemId, ItemState, QueuedCall, Verdict};
use chrono::{DateTime, Utc};
pub use notice::{call_notice, notice_for, Choice, Notice, One, Standing, BODY_BUDGET, SUMMARY_BUDGET};
use serde::Serialize;
pub use settings::NotificationSettings;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, watch};
pub use words::Lang;

/// How long after a new call the notice waits for another to tell with it.
pub const QUIET: Duration = Duration::from_millis(50);
/// The longest a burst of new calls is gathered before it is told.
pub const GATHER: Duration = Duration::from_millis(500);
/// After a failure to show, how long before showing is tried again.
pub const RETRY: Duration = Duration::from_secs(60);

/// Something that can show notices.
pub trait Notifier: Send + Sync + 'static {
    /// Shows `notice`; `answer` later gets the operator's choice (`None`: dismissed or expired).
    /// Blocking; errors say why nothing was shown (no notification service, …).
    fn show(&self, notice: Notice, answer: Box<dyn FnOnce(Option<Choice>) + Send>) -> Result<(), String>;
}

/// A request to show the console on a call (or the queue), e.g. after an action that could not be
/// taken from the notification. The desktop shell focuses its window on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenRequest {
    pub item: Option<ItemId>,
    /// Why the window opens instead, if an action was refused.
    pub reason: Option<String>,
}

/// Whether notifications work, for the UI's one-time warning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotifyStatus {
    /// Notifications are on in this process (`serve --notify`, or the desktop app).
    pub running: bool,
    /// `false` once showing failed (no notification service); `true` once one was shown.
    #[schema(required = true)]
    pub available: Option<bool>,
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(required = true)]
    pub last_error_at: Option<DateTime<Utc>>,
    pub shown: u64,
    /// Calls not told because notifications were failing.
    pub missed: u64,
}

/// The running notification service. Cheap to clone.
#[derive(Clone)]
pub struct Notifications {
    status: Arc<Mutex<NotifyStatus>>,
    open: broadcast::Sender<OpenRequest>,
    /// Paused from the tray: new calls are not told until resumed (they still queue).
    paused: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for Notifications {
    fn default() -> Self {
        Self { status: Arc::default(), open: broadcast::channel(64).0, paused: Arc::default() }
    }
}

impl Notifications {
    /// Pauses or resumes notifications in this process (the settings stay as they are).
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn paused(&self) -> bool {
        self.paused.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn status(&self) -> NotifyStatus {
        self.status.lock().expect("status lock").clone()
    }

    /// Requests to show a call, from notification actions.
    pub fn open_requests(&self) -> broadcast::Receiver<OpenRequest> {
        self.open.subscribe()
    }

    /// Tells of new pending calls until `stop` flips. `operator` is the audit name of whoever acts
    /// on a notification.
    pub fn start(
        &self,
        console: Console,
        notifier: Arc<dyn Notifier>,
        operator: String,
        mut stop: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        self.status.lock().expect("status lock").running = true;
        self.spawn_expiry_warnings(console.clone(), notifier.clone(), operator.clone(), stop.clone());
        let this = self.clone();
        let mut events = console.events().subscribe();
        tokio::spawn(async move {
            let mut retry_at: Option<tokio::time::Instant> = None;
            loop {
                let first = tokio::select! {
                    e = events.recv() => e,
                    _ = stop.changed() => return,
                };
                let mut added = Vec::new();
                match first {
                    Ok(e) if e.kind == Change::Added => added.push(e.id),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
                let cap = tokio::time::Instant::now() + GATHER;
                let mut deadline = (tokio::time::Instant::now() + QUIET).min(cap);
                while let Ok(Ok(e)) = tokio::time::timeout_at(deadline, events.recv()).await {
                    if e.kind == Change::Added {
                        added.push(e.id);
                        deadline = (tokio::time::Instant::now() + QUIET).min(cap);
                    }
                }
                if this.paused() {
                    continue;
                }
                if retry_at.is_some_and(|t| tokio::time::Instant::now() < t) {
                    this.status.lock().expect("status lock").missed += added.len() as u64;
                    continue;
                }
                match this.tell(&console, &notifier, &operator, &added).await {
                    Ok(()) => retry_at = None,
                    Err(e) => {
                        retry_at = Some(tokio::time::Instant::now() + RETRY);
                        tracing::debug!("notification not shown: {e}");
                    }
                }
            }
        })
    }

    /// Tells of calls about to expire (the console's expiry worker finds them), one notice each,
    /// under the same settings as new calls; its actions are those of a new call's notice.
    fn spawn_expiry_warnings(&self, console: Console, notifier: Arc<dyn Notifier>, operator: String, mut stop: watch::Receiver<bool>) {
        let this = self.clone();
        let mut expiring = console.expiring();
        tokio::spawn(async move {
            loop {
                let soon = tokio::select! {
                    s = expiring.recv() => s,
                    _ = stop.changed() => return,
                };
                let soon = match soon {
                    Ok(s) => s,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let settings = NotificationSettings::load(console.db()).await.unwrap_or_default();
                if this.paused() || !settings.wants(&soon.item, chrono::Local::now().time()) {
                    continue;
                }
                let left = (soon.expires_at - Utc::now()).num_seconds().max(0) as u64;
                let at = soon.expires_at.with_timezone(&chrono::Local).format("%H:%M").to_string();
                let allowed = console.allowed(&soon.item.call);
                let standing = Standing::of(&console, &soon.item, &crate::domain::Principal::local(&operator).key()).await.ok().flatten();
                let risk = console.care(&soon.item).await.ok().map(|c| c.risk);
                let one = One { risk: risk.as_ref(), standing: standing.as_ref() };
                let notice = call_notice(&soon.item, &allowed, Lang::current(), Some((left, &at)), one);
                let (actor, console2, call) = (this.clone(), console.clone(), notice.call.clone());
                let operator = operator.clone();
                let runtime = tokio::runtime::Handle::current();
                let offered = notice.actions.clone();
                let answer: Box<dyn FnOnce(Option<Choice>) + Send> = Box::new(move |choice| {
                    // Only what the notice offered: an Approve it did not show is not obeyed.
                    if let Some(choice) = choice.filter(|c| offered.contains(c)) {
                        runtime.spawn(async move { actor.act(&console2, &operator, call, choice).await });
                    }
                });
                let notifier = notifier.clone();
                if let Ok(Err(e)) = tokio::task::spawn_blocking(move || notifier.show(notice, answer)).await {
                    tracing::debug!("expiry warning not shown: {e}");
                }
            }
        });
    }

    /// Shows the notice for these new calls (those still pending, wanted by the settings, and not
    /// about to be approved by a grant). A call of a tool with a quorum is told again after each
    /// approval (the change feed announces it anew) with where it stands, except to an operator
    /// who approved it already.
    async fn tell(&self, console: &Console, notifier: &Arc<dyn Notifier>, operator: &str, ids: &[ItemId]) -> Result<(), String> {
        let settings = NotificationSettings::load(console.db()).await.unwrap_or_else(|e| {
            tracing::warn!("{e}; using default notification settings");
            NotificationSettings::default()
        });
        let now = chrono::Local::now().time();
        let key = crate::domain::Principal::local(operator).key();
        let mut calls = Vec::new();
        let mut standing = None;
        for id in ids {
            if let Ok(entry) = console.item(id).await {
                // A call a grant covers is approved by the grants worker: nothing to tell.
                let granted = matches!(console.grant_for(&entry.queued).await, Ok(Some(_)));
                if entry.queued.state == ItemState::Pending && settings.wants(&entry.queued, now) && !granted {
                    let stands = Standing::of(console, &entry.queued, &key).await.ok().flatten();
                    if stands.as_ref().is_some_and(|s| !s.approved_by.is_empty() && s.not_theirs) {
                        // Told again after an approval: not to whoever gave it (or started the run).
                        continue;
                    }
                    if calls.iter().all(|c: &QueuedCall| c.id != entry.queued.id) {
                        standing = stands;
                        calls.push(entry.queued);
                    }
                }
            }
        }
        let risk = match calls.as_slice() {
            [call] => console.care(call).await.ok().map(|c| c.risk),
            _ => None,
        };
        let one = One { risk: risk.as_ref(), standing: if calls.len() == 1 { standing.as_ref() } else { None } };
        let Some(notice) = notice_for(&calls, console, Lang::current(), one) else { return Ok(()) };
        let (this, console, operator) = (self.clone(), console.clone(), operator.to_owned());
        let runtime = tokio::runtime::Handle::current();
        let call = notice.call.clone();
        let offered = notice.actions.clone();
        let answer: Box<dyn FnOnce(Option<Choice>) + Send> = Box::new(move |choice| {
            // Only what the notice offered: an Approve it did not show is not obeyed.
            if let Some(choice) = choice.filter(|c| offered.contains(c)) {
                runtime.spawn(async move { this.act(&console, &operator, call, choice).await });
            }
        });
        let notifier = notifier.clone();
        let shown = tokio::task::spawn_blocking(move || notifier.show(notice, answer)).await.unwrap_or_else(|e| Err(e.to_string()));
        let mut status = self.status.lock().expect("status lock");
        match shown {
            Ok(()) => {
                if status.available == Some(false) {
                    tracing::info!("desktop notifications work again");
                }
                status.available = Some(true);
                status.shown += 1;
                Ok(())
            }
            Err(e) => {
                if status.available != Some(false) {
                    tracing::warn!("desktop notifications are not available ({e}); the console keeps working, new calls show in its window; trying again in {} s", RETRY.as_secs());
                }
                status.available = Some(false);
                status.last_error = Some(e.clone());
                status.last_error_at = Some(Utc::now());
                status.missed += calls.len() as u64;
                Err(e)
            }
        }
    }

    /// Carries out a choice made on a notification. Approve and Decline are decided with the
    /// fingerprint the notification showed: if the call changed or was decided meanwhile, nothing is
    /// sent and the window is asked to open on the call instead.
    pub async fn act(&self, console: &Console, operator: &str, call: Option<(ItemId, Fingerprint)>, choice: Choice) {
        let Some((id, fingerprint)) = call else {
            let _ = self.open.send(OpenRequest { item: None, reason: None });
            return;
        };
        let verdict = match choice {
            Choice::Open => {
                let _ = self.open.send(OpenRequest { item: Some(id), reason: None });
                return;
            }
            Choice::Approve => Verdict::Approve,
            Choice::Decline => Verdict::Decline { reason: Some("declined from a desktop notification".into()) },
        };
        // The local admin, deciding from a notification's button: one operator of a quorum (the same
        // one as in the window and the CLI). A notification has no confirm step, so the decision kernel
        // refuses the approval of a call that is high-risk now (the settings or the rules changed since
        // it was shown): it is opened in the window instead, with why.
        let by = crate::domain::Cx::<crate::domain::grade::Decide>::local(operator, "notification");
        let ask = crate::console::Ask::Verdict { verdict, fingerprint };
        match console
            .decide(&crate::console::Decider::notification(&by), crate::console::Target::Id(&id), ask, crate::console::How::Counted)
            .await
        {
            Ok(Decided::Decision(decision)) => {
                if let Err(e) = console.deliver_claimed(&decision, None).await {
                    tracing::warn!(item = %id, "delivery after a notification action failed: {e}");
                }
            }
            Ok(Decided::Approval { approvals, quorum }) => {
                tracing::info!(item = %id, "approval {} of {quorum} recorded from a notification", approvals.len());
            }
            Ok(Decided::Resolved(_)) => {}
            Err(e) => {
                tracing::info!(item = %id, "notification action refused: {e}");
                let reason = match &e {
                    Error::FingerprintMismatch { .. } => "the call changed since the notification showed it; nothing was sent".to_owned(),
                    Error::HighRiskNeedsConsole { why, .. } => {
                        format!("this call is high risk ({why}): approve it in the window, after its confirm step; nothing was sent")
                    }
                    other => format!("{other}; nothing was sent"),
                };
                let _ = self.open.send(OpenRequest { item: Some(id), reason: Some(reason) });
            }
        }
    }
}

#[cfg(test)]
mod tests;
