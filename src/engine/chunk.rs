//! Mastra's stream chunk shapes: `{type, runId, from: "AGENT", payload}`.

use crate::domain::RunId;
use serde_json::{json, Value};

/// The resume schema Mastra sends with `tool-call-approval`: a JSON Schema, as a string.
pub const APPROVAL_RESUME_SCHEMA: &str = r#"{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}"#;

/// One chunk.
pub fn chunk(kind: &str, run_id: &RunId, payload: Value) -> Value {
    json!({ "type": kind, "runId": run_id, "from": "AGENT", "payload": payload })
}

/// What a `/generate`-style answer holds, folded from the chunks of a run.
#[derive(Debug, Default, Clone)]
pub struct Folded {
    /// The run the chunks are of (the first chunk's `runId`).
    pub run_id: Option<String>,
    pub text: String,
    pub finish_reason: Option<String>,
    pub suspend_payload: Option<Value>,
    pub tool_calls: Vec<Value>,
    pub tool_results: Vec<Value>,
    pub error: Option<String>,
}

impl Folded {
    /// Adds one chunk.
    pub fn push(&mut self, chunk: &Value) {
        if self.run_id.is_none() {
            self.run_id = chunk["runId"].as_str().map(str::to_owned);
        }
        let payload = &chunk["payload"];
        match chunk["type"].as_str().unwrap_or_default() {
            "text-delta" => self.text.push_str(payload["text"].as_str().unwrap_or_default()),
            "tool-call" => self.tool_calls.push(payload.clone()),
            "tool-result" => self.tool_results.push(payload.clone()),
            "tool-call-approval" | "tool-call-suspended" if self.suspend_payload.is_none() => {
                self.finish_reason = Some("suspended".into());
                self.suspend_payload = Some(payload.clone());
            }
            "finish" => self.finish_reason = payload["stepResult"]["reason"].as_str().map(str::to_owned).or(Some("stop".into())),
            "error" => self.error = payload["error"]["message"].as_str().map(str::to_owned),
            _ => {}
        }
    }

    /// Mastra's `/generate` answer.
    pub fn into_generate_answer(self, run_id: &RunId) -> Value {
        let mut answer = json!({
            "text": self.text,
            "finishReason": self.finish_reason.unwrap_or_else(|| "stop".into()),
            "runId": self.run_id.as_deref().unwrap_or(run_id.as_str()),
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
        });
        if let Some(p) = self.suspend_payload {
            answer["suspendPayload"] = p;
        }
        if let Some(e) = self.error {
            answer["error"] = json!({ "message": e });
        }
        answer
    }
}
