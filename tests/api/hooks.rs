//! `approval-console hook claude-code|codex`, the real binary, against a real console: the hook
//! event on stdin (as each agent documents it) is queued, the operator's decision comes back as the
//! JSON that agent reads, and every failure is a deny with the reason — never an allow, never a crash.

use crate::helpers::*;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// The hook of `agent` for the console at `url`, with `vars` as its only console variables (none
/// inherited from the test's environment), its stdin, stdout and stderr piped.
fn hook_command(agent: &str, url: &str, timeout: &str, vars: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"));
    cmd.args(["hook", agent, "--timeout", timeout])
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .env("XDG_STATE_HOME", crate::helpers::serve_process::connector_state())
        .env_remove("APPROVAL_CONSOLE_TOKEN")
        .env_remove("APPROVAL_CONSOLE_AGENT_TOKEN")
        .envs(vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// `cmd` started with `input` on stdin (then closed); the child's stdout is read by [`finish`].
fn fed(mut cmd: tokio::process::Command, input: &str) -> tokio::process::Child {
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    tokio::spawn(async move {
        let _ = stdin.write_all(input.as_bytes()).await;
    });
    child
}

/// Starts the hook with `input` on stdin and `token`, if any, as its agent credential.
fn start_hook(agent: &str, url: &str, token: Option<&str>, timeout: &str, input: &str) -> tokio::process::Child {
    let vars: Vec<(&str, &str)> = token.map(|t| ("APPROVAL_CONSOLE_AGENT_TOKEN", t)).into_iter().collect();
    fed(hook_command(agent, url, timeout, &vars), input)
}

/// The hook's answer: it must exit 0 with one JSON object on stdout.
async fn finish(child: tokio::process::Child) -> Value {
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await.expect("the hook ends").unwrap();
    assert!(out.status.success(), "a hook always exits 0 with an answer: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn pre_tool_use(tool: &str, input: Value, tool_use_id: &str) -> String {
    json!({ "session_id": "sess-42", "transcript_path": "/home/dev/.claude/projects/x.jsonl", "cwd": "/home/dev/shop",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": tool_use_id })
    .to_string()
}

/// The one pending call of `engine`, once the hook queued it.
async fn queued(t: &TestApp, engine: &str) -> Value {
    wait::until(Duration::from_secs(5), || async {
        t.pending().await.into_iter().find(|c| c["engine"] == engine).ok_or_else(|| format!("the hook queued no call of {engine}"))
    })
    .await
}

#[tokio::test]
async fn c01_claude_code_pre_tool_use_is_queued_and_the_operators_approval_allows_it() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let command = json!({ "command": "rm -rf build/", "description": "Clean the build" });
    let hook = start_hook("claude-code", &t.base, Some(&token), "20", &pre_tool_use("Bash", command.clone(), "toolu_01"));
    let call = queued(&t, "claude-code").await;
    assert_eq!(
        (call["toolName"].as_str(), call["threadId"].as_str(), call["agentId"].as_str()),
        // The credential claims no agent names: its calls carry its own.
        (Some("Bash"), Some("sess-42"), Some("claude-hook")),
        "{call}"
    );
    assert_eq!(call["args"], command, "the tool input exactly, fingerprinted");
    assert_eq!(call["allowed"], json!(["approve", "decline", "edit"]), "Claude Code takes edited input");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = finish(hook).await;
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow", "{answer}");
    assert!(answer["hookSpecificOutput"].get("updatedInput").is_none(), "approved as shown: {answer}");
}

#[tokio::test]
async fn claude_code_permission_request_runs_the_input_the_operator_edited() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let input = json!({ "session_id": "sess-42", "cwd": "/home/dev/shop", "hook_event_name": "PermissionRequest",
        "tool_name": "Write", "tool_input": { "file_path": "/home/dev/shop/.env", "content": "DEBUG=1" } })
    .to_string();
    let hook = start_hook("claude-code", &t.base, Some(&token), "20", &input);
    let call = queued(&t, "claude-code").await;
    let edited = json!({ "file_path": "/home/dev/shop/.env.local", "content": "DEBUG=1" });
    let (status, body) = t
        .post(
            &format!("/api/queue/{}/approve-edited", call["id"].as_str().unwrap()),
            json!({ "fingerprint": call["fingerprint"], "args": edited }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = finish(hook).await;
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
    assert_eq!(answer["hookSpecificOutput"]["decision"], json!({ "behavior": "allow", "updatedInput": edited }), "{answer}");
}

#[tokio::test]
async fn codex_gets_the_operators_decline_with_the_reason_and_is_never_offered_an_edit() {
    let t = spawn_app().await;
    let token = t.token("codex-hook", Role::Agent).await;
    let hook = start_hook(
        "codex",
        &t.base,
        Some(&token),
        "20",
        &pre_tool_use("shell", json!({ "command": ["git", "push", "--force"] }), "call_9"),
    );
    let call = queued(&t, "codex").await;
    assert_eq!(call["allowed"], json!(["approve", "decline"]), "Codex refuses edited input");
    let (status, _) = t.decline(&call, "no force pushes").await;
    assert_eq!(status, StatusCode::OK);
    let answer = finish(hook).await;
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecisionReason"], "declined in Approval Console: no force pushes", "{answer}");
}

#[tokio::test]
async fn the_hook_fails_closed_and_says_why() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let input = pre_tool_use("Bash", json!({ "command": "ls" }), "toolu_02");
    let reason = |a: &Value| a["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default().to_owned();
    let denied = |a: &Value| a["hookSpecificOutput"]["permissionDecision"] == "deny";

    // Nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let a = finish(start_hook("claude-code", &url, Some(&token), "5", &input)).await;
    assert!(denied(&a) && reason(&a).contains("cannot be reached"), "{a}");
    // No credential, and a credential the console does not know.
    let a = finish(start_hook("claude-code", &t.base, None, "5", &input)).await;
    assert!(denied(&a) && reason(&a).contains("APPROVAL_CONSOLE_AGENT_TOKEN is not set"), "{a}");
    let a = finish(start_hook("claude-code", &t.base, Some("ac_wrong"), "5", &input)).await;
    assert!(denied(&a) && reason(&a).contains("refused APPROVAL_CONSOLE_AGENT_TOKEN"), "{a}");
    // Input that is no hook event, and an event this hook does not answer.
    let a = finish(start_hook("codex", &t.base, Some(&token), "5", "{not json")).await;
    assert!(denied(&a) && reason(&a).contains("not JSON"), "{a}");
    let a =
        finish(start_hook("codex", &t.base, Some(&token), "5", r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}"#))
            .await;
    assert!(denied(&a) && reason(&a).contains("PostToolUse"), "{a}");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0, "nothing was queued so far");

    // Nobody decides within the timeout: denied, and the call leaves the queue.
    let a = finish(start_hook("claude-code", &t.base, Some(&token), "1", &input)).await;
    assert!(denied(&a) && reason(&a).contains("no decision within 1 s"), "{a}");
    let gone = t.count("SELECT COUNT(*) FROM queue_items WHERE engine = 'claude-code' AND state = 'gone'").await;
    assert_eq!(gone, 1, "withdrawn, so nobody approves what will not run");
    // The same tool use asked again finds its withdrawn call: still a deny, not a second call.
    let a = finish(start_hook("claude-code", &t.base, Some(&token), "5", &input)).await;
    assert!(denied(&a) && reason(&a).contains("left the Approval Console queue"), "{a}");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 1);
}

#[tokio::test]
async fn the_hooks_never_take_the_session_token_variable_as_their_credential() {
    let t = spawn_app().await;
    let agent = t.token("claude-hook", Role::Agent).await;
    let input = pre_tool_use("Bash", json!({ "command": "ls" }), "toolu_03");
    // A valid agent credential, and the console's own session token (an admin's): in the session
    // token's variable, neither is used.
    for token in [agent.as_str(), TOKEN] {
        for agent_kind in ["claude-code", "codex"] {
            let a = finish(with_session_token(agent_kind, &t.base, token, &input)).await;
            assert_eq!(a["hookSpecificOutput"]["permissionDecision"], "deny", "{a}");
            let reason = a["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
            assert!(reason.contains("put the agent credential in APPROVAL_CONSOLE_AGENT_TOKEN"), "{reason}");
        }
    }
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0, "nothing was queued with the session token's variable");
}

/// The hook with `token` in APPROVAL_CONSOLE_TOKEN only.
fn with_session_token(agent: &str, url: &str, token: &str, input: &str) -> tokio::process::Child {
    fed(hook_command(agent, url, "5", &[("APPROVAL_CONSOLE_TOKEN", token)]), input)
}

#[tokio::test]
async fn the_hook_answers_a_deny_by_its_own_timeout_when_its_input_never_ends() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let mut child = hook_command("claude-code", &t.base, "1", &[("APPROVAL_CONSOLE_AGENT_TOKEN", &token)]).spawn().unwrap();
    // Half an event, and the input kept open: a stuck agent.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(br#"{"hook_event_name":"PreToolUse","#).await.unwrap();
    let a = finish(child).await;
    drop(stdin);
    assert_eq!(a["hookSpecificOutput"]["permissionDecision"], "deny", "{a}");
    assert!(a["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("no answer within 1 s"), "{a}");
}

/// `approval-console hooks install ARGS…`: its exit status and what it said.
fn install(args: &[&str], file: &std::path::Path) -> (bool, String) {
    let out = crate::helpers::nothing_serving(&mut std::process::Command::new(env!("CARGO_BIN_EXE_approval-console")))
        .args(["hooks", "install"])
        .args(args)
        .arg("--settings")
        .arg(file)
        .output()
        .unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// The files in `dir`, by name.
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut all: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    all.sort();
    all
}

#[test]
fn hooks_install_merges_into_the_agents_settings_keeps_the_old_file_and_refuses_one_it_cannot_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_approval-console")).unwrap();

    // Claude Code: the user's settings, with an older entry of ours that used PATH and failed open.
    let settings = tmp.path().join("settings.json");
    let before = r#"{ "model": "opus", "hooks": { "PreToolUse": [ { "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "approval-console hook claude-code --timeout 50", "timeout": 60 }] } ] } }"#;
    std::fs::write(&settings, before).unwrap();
    let (ok, said) = install(&["claude-code"], &settings);
    assert!(ok, "{said}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after["model"], "opus", "the rest is kept");
    let entry = &after["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(entry["command"], json!(binary), "the running binary by its absolute path: {entry}");
    assert_eq!((entry["onFailure"].as_str(), entry["timeout"].as_u64()), (Some("block"), Some(300)), "{entry}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("settings.json.bak.1")).unwrap(), before, "the file as it was is kept");
    let written = std::fs::read_to_string(&settings).unwrap();
    let (ok, said) = install(&["claude-code"], &settings);
    assert!(ok && said.contains("nothing changed"), "{said}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), written, "installing again changes nothing");
    assert_eq!(names(tmp.path()), ["settings.json", "settings.json.bak.1"], "and keeps no second copy");

    // Codex: a config with comments, none of ours yet.
    let config = tmp.path().join("config.toml");
    std::fs::write(&config, "# mine\nmodel = \"o4\"\n").unwrap();
    let (ok, said) = install(&["codex", "--timeout", "100"], &config);
    assert!(ok, "{said}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("# mine\nmodel = \"o4\"\n"), "{text}");
    let parsed: toml::Table = text.parse().unwrap();
    let entry = &parsed["hooks"]["PreToolUse"][0]["hooks"][0];
    assert!(entry["command"].as_str().unwrap().starts_with(&format!("{} hook codex --timeout 100 || ", binary.display())), "{entry}");
    assert_eq!(entry["timeout"].as_integer(), Some(110));

    // A file that does not parse: refused, left as it is, no copy made.
    let broken = tmp.path().join("broken.json");
    std::fs::write(&broken, "{ \"hooks\": ").unwrap();
    let (ok, said) = install(&["claude-code"], &broken);
    assert!(!ok && said.contains("not valid JSON") && said.contains("not changed"), "{said}");
    assert_eq!(std::fs::read_to_string(&broken).unwrap(), "{ \"hooks\": ");
    assert!(!tmp.path().join("broken.json.bak.1").exists());

    // --print writes nothing; a new file is made with its folder.
    let fresh = tmp.path().join("project/.claude/settings.json");
    let (ok, said) = install(&["claude-code", "--print"], &fresh);
    assert!(ok && said.contains("\"onFailure\": \"block\""), "{said}");
    assert!(!fresh.exists());
    let (ok, said) = install(&["claude-code"], &fresh);
    assert!(ok && fresh.exists(), "{said}");
}

/// A Claude Code `Edit` of `file` (as the agent names it) in the session working in `cwd`, whose
/// transcript is `cwd/transcript.jsonl`.
fn edit_in(cwd: &std::path::Path, file: &str, old: &str, new: &str, tool_use_id: &str) -> String {
    json!({ "session_id": "sess-44", "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Edit",
        "tool_input": { "file_path": file, "old_string": old, "new_string": new }, "tool_use_id": tool_use_id,
        "transcript_path": cwd.join("transcript.jsonl") })
    .to_string()
}

/// The whole audit log exported in `format`.
async fn audit_export(t: &TestApp, format: &str) -> String {
    let r = t.http.get(format!("{}/api/audit/export?format={format}", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.text().await.unwrap()
}

/// Issue 44, least data: an owner-only `.env` holding an AWS key, edited through the real hook: the
/// hook sends why it did not read it instead of its text, the diff says so, and the key is nowhere
/// in the queue item, the audit export or the database.
#[tokio::test]
async fn an_edit_of_an_owner_only_env_file_holding_an_aws_key_sends_no_text_and_the_key_is_kept_nowhere() {
    use std::os::unix::fs::PermissionsExt;
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let env = work.path().join(".env");
    std::fs::write(&env, format!("DEBUG=0\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY={key}\n")).unwrap();
    std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o600)).unwrap();
    let hook = start_hook("claude-code", &t.base, Some(&token), "20", &edit_in(work.path(), ".env", "DEBUG=0", "DEBUG=1", "toolu_env"));
    let call = queued(&t, "claude-code").await;
    let file = &call["context"]["file"];
    assert_eq!((file["path"].as_str(), file.get("text")), (Some(".env"), None), "{call}");
    assert!(file["unread"].as_str().unwrap().contains("may hold secrets"), "{call}");
    let shown = &call["changes"]["files"][0];
    assert_eq!(shown["againstDisk"], false, "{shown}");
    assert!(shown["note"].as_str().unwrap().starts_with("the file was not read (its name says it may hold secrets"), "{shown}");
    assert!(!call.to_string().contains(key), "{call}");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(finish(hook).await["hookSpecificOutput"]["permissionDecision"], "allow");
    for format in ["jsonl", "csv"] {
        let export = audit_export(&t, format).await;
        assert!(export.contains("call.paused") && !export.contains(key) && !export.contains("AKIAIOSFODNN7EXAMPLE"), "{export}");
    }
    let kept = format!("SELECT COUNT(*) FROM submissions WHERE context LIKE '%{key}%' OR file_text IS NOT NULL");
    assert_eq!(t.count(&kept).await, 0);
}

/// Issue 44, least data: an ordinary project file is still read and the edit diffed against it; the
/// audit records its path, size and hash, never its text (nor the transcript's words: their count
/// and hash); once decided, its text leaves the database (the submissions row, and the SQLite
/// file's bytes) and the diff says it is no longer kept.
#[tokio::test]
async fn a_project_files_text_is_diffed_while_the_call_waits_audited_by_its_hash_and_gone_from_the_database_once_decided() {
    use std::os::unix::fs::PermissionsExt;
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let sentinel = "SENTINEL-5f0c1e-internal-endpoint";
    // Larger than a database page: stored on overflow pages, which go to the freelist once emptied.
    let table: String = (0..800).map(|i| format!("RATES[{i}] = {}\n", i * 7)).collect();
    let text =
        format!("import os\n\nENDPOINT = \"{sentinel}\"\n\ndef transfer(amount):\n    limit = 100\n    return amount <= limit\n\n{table}");
    let pay = work.path().join("pay.py");
    std::fs::write(&pay, &text).unwrap();
    std::fs::set_permissions(&pay, std::fs::Permissions::from_mode(0o644)).unwrap();
    let said = "SAID-9d2e-raise the transfer limit";
    let line = json!({ "type": "user", "message": { "role": "user", "content": said } });
    std::fs::write(work.path().join("transcript.jsonl"), format!("{line}\n")).unwrap();
    let hook =
        start_hook("claude-code", &t.base, Some(&token), "20", &edit_in(work.path(), "pay.py", "limit = 100", "limit = 500", "toolu_pay"));
    let call = queued(&t, "claude-code").await;
    let shown = &call["changes"]["files"][0];
    assert_eq!(
        (shown["againstDisk"].as_bool(), call["changes"]["summary"].as_str()),
        (Some(true), Some("edits 1 line in pay.py")),
        "{call}"
    );
    let diff = shown["diff"].as_str().unwrap();
    assert!(diff.starts_with("@@ -3,7 +3,7 @@\n ENDPOINT") && diff.contains("-    limit = 100\n+    limit = 500\n"), "{shown}");
    let file = &call["context"]["file"];
    let hash = approval_console::domain::context::sha256(text.as_bytes());
    assert_eq!((file["size"].as_u64(), file["sha256"].as_str(), file.get("text")), (Some(text.len() as u64), Some(hash.as_str()), None));
    assert_eq!(t.count("SELECT COUNT(*) FROM submissions WHERE file_text IS NOT NULL").await, 1, "kept while the call waits");

    // The audit: the file's path, size and hash in `call.paused`, its text nowhere in the export.
    let export = audit_export(&t, "jsonl").await;
    let paused: Value =
        export.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|e| e["action"] == "call.paused").expect("call.paused");
    let audited = &paused["details"]["context"]["file"];
    assert_eq!(
        (audited["path"].as_str(), audited["size"].as_u64(), audited["sha256"].as_str()),
        (Some("pay.py"), Some(text.len() as u64), Some(hash.as_str())),
        "{paused}"
    );
    assert_eq!(paused["details"]["context"]["transcript"]["messages"], 1, "{paused}");
    assert!(!export.contains(sentinel) && !export.contains(said), "{export}");
    let csv = audit_export(&t, "csv").await;
    assert!(!csv.contains(sentinel) && !csv.contains(said), "{csv}");
    // The operator still reads what led to the call.
    let (_, reason) = t.get(&format!("/api/queue/{}/reason", call["id"].as_str().unwrap())).await;
    assert_eq!(reason["messages"][0]["text"], said, "{reason}");
    // Another call queued after it, whose row shares the table's page: what the emptied row frees
    // is free space between rows (and the text's overflow pages, the freelist), not the page's end.
    let other = json!({ "tool": "Bash", "args": { "command": "ls" }, "agent": "claude-code", "source": "claude-code", "context": { "cwd": work.path() } });
    assert_eq!(t.call_as(&token, reqwest::Method::POST, "/api/calls", Some(other)).await.0, StatusCode::CREATED);

    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(finish(hook).await["hookSpecificOutput"]["permissionDecision"], "allow");
    let kept = format!("SELECT COUNT(*) FROM submissions WHERE file_text IS NOT NULL OR context LIKE '%{sentinel}%'");
    assert_eq!(t.count(&kept).await, 0, "the text leaves the submissions row with the decision");
    let decided = t.item(call["id"].as_str().unwrap()).await;
    let note = decided["changes"]["files"][0]["note"].as_str().unwrap_or_default().to_owned();
    assert!(note.contains("no longer kept"), "{decided}");
    assert_eq!(decided["context"]["file"]["sha256"], hash.as_str(), "its hash stays");
    assert!(!audit_export(&t, "jsonl").await.contains(sentinel));
    if on_postgres() {
        return;
    }
    // The SQLite file's own bytes, its WAL checkpointed into it: no free space or freelist page
    // still holds the text.
    let (dir, _tmp, _) = t.stop().await;
    let db = dir.join(approval_console::store::DB_FILE);
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await.unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    }
    for side in ["", "-wal"] {
        let path = dir.join(format!("{}{side}", approval_console::store::DB_FILE));
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(!bytes.windows(sentinel.len()).any(|w| w == sentinel.as_bytes()), "{} holds the file's text", path.display());
    }
    assert!(std::fs::metadata(&db).unwrap().len() > 0);
}

/// The hook trusts only the receipt keys pinned with APPROVAL_CONSOLE_JWKS: an approval the
/// console signs with another key is a deny, naming the pinned file; with the console's own keys
/// pinned, the same approval allows.
#[tokio::test]
async fn a_hook_with_pinned_receipt_keys_denies_an_approval_signed_by_a_key_not_pinned() {
    use std::os::unix::fs::PermissionsExt;
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let dir = tempfile::tempdir().unwrap();
    let pin = |name: &str, keys: &Value| {
        let file = dir.path().join(name);
        std::fs::write(&file, keys.to_string()).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        file
    };
    let other = approval_console::domain::receipt::Signer::generate();
    let others = pin("others.json", &json!({ "keys": [other.jwk(0)] }));
    let (_, published) = t.get("/.well-known/jwks.json").await;
    let own = pin("own.json", &published);
    for (file, decision, tool_use) in [(&others, "deny", "toolu_p1"), (&own, "allow", "toolu_p2")] {
        let vars = [("APPROVAL_CONSOLE_AGENT_TOKEN", token.as_str()), ("APPROVAL_CONSOLE_JWKS", file.to_str().unwrap())];
        let hook = fed(hook_command("claude-code", &t.base, "20", &vars), &pre_tool_use("Bash", json!({ "command": "ls" }), tool_use));
        let call = queued(&t, "claude-code").await;
        assert_eq!(t.approve(&call).await.0, StatusCode::OK);
        let answer = finish(hook).await;
        let out = &answer["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], decision, "{answer}");
        if decision == "deny" {
            let reason = out["permissionDecisionReason"].as_str().unwrap();
            assert!(reason.contains("pinned in") && reason.contains(file.to_str().unwrap()), "{reason}");
        }
    }
}
