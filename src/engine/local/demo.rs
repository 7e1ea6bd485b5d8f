//! The embedded demo agent (`demo`): a deterministic scripted model and three tools. Needs no API key;
//! it is the out-of-the-box default and says so in its name and instructions.

use super::agent::{Agent, Message, Model, ModelTurn, ProposedCall, Tool, ToolOutput, ToolSpec};
use crate::domain::{AgentId, Error};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::Arc;

/// The demo agent with the scripted model and its tools.
pub fn agent() -> Agent {
    Agent {
        id: AgentId::new("demo"),
        name: "Demo agent (scripted, no model)".into(),
        instructions: "DEMO: a scripted model, not a language model. Say `delete <id>`, `ask <question>`, \
                       `lookup <id>` or `both <id>`."
            .into(),
        model: Arc::new(DemoModel),
        tools: vec![Arc::new(DeleteRecord), Arc::new(AskOperator), Arc::new(LookupRecord)],
        approval_rules: None,
        memory: true,
    }
}

/// Reads the last user message: `delete <id>` → delete_record; `ask <text>` → ask_operator;
/// `lookup <id>` → lookup_record; `both <id>` → lookup_record and delete_record in one step. Once
/// tool results are in, it answers with a text naming each result.
pub struct DemoModel;

fn last_user_index(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(|m| matches!(m, Message::User { .. }))
}

#[async_trait]
impl Model for DemoModel {
    fn id(&self) -> String {
        "demo/scripted".into()
    }

    async fn step(&self, messages: &[Message], _tools: &[ToolSpec]) -> Result<ModelTurn, Error> {
        let Some(at) = last_user_index(messages) else {
            return Ok(ModelTurn {
                text: "Say `delete <id>`, `ask <question>`, `lookup <id>` or `both <id>`.".into(),
                ..Default::default()
            });
        };
        let results: Vec<String> = messages[at..]
            .iter()
            .filter_map(|m| match m {
                Message::Tool { tool_name, content, .. } => {
                    Some(format!("{tool_name}: {}", content.as_str().map(str::to_owned).unwrap_or_else(|| content.to_string())))
                }
                _ => None,
            })
            .collect();
        if !results.is_empty() {
            return Ok(ModelTurn { text: format!("Done. {}", results.join("; ")), ..Default::default() });
        }
        let Message::User { content } = &messages[at] else { unreachable!() };
        let calls_so_far: usize =
            messages.iter().map(|m| if let Message::Assistant { tool_calls, .. } = m { tool_calls.len() } else { 0 }).sum();
        let call = |n: usize, name: &str, args: Value| ProposedCall {
            tool_call_id: format!("call_{}", calls_so_far + n),
            tool_name: name.into(),
            args,
        };
        let text = content.trim();
        let (verb, rest) = text.split_once(char::is_whitespace).map(|(v, r)| (v, r.trim())).unwrap_or((text, ""));
        let tool_calls = match verb.to_ascii_lowercase().as_str() {
            "delete" => vec![call(1, "delete_record", json!({ "id": rest }))],
            "ask" => vec![call(1, "ask_operator", json!({ "question": rest }))],
            "lookup" => vec![call(1, "lookup_record", json!({ "id": rest }))],
            "both" => vec![call(1, "lookup_record", json!({ "id": rest })), call(2, "delete_record", json!({ "id": rest }))],
            _ => {
                return Ok(ModelTurn {
                    text: format!("(demo) I only understand `delete <id>`, `ask <question>`, `lookup <id>`, `both <id>`; got {text:?}."),
                    ..Default::default()
                })
            }
        };
        Ok(ModelTurn { text: String::new(), tool_calls })
    }

    /// Fills a schema's one required string property with the last user message, trimmed.
    async fn extract(&self, messages: &[Message], schema: &Value) -> Result<Value, Error> {
        let Some(Message::User { content }) = messages.iter().rev().find(|m| matches!(m, Message::User { .. })) else {
            return Err(Error::Engine("no user message to take the data from".into()));
        };
        let required = schema["required"].as_array().map(Vec::as_slice).unwrap_or_default();
        match required {
            [Value::String(field)] if schema["properties"][field]["type"] == "string" => Ok(json!({ field.as_str(): content.trim() })),
            _ => Err(Error::Engine("the demo model only fills a schema with one required string property".into())),
        }
    }
}

fn id_schema() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})
}

fn arg_str<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    args[key].as_str().ok_or_else(|| format!("argument `{key}` must be a string"))
}

/// `delete_record {id}`: needs approval (S1). Deletes nothing real: answers `{deleted: id}`.
pub struct DeleteRecord;

#[async_trait]
impl Tool for DeleteRecord {
    fn name(&self) -> &str {
        "delete_record"
    }
    fn description(&self) -> &str {
        "Delete a record by id (demo: nothing is deleted)."
    }
    fn input_schema(&self) -> Value {
        id_schema()
    }
    fn require_approval(&self) -> bool {
        true
    }
    /// Deleting a record that is already deleted changes nothing more.
    fn idempotent(&self) -> bool {
        true
    }
    async fn execute(&self, args: &Value, _resume: Option<&Value>) -> Result<ToolOutput, String> {
        Ok(ToolOutput::Done(json!({ "deleted": arg_str(args, "id")? })))
    }
}

/// `ask_operator {question}`: suspends with `{question}` and resumes with `{answer}` (S8).
pub struct AskOperator;

#[async_trait]
impl Tool for AskOperator {
    fn name(&self) -> &str {
        "ask_operator"
    }
    fn description(&self) -> &str {
        "Ask the human operator a question and wait for the answer."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]})
    }
    fn suspend_schema(&self) -> Option<Value> {
        Some(json!({"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}))
    }
    fn resume_schema(&self) -> Option<Value> {
        Some(json!({
            "type": "object",
            "properties": {"answer": {"type": "string", "title": "Answer", "description": "Your answer to the agent's question"}},
            "required": ["answer"]
        }))
    }
    async fn execute(&self, args: &Value, resume: Option<&Value>) -> Result<ToolOutput, String> {
        match resume {
            None => Ok(ToolOutput::Suspend(json!({ "question": arg_str(args, "question")? }))),
            Some(data) => Ok(ToolOutput::Done(json!({ "answer": data["answer"] }))),
        }
    }
}

/// `lookup_record {id}`: a plain tool, runs without approval.
pub struct LookupRecord;

#[async_trait]
impl Tool for LookupRecord {
    fn name(&self) -> &str {
        "lookup_record"
    }
    fn description(&self) -> &str {
        "Look a record up by id (demo data)."
    }
    fn input_schema(&self) -> Value {
        id_schema()
    }
    async fn execute(&self, args: &Value, _resume: Option<&Value>) -> Result<ToolOutput, String> {
        let id = arg_str(args, "id")?;
        Ok(ToolOutput::Done(json!({ "id": id, "name": format!("Record {id}"), "found": true })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn turn(text: &str) -> ModelTurn {
        DemoModel.step(&[Message::User { content: text.into() }], &[]).await.unwrap()
    }

    #[tokio::test]
    async fn demo_model_maps_commands_to_tool_calls_keeping_the_rest_verbatim() {
        let t = turn("delete  rec 1 <b>x</b> ").await;
        assert_eq!(
            t.tool_calls,
            vec![ProposedCall { tool_call_id: "call_1".into(), tool_name: "delete_record".into(), args: json!({"id": "rec 1 <b>x</b>"}) }]
        );
        assert_eq!(turn("ask what colour?").await.tool_calls[0].args, json!({"question": "what colour?"}));
        let both = turn("both r9").await.tool_calls;
        assert_eq!(both.iter().map(|c| c.tool_name.as_str()).collect::<Vec<_>>(), ["lookup_record", "delete_record"]);
        assert_ne!(both[0].tool_call_id, both[1].tool_call_id);
        assert!(turn("hello").await.tool_calls.is_empty());
    }

    #[tokio::test]
    async fn demo_model_names_each_tool_result_once_results_are_in() {
        let messages = vec![
            Message::User { content: "both r9".into() },
            Message::Assistant { content: String::new(), tool_calls: vec![] },
            Message::Tool { tool_call_id: "call_1".into(), tool_name: "lookup_record".into(), content: json!({"id": "r9"}) },
            Message::Tool { tool_call_id: "call_2".into(), tool_name: "delete_record".into(), content: json!("declined: not today") },
        ];
        let t = DemoModel.step(&messages, &[]).await.unwrap();
        assert!(t.tool_calls.is_empty());
        assert!(t.text.contains(r#"lookup_record: {"id":"r9"}"#), "{}", t.text);
        assert!(t.text.contains("delete_record: declined: not today"), "{}", t.text);
    }
}
