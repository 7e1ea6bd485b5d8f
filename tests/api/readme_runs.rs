//! The README and the docs run as printed, part two (issue 45, point 9; each block read from the page
//! it is printed in, `crate::readme`'s constants): the policy example passes `policy
//! check` on a fresh console and an export after a quorum for a tool not seen yet checks; the hook
//! finds a console serving on another port; the channels' secrets are set as docs/guides/reach.md says,
//! without a keyring, and saving the first channel sends what is waiting (and says so); `devices
//! pair` asks whose device it is; the receipt commands run on a decided call, and docs/receipts.md's
//! example has the claims of a real receipt.

use crate::helpers::*;
use crate::readme::{block, run_shell, shell, POLICY, REACH, README, RECEIPTS};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_approval-console");

/// The policy page's commands (`policy export > policy.toml`, check, diff, apply).
fn policy_commands() -> String {
    block(POLICY, "sh", "policy export > policy.toml")
}

/// `block` run by [`shell`] in the directory `cwd`.
fn run_in(block: &str, data: &Path, cwd: &Path) -> std::process::Output {
    shell(block, data).current_dir(cwd).output().unwrap()
}

#[tokio::test]
async fn the_readme_policy_example_passes_check_on_a_fresh_console_and_applies_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // A fresh console: it has run nothing but the demo agent, which never called transfer_funds.
    let _serve = ServeProcess::start(BIN, &data, TOKEN);
    let example = block(POLICY, "toml", "[[risk_rule]]");
    std::fs::write(tmp.path().join("policy.toml"), &example).unwrap();
    // The page's commands after the export, as printed, on the example.
    let commands: String = policy_commands().lines().filter(|l| !l.contains("policy export")).map(|l| format!("{l}\n")).collect();
    let out = run_in(&commands, &data, tmp.path());
    let said = text_of(&out);
    assert!(out.status.success(), "{commands}\n{said}");
    assert!(said.contains("The policy is valid") && said.contains("~ quorum transfer_funds: 1 → 2 approvals"), "{said}");
    assert!(said.contains("Applied: version"), "{said}");

    // Without its expected_tools line the same file is refused (exit code 1), naming the tool and
    // the way to accept it; with --yes it passes with a warning.
    let without: String = example.lines().filter(|l| !l.starts_with("expected_tools")).map(|l| format!("{l}\n")).collect();
    std::fs::write(tmp.path().join("unexpected.toml"), without).unwrap();
    let refused = run_in("approval-console policy check unexpected.toml", &data, tmp.path());
    assert_eq!(refused.status.code(), Some(1), "{}", text_of(&refused));
    assert!(text_of(&refused).contains("transfer_funds") && text_of(&refused).contains("expected_tools"), "{}", text_of(&refused));
    let accepted = run_in("approval-console policy check --yes unexpected.toml", &data, tmp.path());
    assert!(accepted.status.success(), "{}", text_of(&accepted));
    assert!(
        text_of(&accepted).contains("warning: no agent, engine or queued call has named a tool transfer_funds"),
        "{}",
        text_of(&accepted)
    );
}

#[tokio::test]
async fn a_policy_export_after_a_quorum_for_a_tool_not_seen_yet_checks_here_and_on_a_fresh_console() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let _serve = ServeProcess::start(BIN, &data, TOKEN);
    let set = run_shell("approval-console policy quorum send_money 2 --yes", &data);
    assert!(set.status.success(), "{}", text_of(&set));
    // The page's four commands as printed: export, check, diff, apply.
    let out = run_in(&policy_commands(), &data, tmp.path());
    assert!(out.status.success(), "{}\n{}", policy_commands(), text_of(&out));
    assert!(text_of(&out).contains("No change"), "{}", text_of(&out));
    let exported = std::fs::read_to_string(tmp.path().join("policy.toml")).unwrap();
    assert!(exported.contains("expected_tools = [\"send_money\"]"), "{exported}");
    // Another console, which has seen no call of it either, checks the file too.
    let other = tmp.path().join("other");
    let _other = ServeProcess::start(BIN, &other, TOKEN);
    let checked = run_in("approval-console policy check policy.toml", &other, tmp.path());
    assert!(checked.status.success(), "{}", text_of(&checked));
}

#[tokio::test]
async fn the_hook_finds_a_console_serving_on_another_port_without_being_told_its_address() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, run) = (tmp.path().join("data"), tmp.path().join("run"));
    let serve = ServeProcess::start_env(BIN, &data, TOKEN, &[], &[("XDG_RUNTIME_DIR", &run)]);
    assert!(!serve.base.ends_with(":4319"), "port 0: another port than the default");
    let token = serve_process::add_token(BIN, &data, "claude-hook", "agent");
    // `hook claude-code` as Claude Code runs it: no address, no data directory; the console's
    // record where a console leaves it.
    let mut hook = Command::new(BIN);
    hook.args(["hook", "claude-code", "--timeout", "60"])
        .env_remove("APPROVAL_CONSOLE_URL")
        .env_remove("APPROVAL_CONSOLE_DATA_DIR")
        .env("XDG_RUNTIME_DIR", &run)
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", &token);
    let answer = crate::readme::hook_answers(hook, &serve, "not on a Friday").await;
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert!(answer.to_string().contains("not on a Friday"), "the operator's decline reached the hook: {answer}");

    // Two consoles serving and none named: a deny that says so, never a guess.
    let _other = ServeProcess::start_env(BIN, &tmp.path().join("other"), TOKEN, &[], &[("XDG_RUNTIME_DIR", &run)]);
    let mut hook = Command::new(BIN);
    hook.args(["hook", "claude-code", "--timeout", "60"])
        .env_remove("APPROVAL_CONSOLE_URL")
        .env_remove("APPROVAL_CONSOLE_DATA_DIR")
        .env("XDG_RUNTIME_DIR", &run)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", &token)
        .stdin(std::process::Stdio::piped());
    let answer = answered_json(
        hook,
        r#"{"session_id":"s-2","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert!(answer.to_string().contains("several consoles are serving"), "{answer}");
}

/// Runs `command` with `input` on its standard input: the JSON it printed.
fn answered_json(command: Command, input: &str) -> Value {
    let out = answered(command, input);
    serde_json::from_str(&out).unwrap_or_else(|_| panic!("not JSON: {out}"))
}

/// Writes `text` to `dir/name`, owner-only (as `--file` wants it).
fn owner_only(dir: &Path, name: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[tokio::test]
async fn the_readme_channel_secret_commands_set_what_its_example_needs_without_a_keyring() {
    let t = spawn_app().await;
    let work = tempfile::tempdir().unwrap();
    owner_only(work.path(), "ops-slack-url.txt", "https://hooks.slack.com/services/T000/B000/XXXX\n");
    owner_only(work.path(), "matrix-token.txt", "syt_matrix_token\n");
    owner_only(work.path(), "smtp-password.txt", "smtp-password\n");
    let commands = block(REACH, "sh", "channels secret set alice-hook");
    // As printed; the first asks for its secret, here on standard input (not a terminal).
    let mut child = shell(&commands, &t.dir)
        .current_dir(work.path())
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"alice-signing-key\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{commands}\n{}", text_of(&out));
    for name in ["alice-hook", "ops-slack", "oncall-room", "bob-mail"] {
        assert!(t.dir.join("channel-secrets").join(name).exists(), "{name}'s secret is a file of the data directory: {}", text_of(&out));
    }
    // The reach page's channels, saved: nothing refused, nothing warned about.
    let settings: Value = serde_json::from_str(&block(REACH, "json", "\"onCall\"")).unwrap();
    let (status, saved) = t.put("/api/settings/reach", settings.clone()).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{saved}");
    assert_eq!(saved["warnings"], json!([]), "{saved}");
    // Without bob-mail's password, the same settings are saved with a warning naming it.
    let removed = cli(&t.dir, &["channels", "secret", "remove", "bob-mail"]);
    assert!(removed.status.success(), "{}", text_of(&removed));
    let (status, saved) = t.put("/api/settings/reach", settings).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{saved}");
    let warnings = saved["warnings"].to_string();
    assert!(
        warnings.contains("channel bob-mail (email) has no SMTP password set") && warnings.contains("channels secret set bob-mail"),
        "{saved}"
    );
}

#[tokio::test]
async fn saving_the_first_channel_sends_the_calls_already_waiting_and_says_how_many() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    t.generate("delete rec-waiting").await;
    let waiting = t.pending().await.remove(0);
    let (base, inbox) = crate::reach::receiver().await;
    crate::reach::set_secret(&t, "ops-hook", "s3cret-key").await;
    let settings = json!({ "channels": [crate::reach::webhook("ops-hook", "alice", &format!("{base}/hook"))] });
    let (status, saved) = t.put("/api/settings/reach", settings.clone()).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{saved}");
    assert!(saved["warnings"].to_string().contains("1 call waiting now had no channel to go to: they are sent now"), "{saved}");
    let sent = crate::reach::all_sent(&t, waiting["id"].as_str().unwrap()).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(inbox.bodies("/hook").len(), 1, "the call that waited reached the channel");
    // Saved again: nothing is waiting unsent, nothing said.
    let (_, again) = t.put("/api/settings/reach", settings).await;
    assert_eq!(again["warnings"], json!([]), "{again}");
}

#[tokio::test]
async fn devices_pair_asks_whose_device_on_a_terminal_and_refuses_a_script_that_does_not_say() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let _serve = ServeProcess::start_with(BIN, &data, TOKEN, &["--listen", "127.0.0.1:0", "--public-name", "localhost"]);
    // Off a terminal, without --person: refused, naming --person; no pairing started.
    let refused = cli(&data, &["devices", "pair", "--name", "alice-phone"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text_of(&refused));
    assert!(text_of(&refused).contains("--person NAME"), "{}", text_of(&refused));
    // The README's line, as printed: the person named.
    let line = block(README, "sh", "devices pair --name alice-phone").lines().find(|l| l.contains("devices pair")).unwrap().to_owned();
    let out = run_shell(&line, &data);
    assert!(out.status.success(), "{line}\n{}", text_of(&out));
    assert!(text_of(&out).contains("Pair alice-phone (an operator credential of alice)"), "{}", text_of(&out));
    // On a terminal (a pseudo-terminal by script(1)), the question, and the person answered.
    let pair = format!("{BIN} --data-dir {} devices pair --name bob-phone", data.display());
    let mut script = Command::new("script");
    script.args(["-qec", &pair, "/dev/null"]).env("APPROVAL_CONSOLE_LOG", "warn");
    let asked = answered(script, "bob\n");
    assert!(asked.contains("Whose device is it?"), "{asked}");
    assert!(asked.contains("Pair bob-phone (an operator credential of bob)"), "{asked}");
}

/// Runs `command`, writing `input` to its standard input: what it printed.
fn answered(mut command: Command, input: &str) -> String {
    use std::io::Write;
    let mut child = command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    child.stdin.as_mut().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn the_readme_receipt_commands_run_as_printed_on_a_decided_call() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let serve = ServeProcess::start(BIN, &data, TOKEN);
    serve.post("/api/agents/demo/generate", json!({ "messages": "delete rec-7" })).await;
    let queue = serve.get("/api/queue").await;
    let call = queue["items"][0].clone();
    assert_eq!(call["toolName"], "delete_record", "{queue}");
    let id = call["id"].as_str().unwrap();
    let decided = serve.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": call["fingerprint"] })).await;
    assert!(decided.get("code").is_none(), "{decided}");
    let commands = block(RECEIPTS, "sh", "receipt verify receipt.jws");
    let runnable = commands.replace("CALL_ID", id);
    let out = run_in(&runnable, &data, tmp.path());
    assert!(out.status.success(), "{runnable}\n{}", text_of(&out));
    let jws = std::fs::read_to_string(tmp.path().join("receipt.jws")).unwrap();
    assert_eq!(jws.trim().split('.').count(), 3, "the receipt alone, a JWS: {jws}");
    // As the receipts page says: the receipt runs one call; checked again, it is refused (exit code 1).
    let verify = commands.lines().find(|l| l.contains("receipt verify")).unwrap();
    let again = run_in(verify, &data, tmp.path());
    assert_eq!(again.status.code(), Some(1), "{}", text_of(&again));
    assert!(text_of(&again).contains("replayed"), "{}", text_of(&again));
}

/// The JSON example of docs/receipts.md's claims.
fn documented_claims() -> (String, Value) {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/receipts.md")).unwrap();
    let example = doc.split("### Example").nth(1).expect("an example section");
    let jws = example.lines().find(|l| l.starts_with("eyJ")).expect("the example receipt").to_owned();
    let json = example.split("```json").nth(1).unwrap().split("```").next().unwrap();
    (jws, serde_json::from_str(json).expect("the example's claims are JSON"))
}

/// `text` with each lowercase hex digit as `h`: what a real id shares with an example one.
fn shape(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_digit() || ('a'..='f').contains(&c) { 'h' } else { c }).collect()
}

#[tokio::test]
async fn docs_receipts_example_has_the_claims_and_shapes_of_a_real_receipt() {
    let t = spawn_app().await;
    t.generate("delete rec-7").await;
    let item = t.pending().await.remove(0);
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let decided = t.item(item["id"].as_str().unwrap()).await;
    let receipt = decided["decision"]["receipt"].as_str().unwrap_or_else(|| panic!("a decided call has its receipt: {decided}")).to_owned();
    use base64::Engine;
    let part = |jws: &str, n: usize| -> Value {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(jws.split('.').nth(n).unwrap()).unwrap();
        serde_json::from_slice(&bytes).unwrap()
    };
    let real = part(&receipt, 1);
    let (example_jws, example) = documented_claims();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&example), keys(&real), "the example's claims are a real approval's\nexample: {example}\nreal: {real}");
    for (claim, shown) in example.as_object().unwrap() {
        let actual = &real[claim];
        match (shown, actual) {
            // Shortened (`q_01a24f9e…`): the real value starts with text of that shape.
            (Value::String(s), Value::String(a)) if s.ends_with('…') => {
                let s = s.trim_end_matches('…');
                let start: String = a.chars().take(s.chars().count()).collect();
                assert_eq!(shape(s), shape(&start), "{claim}: the example {s:?}… is shaped as a real {a:?}");
            }
            (Value::String(s), Value::String(a)) if claim == "id" => assert_eq!(shape(s), shape(a), "{claim}"),
            // A console sharing its queue (PostgreSQL) names its local engine `local@<instance>`
            // (docs/receipts.md says so): the example shows a console of its own.
            (Value::String(s), Value::String(a)) if claim == "engine" => {
                assert_eq!(s.as_str(), a.split('@').next().unwrap(), "{claim}: the example's value is a real call's")
            }
            (Value::String(_), _) => assert_eq!(shown, actual, "{claim}: the example's value is a real call's"),
            (Value::Array(s), Value::Array(a)) => {
                let kind = |v: &Value| v.as_str().unwrap().split(':').next().unwrap().to_owned();
                assert_eq!(kind(&s[0]), kind(&a[0]), "{claim}: a person's approval through the CLI or the page")
            }
            (s, a) => assert_eq!(std::mem::discriminant(s), std::mem::discriminant(a), "{claim}: {s} beside {a}"),
        }
    }
    let header = part(&example_jws, 0);
    let real_header = part(&receipt, 0);
    assert_eq!(keys(&header), keys(&real_header));
    assert_eq!((header["alg"].clone(), header["typ"].clone()), (real_header["alg"].clone(), real_header["typ"].clone()));
    assert_eq!(header["kid"].as_str().unwrap().len(), real_header["kid"].as_str().unwrap().len(), "{header} beside {real_header}");
}
