//! The chat completions wire format: messages sent, answers and streamed fragments read.

use super::*;

/// A message in OpenAI's wire format.
pub(super) fn wire_message(message: &Message) -> Value {
    match message {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant { content, tool_calls } if tool_calls.is_empty() => json!({"role": "assistant", "content": content}),
        Message::Assistant { content, tool_calls } => json!({
            "role": "assistant",
            // OpenAI wants `null`, not `""`, next to tool calls; some servers refuse an empty string.
            "content": if content.is_empty() { Value::Null } else { json!(content) },
            "tool_calls": tool_calls.iter().map(|c| json!({
                "id": c.tool_call_id,
                "type": "function",
                "function": {"name": c.tool_name, "arguments": c.args.to_string()},
            })).collect::<Vec<_>>(),
        }),
        Message::Tool { tool_call_id, content, .. } => json!({
            "role": "tool",
            "tool_call_id": tool_call_id,
            "content": match content { Value::String(s) => s.clone(), other => other.to_string() },
        }),
    }
}

/// The provider's error text and code from an error body: `{"error": {"message", "code"}}`
/// (OpenAI, vLLM, OpenRouter, Ollama), `{"error": "…"}` (llama.cpp, older Ollama), `{"message"}`,
/// `{"detail"}` (FastAPI servers); else the body itself, shortened.
pub(super) fn provider_message(body: &str) -> (String, Option<String>) {
    let text = |v: &Value| v.as_str().map(str::to_owned).filter(|s| !s.is_empty());
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        let error = &v["error"];
        let code = text(&error["code"]).or_else(|| text(&error["type"])).or_else(|| text(&v["code"]));
        let message = text(&error["message"])
            .or_else(|| text(error))
            .or_else(|| text(&v["message"]))
            .or_else(|| text(&v["detail"]))
            .or_else(|| (!v["detail"].is_null()).then(|| v["detail"].to_string()));
        if let Some(message) = message {
            return (message, code);
        }
    }
    let body = body.trim();
    (if body.is_empty() { "no details given".into() } else { quote(body) }, None)
}

/// `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some((at.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().unwrap_or(Duration::ZERO))
}

/// An error and its causes (`reqwest`'s own message alone says little: "error sending request").
pub(super) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// The first [`QUOTE`] characters, marked when cut.
pub(super) fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A non-streamed answer: `choices[0].message.{content, tool_calls}`.
pub(super) fn parse_completion(bytes: &[u8], content_type: &str) -> Result<ModelTurn, String> {
    let shown = || quote(String::from_utf8_lossy(bytes).trim());
    let v: Value = serde_json::from_slice(bytes).map_err(|e| {
        let ct = if content_type.is_empty() { "none" } else { content_type };
        format!("the answer is not JSON ({e}; content-type {ct}): {}", shown())
    })?;
    if !v["error"].is_null() {
        return Err(format!("the server answered with an error: {}", provider_message(&v.to_string()).0));
    }
    let choice = v["choices"].get(0).ok_or_else(|| format!("the answer has no choices[0]: {}", shown()))?;
    let message =
        choice.get("message").filter(|m| m.is_object()).ok_or_else(|| format!("choices[0] of the answer has no message: {}", shown()))?;
    let finish = choice["finish_reason"].as_str().unwrap_or_default();
    let mut calls = Vec::new();
    if let Some(list) = message["tool_calls"].as_array() {
        for (i, c) in list.iter().enumerate() {
            let name = c["function"]["name"].as_str().filter(|n| !n.is_empty());
            let name = name.ok_or_else(|| format!("tool call {i} of the answer has no function name: {}", quote(&c.to_string())))?;
            let args = match &c["function"]["arguments"] {
                Value::String(s) => parse_arguments(name, s, finish)?,
                Value::Null => json!({}),
                other => object_arguments(name, other)?,
            };
            calls.push(proposed(c["id"].as_str(), name, args));
        }
    }
    Ok(ModelTurn { text: content_text(&message["content"]), tool_calls: calls })
}

/// `content` as a string, or the text parts of a content array.
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

pub(super) fn proposed(id: Option<&str>, name: &str, args: Value) -> ProposedCall {
    let tool_call_id = match id.filter(|i| !i.is_empty()) {
        Some(id) => id.to_owned(),
        // Some servers (older Ollama, some llama.cpp builds) send no id; the run needs one per call.
        None => format!("call_{}", uuid::Uuid::now_v7().simple()),
    };
    ProposedCall { tool_call_id, tool_name: name.to_owned(), args }
}

/// The arguments string of a tool call: JSON, `""` meaning `{}`. Its numbers are judged on this
/// text (exact fingerprints): one the fingerprint cannot bind fails the turn as broken JSON does.
pub(super) fn parse_arguments(name: &str, arguments: &str, finish_reason: &str) -> Result<Value, String> {
    if arguments.trim().is_empty() {
        return Ok(json!({}));
    }
    match read_exact(arguments) {
        Ok(Value::Null) => Ok(json!({})),
        Ok(v) => Ok(v),
        Err(ReadError::Inexact(paths)) => Err(inexact(name, &paths)),
        Err(ReadError::Json(e)) => Err(format!(
            "the model sent arguments for tool {name} that are not valid JSON ({e}){}: {}",
            if finish_reason == "length" { "; the answer was cut off at the token limit (finish_reason \"length\")" } else { "" },
            quote(arguments)
        )),
    }
}

/// Arguments a server sent as an object rather than a string: parsed with the answer already, so
/// only their integers can still be judged ([`inexact_numbers`]).
pub(super) fn object_arguments(name: &str, arguments: &Value) -> Result<Value, String> {
    let paths = inexact_numbers(arguments);
    if !paths.is_empty() {
        return Err(inexact(name, &paths));
    }
    Ok(arguments.clone())
}

fn inexact(name: &str, paths: &[String]) -> String {
    format!(
        "the model sent arguments for tool {name} with numbers an IEEE double cannot carry exactly at {}: an integer no double equals or a decimal not written as its double's shortest form has the fingerprint of its neighbours, so the call cannot be shown for approval (such a number goes as a string)",
        paths.join(", ")
    )
}

/// A tool call being put together from stream fragments.
#[derive(Debug, Default)]
pub(super) struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    /// Servers that send `arguments` as an object rather than a string.
    object: Option<Value>,
}

/// What the stream said so far.
#[derive(Debug, Default)]
pub(super) struct StreamedTurn {
    text: String,
    calls: BTreeMap<u64, PartialCall>,
    finish_reason: Option<String>,
    pub(super) done: bool,
    pub(super) events: usize,
}

impl StreamedTurn {
    /// One event's data; true at `[DONE]`.
    pub(super) fn event(&mut self, data: &str) -> Result<bool, String> {
        self.events += 1;
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| format!("stream event {} is not JSON ({e}): {}", self.events, quote(data)))?;
        if !chunk["error"].is_null() {
            return Err(format!("the server reported an error in the stream: {}", provider_message(data).0));
        }
        // Chunks without choices (usage, keep-alive objects) carry nothing for the turn.
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.iter().find(|c| c["index"].as_u64().unwrap_or(0) == 0)) else {
            return Ok(false);
        };
        let delta = &choice["delta"];
        self.text.push_str(&content_text(&delta["content"]));
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            self.fragment(fragment);
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(false)
    }

    /// `index`, `id` and `function.name` come in a call's first fragment, `function.arguments` in
    /// pieces over many; fragments of parallel calls interleave, told apart by `index`.
    pub(super) fn fragment(&mut self, fragment: &Value) {
        let id = fragment["id"].as_str().unwrap_or_default();
        let index = match fragment["index"].as_u64() {
            Some(i) => i,
            // No index (a few servers send each call whole): a new id is a new call, else the last one.
            None => match self.calls.iter().find(|(_, c)| !id.is_empty() && c.id == id) {
                Some((i, _)) => *i,
                None if id.is_empty() && !self.calls.is_empty() => *self.calls.keys().next_back().expect("not empty"),
                None => self.calls.keys().next_back().map_or(0, |i| i + 1),
            },
        };
        let call = self.calls.entry(index).or_default();
        if call.id.is_empty() {
            call.id = id.to_owned();
        }
        if let Some(name) = fragment["function"]["name"].as_str() {
            // Some servers repeat the whole name in every fragment; OpenAI sends it once.
            if call.name != name {
                call.name.push_str(name);
            }
        }
        match &fragment["function"]["arguments"] {
            Value::String(piece) => call.arguments.push_str(piece),
            Value::Null => {}
            other => call.object = Some(other.clone()),
        }
    }

    pub(super) fn into_turn(self) -> Result<ModelTurn, String> {
        if !self.done && self.finish_reason.is_none() {
            let mut what =
                format!("the stream ended before the answer was complete (no finish_reason and no [DONE]) after {} events", self.events);
            if !self.text.is_empty() || !self.calls.is_empty() {
                what.push_str(&format!(
                    "; received {} characters of text and {} partial tool calls",
                    self.text.chars().count(),
                    self.calls.len()
                ));
            }
            return Err(what);
        }
        let finish = self.finish_reason.as_deref().unwrap_or_default();
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in self.calls {
            if call.name.is_empty() {
                return Err(format!("streamed tool call {index} has no function name (id {:?})", call.id));
            }
            let args = match call.object {
                Some(object) if call.arguments.is_empty() => object_arguments(&call.name, &object)?,
                _ => parse_arguments(&call.name, &call.arguments, finish)?,
            };
            tool_calls.push(proposed(Some(&call.id), &call.name, args));
        }
        Ok(ModelTurn { text: self.text, tool_calls })
    }
}
