//! [`OpenAiCompatible`]: a [`Model`] over OpenAI's chat completions API with tool calling, as served
//! by OpenAI, Ollama (`/v1`), vLLM, llama.cpp's server, LM Studio and OpenRouter.
//!
//! One step is one `POST {base_url}/chat/completions`, streamed (SSE) or not. The whole turn is
//! assembled before it is returned: the engine sees a [`ModelTurn`], never a half-received answer.
//!
//! Failures (all `Error::Engine`, HTTP 502 through the API, each message naming the model):
//! - retried, with exponential backoff and jitter, at most `max_retries` times: connection failures,
//!   HTTP 408, 429 (waiting what `Retry-After`/`retry-after-ms` asks, capped) and 5xx;
//! - not retried: 401/403 (the key is refused or missing; the provider's text is left out since it
//!   may quote the key), 404 (unknown model, or no endpoint at `base_url`), other 4xx (the provider's
//!   message is shown), 429 `insufficient_quota`, a timeout, a malformed answer (not JSON, no
//!   `choices[0]`, an SSE stream that ends without `finish_reason` or `[DONE]`, a stream that breaks
//!   off or stalls): the provider has already done (and billed) the work, and a stalled local server
//!   rarely recovers within a retry;
//! - tool call arguments that are not valid JSON end the run with an error naming the tool and
//!   quoting the first 200 characters. Handing the model an error instead would need a tool result
//!   for a call that never ran, which the run loop does not have; a model that sends broken JSON is
//!   usually cut off at `max_tokens`, which the message then says. So do arguments with a number
//!   their fingerprint cannot bind (exact fingerprints: an integer no double equals, a decimal not
//!   written as its double's shortest form), the message naming the tool and each JSON Pointer.
//!
//! The API key never appears in an error, a log line or `Debug` output (see [`ApiKey`]).

mod wire;

use super::sse::SseDecoder;
use super::ApiKey;
use crate::domain::{inexact_numbers, read_exact, Error, ReadError};
use crate::engine::local::agent::{Message, Model, ModelTurn, ProposedCall, ToolSpec};
use async_trait::async_trait;
use futures::StreamExt;
use rand::Rng;
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use wire::*;

/// The longest backoff between two attempts when the provider does not say how long to wait.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How much of a bad answer or bad arguments an error message quotes.
const QUOTE: usize = 200;

/// Settings of one OpenAI-compatible model, as an agents file will hold them (TOML/JSON). Unknown
/// fields are refused, so a key written by mistake into the file (`api_key = "sk-…"`) is an error,
/// not a secret silently kept in a config file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiConfig {
    /// The API root, up to and including the version: `https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:8000/v1` (vLLM),
    /// `http://127.0.0.1:8080/v1` (llama.cpp), `http://127.0.0.1:1234/v1` (LM Studio),
    /// `https://openrouter.ai/api/v1`.
    pub base_url: String,
    /// The model name the server knows (`gpt-4o-mini`, `llama3.1:8b`, …).
    pub model: String,
    /// First half of [`Model::id`] (`provider/model`).
    #[serde(default = "default_provider")]
    pub provider: String,
    /// The name of the OS keyring entry holding the API key; `None` for servers that need no key.
    /// Only this reference is ever stored in a config file: the key itself reaches
    /// [`OpenAiCompatible::new`] as an [`ApiKey`] value, read from the keyring by the caller.
    #[serde(default)]
    pub api_key_ref: Option<String>,
    /// Ask for an SSE stream (`stream: true`). Default true.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Time to set up a connection (TCP + TLS). Default 10.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_secs: u64,
    /// Time for one whole attempt, from sending the request to the last byte of the answer. Default
    /// 600 (local models on a CPU are slow).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Streaming: the longest silence between two pieces of the stream. Default 60.
    #[serde(default = "default_stall_timeout")]
    pub stall_timeout_secs: u64,
    /// Retries after the first attempt (so at most `max_retries + 1` requests). Default 3.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// First backoff; doubled at each retry, up to 30 s, each with random jitter (50–100 %). Default 500.
    #[serde(default = "default_retry_base_ms")]
    pub retry_base_ms: u64,
    /// The longest wait a `Retry-After` answer is honoured for; longer asks wait this long. Default 60.
    #[serde(default = "default_retry_after_cap")]
    pub retry_after_cap_secs: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

fn default_provider() -> String {
    "openai-compatible".into()
}
fn default_true() -> bool {
    true
}
fn default_connect_timeout() -> u64 {
    10
}
fn default_timeout() -> u64 {
    600
}
fn default_stall_timeout() -> u64 {
    60
}
fn default_max_retries() -> u32 {
    3
}
fn default_retry_base_ms() -> u64 {
    500
}
fn default_retry_after_cap() -> u64 {
    60
}

impl OpenAiConfig {
    /// The defaults for a server and a model.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            provider: default_provider(),
            api_key_ref: None,
            stream: true,
            connect_timeout_secs: default_connect_timeout(),
            timeout_secs: default_timeout(),
            stall_timeout_secs: default_stall_timeout(),
            max_retries: default_max_retries(),
            retry_base_ms: default_retry_base_ms(),
            retry_after_cap_secs: default_retry_after_cap(),
            temperature: None,
            max_tokens: None,
        }
    }
}

/// A model behind an OpenAI-compatible chat completions endpoint. Cheap to share (`Arc<dyn Model>`);
/// holds one connection pool.
#[derive(Debug)]
pub struct OpenAiCompatible {
    config: OpenAiConfig,
    api_key: Option<ApiKey>,
    http: reqwest::Client,
    /// `{base_url}/chat/completions`.
    url: reqwest::Url,
    /// `base_url` without any user info, for messages.
    shown_url: String,
}

/// One attempt's failure: worth another attempt, or final.
#[derive(Debug)]
enum Failure {
    Retry { message: String, retry_after: Option<Duration> },
    Fatal(String),
}

impl OpenAiCompatible {
    /// A model for `config`, sending `api_key` (if any) as `Authorization: Bearer`. Fails on a
    /// `base_url` that is not an http(s) URL or an empty model name; makes no request.
    pub fn new(config: OpenAiConfig, api_key: Option<ApiKey>) -> Result<Self, Error> {
        let base = reqwest::Url::parse(config.base_url.trim_end_matches('/'))
            .map_err(|e| Error::InvalidRequest(format!("base_url {:?} is not a URL: {e}", config.base_url)))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(Error::InvalidRequest(format!("base_url {:?} must be http or https", config.base_url)));
        }
        if config.model.trim().is_empty() {
            return Err(Error::InvalidRequest("model must not be empty".into()));
        }
        let url = reqwest::Url::parse(&format!("{}/chat/completions", base.as_str().trim_end_matches('/')))
            .map_err(|e| Error::InvalidRequest(format!("base_url {:?}: {e}", config.base_url)))?;
        let mut shown = base.clone();
        let _ = shown.set_username("");
        let _ = shown.set_password(None);
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(config.connect_timeout_secs.max(1)))
            .user_agent(concat!("approval-console/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Engine(format!("cannot build the HTTP client: {e}")))?;
        let shown_url = shown.as_str().trim_end_matches('/').to_owned();
        Ok(Self { config, api_key: api_key.filter(|k| !k.expose().is_empty()), http, url, shown_url })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The JSON body of a chat completions request for this conversation and these tools.
    pub fn request_body(&self, messages: &[Message], tools: &[ToolSpec]) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": messages.iter().map(wire_message).collect::<Vec<_>>(),
            "stream": self.config.stream,
        });
        if !tools.is_empty() {
            body["tools"] = tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}))
                .collect();
            body["tool_choice"] = json!("auto");
        }
        if let Some(t) = self.config.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = self.config.max_tokens {
            body["max_tokens"] = json!(n);
        }
        body
    }

    /// Every message names the model and the server, and never holds the key.
    fn error(&self, message: &str) -> Error {
        let text = format!("model {} at {}: {message}", self.id(), self.shown_url);
        Error::Engine(match &self.api_key {
            Some(key) => key.redact(&text),
            None => text,
        })
    }

    fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(Duration::from_secs(self.config.retry_after_cap_secs));
        }
        let full = Duration::from_millis(self.config.retry_base_ms).saturating_mul(1u32 << retry.min(16)).min(MAX_BACKOFF);
        full.mul_f64(rand::thread_rng().gen_range(0.5..=1.0))
    }

    async fn attempt(&self, body: &Value) -> Result<ModelTurn, Failure> {
        let mut request = self.http.post(self.url.clone()).timeout(Duration::from_secs(self.config.timeout_secs.max(1))).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() && !e.is_connect() => {
                return Err(Failure::Fatal(format!("no answer within {} s (timeout_secs)", self.config.timeout_secs)))
            }
            Err(e) => return Err(Failure::Retry { message: format!("cannot reach the server: {}", chain(&e)), retry_after: None }),
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let text = response.text().await.unwrap_or_default();
            return Err(self.status_failure(status, &text, retry_after));
        }
        let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        if content_type.starts_with("text/event-stream") {
            return self.read_stream(response).await;
        }
        // Non-streaming, or a server that ignored `stream: true` and answered in one piece.
        let bytes = match response.bytes().await {
            Ok(b) => b,
            Err(e) if e.is_timeout() => {
                return Err(Failure::Fatal(format!("no complete answer within {} s (timeout_secs)", self.config.timeout_secs)))
            }
            Err(e) => return Err(Failure::Retry { message: format!("the answer broke off: {}", chain(&e)), retry_after: None }),
        };
        parse_completion(&bytes, &content_type).map_err(Failure::Fatal)
    }

    fn status_failure(&self, status: StatusCode, body: &str, retry_after: Option<Duration>) -> Failure {
        let (message, code) = provider_message(body);
        let code = code.unwrap_or_default();
        let shown = format!("HTTP {}", status.as_u16());
        match status.as_u16() {
            401 | 403 => Failure::Fatal(match &self.api_key {
                None => format!("the server refused the request ({shown}): no API key is configured for this model"),
                Some(_) => format!(
                    "the server refused the API key ({shown}): the key is wrong, expired, or has no access to model {:?}",
                    self.config.model
                ),
            }),
            404 if message.to_ascii_lowercase().contains("model") || code == "model_not_found" => {
                Failure::Fatal(format!("model {:?} is unknown to the server ({shown}): {message}", self.config.model))
            }
            404 => Failure::Fatal(format!(
                "no chat completions endpoint at {} ({shown}: {message}); check base_url (OpenAI-compatible servers usually serve under /v1)",
                self.url
            )),
            _ if code == "model_not_found" => {
                Failure::Fatal(format!("model {:?} is unknown to the server ({shown}): {message}", self.config.model))
            }
            429 if code == "insufficient_quota" => Failure::Fatal(format!("the account has no quota left ({shown}): {message}")),
            429 => Failure::Retry { message: format!("rate limited ({shown}): {message}"), retry_after },
            408 => Failure::Retry { message: format!("the server timed out ({shown}): {message}"), retry_after },
            500..=599 => Failure::Retry { message: format!("the server failed ({shown}): {message}"), retry_after },
            400..=499 => Failure::Fatal(format!("the server rejected the request ({shown}): {message}")),
            _ => Failure::Fatal(format!("unexpected answer ({shown}): {message}")),
        }
    }

    async fn read_stream(&self, response: reqwest::Response) -> Result<ModelTurn, Failure> {
        let stall = Duration::from_secs(self.config.stall_timeout_secs.max(1));
        let mut body = response.bytes_stream();
        let mut decoder = SseDecoder::default();
        let mut turn = StreamedTurn::default();
        'read: loop {
            let bytes = match tokio::time::timeout(stall, body.next()).await {
                Err(_) => {
                    return Err(Failure::Fatal(format!(
                        "the stream stalled: nothing for {} s (stall_timeout_secs) after {} events",
                        stall.as_secs(),
                        turn.events
                    )))
                }
                Ok(None) => break,
                Ok(Some(Ok(bytes))) => bytes,
                Ok(Some(Err(e))) if e.is_timeout() => {
                    return Err(Failure::Fatal(format!(
                        "the stream did not finish within {} s (timeout_secs), after {} events",
                        self.config.timeout_secs, turn.events
                    )))
                }
                Ok(Some(Err(e))) => {
                    return Err(Failure::Fatal(format!("the stream broke off after {} events: {}", turn.events, chain(&e))))
                }
            };
            for data in decoder.push(&bytes).map_err(Failure::Fatal)? {
                if turn.event(&data).map_err(Failure::Fatal)? {
                    break 'read;
                }
            }
        }
        if !turn.done {
            if let Some(data) = decoder.finish().map_err(Failure::Fatal)? {
                turn.event(&data).map_err(Failure::Fatal)?;
            }
        }
        turn.into_turn().map_err(Failure::Fatal)
    }
}

#[async_trait]
impl Model for OpenAiCompatible {
    fn id(&self) -> String {
        format!("{}/{}", self.config.provider, self.config.model)
    }

    async fn step(&self, messages: &[Message], tools: &[ToolSpec]) -> Result<ModelTurn, Error> {
        self.complete(&self.request_body(messages, tools)).await
    }

    /// Structured output (`response_format: json_schema`): the data the schema asks for, taken from
    /// the conversation. Servers that ignore `response_format` still usually answer JSON when told to
    /// by the instruction; a fenced answer (```json … ```) is accepted too.
    async fn extract(&self, messages: &[Message], schema: &Value) -> Result<Value, Error> {
        let mut with_instruction = vec![Message::System {
            content: format!(
                "Extract from the user's last message the data described by this JSON Schema and answer with that JSON only, nothing else:\n{schema}"
            ),
        }];
        with_instruction.extend(messages.iter().filter(|m| !matches!(m, Message::System { .. })).cloned());
        let mut body = self.request_body(&with_instruction, &[]);
        body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "data", "schema": schema, "strict": false}});
        let turn = self.complete(&body).await?;
        let text = turn.text.trim();
        let text =
            text.strip_prefix("```json").or_else(|| text.strip_prefix("```")).map(|t| t.trim_end().trim_end_matches("```")).unwrap_or(text);
        serde_json::from_str(text.trim()).map_err(|e| {
            let quoted: String = turn.text.chars().take(QUOTE).collect();
            self.error(&format!("structured output is not JSON ({e}): {quoted:?}"))
        })
    }
}

impl OpenAiCompatible {
    /// One completion, with retries on 429 / 5xx / connection failures.
    async fn complete(&self, body: &Value) -> Result<ModelTurn, Error> {
        let mut retry = 0;
        loop {
            match self.attempt(body).await {
                Ok(turn) => return Ok(turn),
                Err(Failure::Fatal(message)) if retry == 0 => return Err(self.error(&message)),
                Err(Failure::Fatal(message)) => {
                    return Err(self.error(&format!("{message} (attempt {} of {})", retry + 1, self.config.max_retries + 1)))
                }
                Err(Failure::Retry { message, .. }) if retry >= self.config.max_retries => {
                    return Err(self.error(&format!("{message} (gave up after {} attempts)", retry + 1)))
                }
                Err(Failure::Retry { message, retry_after }) => {
                    let wait = self.backoff(retry, retry_after);
                    let e = self.error(&message);
                    tracing::warn!(model = %self.id(), wait_ms = wait.as_millis() as u64, "{e}; retry {} of {}", retry + 1, self.config.max_retries);
                    tokio::time::sleep(wait).await;
                    retry += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_files_fill_defaults_and_refuse_a_key_written_into_them() {
        let config: OpenAiConfig = serde_json::from_value(json!({"base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1"})).unwrap();
        assert_eq!(config, OpenAiConfig::new("http://127.0.0.1:11434/v1", "llama3.1"));
        assert!(config.stream);
        let err = serde_json::from_value::<OpenAiConfig>(json!({"base_url": "x", "model": "m", "api_key": "sk-secret-123"})).unwrap_err();
        assert!(err.to_string().contains("unknown field `api_key`"), "{err}");
        assert!(!err.to_string().contains("sk-secret-123"));
    }

    #[test]
    fn provider_messages_are_found_in_the_usual_error_shapes() {
        assert_eq!(
            provider_message(r#"{"error":{"message":"bad","code":"model_not_found"}}"#),
            ("bad".into(), Some("model_not_found".into()))
        );
        assert_eq!(provider_message(r#"{"error":"model 'x' not found"}"#).0, "model 'x' not found");
        assert_eq!(provider_message(r#"{"detail":"nope"}"#).0, "nope");
        assert_eq!(provider_message("  ").0, "no details given");
        assert_eq!(provider_message(&"x".repeat(500)).0.chars().count(), QUOTE + 1);
    }

    #[test]
    fn retry_after_is_read_in_seconds_milliseconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        let at = (chrono::Utc::now() + chrono::Duration::seconds(30)).to_rfc2822().replace("+0000", "GMT");
        h.insert("retry-after", at.parse().unwrap());
        let wait = retry_after(&h).unwrap();
        assert!(wait > Duration::from_secs(25) && wait <= Duration::from_secs(30), "{wait:?}");
    }

    #[test]
    fn backoff_doubles_with_jitter_and_honours_a_capped_retry_after() {
        let mut config = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        config.retry_base_ms = 100;
        config.retry_after_cap_secs = 5;
        let model = OpenAiCompatible::new(config, None).unwrap();
        for retry in 0..3 {
            let full = Duration::from_millis(100 << retry);
            let wait = model.backoff(retry, None);
            assert!(wait >= full / 2 && wait <= full, "retry {retry}: {wait:?}");
        }
        assert_eq!(model.backoff(20, None).max(MAX_BACKOFF), MAX_BACKOFF);
        assert_eq!(model.backoff(0, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(model.backoff(0, Some(Duration::from_secs(3600))), Duration::from_secs(5));
    }

    #[test]
    fn arguments_with_a_number_their_fingerprint_cannot_bind_fail_the_turn_naming_the_tool_and_each_pointer() {
        let err = parse_arguments("pay", r#"{"user_id": 1152921504606846977, "rate": 0.10000000000000001}"#, "tool_calls").unwrap_err();
        assert!(err.contains("pay") && err.contains("/user_id, /rate"), "{err}");
        assert_eq!(parse_arguments("pay", r#"{"user_id": 1152921504606846976, "rate": 0.1}"#, "tool_calls").unwrap()["rate"], json!(0.1));
        // Sent as an object: what the parsed answer still holds, its integers.
        let answer = br#"{"choices":[{"finish_reason":"tool_calls","message":{"tool_calls":[{"id":"c1","function":{"name":"pay","arguments":{"n":9007199254740993}}}]}}]}"#;
        let err = parse_completion(answer, "application/json").unwrap_err();
        assert!(err.contains("pay") && err.contains("/n"), "{err}");
        let mut stream = StreamedTurn::default();
        stream.event(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"pay","arguments":"{\"n\": 1e400}"}}]},"finish_reason":"tool_calls"}]}"#).unwrap();
        assert!(stream.into_turn().unwrap_err().contains("/n"));
    }

    #[test]
    fn arguments_that_are_empty_mean_no_arguments_and_broken_ones_are_quoted() {
        assert_eq!(parse_arguments("t", " ", "stop").unwrap(), json!({}));
        let err = parse_arguments("delete_record", &format!("{{\"id\": \"{}", "x".repeat(300)), "length").unwrap_err();
        assert!(err.contains("delete_record") && err.contains("token limit"), "{err}");
        assert!(err.len() < 450, "{err}");
    }
}
