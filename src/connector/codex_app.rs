//! Codex through its app-server (`approval-console codex`): a bridge between a client (an editor,
//! or any program that speaks the app-server's JSON-RPC) and `codex app-server`, its child. Both
//! speak newline-delimited JSON on stdio; every line passes through unchanged both ways, except the
//! server's two approval requests, which the bridge answers itself from the console:
//!
//! - `item/commandExecution/requestApproval` becomes a call of source `codex`, tool `Bash` with
//!   `{"command": …}` exactly as Codex will run it — the shape the Codex hook submits, so the queue
//!   rates its risk the same way — its working directory, reason and parsed actions around it;
//! - `item/fileChange/requestApproval` carries no diff: the bridge keeps the `changes` of each
//!   `fileChange` item Codex announced (`item/started`, `item/updated`,
//!   `item/fileChange/patchUpdated`) and submits them as an `apply_patch` of Codex's patch format,
//!   which the queue shows as a diff per file ([`crate::domain::change`]) and rates by the files it
//!   writes. A file change whose item was never announced is declined unasked: nobody approves what
//!   they cannot see.
//!
//! The call's Idempotency-Key is made of the thread, turn and item ids (and the approval's own id,
//! when Codex gives one), so asking again after a lost connection finds the same call. The answer:
//! approved → `accept` (`acceptForSession` when a grant — "always allow" — approved it); anything
//! else — declined (Codex takes no reason; the console's audit keeps it), expired, withdrawn, an
//! edit (Codex cannot run one), a receipt that does not verify, no agent credential, a refusal —
//! `decline`. While the console cannot be reached the request stays
//! open and the bridge asks again, ever less often ([`ConsoleClient::ask_patiently`]): Codex waits
//! as long as it takes, and a restart of the console loses nothing.
//!
//! Where Codex's own reviewer denied an action, the operator may override that one denial
//! ([`guardian`]).

use super::ConsoleClient;
use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::domain::CallSource;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The command approval request.
pub const COMMAND_APPROVAL: &str = "item/commandExecution/requestApproval";
/// The file change approval request.
pub const FILE_CHANGE_APPROVAL: &str = "item/fileChange/requestApproval";

/// The calls' agent in the queue.
const AGENT: &str = "codex";

/// An approval request to ask the console about.
#[derive(Clone, Debug)]
pub struct Approval {
    /// The request's JSON-RPC id, which the answer carries back.
    pub id: Value,
    pub call: NewCall,
    /// The Idempotency-Key: the same request asked again is the same call.
    pub key: String,
}

/// A request the bridge answers without asking: its id, and why it is declined.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub id: Value,
    pub why: String,
}

/// What the bridge has seen of the server's messages: the changes of each file change item, by
/// item id, until the item completes; each thread's working directory (a file change's paths are
/// shown relative to it); the reviews of Codex's reviewer already asked about.
#[derive(Default)]
pub struct Tracker {
    changes: HashMap<String, Value>,
    cwds: HashMap<String, String>,
    reviews: HashSet<String>,
}

impl Tracker {
    /// Takes note of a server message: a file change item's changes as announced or updated; a
    /// completed item is forgotten.
    pub fn observe(&mut self, msg: &Value) {
        let params = &msg["params"];
        match msg["method"].as_str() {
            Some("item/started" | "item/updated") if params["item"]["type"] == "fileChange" => {
                if let (Some(id), Some(changes)) = (params["item"]["id"].as_str(), params["item"].get("changes")) {
                    self.changes.insert(id.to_owned(), changes.clone());
                }
            }
            Some("item/fileChange/patchUpdated") => {
                if let (Some(id), Some(changes)) = (params["itemId"].as_str(), params.get("changes")) {
                    self.changes.insert(id.to_owned(), changes.clone());
                }
            }
            Some("thread/started") => {
                if let (Some(id), Some(cwd)) = (params["thread"]["id"].as_str(), params["thread"]["cwd"].as_str()) {
                    self.cwds.insert(id.to_owned(), cwd.to_owned());
                }
            }
            Some("item/completed") => {
                if let Some(id) = params["item"]["id"].as_str() {
                    self.changes.remove(id);
                }
            }
            _ => {}
        }
    }

    /// The approval `msg` asks for, if it is one of the two requests the bridge answers: to ask the
    /// console about, or refused (answered `decline` unasked). `None`: any other message, passed on.
    pub fn approval(&self, msg: &Value) -> Option<Result<Approval, Refused>> {
        let method = msg["method"].as_str()?;
        if method != COMMAND_APPROVAL && method != FILE_CHANGE_APPROVAL {
            return None;
        }
        let id = msg.get("id")?.clone();
        let params = &msg["params"];
        let text = |k: &str| params[k].as_str().filter(|s| !s.is_empty());
        let refused = |why: String| Some(Err(Refused { id: id.clone(), why }));
        let (Some(thread), Some(turn), Some(item)) = (text("threadId"), text("turnId"), text("itemId")) else {
            return refused(format!("{method} without threadId, turnId and itemId"));
        };
        let mut context = Map::new();
        context.insert("event".into(), json!(method));
        for k in ["turnId", "itemId", "approvalId", "cwd", "reason", "commandActions", "grantRoot", "kind"] {
            if let Some(v) = params.get(k).filter(|v| !v.is_null()) {
                context.insert(k.into(), v.clone());
            }
        }
        if let (false, Some(cwd)) = (context.contains_key("cwd"), self.cwds.get(thread)) {
            context.insert("cwd".into(), json!(cwd));
        }
        let (tool, args) = if method == COMMAND_APPROVAL {
            let Some(command) = text("command") else { return refused(format!("{method} names no command")) };
            ("Bash", json!({ "command": command }))
        } else {
            let Some(patch) = self.changes.get(item).and_then(patch_of) else {
                return refused(format!("file change {item} was never announced with its changes: nobody can see what it writes"));
            };
            ("apply_patch", json!({ "input": patch }))
        };
        let kind = if method == COMMAND_APPROVAL { "command" } else { "file" };
        let approval = text("approvalId").map(|a| format!(":{a}")).unwrap_or_default();
        Some(Ok(Approval {
            id,
            call: NewCall {
                tool: tool.into(),
                args,
                agent: AGENT.into(),
                thread: Some(thread.to_owned()),
                resume_schema: None,
                payload: None,
                source: Some(CallSource::Codex),
                context: Some(Value::Object(context)),
            },
            key: format!("codex-app:{kind}:{thread}:{turn}:{item}{approval}"),
        }))
    }
}

/// Codex's `changes` (`[{path, kind: {type: add|delete|update, move_path}, diff}]`; an added file's
/// `diff` is its text, an update's a unified diff) as a patch in Codex's `apply_patch` format.
/// `None` when they are not such a list, or an empty one.
pub fn patch_of(changes: &Value) -> Option<String> {
    let changes = changes.as_array().filter(|c| !c.is_empty())?;
    let mut patch = String::from("*** Begin Patch\n");
    for change in changes {
        let path = change["path"].as_str()?;
        let diff = change["diff"].as_str().unwrap_or_default();
        match change["kind"]["type"].as_str()? {
            "add" => {
                patch.push_str(&format!("*** Add File: {path}\n"));
                for line in diff.lines() {
                    patch.push('+');
                    patch.push_str(line);
                    patch.push('\n');
                }
            }
            "delete" => patch.push_str(&format!("*** Delete File: {path}\n")),
            "update" => {
                patch.push_str(&format!("*** Update File: {path}\n"));
                if let Some(to) = change["kind"]["move_path"].as_str() {
                    patch.push_str(&format!("*** Move to: {to}\n"));
                }
                // The hunks; a unified diff's file header lines name the file again.
                let mut in_hunks = false;
                for line in diff.lines() {
                    in_hunks |= line.starts_with("@@");
                    if in_hunks {
                        patch.push_str(line);
                        patch.push('\n');
                    }
                }
            }
            _ => return None,
        }
    }
    patch.push_str("*** End Patch\n");
    Some(patch)
}

/// Codex's decision for what the console answered: only an approval of the arguments as asked is
/// `accept` — `acceptForSession` when it came with "always allow" (a grant approved it, as its
/// checked receipt says: [`super::always_allowed`]; the session rule the grant's audit records,
/// [`crate::domain::session_rule`]); everything else is `decline`.
pub fn decision(asked: &Result<CallStatus, String>) -> &'static str {
    match asked {
        Ok(status) if super::always_allowed(status) => "acceptForSession",
        Ok(status) if status.outcome == Outcome::Approved && !status.edited => "accept",
        _ => "decline",
    }
}

/// The JSON-RPC response to request `id` with `decision`.
pub fn response(id: &Value, decision: &str) -> Value {
    json!({ "id": id, "result": { "decision": decision } })
}

/// Asks the console about `asked` (patiently, for at most `timeout`); the response line for Codex.
async fn answer(console: Arc<Result<ConsoleClient, String>>, asked: Result<Approval, Refused>, timeout: Duration) -> String {
    let (id, decision) = match asked {
        Err(Refused { id, why }) => {
            tracing::warn!("declined unasked: {why}");
            (id, "decline")
        }
        Ok(approval) => {
            let asked = match console.as_ref() {
                Ok(console) => console.ask_patiently(&approval.call, &approval.key, timeout).await,
                Err(why) => Err(why.clone()),
            };
            match &asked {
                Ok(s) => tracing::info!(call = %s.id, outcome = ?s.outcome, reason = ?s.reason, "{} {}", approval.call.tool, approval.key),
                Err(why) => tracing::warn!("{} declined: {why}", approval.key),
            }
            (approval.id, decision(&asked))
        }
    };
    response(&id, decision).to_string()
}

/// Asks the console about an action Codex's reviewer denied; the override for Codex, as request
/// `id`, if an operator approved it ([`guardian::override_request`]).
async fn overridden(
    console: Arc<Result<ConsoleClient, String>>,
    denial: guardian::Denial,
    timeout: Duration,
    id: String,
) -> Option<String> {
    let asked = match console.as_ref() {
        Ok(console) => console.ask_patiently(&denial.call, &denial.key, timeout).await,
        Err(why) => Err(why.clone()),
    };
    let request = guardian::override_request(&asked, &denial, &id);
    match &asked {
        Ok(s) => {
            tracing::info!(call = %s.id, outcome = ?s.outcome, overridden = request.is_some(), "review {} denied by Codex's reviewer", denial.review)
        }
        Err(why) => tracing::warn!("review {}: the reviewer's denial stands: {why}", denial.review),
    }
    request.map(|r| r.to_string())
}

/// Runs the bridge: lines from `client_in` go to `server_in`; lines from `server_out` go to
/// `client_out`, except the approval requests, answered on `server_in` from the console, and
/// Codex's answers to the bridge's own requests (overrides of its reviewer's denials). Ends
/// when the server's output ends (the caller then waits for the server); the client's input ending
/// closes the server's input.
pub async fn bridge<CI, CO, SI, SO>(
    console: Result<ConsoleClient, String>,
    timeout: Duration,
    client_in: CI,
    mut client_out: CO,
    mut server_in: SI,
    server_out: SO,
) -> std::io::Result<()>
where
    CI: AsyncRead + Unpin + Send + 'static,
    CO: AsyncWrite + Unpin,
    SI: AsyncWrite + Unpin + Send + 'static,
    SO: AsyncRead + Unpin,
{
    let console = Arc::new(console);
    // One writer of the server's input: the client's lines and the bridge's answers, whole lines
    // each; `None` is the client's end, which closes it.
    let (to_server, mut lines) = mpsc::unbounded_channel::<Option<String>>();
    tokio::spawn(async move {
        while let Some(Some(line)) = lines.recv().await {
            let written = async {
                server_in.write_all(line.as_bytes()).await?;
                server_in.write_all(b"\n").await?;
                server_in.flush().await
            };
            if let Err(e) = written.await {
                tracing::warn!("the app-server's input is closed: {e}");
                break;
            }
        }
        let _ = server_in.shutdown().await;
    });
    let from_client = to_server.clone();
    tokio::spawn(async move {
        let mut client = BufReader::new(client_in).lines();
        while let Ok(Some(line)) = client.next_line().await {
            if from_client.send(Some(line)).is_err() {
                return;
            }
        }
        let _ = from_client.send(None);
    });
    let mut tracker = Tracker::default();
    let own = guardian::own_id_prefix();
    let mut server = BufReader::new(server_out).lines();
    while let Some(line) = server.next_line().await? {
        if let Ok(msg) = serde_json::from_str::<Value>(&line) {
            if guardian::is_own_answer(&msg, &own) {
                match msg.get("error") {
                    None => tracing::info!(id = %msg["id"], "Codex took the override of its reviewer's denial"),
                    Some(e) => tracing::warn!(id = %msg["id"], "Codex refused the override of its reviewer's denial: {e}"),
                }
                continue;
            }
            tracker.observe(&msg);
            // Passed on as well: the client shows the denial as Codex reported it.
            match tracker.denial(&msg) {
                Some(Ok(denial)) => {
                    let (console, to_server, id) = (console.clone(), to_server.clone(), format!("{own}{}", denial.review));
                    tokio::spawn(async move {
                        if let Some(line) = overridden(console, denial, timeout, id).await {
                            let _ = to_server.send(Some(line));
                        }
                    });
                }
                Some(Err(why)) => tracing::warn!("the reviewer's denial stands, not queued: {why}"),
                None => {}
            }
            if let Some(asked) = tracker.approval(&msg) {
                let (console, to_server) = (console.clone(), to_server.clone());
                tokio::spawn(async move {
                    let line = answer(console, asked, timeout).await;
                    let _ = to_server.send(Some(line));
                });
                continue;
            }
        }
        client_out.write_all(line.as_bytes()).await?;
        client_out.write_all(b"\n").await?;
        client_out.flush().await?;
    }
    Ok(())
}

pub mod guardian;

#[cfg(test)]
mod tests;
