//! Desktop notifications for new pending calls (C4), with Approve / Decline / Open actions bound to
//! the fingerprint they showed (C3). Used by `serve --notify` and the desktop app alike.
//!
//! New calls arriving less than [`QUIET`] apart are told together ("7 calls waiting"), waiting at
//! most [`GATHER`] in all; a lone call is told [`QUIET`] after it paused.
//! Without a notification service the console keeps working: the failure is logged once, shown in
//! [`NotifyStatus`], and showing is tried again after [`RETRY`].

pub mod desktop;
pub mod settings;
pub mod words;

use crate::console::{Change, Console, Decided};
use crate::domain::text::{notification_text, Marked};
use crate::domain::{CallKind, DecisionKind, DecisionRequest, Error, Fingerprint, ItemId, ItemState, QueuedCall, Verdict};
use chrono::{DateTime, Utc};
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
/// The most characters of a call a notice's body shows: its arguments (a suspended call's payload)
/// as compact JSON, hidden and look-alike characters marked. Notification services show short
/// bodies: dunst's default is 300 px wide (about 50 characters a line of its 8 pt font) and a GNOME
/// Shell banner a few lines; 240 characters is about 5 such lines, with the engine line and any
/// warning under them. A longer call is cut, says so, and its notice offers no Approve.
pub const BODY_BUDGET: usize = 240;
/// The most characters of a notice's summary. The agent's name is shortened first; when the tool
/// name still does not fit whole, it is cut and the notice offers no Approve.
pub const SUMMARY_BUDGET: usize = 120;

/// What the operator can do from a notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    Approve,
    Decline,
    Open,
}

impl Choice {
    pub fn key(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Decline => "decline",
            // "default": what a click on the notification body invokes.
            Self::Open => "default",
        }
    }

    /// The button's words in `lang`.
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            Self::Approve => lang.approve(),
            Self::Decline => lang.decline(),
            Self::Open => lang.open(),
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        match key {
            "approve" => Some(Self::Approve),
            "decline" => Some(Self::Decline),
            "default" | "open" => Some(Self::Open),
            _ => None,
        }
    }
}

/// Where a call of a tool with a quorum stands (the two-person rule), as its notice tells it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    /// How many approvals by different operators the call needs.
    pub quorum: u32,
    /// Who approved it so far (audit names), oldest first.
    pub approved_by: Vec<String>,
    /// The one the notice is for (the local admin) approved it already or started its run: no
    /// Approve for them.
    pub not_theirs: bool,
}

impl Standing {
    /// The call's standing as `console` has it, for the principal `key`; `None` for a call that
    /// needs one approval.
    pub async fn of(console: &Console, item: &QueuedCall, key: &str) -> Result<Option<Self>, Error> {
        let (quorum, approvals) = console.approvals(item).await?;
        if quorum <= 1 || item.call.kind != CallKind::Approval {
            return Ok(None);
        }
        let approved = approvals.iter().any(|a| a.operator_key == key);
        let started = console.started_by(&item.call).await.ok().flatten().as_deref() == Some(key);
        Ok(Some(Self { quorum, approved_by: approvals.into_iter().map(|a| a.operator).collect(), not_theirs: approved || started }))
    }
}

/// One notification: text already escaped for notification markup.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub summary: String,
    pub body: String,
    pub actions: Vec<Choice>,
    /// The call it is about and the fingerprint it showed; `None` for a group.
    pub call: Option<(ItemId, Fingerprint)>,
}

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
                let notice = call_notice(&soon.item, &allowed, &settings, Lang::current(), Some((left, &at)), standing.as_ref());
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
        let one = if calls.len() == 1 { standing.as_ref() } else { None };
        let Some(notice) = notice_for(&calls, &settings, console, Lang::current(), one) else { return Ok(()) };
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
        // The local admin: one operator of a quorum (the same one as in the window and the CLI).
        let request = DecisionRequest {
            verdict,
            fingerprint,
            operator: format!("{operator} (notification)"),
            operator_key: Some(crate::domain::Principal::local(operator).key()),
        };
        match console.decide_or_approve(&id, request).await {
            Ok(Decided::Decision(decision)) => {
                if let Err(e) = console.deliver_claimed(&decision, None).await {
                    tracing::warn!(item = %id, "delivery after a notification action failed: {e}");
                }
            }
            Ok(Decided::Approval { approvals, quorum }) => {
                tracing::info!(item = %id, "approval {} of {quorum} recorded from a notification", approvals.len());
            }
            Err(e) => {
                tracing::info!(item = %id, "notification action refused: {e}");
                let reason = match &e {
                    Error::FingerprintMismatch { .. } => "the call changed since the notification showed it; nothing was sent".to_owned(),
                    other => format!("{other}; nothing was sent"),
                };
                let _ = self.open.send(OpenRequest { item: Some(id), reason: Some(reason) });
            }
        }
    }
}

/// The notice for new calls, in `lang`: one call in detail ([`call_notice`], with its `standing`
/// under a quorum), several as a group.
pub fn notice_for(
    calls: &[QueuedCall],
    settings: &NotificationSettings,
    console: &Console,
    lang: Lang,
    standing: Option<&Standing>,
) -> Option<Notice> {
    match calls {
        [] => None,
        [one] => Some(call_notice(one, &console.allowed(&one.call), settings, lang, None, standing)),
        many => {
            let lines: Vec<String> = many
                .iter()
                .take(3)
                .map(|q| {
                    format!(
                        "{}: {}",
                        Marked::text(q.call.agent_name.as_deref().unwrap_or(q.call.agent_id.as_str())).text,
                        Marked::text(&q.call.tool_name).text
                    )
                })
                .collect();
            let more = if many.len() > 3 { format!("\n{}", lang.and_more(many.len() - 3)) } else { String::new() };
            Some(Notice {
                summary: lang.calls_waiting(many.len()),
                body: notification_text(&format!("{}{more}", lines.join("\n"))),
                actions: vec![Choice::Open],
                call: None,
            })
        }
    }
}

/// The notice of one call: agent and tool in the summary, the arguments in the body, hidden and
/// look-alike characters marked as the window marks them ([`Marked`]), then the engine and short
/// fingerprint; `expiring` (seconds left, local `HH:MM`) makes it an expiry warning.
///
/// Approve is offered only when the engine allows it, the tool is not high-risk, the notice shows
/// the whole call (the tool name uncut in the summary, the arguments within [`BODY_BUDGET`]) and
/// the call has no look-alike character; otherwise Decline (when allowed) and Open, and the body
/// says why: a line that it is cut (the last), a line that it has look-alikes. A call of a tool
/// with a quorum (`standing`) has a line saying where it stands (`1 of 2 approvals: alice (web)`),
/// and no Approve for one who approved it already or started its run.
pub fn call_notice(
    one: &QueuedCall,
    allowed: &[DecisionKind],
    settings: &NotificationSettings,
    lang: Lang,
    expiring: Option<(u64, &str)>,
    standing: Option<&Standing>,
) -> Notice {
    let c = &one.call;
    let agent = Marked::text(c.agent_name.as_deref().unwrap_or(c.agent_id.as_str()));
    let tool = Marked::text(&c.tool_name);
    let (summary, tool_whole) = fit_summary(&agent, &tool, |agent, tool| match (expiring, c.kind) {
        (Some((left, _)), _) => lang.expires_in(left, tool),
        (None, CallKind::Approval) => lang.wants_to_run(agent, tool),
        (None, CallKind::Suspend) => lang.waits_for_answer(agent, tool),
    });
    let detail = match c.kind {
        CallKind::Approval => Marked::json(&c.args),
        CallKind::Suspend => Marked::json(c.suspend_payload.as_ref().unwrap_or(&serde_json::Value::Null)),
    };
    let whole = tool_whole && detail.len() <= BODY_BUDGET;
    let lookalikes = tool.lookalikes + detail.lookalikes > 0;
    let short = c.fingerprint.as_str().trim_start_matches("sha256:").chars().take(12).collect::<String>();

    let mut lines = Vec::new();
    if let Some((_, at)) = expiring {
        lines.push(lang.expiry_body(at));
    }
    lines.push(detail.shortened(BODY_BUDGET));
    lines.push(lang.engine_line(c.engine.as_str(), &short));
    if let Some(by) = &c.requested_by {
        lines.push(Marked::text(&lang.requester_line(by)).text);
    }
    if let Some(s) = standing.filter(|s| s.quorum > 1) {
        lines.push(lang.approvals_line(s.quorum, &s.approved_by));
    }
    if lookalikes {
        lines.push(lang.lookalike_line().to_owned());
    }
    if !whole {
        lines.push(lang.cut_line().to_owned());
    }
    let mut actions = Vec::new();
    let theirs = standing.is_none_or(|s| !s.not_theirs);
    if allowed.contains(&DecisionKind::Approve) && !settings.high_risk(&c.tool_name) && whole && !lookalikes && theirs {
        actions.push(Choice::Approve);
    }
    if allowed.contains(&DecisionKind::Decline) {
        actions.push(Choice::Decline);
    }
    actions.push(Choice::Open);
    Notice {
        // Marked text has no hidden character left; `notification_text` escapes markup (and the
        // hidden characters of the engine's name, were there any).
        summary: notification_text(&summary),
        body: notification_text(&lines.join("\n")),
        actions,
        call: Some((one.id.clone(), c.fingerprint.clone())),
    }
}

/// `make(agent, tool)` within [`SUMMARY_BUDGET`] characters, and whether the tool name is in it
/// whole: the agent's name is shortened first, then (the agent's cut to a few characters) the tool's.
/// Marks are kept whole or left out, never split.
fn fit_summary(agent: &Marked, tool: &Marked, make: impl Fn(&str, &str) -> String) -> (String, bool) {
    let len = |s: &str| s.chars().count();
    let full = make(&agent.text, &tool.text);
    if len(&full) <= SUMMARY_BUDGET {
        return (full, true);
    }
    let frame = len(&make("", ""));
    let agent_room = SUMMARY_BUDGET.saturating_sub(frame + tool.len());
    if agent_room > 0 {
        return (make(&agent.shortened(agent_room), &tool.text), true);
    }
    let agent = agent.shortened(24);
    let tool_room = SUMMARY_BUDGET.saturating_sub(len(&make(&agent, "")));
    (make(&agent, &tool.shortened(tool_room)), false)
}

#[cfg(test)]
mod tests;
