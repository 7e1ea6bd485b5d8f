//! Every window command through Tauri's IPC, with `tauri::test::mock_builder()` (no display): the
//! real core over a real SQLite file, the demo agent pausing for real.

use approval_console::app::App;
use approval_console::domain::AgentId;
use approval_console::engine::local::agent::Message;
use approval_console::engine::local::RunRequest;
use serde_json::{json, Value};
use tauri::test::mock_builder;
use tauri::WebviewWindowBuilder;

#[path = "support/ipc.rs"]
mod ipc;

struct Desktop {
    _tmp: tempfile::TempDir,
    core: App,
    _app: tauri::App<tauri::test::MockRuntime>,
    webview: tauri::WebviewWindow<tauri::test::MockRuntime>,
}

fn desktop() -> Desktop {
    let tmp = tempfile::tempdir().unwrap();
    let core = tauri::async_runtime::block_on(App::open(tmp.path(), vec![])).unwrap();
    // The real context (config, capabilities, app manifest), so the window's ACL applies as in the app.
    let app = approval_console_desktop::build(mock_builder(), core.clone(), |_| Ok(()))
        .build(tauri::generate_context!("../tauri.conf.json"))
        .unwrap();
    let webview = WebviewWindowBuilder::new(&app, approval_console_desktop::MAIN_WINDOW, Default::default()).build().unwrap();
    Desktop { _tmp: tmp, core, _app: app, webview }
}

impl Desktop {
    /// Calls `cmd` as the window would; `Ok(answer)` or `Err({code, message, details?})`.
    fn invoke(&self, cmd: &str, body: Value) -> Result<Value, Value> {
        ipc::invoke(&self.webview, cmd, body)
    }

    /// A decision command's answer, then the entry once its delivery and the run after it are over
    /// (the core answers a decision once committed and delivers it after: issue 46).
    fn delivered(&self, answered: Value) -> Value {
        assert!(tauri::async_runtime::block_on(self.core.finish_deliveries(std::time::Duration::from_secs(120))));
        self.invoke("queue_item", json!({ "id": answered["id"] })).unwrap()
    }

    /// The demo agent pauses on `delete <id>`; returns the queue entry.
    fn pause(&self, text: &str) -> Value {
        let request = RunRequest {
            agent_id: AgentId::new("demo"),
            messages: vec![Message::User { content: text.into() }],
            thread_id: None,
            resource_id: None,
            options: Default::default(),
            run_id: Default::default(),
            started_by: None,
        };
        let run = tauri::async_runtime::block_on(self.core.send(request, false, None, &self.core.local_admin("test"))).unwrap();
        let page = self.invoke("queue_page", json!({ "query": { "run": run.as_str() } })).unwrap();
        page["items"][0].clone()
    }
}

/// An operation declared in the core is the window's command with no line of its own here: the
/// remote kinds, and a command's arguments that are not an object refused as the HTTP API refuses them.
#[test]
fn a_declared_operation_is_a_window_command_without_a_line_in_the_shell() {
    let d = desktop();
    let kinds: Vec<&str> = approval_console::engine::kinds::remote_kinds().map(|s| s.as_str()).collect();
    assert_eq!(d.invoke("engine_kinds", json!({})).unwrap(), json!(kinds));
    assert_eq!(kinds, ["mastra", "langgraph", "ag-ui", "a2a"], "the registry's remote kinds, the default first");
    let err = d.invoke("queue_item", json!({ "id": 7 })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
}

#[test]
fn queue_page_and_queue_item_show_the_paused_call_with_its_fingerprint() {
    let d = desktop();
    let item = d.pause("delete rec-1");
    assert_eq!(item["toolName"], "delete_record");
    assert!(item["fingerprint"].as_str().unwrap().starts_with("sha256:"));
    let page = d.invoke("queue_page", json!({ "query": {} })).unwrap();
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    let one = d.invoke("queue_item", json!({ "id": item["id"] })).unwrap();
    assert_eq!(one["args"], json!({ "id": "rec-1" }));
    let err = d.invoke("queue_page", json!({ "query": { "state": "nonsense" } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    let err = d.invoke("queue_item", json!({ "id": "q_nope" })).unwrap_err();
    assert_eq!(err["code"], "not_found");
    // No thread, so no earlier decision to compare with; an unknown call is not found.
    assert_eq!(d.invoke("previous_call", json!({ "id": item["id"] })).unwrap(), json!({ "item": null }));
    assert_eq!(d.invoke("previous_call", json!({ "id": "q_nope" })).unwrap_err()["code"], "not_found");
}

#[test]
fn approve_runs_the_tool_and_is_audited_as_a_desktop_decision() {
    let d = desktop();
    let item = d.pause("delete rec-2");
    let after = d.delivered(d.invoke("approve", json!({ "id": item["id"], "fingerprint": item["fingerprint"] })).unwrap());
    assert_eq!(after["state"], "delivered", "{after}");
    assert!(after["decision"]["operator"].as_str().unwrap().ends_with("(desktop)"));
    let again = d.invoke("approve", json!({ "id": item["id"], "fingerprint": item["fingerprint"] })).unwrap_err();
    assert_eq!(again["code"], "already_decided");
    let audit = d.invoke("audit_page", json!({ "query": { "item": item["id"] } })).unwrap();
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| e["action"] == "decision.approve"));
    let verified = d.invoke("verify_audit", json!({})).unwrap();
    assert_eq!(verified["ok"], true, "{verified}");
}

#[test]
fn approve_with_another_fingerprint_is_refused_and_nothing_runs() {
    let d = desktop();
    let item = d.pause("delete rec-3");
    let other = format!("sha256:{}", "0".repeat(64));
    let err = d.invoke("approve", json!({ "id": item["id"], "fingerprint": other })).unwrap_err();
    assert_eq!(err["code"], "fingerprint_mismatch");
    assert_eq!(err["details"]["actual"], item["fingerprint"]);
    let err = d.invoke("approve", json!({ "id": item["id"], "fingerprint": "not-a-fingerprint" })).unwrap_err();
    assert_eq!(err["code"], "invalid_request");
    assert_eq!(d.invoke("queue_item", json!({ "id": item["id"] })).unwrap()["state"], "pending");
}

#[test]
fn decline_with_a_reason_and_resume_with_checked_data() {
    let d = desktop();
    let item = d.pause("delete rec-4");
    let declined =
        d.invoke("decline", json!({ "id": item["id"], "fingerprint": item["fingerprint"], "reason": "  wrong record  " })).unwrap();
    let after = d.delivered(declined);
    assert_eq!(after["decision"]["reason"], "wrong record");
    assert_eq!(after["state"], "delivered");

    let ask = d.pause("ask which region?");
    assert_eq!(ask["kind"], "suspend");
    let err = d.invoke("resume", json!({ "id": ask["id"], "fingerprint": ask["fingerprint"], "data": {} })).unwrap_err();
    assert_eq!(err["code"], "invalid_resume_data");
    assert_eq!(err["details"]["errors"][0]["path"], "/answer");
    let after = d.delivered(
        d.invoke("resume", json!({ "id": ask["id"], "fingerprint": ask["fingerprint"], "data": { "answer": "eu-west" } })).unwrap(),
    );
    assert_eq!(after["state"], "delivered", "{after}");
}

#[test]
fn queue_counts_page_tabs_and_search_work_from_the_window() {
    let d = desktop();
    let first = d.pause("delete invoice-7");
    d.pause("delete rec-8");
    d.delivered(d.invoke("approve", json!({ "id": first["id"], "fingerprint": first["fingerprint"] })).unwrap());
    let counts = d.invoke("queue_counts", json!({ "query": {} })).unwrap();
    assert_eq!(
        (counts["pending"].as_i64(), counts["decided"].as_i64(), counts["all"].as_i64(), counts["pendingTotal"].as_i64()),
        (Some(1), Some(1), Some(2), Some(1)),
        "{counts}"
    );
    let searched = d.invoke("queue_counts", json!({ "query": { "q": "INVOICE" } })).unwrap();
    assert_eq!((searched["all"].as_i64(), searched["decided"].as_i64()), (Some(1), Some(1)), "{searched}");
    let page = d.invoke("queue_page", json!({ "query": { "tab": "decided", "q": "invoice", "sort": "oldest" } })).unwrap();
    assert_eq!(page["items"][0]["id"], first["id"]);
    assert_eq!(page["items"][0]["tab"], "decided");
    let err = d.invoke("queue_page", json!({ "query": { "tab": "pending", "state": "pending" } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request");
}

#[test]
fn decision_history_and_the_audit_export_from_the_window() {
    let d = desktop();
    let item = d.pause("delete rec-9");
    d.delivered(d.invoke("decline", json!({ "id": item["id"], "fingerprint": item["fingerprint"], "reason": "=1+1" })).unwrap());
    let history = d.invoke("decision_history", json!({ "query": {} })).unwrap();
    let record = &history["items"][0];
    assert_eq!(record["decision"]["action"], "decision.decline");
    assert!(record["decision"]["actor"].as_str().unwrap().ends_with("(desktop)"));
    assert_eq!(record["delivery"]["action"], "delivery.delivered", "{history}");

    let jsonl = d.invoke("export_audit", json!({ "format": "jsonl" })).unwrap();
    let lines: Vec<Value> = jsonl.as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let page = d.invoke("audit_page", json!({ "query": { "limit": 500 } })).unwrap();
    let mut entries = page["entries"].as_array().unwrap().clone();
    entries.reverse();
    assert_eq!(lines, entries);
    let csv = d.invoke("export_audit", json!({ "format": "csv" })).unwrap();
    let csv = csv.as_str().unwrap();
    assert!(csv.starts_with("seq,at,actor,action,queueItemId,toolName,fingerprint,details,prevHash,hash\r\n"), "{csv}");
    assert_eq!(csv.matches("\r\n").count(), entries.len() + 1);
    assert_eq!(d.invoke("export_audit", json!({ "format": "xlsx" })).unwrap_err()["code"], "invalid_request");

    // The window's export buttons: a file in the Downloads (or home) folder, its path answered.
    let saved = d.invoke("save_audit_export", json!({ "format": "csv" })).unwrap();
    let path = std::path::PathBuf::from(saved["path"].as_str().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(text, csv);
    assert!(path.file_name().unwrap().to_str().unwrap().starts_with("approval-console-audit-"), "{path:?}");
    assert_eq!(d.invoke("save_audit_export", json!({ "format": "xlsx" })).unwrap_err()["code"], "invalid_request");
}

#[test]
fn test_engine_reports_an_unreachable_server_and_stores_nothing() {
    let d = desktop();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let answer = d.invoke("test_engine", json!({ "test": { "baseUrl": format!("http://127.0.0.1:{port}"), "token": "secret" } })).unwrap();
    assert_eq!(answer["result"], "unreachable", "{answer}");
    assert!(answer["agents"].is_null());
    assert_eq!(d.invoke("test_engine", json!({ "test": { "baseUrl": "nonsense" } })).unwrap_err()["code"], "invalid_request");
    assert_eq!(d.invoke("engines", json!({})).unwrap(), json!([]));
}

#[test]
fn engines_are_added_edited_synced_listed_and_removed() {
    let d = desktop();
    assert_eq!(d.invoke("engines", json!({})).unwrap(), json!([]));
    let err = d.invoke("add_engine", json!({ "engine": { "name": "x", "baseUrl": "ftp://nope" } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request");
    let err = d.invoke("add_engine", json!({ "engine": { "name": "x", "pollMs": "often" } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    let added =
        d.invoke("add_engine", json!({ "engine": { "name": "prod", "baseUrl": "http://127.0.0.1:9", "pollMs": 3600000 } })).unwrap();
    assert_eq!((added["name"].as_str(), added["hasToken"].as_bool()), (Some("prod"), Some(false)));
    let edited = d.invoke("edit_engine", json!({ "name": "prod", "changes": { "pollMs": 5000 } })).unwrap();
    assert_eq!(edited["pollMs"], 5000);
    let err = d.invoke("sync_engine", json!({ "name": "prod" })).unwrap_err();
    assert_eq!(err["code"], "engine_unreachable", "{err}");
    assert_eq!(d.invoke("engine_agents", json!({ "name": "prod" })).unwrap(), json!([]));
    assert_eq!(d.invoke("engines", json!({})).unwrap()[0]["health"]["state"], "unreachable");
    d.invoke("remove_engine", json!({ "name": "prod" })).unwrap();
    assert_eq!(d.invoke("remove_engine", json!({ "name": "prod" })).unwrap_err()["code"], "not_found");
    assert_eq!(d.invoke("engine_agents", json!({ "name": "prod" })).unwrap_err()["code"], "not_found");
}

#[test]
fn notification_status_and_settings_round_trip() {
    let d = desktop();
    let status = d.invoke("notification_status", json!({})).unwrap();
    assert_eq!(status["running"], false, "not started in this test: {status}");
    let settings = d.invoke("notification_settings", json!({})).unwrap();
    assert_eq!(settings["enabled"], true);
    let wanted = json!({ "enabled": true, "quietHours": { "start": "22:00", "end": "07:00" }, "engines": null, "agents": ["demo"], "highRiskTools": ["delete_record"] });
    assert_eq!(d.invoke("save_notification_settings", json!({ "settings": wanted })).unwrap(), wanted);
    assert_eq!(d.invoke("notification_settings", json!({})).unwrap(), wanted);
    let err = d
        .invoke("save_notification_settings", json!({ "settings": { "enabled": true, "quietHours": { "start": "nope", "end": "07:00" } } }))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_request");
}

#[test]
fn approve_edited_runs_the_edited_arguments_bound_to_the_fingerprint_shown() {
    let d = desktop();
    let item = d.pause("delete rec-1");
    let after = d.delivered(
        d.invoke("approve_edited", json!({ "id": item["id"], "fingerprint": item["fingerprint"], "args": { "id": "rec-7" } })).unwrap(),
    );
    assert_eq!(
        (after["decision"]["kind"].as_str(), &after["decision"]["outcome"]["result"]),
        (Some("edit"), &json!({ "deleted": "rec-7" })),
        "{after}"
    );
    assert!(after["decision"]["operator"].as_str().unwrap().ends_with("(desktop)"));
    let other = d.pause("delete rec-2");
    let err =
        d.invoke("approve_edited", json!({ "id": other["id"], "fingerprint": other["fingerprint"], "args": { "id": 1 } })).unwrap_err();
    assert_eq!(err["code"], "invalid_arguments", "{err}");
}

#[test]
fn expiry_settings_and_a_snooze_from_the_window() {
    let d = desktop();
    let item = d.pause("delete rec-1");
    let err = d.invoke("snooze", json!({ "id": item["id"], "secs": 600 })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "no limit, nothing to snooze: {err}");
    let wanted = json!({ "rules": [{ "tool": "delete_record", "afterSecs": 3600 }], "warnBeforeSecs": 300 });
    assert_eq!(d.invoke("save_expiry_settings", json!({ "settings": wanted })).unwrap(), wanted);
    assert_eq!(d.invoke("expiry_settings", json!({})).unwrap(), wanted);
    let before = d.invoke("queue_item", json!({ "id": item["id"] })).unwrap();
    assert!(before["expiresAt"].is_string(), "{before}");
    let snoozed = d.invoke("snooze", json!({ "id": item["id"], "secs": 7200 })).unwrap();
    assert!(snoozed["expiresAt"].as_str().unwrap() > before["expiresAt"].as_str().unwrap(), "{snoozed}");
    let err = d.invoke("save_expiry_settings", json!({ "settings": { "rules": [{ "tool": "x", "afterSecs": 0 }] } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request");
}

#[test]
fn quorum_settings_from_the_window_and_its_approval_counts_the_local_admin_once() {
    let d = desktop();
    let me = d.invoke("session", json!({})).unwrap();
    assert_eq!(me, json!({ "name": d.core.operator(), "role": "admin", "kind": "local" }), "the window knows whose approvals are its own");
    let wanted = json!({ "rules": [{ "tool": "delete_record", "approvals": 2 }] });
    assert_eq!(d.invoke("save_quorum_settings", json!({ "settings": wanted })).unwrap(), wanted);
    assert_eq!(d.invoke("quorum_settings", json!({})).unwrap(), wanted);
    let err = d.invoke("save_quorum_settings", json!({ "settings": { "rules": [{ "tool": "x", "approvals": 1 }] } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");

    let item = d.pause("delete rec-1");
    assert_eq!(item["quorum"], 2);
    let after = d.invoke("approve", json!({ "id": item["id"], "fingerprint": item["fingerprint"] })).unwrap();
    assert_eq!(after["state"], "pending", "one approval of two: {after}");
    assert_eq!(after["approvals"][0]["operatorKey"], format!("local:{}", d.core.operator()));
    assert_eq!(after["approvals"][0]["operator"], format!("{} (desktop)", d.core.operator()));
    let err = d.invoke("approve", json!({ "id": item["id"], "fingerprint": item["fingerprint"] })).unwrap_err();
    assert_eq!(err["code"], "already_approved", "{err}");
}

#[test]
fn grants_are_made_listed_and_revoked_from_the_window() {
    let d = desktop();
    let item = d.pause("delete rec-1");
    let new = json!({ "fromItem": item["id"], "fingerprint": item["fingerprint"], "scope": "agent", "expiresInSecs": 3600 });
    let preview = d.invoke("preview_grant", json!({ "grant": new })).unwrap();
    assert_eq!((preview["approvesWaiting"].as_u64(), preview["includesFromItem"].as_bool()), (Some(1), Some(true)), "{preview}");
    // The waiting calls it would approve are listed, this one among them.
    assert_eq!(preview["waiting"][0]["id"], item["id"], "{preview}");
    let made = d.invoke("create_grant", json!({ "grant": new })).unwrap();
    assert_eq!(made["approvesWaiting"], 1, "{made}");
    let grant = made["grant"].clone();
    assert_eq!(
        (grant["toolName"].as_str(), grant["createdBy"].as_str().map(|s| s.ends_with("(desktop)"))),
        (Some("delete_record"), Some(true)),
        "{grant}"
    );
    assert_eq!(d.invoke("grants", json!({})).unwrap()[0]["id"], grant["id"]);
    let revoked = d.invoke("revoke_grant", json!({ "id": grant["id"] })).unwrap();
    assert!(revoked["revokedAt"].is_string());
    let err = d
        .invoke(
            "create_grant",
            json!({ "grant": { "fromItem": item["id"], "fingerprint": "sha256:00", "scope": "agent", "expiresInSecs": 3600 } }),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    // A grant of the wrong shape is refused in the window's error shape too, not as a bare string.
    let err = d.invoke("create_grant", json!({ "grant": { "fromItem": item["id"], "scope": 7 } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
}

#[test]
fn tokens_are_made_listed_and_revoked_from_the_window() {
    let d = desktop();
    let made = d.invoke("add_token", json!({ "token": { "name": "ci-bot", "role": "operator" } })).unwrap();
    let secret = made["token"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("ac_"), "{made}");
    assert!(made["credential"]["createdBy"].as_str().unwrap().ends_with("(desktop)"), "{made}");
    let list = d.invoke("tokens", json!({})).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["name"], "ci-bot");
    assert!(!list.to_string().contains(&secret), "the list never holds the token: {list}");
    let err = d.invoke("add_token", json!({ "token": { "name": "ci-bot", "role": "agent" } })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "a live name is refused: {err}");
    assert_eq!(d.invoke("revoke_token", json!({ "name": "ci-bot" })).unwrap(), json!({ "name": "ci-bot", "role": "operator" }));
    let err = d.invoke("revoke_token", json!({ "name": "ci-bot" })).unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");
    assert_eq!(d.invoke("tokens", json!({})).unwrap(), json!([]));
}

#[test]
fn stats_count_the_decisions_taken_in_the_window_and_refuse_a_period_out_of_range() {
    let d = desktop();
    let approved = d.pause("delete rec-1");
    let declined = d.pause("delete rec-2");
    d.pause("delete rec-3");
    d.invoke("approve", json!({ "id": approved["id"], "fingerprint": approved["fingerprint"] })).unwrap();
    d.invoke("decline", json!({ "id": declined["id"], "fingerprint": declined["fingerprint"] })).unwrap();
    let stats = d.invoke("stats", json!({ "days": 7 })).unwrap();
    assert_eq!(stats["decisions"], json!({ "approved": 1, "declined": 1, "expired": 0, "resumed": 0, "total": 2 }), "{stats}");
    let tool = &stats["byTool"][0];
    assert_eq!(
        (tool["tool"].as_str(), tool["decided"].as_u64(), tool["declined"].as_u64()),
        (Some("delete_record"), Some(2), Some(1)),
        "{stats}"
    );
    assert!(tool["p50Secs"].as_f64().unwrap() <= tool["p90Secs"].as_f64().unwrap(), "{tool}");
    let operators = stats["byOperator"].as_array().unwrap();
    assert_eq!(operators.len(), 1, "{stats}");
    assert!(operators[0]["operator"].as_str().unwrap().ends_with("(desktop)"), "{stats}");
    assert_eq!(operators[0]["decided"], 2);
    let points = stats["pendingOverTime"].as_array().unwrap();
    assert_eq!(points.last().unwrap()["pending"], 1, "rec-3 waits");
    assert_eq!(points.last().unwrap()["at"], stats["until"]);

    // Without days: the last 7 days (a point per hour, and now). A period out of 1–90, or not a whole
    // number, is refused.
    let hours = |s: Value| s["pendingOverTime"].as_array().unwrap().len();
    assert!((7 * 24..=7 * 24 + 1).contains(&hours(d.invoke("stats", json!({})).unwrap())));
    assert!((30 * 24..=30 * 24 + 1).contains(&hours(d.invoke("stats", json!({ "days": 30 })).unwrap())));
    for days in [json!(0), json!(91), json!("seven"), json!(1.5), json!(-1)] {
        let err = d.invoke("stats", json!({ "days": days })).unwrap_err();
        assert_eq!(err["code"], "invalid_request", "{days}: {err}");
    }
}

#[test]
fn the_window_may_call_exactly_the_declared_commands() {
    // capabilities/main-window.json grants the set build.rs writes from the one list of commands.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../capabilities/main-window.json")).unwrap();
    let capability: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(capability["windows"], json!([approval_console_desktop::MAIN_WINDOW]));
    assert_eq!(
        capability["permissions"],
        json!(["core:event:allow-listen", "core:event:allow-unlisten", "console-commands"]),
        "no other permission (no shell, fs, http, …)"
    );
    let set = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/permissions/console-commands.toml")).unwrap();
    let mut granted: Vec<String> = set
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"allow-"))
        .map(|l| format!("allow-{}", l.trim_end_matches("\",").trim_end_matches('"')))
        .collect();
    granted.sort();
    let mut declared: Vec<String> = approval_console_desktop::COMMANDS.iter().map(|c| format!("allow-{}", c.replace('_', "-"))).collect();
    declared.sort();
    assert_eq!(granted, declared);
    // Every declared command has a handler: each is invoked somewhere in this file's tests… and the
    // ACL lets the main window reach one of them (a missing handler would answer "not found").
    let d = desktop();
    for name in
        approval_console_desktop::COMMANDS.iter().filter(|c| ["notification_status", "grants", "engines", "expiry_settings"].contains(c))
    {
        d.invoke(name, json!({})).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn a_window_without_the_capability_can_call_nothing() {
    let d = desktop();
    let other = WebviewWindowBuilder::new(&d._app, "other", Default::default()).build().unwrap();
    let answer = ipc::invoke(&other, "queue_page", json!({ "query": {} }));

    let err = answer.expect_err("refused by the ACL");
    assert!(err.to_string().contains("not allowed"), "{err}");
    // The main window may.
    assert!(d.invoke("queue_page", json!({ "query": {} })).is_ok());
}

#[test]
fn the_windows_language_choice_reaches_the_apps_notifications() {
    use approval_console::notify::Lang;
    let d = desktop();
    d.invoke("set_language", json!({ "language": "ja" })).unwrap();
    assert_eq!(Lang::current(), Lang::Ja);
    assert_eq!(Lang::current().wants_to_run("demo", "delete_record"), "demo が delete_record の実行を求めています");
    assert_eq!(d.invoke("set_language", json!({ "language": "fr" })).unwrap_err()["code"], "invalid_request");
    assert_eq!(Lang::current(), Lang::Ja, "a refused choice changes nothing");
    d.invoke("set_language", json!({ "language": "system" })).unwrap();
    assert_eq!(Lang::current(), Lang::of_locale());
}

#[test]
fn c05_an_interrupted_call_is_resolved_from_the_window() {
    use approval_console::domain::{DecisionRequest, Fingerprint, ItemId, Verdict};
    let d = desktop();
    let item = d.pause("delete rec-9");
    let id = ItemId::new(item["id"].as_str().unwrap());
    let request = DecisionRequest {
        verdict: Verdict::Approve,
        fingerprint: Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap(),
        operator: "test".into(),
        operator_key: None,
    };
    tauri::async_runtime::block_on(async {
        d.core.testing().decide(&id, request).await.unwrap();
        // Claimed, then the process died while the tool ran; the next start marks it interrupted.
        d.core.testing().cut_inside_tool(&id).await.unwrap();
        d.core.recover().await.unwrap();
    });
    let shown = d.invoke("queue_item", json!({ "id": item["id"] })).unwrap();
    assert_eq!((shown["state"].as_str(), shown["allowed"].clone()), (Some("interrupted"), json!(["ran", "did_not_run", "run_again"])));
    let err = d.invoke("resolve", json!({ "id": item["id"], "resolution": "sometimes", "fingerprint": item["fingerprint"] })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    let after = d
        .invoke(
            "resolve",
            json!({ "id": item["id"], "resolution": "ran", "fingerprint": item["fingerprint"], "result": { "deleted": "rec-9" } }),
        )
        .unwrap();
    assert_eq!(after["resolution"]["kind"], "ran", "{after}");
    assert!(after["resolution"]["operator"].as_str().unwrap().ends_with("(desktop)"));
    let again =
        d.invoke("resolve", json!({ "id": item["id"], "resolution": "did_not_run", "fingerprint": item["fingerprint"] })).unwrap_err();
    assert_eq!(again["code"], "already_decided");
}
