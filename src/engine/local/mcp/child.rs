//! The server's child process: its stderr kept for error messages, its exit watched, its shutdown.

use super::{SHUTDOWN_STEP, SIGTERM, STDERR_LINES, STDERR_LINE_CHARS};
use process_wrap::tokio::ChildWrapper;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{oneshot, watch};

/// Keeps the last lines of the server's stderr (and logs each at debug level).
pub(super) async fn read_stderr(
    server: String,
    stderr: tokio::process::ChildStderr,
    lines: Arc<Mutex<VecDeque<String>>>,
    closed: watch::Sender<bool>,
) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                let line = line.trim_end();
                if line.is_empty() {
                    continue;
                }
                tracing::debug!(server = %server, "MCP server stderr: {line}");
                let mut lines = lines.lock().expect("not poisoned");
                if lines.len() == STDERR_LINES {
                    lines.pop_front();
                }
                lines.push_back(line.chars().take(STDERR_LINE_CHARS).collect());
            }
        }
    }
    let _ = closed.send(true);
}

/// Owns the child: records its exit status, or on `stop` (the [`Process`] dropped) shuts it down.
pub(super) async fn watch_process(
    server: String,
    mut child: Box<dyn ChildWrapper>,
    exit: watch::Sender<Option<String>>,
    stop: oneshot::Receiver<()>,
) {
    let status = tokio::select! {
        status = child.wait() => Some(status),
        _ = stop => None,
    };
    let status = match status {
        Some(status) => status,
        None => {
            // stdin is already closed (the session went first); then SIGTERM, then SIGKILL.
            if let Ok(Ok(status)) = tokio::time::timeout(SHUTDOWN_STEP, child.wait()).await {
                Ok(status)
            } else {
                let _ = child.signal(SIGTERM);
                match tokio::time::timeout(SHUTDOWN_STEP, child.wait()).await {
                    Ok(status) => status,
                    Err(_) => {
                        tracing::warn!(server = %server, "MCP server did not stop on SIGTERM; killing it");
                        let _ = Box::into_pin(child.kill()).await;
                        child.wait().await
                    }
                }
            }
        }
    };
    let status = match status {
        Ok(status) => status.to_string(),
        Err(e) => format!("status unknown: {e}"),
    };
    tracing::debug!(server = %server, "MCP server process ended: {status}");
    let _ = exit.send(Some(status));
}
