//! `approval-console acp -- AGENT_COMMAND…`: a relay between an editor (this process's stdin and
//! stdout) and any Agent Client Protocol agent (the child it starts). ACP is JSON-RPC 2.0, one
//! message per line (newline-delimited JSON, as the SDK's `ndJsonStream`). Every line passes through
//! unchanged, byte for byte, both ways — but the agent's `session/request_permission` requests: each
//! is queued as a call of source `acp` ([`permission::call_of`]) and answered with the agent's option
//! the operator's decision names ([`permission::response`]).
//!
//! With `editor_decides_too`, the request also goes to the editor, unchanged, and the first answer
//! wins: the editor's → passed to the agent, the queued call withdrawn; the console's → passed to
//! the agent, the editor's request cancelled (`$/cancel_request`) and whatever the editor answers
//! later dropped (the agent has its one answer).
//!
//! Fail closed: no decision reachable (the console refuses or cannot be reached, the request cannot
//! be read, nobody decides within the time limit) → the agent's reject option. The call waits
//! through a console restart (the connector asks again while the console is unreachable). With the
//! editor deciding too, a console that cannot be asked leaves the editor's answer to wait for. The
//! editor's `session/cancel` answers the session's waiting requests `cancelled` (as ACP asks of a
//! client) and withdraws their calls; the agent's `$/cancel_request` for one does the same.

pub mod permission;
#[cfg(test)]
mod tests;

use crate::connector::ConsoleClient;
use permission::{Around, Choice};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// The permission request's method.
pub const REQUEST_PERMISSION: &str = "session/request_permission";

/// Most tool calls remembered from session updates (the oldest go first past it).
const KNOWN_TOOL_CALLS: usize = 1024;

/// How the relay asks.
pub struct Options {
    /// The console, or why there is none (every request is then rejected, or left to the editor).
    pub console: Result<ConsoleClient, String>,
    /// The calls' agent in the queue.
    pub agent: String,
    /// The agent's command line, shown with each call.
    pub command: String,
    /// How long a request waits for a decision before it is rejected (and its call withdrawn).
    pub timeout: Duration,
    /// Also ask the editor; the first answer wins.
    pub editor_decides_too: bool,
}

/// What ended a waiting request before the console answered.
enum Stop {
    /// The editor answered (its response line, unchanged).
    Editor(Vec<u8>),
    /// The turn was cancelled: answer the agent with this response line.
    Cancelled(Vec<u8>),
}

/// A request waiting for its answer.
struct Waiting {
    session: String,
    stop: oneshot::Sender<Stop>,
}

#[derive(Default)]
struct State {
    /// By the request's id (its JSON text).
    waiting: HashMap<String, Waiting>,
    /// Ids of requests the editor was asked about and the console answered: its late answer is dropped.
    answered: HashSet<String>,
    /// Tool calls as the session updates described them, by (session, tool call id), oldest first.
    tool_calls: Vec<((String, String), Value)>,
    /// `session/new` requests by id (their `cwd`), until their answer names the session.
    new_sessions: HashMap<String, String>,
    /// Each session's working directory.
    cwds: HashMap<String, String>,
}

struct Relay {
    options: Options,
    state: Mutex<State>,
    to_agent: mpsc::UnboundedSender<Vec<u8>>,
    to_editor: mpsc::UnboundedSender<Vec<u8>>,
}

/// Relays between the editor (`editor_in`, `editor_out`) and the agent (`agent_in` its stdin,
/// `agent_out` its stdout) until the agent's output ends; requests still waiting then are withdrawn.
/// The editor's input ending closes the agent's input (the agent then ends as it chooses).
pub async fn relay(
    options: Options,
    editor_in: impl AsyncRead + Unpin + Send + 'static,
    editor_out: impl AsyncWrite + Unpin + Send + 'static,
    agent_in: impl AsyncWrite + Unpin + Send + 'static,
    agent_out: impl AsyncRead + Unpin,
) -> std::io::Result<()> {
    let (to_agent, agent_lines) = mpsc::unbounded_channel();
    let (to_editor, editor_lines) = mpsc::unbounded_channel();
    let relay = Arc::new(Relay { options, state: Mutex::default(), to_agent, to_editor });
    let writing_agent = tokio::spawn(write_lines(agent_lines, agent_in));
    let writing_editor = tokio::spawn(write_lines(editor_lines, editor_out));
    let from_editor = tokio::spawn(relay.clone().editor_lines(editor_in));

    let mut answering = tokio::task::JoinSet::new();
    let mut lines = BufReader::new(agent_out);
    let mut line = Vec::new();
    loop {
        line.clear();
        if lines.read_until(b'\n', &mut line).await? == 0 {
            break;
        }
        if let Some((id, params)) = relay.agent_line(&line) {
            answering.spawn(relay.clone().answer(id, params, line.clone()));
        }
    }
    // The agent is gone: nobody waits for these answers; their calls leave the queue.
    for (_, waiting) in relay.state.lock().expect("relay state").waiting.drain() {
        let _ = waiting.stop.send(Stop::Cancelled(Vec::new()));
    }
    while answering.join_next().await.is_some() {}
    from_editor.abort();
    let _ = from_editor.await;
    let Relay { to_agent, to_editor, .. } = Arc::into_inner(relay).expect("the relay's tasks ended");
    drop((to_agent, to_editor));
    let _ = writing_agent.await;
    let _ = writing_editor.await;
    Ok(())
}

/// Writes each line (a newline added where it has none) and flushes, until the senders are gone, an
/// empty line says to close, or the pipe closes.
async fn write_lines(mut lines: mpsc::UnboundedReceiver<Vec<u8>>, mut out: impl AsyncWrite + Unpin) {
    while let Some(mut line) = lines.recv().await {
        if line.is_empty() {
            break;
        }
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
    let _ = out.shutdown().await;
}

/// The id of a message as a key (its JSON text), if it has one.
fn id_key(message: &Value) -> Option<String> {
    message.get("id").filter(|id| !id.is_null()).map(Value::to_string)
}

/// A response line for request `id`: `result`, or (with `error`) a JSON-RPC error.
fn response_line(id: &Value, result: Result<Value, (i64, &str)>) -> Vec<u8> {
    let message = match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err((code, text)) => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": text } }),
    };
    message.to_string().into_bytes()
}

impl Relay {
    /// One line from the agent: passed to the editor, unless it is a permission request (answered
    /// here: its id and params are returned) or a cancel of one held here.
    fn agent_line(&self, line: &[u8]) -> Option<(Value, Value)> {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            let _ = self.to_editor.send(line.to_vec());
            return None;
        };
        match message["method"].as_str() {
            Some(REQUEST_PERMISSION) if id_key(&message).is_some() => {
                return Some((message["id"].clone(), message["params"].clone()));
            }
            Some("$/cancel_request") => {
                let key = message["params"]["requestId"].to_string();
                let mut state = self.state.lock().expect("relay state");
                if let Some(waiting) = state.waiting.remove(&key) {
                    let cancelled = response_line(&message["params"]["requestId"], Err((-32800, "Request cancelled")));
                    let _ = waiting.stop.send(Stop::Cancelled(cancelled));
                    if !self.options.editor_decides_too {
                        return None;
                    }
                    // The editor was asked too: it hears of the cancel; its answer goes nowhere.
                    state.answered.insert(key);
                }
            }
            Some("session/update") => self.remember_tool_call(&message["params"]),
            None => {
                // A response: to a `session/new` the relay saw, it names the session of that cwd.
                let mut state = self.state.lock().expect("relay state");
                if let (Some(key), Some(session)) = (id_key(&message), message["result"]["sessionId"].as_str()) {
                    if let Some(cwd) = state.new_sessions.remove(&key) {
                        state.cwds.insert(session.to_owned(), cwd);
                    }
                }
            }
            _ => {}
        }
        let _ = self.to_editor.send(line.to_vec());
        None
    }

    /// Reads the editor's lines: each goes to the agent, but an answer to a request waiting here
    /// (it settles that request) and a late answer to one the console answered (dropped).
    async fn editor_lines(self: Arc<Self>, input: impl AsyncRead + Unpin) {
        let mut lines = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match lines.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if let Ok(message) = serde_json::from_slice::<Value>(&line) {
                if self.settles(&message, &line) {
                    continue;
                }
            }
            let _ = self.to_agent.send(line.clone());
        }
        // The editor is gone, and its session with it: the agent's input closes (an empty line
        // says so; the channel itself stays open while the relay's tasks hold it).
        let _ = self.to_agent.send(Vec::new());
    }

    /// Whether the editor's `message` ends here (it answered a request held here, or one already
    /// answered); a `session/cancel` cancels the session's requests held here, and goes on.
    fn settles(&self, message: &Value, line: &[u8]) -> bool {
        let mut state = self.state.lock().expect("relay state");
        match (message["method"].as_str(), id_key(message)) {
            (None, Some(key)) => {
                if let Some(waiting) = state.waiting.remove(&key) {
                    let _ = waiting.stop.send(Stop::Editor(line.to_vec()));
                    return true;
                }
                state.answered.remove(&key)
            }
            (Some("session/new"), Some(key)) => {
                if let Some(cwd) = message["params"]["cwd"].as_str() {
                    state.new_sessions.insert(key, cwd.to_owned());
                }
                false
            }
            // With the editor asked too, the editor answers its copies itself (ACP asks it to).
            (Some("session/cancel"), None) if !self.options.editor_decides_too => {
                let session = message["params"]["sessionId"].as_str().unwrap_or_default();
                let ids: Vec<String> = state.waiting.iter().filter(|(_, w)| w.session == session).map(|(k, _)| k.clone()).collect();
                for key in ids {
                    if let Some(waiting) = state.waiting.remove(&key) {
                        let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
                        let _ = waiting.stop.send(Stop::Cancelled(response_line(&id, Ok(permission::cancelled()))));
                    }
                }
                false
            }
            _ => false,
        }
    }

    /// Keeps what a `session/update` says of a tool call (`tool_call`, `tool_call_update`).
    fn remember_tool_call(&self, params: &Value) {
        let update = &params["update"];
        if !matches!(update["sessionUpdate"].as_str(), Some("tool_call" | "tool_call_update")) {
            return;
        }
        let (Some(session), Some(id)) = (params["sessionId"].as_str(), update["toolCallId"].as_str()) else { return };
        let key = (session.to_owned(), id.to_owned());
        let mut state = self.state.lock().expect("relay state");
        let known = state.tool_calls.iter().position(|(k, _)| *k == key).map(|i| state.tool_calls.remove(i).1);
        let mut update = update.clone();
        if let Some(fields) = update.as_object_mut() {
            fields.remove("sessionUpdate");
        }
        state.tool_calls.push((key, permission::merged(known.as_ref(), &update)));
        if state.tool_calls.len() > KNOWN_TOOL_CALLS {
            state.tool_calls.remove(0);
        }
    }

    /// Answers one permission request (`line` as the agent sent it): queued, and with the editor
    /// deciding too also asked of the editor; the agent gets exactly one answer.
    async fn answer(self: Arc<Self>, id: Value, params: Value, line: Vec<u8>) {
        let key = id.to_string();
        let session = params["sessionId"].as_str().unwrap_or_default().to_owned();
        let (stop_tx, stop_rx) = oneshot::channel();
        let call = {
            let mut state = self.state.lock().expect("relay state");
            state.waiting.insert(key.clone(), Waiting { session: session.clone(), stop: stop_tx });
            let tool_call_id = params["toolCall"]["toolCallId"].as_str().unwrap_or_default();
            let known = state.tool_calls.iter().find(|((s, t), _)| *s == session && t == tool_call_id).map(|(_, v)| v);
            let around =
                Around { agent: &self.options.agent, command: &self.options.command, cwd: state.cwds.get(&session).map(String::as_str) };
            permission::call_of(&params, known, &around)
        };
        let race = self.options.editor_decides_too;
        if race {
            let _ = self.to_editor.send(line);
        }
        let stopped: Mutex<Option<Stop>> = Mutex::new(None);
        let stopping = async {
            match stop_rx.await {
                Ok(stop) => *stopped.lock().expect("stop") = Some(stop),
                // Never sent: nothing stops this request but the console.
                Err(_) => std::future::pending().await,
            }
        };
        let mut stopping = std::pin::pin!(stopping);
        let asked = match (&self.options.console, call) {
            (Ok(console), Ok(call)) => console.ask_unless(&call, None, self.options.timeout, &mut stopping).await,
            (Err(why), _) => Err(why.clone()),
            (_, Err(why)) => Err(why),
        };
        if stopped.lock().expect("stop").is_none() {
            // Stopped just as the console answered: the stop (already sent) is the answer.
            let _ = futures::FutureExt::now_or_never(&mut stopping);
        }
        if stopped.lock().expect("stop").is_none() {
            if let (Err(why), true) = (&asked, race) {
                // The console cannot answer; the editor still can.
                tracing::warn!("the console cannot decide this permission request ({why}): the editor's answer decides it");
                stopping.await;
            }
        }
        let stop = stopped.lock().expect("stop").take();
        let answer = match stop {
            Some(Stop::Editor(line)) | Some(Stop::Cancelled(line)) => line,
            None => {
                let choice = match &asked {
                    Ok(status) => permission::choice_of(status),
                    Err(why) => {
                        tracing::warn!("permission request rejected: {why}");
                        Choice::Reject
                    }
                };
                let mut state = self.state.lock().expect("relay state");
                state.waiting.remove(&key);
                if race {
                    // The editor's copy is moot: cancel it, and drop whatever it answers.
                    state.answered.insert(key.clone());
                    let cancel = json!({ "jsonrpc": "2.0", "method": "$/cancel_request", "params": { "requestId": id } });
                    let _ = self.to_editor.send(cancel.to_string().into_bytes());
                }
                response_line(&id, Ok(permission::response(&params["options"], choice)))
            }
        };
        if !answer.is_empty() {
            let _ = self.to_agent.send(answer);
        }
    }
}
