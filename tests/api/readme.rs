//! The README's examples run as printed (issue 13): its `agents.toml` files load, its curl pauses
//! the demo agent of a running `serve`, its token commands work on a data directory.

use crate::helpers::*;
use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The fenced code blocks of `lang` in the README, in order.
fn blocks(lang: &str) -> Vec<String> {
    let text = readme();
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
fn run_shell(block: &str, data_dir: &Path) -> std::process::Output {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_approval-console")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .args(["-euo", "pipefail", "-c", block])
        .env("PATH", path)
        .env("APPROVAL_CONSOLE_DATA_DIR", data_dir)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[tokio::test]
async fn every_agents_toml_example_in_the_readme_loads_as_printed() {
    let examples = blocks("toml");
    assert!(examples.len() >= 2, "the README has its agents.toml examples");
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
    let curl = blocks("sh").into_iter().find(|b| b.contains("curl") && b.contains("/agents/demo/generate")).expect("the README's curl");
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

#[tokio::test]
async fn the_readme_token_commands_run_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let block = blocks("sh").into_iter().find(|b| b.contains("tokens add")).expect("the README's tokens block");
    let out = run_shell(&block, tmp.path());
    assert!(out.status.success(), "{block}\n{}", text(&out));
    let said = text(&out);
    assert!(said.contains("support-bot") && said.contains("alice") && said.contains("revoked credential support-bot"), "{said}");
}

#[tokio::test]
async fn the_readme_quorum_commands_run_as_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let block = blocks("sh").into_iter().find(|b| b.contains("policy quorum")).expect("the README's two-person rule block");
    let out = run_shell(&block, tmp.path());
    assert!(out.status.success(), "{block}\n{}", text(&out));
    let said = text(&out);
    assert!(said.contains("delete_record now needs 2 approvals") && said.contains("delete_record now needs one approval"), "{said}");
}
