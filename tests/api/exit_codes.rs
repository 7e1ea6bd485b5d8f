//! Exit codes as documented (issue 45, point 9): every `--help` text that names an exit code is
//! listed here with the test that runs the command into that code, and the codes this file adds
//! tests for (`policy check`, `engines sync`) are what their help says.

use crate::helpers::*;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_approval-console");

/// Each command whose help names an exit code (`""`: the top-level help), and the test that checks
/// the codes it names.
const DOCUMENTED: &[(&str, &str)] = &[
    ("", "tests/api/cli.rs (2 refused, 3 not found, 4 unreachable engine) and the tests below"),
    ("audit verify", "tests/api/audit.rs::c06_cli_audit_verify_exits_non_zero_and_names_the_entry"),
    ("engines add", "tests/api/cli.rs::engines_add_refuses_a_server_that_does_not_answer_unless_no_check"),
    ("engines sync", "tests/api/exit_codes.rs::engines_sync_exits_1_when_the_engine_cannot_be_synced"),
    ("policy check", "tests/api/exit_codes.rs::policy_check_exits_0_when_the_file_would_apply_1_with_its_problems_2_when_unreadable"),
    ("receipt verify", "tests/api/receipts.rs::an_agent_finds_its_calls_receipt_by_run_and_tool_call_and_the_cli_prints_and_checks_it"),
    (
        "secret check",
        "tests/keyring/main.rs::a_missing_secret_is_not_found_and_says_how_to_store_it (3), \
         ::without_a_session_bus_the_binary_says_the_keyring_is_not_available (4)",
    ),
];

/// `approval-console WORDS… --help`.
fn help(words: &[&str]) -> String {
    let out = Command::new(BIN).args(words).arg("--help").output().unwrap();
    assert!(out.status.success(), "{words:?}: {}", text_of(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// A help text without its list of subcommands (whose lines repeat theirs).
fn own_text(help: &str) -> String {
    let mut listing = false;
    let mut out = String::new();
    for line in help.lines() {
        if line == "Commands:" {
            listing = true;
        } else if listing && line.trim().is_empty() {
            listing = false;
        } else if !listing {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The subcommands a help text lists under "Commands:" (not `help`).
fn subcommands(help: &str) -> Vec<String> {
    let Some(list) = help.split("Commands:\n").nth(1) else { return vec![] };
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        // A name at two spaces in; a longer text's next lines are further in.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_help_text_that_names_an_exit_code_is_one_a_test_checks() {
    let mut found = vec![];
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(words) = todo.pop() {
        let words_ref: Vec<&str> = words.iter().map(String::as_str).collect();
        let text = help(&words_ref);
        // Words as written, whatever the help's line breaks.
        let said = own_text(&text).to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
        if said.contains("exit code") {
            found.push(words.join(" "));
        }
        for sub in subcommands(&text) {
            todo.push([words.clone(), vec![sub]].concat());
        }
    }
    found.sort();
    let mut documented: Vec<String> = DOCUMENTED.iter().map(|(c, _)| c.to_string()).collect();
    documented.sort();
    assert_eq!(found, documented, "a help text that names exit codes needs a test of them, listed in DOCUMENTED");
    let top = help(&[]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(top.contains("1 a check failed (audit verify, engines sync, policy check, receipt verify)"), "{top}");
}

#[tokio::test]
async fn policy_check_exits_0_when_the_file_would_apply_1_with_its_problems_2_when_unreadable() {
    let t = spawn_app().await;
    let work = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = work.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let check = |path: &str| cli(&t.dir, &["policy", "check", path]);
    let good = check(&file("good.toml", "high_risk_tools = [\"delete_record\"]\n"));
    assert_eq!(good.status.code(), Some(0), "{}", text_of(&good));
    let problems = check(&file("typo.toml", "high_risk_tools = [\"delete_recrod\"]\n"));
    assert_eq!(problems.status.code(), Some(1), "a check that failed: {}", text_of(&problems));
    assert!(text_of(&problems).contains("error: no agent, engine or queued call has named a tool delete_recrod"), "{}", text_of(&problems));
    let unreadable = check(&file("broken.toml", "high_risk_tools = [\n"));
    assert_eq!(unreadable.status.code(), Some(2), "an error: {}", text_of(&unreadable));
    let missing = check(&work.path().join("none.toml").display().to_string());
    assert_eq!(missing.status.code(), Some(2), "{}", text_of(&missing));
}

#[tokio::test]
async fn engines_sync_exits_1_when_the_engine_cannot_be_synced() {
    let dir = tempfile::tempdir().unwrap();
    // A web server, not a Mastra one: added without the check, then synced.
    let app = axum::Router::new().fallback(|| async { (axum::http::StatusCode::NOT_FOUND, "<html>no such page</html>") });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let run = |args: Vec<String>| {
        let d: std::path::PathBuf = dir.path().to_owned();
        tokio::task::spawn_blocking(move || cli(Path::new(&d), &args.iter().map(String::as_str).collect::<Vec<_>>()))
    };
    let added = run(vec!["engines".into(), "add".into(), "web".into(), url, "--no-check".into()]).await.unwrap();
    assert!(added.status.success(), "{}", text_of(&added));
    let synced = run(vec!["engines".into(), "sync".into(), "web".into()]).await.unwrap();
    assert_eq!(synced.status.code(), Some(1), "{}", text_of(&synced));
    assert!(text_of(&synced).contains("error ["), "the reason's code: {}", text_of(&synced));
}
