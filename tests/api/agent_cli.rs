//! What the tests of the real coding-agent CLIs share (claude_code.rs, codex.rs, gemini_cli.rs): a scripted model API
//! served on 127.0.0.1, the CLI started with the console's URL and an agent token in its environment
//! (its hook inherits them), the call its hook queues, and the CLI's exit.

use crate::helpers::{wait, TestApp};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Serves `app` (a scripted model API) on 127.0.0.1; its address as `http://127.0.0.1:<port>`.
pub async fn serve_on_loopback(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// `bin` in `dir` with piped output, the console (`console`, `token`) in its environment for its hook,
/// killed if the test ends first. `configure` adds the CLI's own arguments and environment.
pub fn start(
    bin: &Path,
    dir: &Path,
    console: &str,
    token: &str,
    configure: impl FnOnce(&mut tokio::process::Command),
) -> tokio::process::Child {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.current_dir(dir)
        .env("APPROVAL_CONSOLE_URL", console)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .env("XDG_STATE_HOME", crate::helpers::serve_process::connector_state())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    configure(&mut cmd);
    cmd.spawn().unwrap_or_else(|e| panic!("start {}: {e}", bin.display()))
}

/// The pending call the CLI's hook queued (engine `engine`), within 60 s.
pub async fn queued(t: &TestApp, engine: &str) -> Value {
    wait::until(Duration::from_secs(60), || async {
        t.pending().await.into_iter().find(|c| c["engine"] == engine).ok_or_else(|| format!("the {engine} hook queued nothing"))
    })
    .await
}

/// Waits (up to 90 s) for the CLI to exit 0; its standard output.
pub async fn exits_ok(child: tokio::process::Child, what: &str) -> Vec<u8> {
    let out =
        tokio::time::timeout(Duration::from_secs(90), child.wait_with_output()).await.unwrap_or_else(|_| panic!("{what} ends")).unwrap();
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Hook programs that cannot answer: one that is not there, one that crashes (garbage, then
/// SIGSEGV) and one that hangs for two minutes — what "fails closed from the outside" is tried with.
pub struct FailingHooks {
    pub missing: PathBuf,
    pub crashing: PathBuf,
    pub hanging: PathBuf,
}

/// [`FailingHooks`] in `dir`.
pub fn failing_hooks(dir: &Path) -> FailingHooks {
    FailingHooks {
        missing: dir.join("moved-away/approval-console"),
        crashing: script_at(dir, "crashing-hook", "cat > /dev/null; echo '{\"hookSpecificOutput\": garbage'; kill -SEGV $$"),
        hanging: script_at(dir, "hanging-hook", "cat > /dev/null; exec sleep 120"),
    }
}

/// A program at `dir/name` that does `body` (a shell script), executable.
fn script_at(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
