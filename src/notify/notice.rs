//! What a notification says and offers: the [`Notice`] of one call or of a group, its [`Choice`]s,
//! and where a call of a tool with a quorum stands ([`Standing`]).

use super::Lang;
use crate::console::Console;
use crate::domain::risk::Risk;
use crate::domain::text::{notification_text, Marked};
use crate::domain::{CallKind, DecisionKind, Error, Fingerprint, ItemId, QueuedCall};
use serde::Serialize;

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

/// What is known of the one call a notice tells beside the call itself: its risk now (`None`: it
/// could not be read — no Approve is offered) and, under a quorum, its standing.
#[derive(Clone, Copy, Default)]
pub struct One<'a> {
    pub risk: Option<&'a Risk>,
    pub standing: Option<&'a Standing>,
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

/// The notice for new calls, in `lang`: one call in detail ([`call_notice`], with its `standing`
/// under a quorum), several as a group.
pub fn notice_for(calls: &[QueuedCall], console: &Console, lang: Lang, one: One<'_>) -> Option<Notice> {
    match calls {
        [] => None,
        [call] => Some(call_notice(call, &console.allowed(&call.call), lang, None, one)),
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
/// A call rated medium or above has a line with its risk and most serious reason. Approve is
/// offered only when the engine allows it, the call's risk is known and below high, the notice shows
/// the whole call (the tool name uncut in the summary, the arguments within [`BODY_BUDGET`]) and
/// the call has no look-alike character; otherwise Decline (when allowed) and Open, and the body
/// says why: a line that it is cut (the last), a line that it has look-alikes. A call of a tool
/// with a quorum (`standing`) has a line saying where it stands (`1 of 2 approvals: alice (web)`),
/// and no Approve for one who approved it already or started its run.
pub fn call_notice(one: &QueuedCall, allowed: &[DecisionKind], lang: Lang, expiring: Option<(u64, &str)>, known: One<'_>) -> Notice {
    let c = &one.call;
    let standing = known.standing;
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
    if let Some(risk) = known.risk.filter(|r| r.level >= crate::domain::risk::Level::Medium) {
        lines.push(Marked::text(&lang.risk_line(risk.level, risk.first_reason())).text);
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
    // High or critical (its tool listed in the settings included), or not known: decided in the window.
    let operator_only = known.risk.is_none_or(Risk::needs_operator);
    if allowed.contains(&DecisionKind::Approve) && !operator_only && whole && !lookalikes && theirs {
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
