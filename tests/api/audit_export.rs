//! C6 for people: the history of decisions with their delivery, and the whole log exported as JSON
//! Lines (the entries themselves) or CSV (quoted, guarded against spreadsheet formulas).

use crate::helpers::*;
use approval_console::store::audit;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Two calls paused; one approved, one declined with a reason that is hostile to CSV.
async fn app_with_history() -> TestApp {
    let t = spawn_app().await;
    t.generate("delete a").await;
    t.generate("delete b").await;
    let pending = t.pending().await;
    let item = |id: &str| pending.iter().find(|i| i["args"]["id"] == id).unwrap().clone();
    assert_eq!(t.approve(&item("a")).await.0, StatusCode::OK);
    assert_eq!(t.decline(&item("b"), "=HYPERLINK(\"http://evil.example\",\"x\"), see\r\nline 2").await.0, StatusCode::OK);
    t
}

/// Appends an entry as the console would, with fields chosen by the test.
async fn append(t: &TestApp, actor: &str, tool: &str) {
    let (run, agent) = (approval_console::domain::RunId::new("run-1"), approval_console::domain::AgentId::new("-1"));
    let details = approval_console::domain::audit::RunFailed { run_id: &run, agent_id: &agent, step: 0, code: "-1", error: "-1".into() };
    approval_console::store::testing::append_audit(t.app.testing().db(), audit::Record::of(actor, None, &details).with_tool(tool))
        .await
        .unwrap();
}

async fn export(t: &TestApp, format: &str) -> (reqwest::header::HeaderMap, String) {
    let r = t.http.get(format!("{}/api/audit/export?format={format}", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let headers = r.headers().clone();
    (headers, r.text().await.unwrap())
}

/// Every entry, oldest first, through the paged API.
async fn all_entries(t: &TestApp) -> Vec<Value> {
    let (status, page) = t.get("/api/audit?limit=500").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page["nextCursor"].is_null());
    page["entries"].as_array().unwrap().iter().rev().cloned().collect()
}

/// A strict RFC 4180 reader: rows of cells, CRLF between rows, quotes doubled inside quoted cells.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = vec![];
    let mut row = vec![];
    let mut cell = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut started = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = false,
                c => cell.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                assert!(!started, "a quote inside an unquoted cell: {cell:?}");
                quoted = true;
            }
            ',' => {
                row.push(std::mem::take(&mut cell));
                started = false;
                continue;
            }
            '\r' => {
                assert_eq!(chars.next(), Some('\n'), "CR without LF outside quotes");
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
                started = false;
                continue;
            }
            '\n' => panic!("LF without CR outside quotes"),
            c => cell.push(c),
        }
        started = true;
    }
    assert!(row.is_empty() && cell.is_empty(), "the last row ends with CRLF");
    rows
}

/// What the CSV shows for a text cell: a leading formula character gets a `'`.
fn guarded(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

#[tokio::test]
async fn c06_history_shows_each_decision_with_operator_arguments_and_the_engines_answer() {
    let t = app_with_history().await;
    let (status, history) = t.get("/api/audit/decisions").await;
    assert_eq!(status, StatusCode::OK, "{history}");
    let items = history["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{history}");
    let (decline, approve) = (&items[0], &items[1]);
    assert_eq!(decline["decision"]["action"], "decision.decline", "newest first");
    assert!(decline["decision"]["details"]["verdict"]["reason"].as_str().unwrap().starts_with("=HYPERLINK"));
    assert_eq!(approve["decision"]["action"], "decision.approve");
    assert!(approve["decision"]["actor"].as_str().unwrap().ends_with("(web)"));
    assert_eq!(approve["decision"]["details"]["args"], json!({ "id": "a" }));
    assert!(approve["decision"]["fingerprint"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(approve["delivery"]["action"], "delivery.delivered");
    assert_eq!(approve["delivery"]["queueItemId"], approve["decision"]["queueItemId"]);
    assert_eq!(approve["delivery"]["details"]["outcome"]["status"], "executed", "{approve}");
    assert_eq!(decline["delivery"]["details"]["outcome"]["status"], "declined", "{decline}");

    let (_, first) = t.get("/api/audit/decisions?limit=1").await;
    assert_eq!(first["items"][0]["decision"]["seq"], decline["decision"]["seq"]);
    let (_, second) = t.get(&format!("/api/audit/decisions?limit=1&cursor={}", first["nextCursor"].as_str().unwrap())).await;
    assert_eq!(second["items"][0]["decision"]["seq"], approve["decision"]["seq"]);
    assert!(second["nextCursor"].is_null());
}

#[tokio::test]
async fn c06_jsonl_export_is_every_audit_entry_one_per_line() {
    let t = app_with_history().await;
    let (headers, body) = export(&t, "jsonl").await;
    assert!(headers["content-type"].to_str().unwrap().starts_with("application/x-ndjson"));
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"approval-console-audit-") && disposition.ends_with(".jsonl\""),
        "{disposition}"
    );
    assert!(body.ends_with('\n'));
    let lines: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, all_entries(&t).await);
    assert_eq!(lines.len(), 7, "the receipt key's creation, two pauses, two decisions and their deliveries");
    // The export is the chain: each line links to the one before it.
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["prevHash"], pair[0]["hash"]);
    }

    // The CLI prints the same bytes.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", t.dir.to_str().unwrap(), "audit", "export", "--format", "jsonl"])
        .envs(serve_process::database_env(&t.dir))
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), body);

    // The desktop window's export: a new file in a folder (made if missing), never overwriting one.
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path().join("Downloads");
    let format = approval_console::app::audit::ExportFormat::Jsonl;
    let first = t.app.export_audit_to(&dir, format, &t.app.local_admin("test")).await.unwrap();
    let second = t.app.export_audit_to(&dir, format, &t.app.local_admin("test")).await.unwrap();
    assert_ne!(first, second);
    let name = first.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("approval-console-audit-") && name.ends_with(".jsonl"), "{name}");
    for path in [&first, &second] {
        assert_eq!(std::fs::read_to_string(path).unwrap(), body, "{}", path.display());
    }
    let blocked = folder.path().join("a-file");
    std::fs::write(&blocked, "x").unwrap();
    let err = t.app.export_audit_to(&blocked, format, &t.app.local_admin("test")).await.unwrap_err();
    assert!(err.to_string().contains("cannot create"), "a clear error: {err}");
}

#[tokio::test]
async fn c06_csv_export_quotes_every_cell_that_needs_it_and_defuses_formulas() {
    let t = app_with_history().await;
    append(&t, "=cmd|' /C calc'!A0", "+SUM(1,2)").await;
    append(&t, "@evil", "-2").await;
    append(&t, "\tpadded", "plain_tool").await;
    let (headers, body) = export(&t, "csv").await;
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    assert!(headers["content-disposition"].to_str().unwrap().ends_with(".csv\""));

    let rows = parse_csv(&body);
    assert_eq!(rows[0], ["seq", "at", "actor", "action", "queueItemId", "toolName", "fingerprint", "details", "prevHash", "hash"]);
    let entries = all_entries(&t).await;
    assert_eq!(rows.len() - 1, entries.len());
    for (row, e) in rows[1..].iter().zip(&entries) {
        let text = |k: &str| e[k].as_str().map(guarded).unwrap_or_default();
        assert_eq!(row[0], e["seq"].to_string());
        assert_eq!(
            [&row[1], &row[2], &row[3], &row[4], &row[5], &row[6]],
            [&text("at"), &text("actor"), &text("action"), &text("queueItemId"), &text("toolName"), &text("fingerprint")]
        );
        assert_eq!(serde_json::from_str::<Value>(&row[7]).unwrap(), e["details"], "details as JSON text");
        assert_eq!((&row[8], &row[9]), (&text("prevHash"), &text("hash")));
    }
    let actors: Vec<&str> = rows[1..].iter().map(|r| r[2].as_str()).collect();
    assert!(actors.contains(&"'=cmd|' /C calc'!A0") && actors.contains(&"'@evil") && actors.contains(&"'\tpadded"), "{actors:?}");
    let tools: Vec<&str> = rows[1..].iter().map(|r| r[5].as_str()).collect();
    assert!(tools.contains(&"'+SUM(1,2)") && tools.contains(&"'-2") && tools.contains(&"plain_tool"), "{tools:?}");
    // The reason with a formula, quotes, a comma and a line break stays inside one quoted cell.
    assert!(body.contains(r#"""reason"":""=HYPERLINK(\""http://evil.example\"",\""x\""), see\r\nline 2"""#), "{body}");
    // The same export from the CLI.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", t.dir.to_str().unwrap(), "audit", "export", "--format", "csv"])
        .envs(serve_process::database_env(&t.dir))
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), body);
}

#[tokio::test]
async fn c06_exports_need_the_token_a_loopback_host_and_a_known_format() {
    let t = app_with_history().await;
    let url = format!("{}/api/audit/export?format=jsonl", t.base);
    assert_eq!(t.http.get(&url).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let r = t.http.get(&url).bearer_auth(TOKEN).header("host", "evil.example").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = t.http.get(&url).bearer_auth(TOKEN).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    for bad in ["/api/audit/export?format=xlsx", "/api/audit/export"] {
        let (status, _) = t.get(bad).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(t.http.get(format!("{}/api/audit/decisions", t.base)).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_saved_export_is_readable_by_its_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let t = app_with_history().await;
    // The usual umask (others may read what is made): the export must not follow it.
    // SAFETY: umask has no preconditions; 022 is what every test of this binary runs under anyway.
    unsafe { libc::umask(0o022) };
    let folder = tempfile::tempdir().unwrap();
    for format in [approval_console::app::audit::ExportFormat::Jsonl, approval_console::app::audit::ExportFormat::Csv] {
        let path = t.app.export_audit_to(folder.path(), format, &t.app.local_admin("test")).await.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{} is {mode:o}", path.display());
        assert!(std::fs::read_to_string(&path).unwrap().contains("decision.approve"));
    }
}
