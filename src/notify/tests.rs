//! Unit tests of `notify`.

use super::*;
use crate::domain::{AgentId, DecisionKind, EngineId, PausedCall, RunId, ToolCallId};
use serde_json::{json, Value};

fn queued(tool: &str, args: Value) -> QueuedCall {
    QueuedCall {
        id: ItemId::new("item-1"),
        call: PausedCall {
            engine: EngineId::new("local"),
            source: crate::domain::CallSource::Local,
            agent_id: AgentId::new("demo"),
            agent_name: Some("Demo agent".into()),
            run_id: RunId::new("run-1"),
            tool_call_id: ToolCallId::new("call-1"),
            ..PausedCall::sample(tool, args)
        },
        state: ItemState::Pending,
        paused_at: Utc::now(),
    }
}

/// The notice `notice_for` makes for `call` alone, with the local engine's allowed decisions.
async fn notice(call: &QueuedCall, settings: &NotificationSettings, lang: Lang) -> Notice {
    let tmp = tempfile::tempdir().unwrap();
    let db = crate::store::Db::open(tmp.path()).await.unwrap();
    let events = crate::store::feed::Events::default();
    let local =
        crate::engine::local::LocalEngine::new(crate::domain::EngineId::local(), db.clone(), vec![crate::engine::local::demo::agent()]);
    let receipts = crate::console::receipts::Receipts::new(db.clone(), "local".into());
    let console = Console::new(db, events, vec![std::sync::Arc::new(local)], receipts);
    let risk = risk_of(call, settings);
    notice_for(std::slice::from_ref(call), &console, lang, One { risk: Some(&risk), standing: None }).unwrap()
}

/// The call's risk as the console rates it under these settings' high-risk tools.
fn risk_of(call: &QueuedCall, settings: &NotificationSettings) -> crate::domain::risk::Risk {
    let safety = crate::domain::safety::SafetySettings { high_risk_tools: settings.high_risk_tools.clone(), ..Default::default() };
    safety.risk(&call.call.tool_name, &call.call.args, None)
}

/// `One` with a low risk and `standing`.
fn low(standing: Option<&Standing>) -> One<'_> {
    static LOW: crate::domain::risk::Risk = crate::domain::risk::Risk { level: crate::domain::risk::Level::Low, reasons: vec![] };
    One { risk: Some(&LOW), standing }
}

#[tokio::test]
async fn a_short_call_shown_whole_offers_approve() {
    let call = queued("delete_record", json!({ "id": "rec-1", "note": "a \"quoted\"\nline" }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert_eq!(n.actions, vec![Choice::Approve, Choice::Decline, Choice::Open]);
    assert_eq!(n.summary, "Demo agent wants to run delete_record");
    let first = n.body.lines().next().unwrap();
    assert_eq!(first, r#"{"id":"rec-1","note":"a \"quoted\"\nline"}"#, "the arguments as compact JSON: {n:?}");
    assert!(!n.body.contains("Cut:") && !n.body.contains("look like"), "{}", n.body);
    assert_eq!(n.call, Some((call.id.clone(), call.call.fingerprint.clone())), "bound to the fingerprint it showed");
    // Exactly the budget is still whole.
    let pad = BODY_BUDGET - r#"{"id":""}"#.len();
    let n = notice(&queued("delete_record", json!({ "id": "x".repeat(pad) })), &NotificationSettings::default(), Lang::En).await;
    assert!(n.actions.contains(&Choice::Approve), "{} characters fit: {n:?}", BODY_BUDGET);
}

#[tokio::test]
async fn a_long_argument_is_cut_says_so_and_offers_no_approve() {
    let pad = BODY_BUDGET - r#"{"id":""}"#.len() + 1;
    let call = queued("delete_record", json!({ "id": "x".repeat(pad) }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "{n:?}");
    let lines: Vec<&str> = n.body.lines().collect();
    assert_eq!(lines.last(), Some(&"Cut: open the call to see all of it"), "{n:?}");
    assert_eq!(lines[0].chars().count(), BODY_BUDGET);
    assert!(lines[0].ends_with('…'));
    assert_eq!(n.call, Some((call.id.clone(), call.call.fingerprint.clone())), "Decline stays bound to the fingerprint");
    let ja = notice(&call, &NotificationSettings::default(), Lang::Ja).await;
    assert_eq!(ja.body.lines().last(), Some(Lang::Ja.cut_line()));
    assert_eq!(ja.actions, vec![Choice::Decline, Choice::Open]);
}

#[tokio::test]
async fn a_tool_name_too_long_for_the_summary_offers_no_approve() {
    // The agent's name gives way first: the tool name stays whole.
    let mut call = queued(&"t".repeat(80), json!({ "id": "rec-1" }));
    call.call.agent_name = Some("A".repeat(60));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert!(n.summary.chars().count() <= SUMMARY_BUDGET && n.summary.ends_with(&"t".repeat(80)), "{n:?}");
    assert!(n.summary.starts_with("AAA") && n.summary.contains("… wants to run"), "{n:?}");
    assert!(n.actions.contains(&Choice::Approve), "{n:?}");
    // A tool name that cannot fit whole.
    let call = queued(&"t".repeat(SUMMARY_BUDGET), json!({ "id": "rec-1" }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert!(n.summary.chars().count() <= SUMMARY_BUDGET && n.summary.ends_with('…'), "{n:?}");
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "{n:?}");
    assert_eq!(n.body.lines().last(), Some("Cut: open the call to see all of it"));
}

#[tokio::test]
async fn look_alike_characters_are_marked_and_offer_no_approve() {
    let call = queued("send_payment", json!({ "to": "p\u{0430}ypal.com", "amount": 5 }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert!(n.body.starts_with(r#"{"to":"pа[U+0430]ypal.com","amount":5}"#), "{n:?}");
    assert!(n.body.lines().any(|l| l == "Has characters that look like others: check in the window"), "{n:?}");
    assert!(!n.body.contains("Cut:"), "shown whole");
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open]);
    // In the tool name (summary) and in keys too; a fullwidth `ｒｍ` as well.
    let call = queued("d\u{0435}lete", json!({ "\u{FF52}\u{FF4D}": true }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert_eq!(n.summary, "Demo agent wants to run dе[U+0435]lete");
    assert!(n.body.starts_with(r#"{"ｒ[U+FF52]ｍ[U+FF4D]":true}"#), "{n:?}");
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open]);
    // Russian prose is not a look-alike (the window's context rules).
    let call = queued("send_message", json!({ "text": "Привет, мир" }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert!(n.body.starts_with(r#"{"text":"Привет, мир"}"#) && n.actions.contains(&Choice::Approve), "{n:?}");
}

#[tokio::test]
async fn hidden_characters_and_markup_are_escaped() {
    let call = queued("delete_record", json!({ "id": "rm\u{202E} -rf\u{7}\u{E0041} <b>x</b> &" }));
    let n = notice(&call, &NotificationSettings::default(), Lang::En).await;
    assert!(n.body.starts_with(r#"{"id":"rm\u{202E} -rf\u{0007}\u{E0041} &lt;b&gt;x&lt;/b&gt; &amp;"}"#), "{n:?}");
    assert!(!n.body.contains('\u{202E}') && !n.body.contains('\u{E0041}'));
    // Issue 45: hidden characters rate the call high, so a notification says why and offers no Approve.
    let line = n.body.lines().find(|l| l.starts_with("Risk: ")).unwrap_or_else(|| panic!("no risk line: {n:?}"));
    assert!(line.starts_with("Risk: high — hidden character at /id: U+202E RIGHT-TO-LEFT OVERRIDE"), "{line}");
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "{n:?}");
}

#[tokio::test]
async fn high_risk_tools_never_offer_approve() {
    let settings = NotificationSettings { high_risk_tools: vec!["delete_record".into()], ..Default::default() };
    let n = notice(&queued("delete_record", json!({ "id": "rec-1" })), &settings, Lang::En).await;
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open]);
}

#[tokio::test]
async fn a_call_rated_high_by_its_arguments_says_why_and_offers_no_approve_and_one_of_unknown_risk_neither() {
    let push = queued("Bash", json!({ "command": "git push --force origin main" }));
    let n = notice(&push, &NotificationSettings::default(), Lang::En).await;
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "{n:?}");
    let line = n.body.lines().find(|l| l.starts_with("Risk: ")).unwrap_or_else(|| panic!("no risk line: {n:?}"));
    assert!(line.starts_with("Risk: high — ") && line.contains("force push"), "{line}");
    let n = notice(&push, &NotificationSettings::default(), Lang::Ja).await;
    assert!(n.body.lines().any(|l| l.starts_with("リスク: 高 — ")), "{n:?}");
    // Medium: said, and still approvable here.
    let medium = queued("Bash", json!({ "command": "git reset --hard HEAD~5" }));
    let risk = risk_of(&medium, &NotificationSettings::default());
    assert_eq!(risk.level, crate::domain::risk::Level::Medium, "{risk:?}");
    let n = notice(&medium, &NotificationSettings::default(), Lang::En).await;
    assert!(n.body.lines().any(|l| l.starts_with("Risk: medium")) && n.actions.contains(&Choice::Approve), "{n:?}");
    // A low call says nothing of risk.
    let n = notice(&queued("Bash", json!({ "command": "ls" })), &NotificationSettings::default(), Lang::En).await;
    assert!(!n.body.contains("Risk:") && n.actions.contains(&Choice::Approve), "{n:?}");
    // Risk not known (its settings could not be read): no Approve.
    let all = [DecisionKind::Approve, DecisionKind::Decline];
    let n = call_notice(&queued("Bash", json!({ "command": "ls" })), &all, Lang::En, None, One::default());
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "{n:?}");
}

#[test]
fn an_expiry_warning_whose_tool_name_is_cut_offers_no_approve() {
    let all = [DecisionKind::Approve, DecisionKind::Decline];
    let n = call_notice(&queued("delete_record", json!({ "id": "rec-1" })), &all, Lang::En, Some((300, "12:05")), low(None));
    assert_eq!(n.summary, "Expires in 5 min: delete_record");
    assert!(n.body.starts_with("Nobody decided; at 12:05") && n.actions.contains(&Choice::Approve), "{n:?}");
    let n = call_notice(&queued(&"t".repeat(110), json!({ "id": "rec-1" })), &all, Lang::En, Some((300, "12:05")), low(None));
    assert!(n.summary.chars().count() <= SUMMARY_BUDGET, "{n:?}");
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open]);
    assert_eq!(n.body.lines().last(), Some("Cut: open the call to see all of it"));
}

#[test]
fn a_call_under_a_quorum_says_where_it_stands_and_offers_no_approve_to_one_who_approved() {
    let all = [DecisionKind::Approve, DecisionKind::Decline];
    let call = queued("delete_record", json!({ "id": "rec-1" }));
    let fresh = Standing { quorum: 2, approved_by: vec![], not_theirs: false };
    let n = call_notice(&call, &all, Lang::En, None, low(Some(&fresh)));
    assert!(n.body.lines().any(|l| l == "Needs 2 approvals by different operators"), "{n:?}");
    assert!(n.actions.contains(&Choice::Approve));
    let one = Standing { quorum: 2, approved_by: vec!["operator-a (web)".into()], not_theirs: false };
    let n = call_notice(&call, &all, Lang::En, None, low(Some(&one)));
    assert!(n.body.lines().any(|l| l == "1 of 2 approvals: operator-a (web)"), "{n:?}");
    assert_eq!(n.actions, vec![Choice::Approve, Choice::Decline, Choice::Open], "another operator may give the second");
    let n = call_notice(&call, &all, Lang::Ja, None, low(Some(&one)));
    assert!(n.body.lines().any(|l| l == "承認 1/2: operator-a (web)"), "{n:?}");
    let theirs = Standing { not_theirs: true, ..one };
    let n = call_notice(&call, &all, Lang::En, None, low(Some(&theirs)));
    assert_eq!(n.actions, vec![Choice::Decline, Choice::Open], "no second approval by the same operator: {n:?}");
}
