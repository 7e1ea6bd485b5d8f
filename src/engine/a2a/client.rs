//! JSON-RPC client for one A2A agent (the A2A v1.0 JSON-RPC binding over HTTP, as the official
//! `@a2a-js/sdk` 1.3 serves it): its agent card, the tasks waiting in a state (`ListTasks`), one
//! task (`GetTask`), and a message sent on a task (`SendMessage`) — each failure classified.

use crate::engine::local::model::ApiKey;
use crate::engine::remote::http::{describe, http_client, parse_base_url, read_limited, RemoteError};
use reqwest::{Method, StatusCode, Url};
use serde_json::{json, Value};

/// The protocol version asked for (the `A2A-Version` header) and the one an interface must declare.
pub const VERSION: &str = "1.0";
/// Tasks asked for per page of `ListTasks` (the most the SDK's servers give).
pub const PAGE: usize = 100;
/// Pages read per state per listing at most: beyond it a listing is partial (and marks nothing gone).
pub const MAX_PAGES: usize = 100;

/// The JSON-RPC error codes of A2A v1.0 the console tells apart.
const TASK_NOT_FOUND: i64 = -32001;
const UNSUPPORTED_OPERATION: i64 = -32004;
const METHOD_NOT_FOUND: i64 = -32601;
const VERSION_NOT_SUPPORTED: i64 = -32009;

/// An agent at `base` (where `/.well-known/agent-card.json` is). A token is sent as a bearer token,
/// to that origin only.
#[derive(Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
}

/// What the console reads from an agent card.
#[derive(Clone, Debug)]
pub struct Card {
    pub name: String,
    /// The card's JSON-RPC interface of protocol version 1.x, on the base URL's origin.
    pub endpoint: Url,
}

/// One listing of the tasks waiting in the states asked for.
pub struct Listing {
    pub tasks: Vec<Value>,
    /// False if a state had more than [`MAX_PAGES`] pages: nothing unlisted is then taken as gone.
    pub complete: bool,
}

impl Client {
    pub fn new(base: &str) -> Result<Self, String> {
        Ok(Self { base: parse_base_url(base)?, http: http_client()? })
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    /// `GET <base>/.well-known/agent-card.json`, and the JSON-RPC endpoint it names. An endpoint on
    /// another origin than the base URL is refused (`incompatible`): the engine's token goes only to
    /// the URL it was given for.
    pub async fn card(&self, token: Option<&ApiKey>) -> Result<Card, RemoteError> {
        let mut url = self.base.clone();
        url.path_segments_mut().expect("http(s) URLs have paths").pop_if_empty().extend([".well-known", "agent-card.json"]);
        let card = self.request(Method::GET, url, token, None).await?;
        endpoint_of(&self.base, &card)
    }

    /// `ListTasks` for each of `states`, page by page, without history.
    pub async fn waiting(&self, card: &Card, states: &[&str], token: Option<&ApiKey>) -> Result<Listing, RemoteError> {
        let mut tasks = Vec::new();
        let mut complete = true;
        for state in states {
            let mut page_token = String::new();
            let mut pages = 0;
            loop {
                let mut params = json!({ "status": state, "pageSize": PAGE, "historyLength": 0 });
                if !page_token.is_empty() {
                    params["pageToken"] = json!(page_token);
                }
                let answer = self.rpc(card, "ListTasks", params, token).await?;
                let Some(found) = answer["tasks"].as_array() else {
                    return Err(RemoteError::Incompatible("ListTasks did not answer a list of tasks".into()));
                };
                tasks.extend(found.iter().cloned());
                page_token = answer["nextPageToken"].as_str().unwrap_or_default().to_owned();
                pages += 1;
                if page_token.is_empty() {
                    break;
                }
                if pages >= MAX_PAGES {
                    tracing::warn!("{}: more than {MAX_PAGES} pages of {state} tasks: the listing is partial", self.base);
                    complete = false;
                    break;
                }
            }
        }
        Ok(Listing { tasks, complete })
    }

    /// How many tasks wait in `state` (`ListTasks` of one, its `totalSize`).
    pub async fn count(&self, card: &Card, state: &str, token: Option<&ApiKey>) -> Result<u64, RemoteError> {
        let answer = self.rpc(card, "ListTasks", json!({ "status": state, "pageSize": 1, "historyLength": 0 }), token).await?;
        answer["totalSize"].as_u64().ok_or_else(|| RemoteError::Incompatible("ListTasks did not answer a totalSize".into()))
    }

    /// `GetTask` with the last `history` messages; `None` if the agent has no such task.
    pub async fn task(&self, card: &Card, id: &str, history: u32, token: Option<&ApiKey>) -> Result<Option<Value>, RemoteError> {
        match self.rpc(card, "GetTask", json!({ "id": id, "historyLength": history }), token).await {
            Ok(t) if t.is_object() => Ok(Some(t)),
            Ok(_) => Err(RemoteError::Incompatible("GetTask did not answer a task".into())),
            Err(RemoteError::RunNotSuspended(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `SendMessage` of `message` (on its task), answered as soon as the agent took it
    /// (`returnImmediately`): not waited for until the task goes on.
    pub async fn send(&self, card: &Card, message: Value, token: Option<&ApiKey>) -> Result<Value, RemoteError> {
        let params = json!({ "message": message, "configuration": { "returnImmediately": true, "historyLength": 0 } });
        self.rpc(card, "SendMessage", params, token).await
    }

    /// One JSON-RPC request to the card's endpoint: its `result`, or its error classified.
    async fn rpc(&self, card: &Card, method: &str, params: Value, token: Option<&ApiKey>) -> Result<Value, RemoteError> {
        let id = uuid::Uuid::now_v7().to_string();
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let answer = self.request(Method::POST, card.endpoint.clone(), token, Some(&body)).await?;
        if let Some(error) = answer.get("error") {
            let code = error["code"].as_i64().unwrap_or(0);
            let secrets: Vec<&str> = token.map(|t| t.expose()).into_iter().collect();
            let said = crate::domain::text::redact(error["message"].as_str().unwrap_or("(no message)"), &secrets);
            let message = format!("{method}: {code}: {said}");
            return Err(match code {
                TASK_NOT_FOUND => RemoteError::RunNotSuspended(message),
                // A task in a terminal state takes no more messages.
                UNSUPPORTED_OPERATION if method == "SendMessage" => RemoteError::CallNotSuspended(message),
                METHOD_NOT_FOUND | VERSION_NOT_SUPPORTED => RemoteError::Incompatible(message),
                _ => RemoteError::Refused(message),
            });
        }
        match answer.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(RemoteError::Incompatible(format!("{method}: a JSON-RPC answer with neither result nor error"))),
        }
    }

    /// A request's JSON answer; each failure classified.
    async fn request(&self, method: Method, url: Url, token: Option<&ApiKey>, body: Option<&Value>) -> Result<Value, RemoteError> {
        let what = format!("{method} {}", url.path());
        let mut request = self.http.request(method, url).header("A2A-Version", VERSION);
        if let Some(token) = token {
            request = request.bearer_auth(token.expose());
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| RemoteError::Unreachable(format!("{what}: {}", describe(&e))))?;
        let status = response.status();
        let bytes = read_limited(response).await.map_err(|e| RemoteError::Unreachable(format!("{what}: {e}")))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| RemoteError::Incompatible(format!("{what} answered malformed JSON: {e}")));
        }
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).into_owned();
        let secrets: Vec<&str> = token.map(|t| t.expose()).into_iter().collect();
        let message = crate::domain::text::redact(&format!("{what}: {status}: {text}"), &secrets);
        Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => RemoteError::Auth(message),
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED | StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                RemoteError::Incompatible(message)
            }
            s if s.is_server_error() => RemoteError::Unreachable(message),
            _ => RemoteError::Refused(message),
        })
    }
}

/// The card's name and its JSON-RPC 1.x interface, which must be on `base`'s origin.
pub fn endpoint_of(base: &Url, card: &Value) -> Result<Card, RemoteError> {
    let name = card["name"].as_str().filter(|n| !n.trim().is_empty()).unwrap_or("agent").to_owned();
    let interfaces = card["supportedInterfaces"].as_array().cloned().unwrap_or_default();
    let jsonrpc = interfaces.iter().find(|i| {
        i["protocolBinding"].as_str().is_some_and(|b| b.eq_ignore_ascii_case("JSONRPC"))
            && i["protocolVersion"].as_str().is_some_and(|v| v == VERSION || v.starts_with("1."))
    });
    let Some(interface) = jsonrpc else {
        let offered: Vec<String> = interfaces
            .iter()
            .map(|i| format!("{} {}", i["protocolBinding"].as_str().unwrap_or("?"), i["protocolVersion"].as_str().unwrap_or("?")))
            .collect();
        let offered = if offered.is_empty() { "none (an A2A 0.3 card?)".to_owned() } else { offered.join(", ") };
        return Err(RemoteError::Incompatible(format!(
            "agent {name:?} offers no JSON-RPC interface of A2A {VERSION} (it offers: {offered})"
        )));
    };
    let url = interface["url"].as_str().unwrap_or_default();
    let endpoint = base.join(url).map_err(|e| RemoteError::Incompatible(format!("agent {name:?}: its JSON-RPC URL {url:?}: {e}")))?;
    if endpoint.origin() != base.origin() {
        return Err(RemoteError::Incompatible(format!(
            "agent {name:?} names its JSON-RPC endpoint on another origin ({}) than the engine's URL ({}): not used, the token goes only to the URL it was given for",
            endpoint.origin().ascii_serialization(),
            base.origin().ascii_serialization()
        )));
    }
    Ok(Card { name, endpoint })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("http://127.0.0.1:4000").unwrap()
    }

    #[test]
    fn the_json_rpc_interface_of_version_one_is_taken_on_the_same_origin_only() {
        let card = json!({ "name": "refund-agent", "supportedInterfaces": [
            { "url": "http://127.0.0.1:4000/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0" },
            { "url": "http://127.0.0.1:4000/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }] });
        let c = endpoint_of(&base(), &card).unwrap();
        assert_eq!((c.name.as_str(), c.endpoint.as_str()), ("refund-agent", "http://127.0.0.1:4000/a2a/jsonrpc"));

        let elsewhere = json!({ "name": "x", "supportedInterfaces": [
            { "url": "http://evil.example:4000/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }] });
        let e = endpoint_of(&base(), &elsewhere).unwrap_err();
        assert!(matches!(&e, RemoteError::Incompatible(m) if m.contains("another origin")), "{e:?}");
    }

    #[test]
    fn a_card_without_a_json_rpc_interface_of_version_one_is_incompatible() {
        let old = json!({ "name": "x", "url": "http://127.0.0.1:4000/", "protocolVersion": "0.3.0" });
        let e = endpoint_of(&base(), &old).unwrap_err();
        assert!(matches!(&e, RemoteError::Incompatible(m) if m.contains("0.3")), "{e:?}");
        let v03 = json!({ "name": "x", "supportedInterfaces": [
            { "url": "http://127.0.0.1:4000/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3" }] });
        assert!(matches!(endpoint_of(&base(), &v03), Err(RemoteError::Incompatible(_))));
    }
}
