//! What the model sends: `POST /v1/chat/completions`, the key as a bearer token, messages and tools
//! in OpenAI's wire shape.

use crate::fake_server::{text_completion, FakeOpenAi, Reply};
use crate::{model, KEY};
use approval_console::engine::local::agent::{Message, Model, ProposedCall, ToolSpec};
use approval_console::engine::local::model::{OpenAiCompatible, OpenAiConfig};
use serde_json::json;

fn conversation() -> Vec<Message> {
    vec![
        Message::System { content: "You are careful.".into() },
        Message::User { content: "look up r1, then delete it".into() },
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![
                ProposedCall { tool_call_id: "call_a".into(), tool_name: "lookup_record".into(), args: json!({"id": "r1"}) },
                ProposedCall { tool_call_id: "call_b".into(), tool_name: "delete_record".into(), args: json!({"id": "r1"}) },
            ],
        },
        Message::Tool { tool_call_id: "call_a".into(), tool_name: "lookup_record".into(), content: json!({"id": "r1", "found": true}) },
        Message::Tool {
            tool_call_id: "call_b".into(),
            tool_name: "delete_record".into(),
            content: json!("Tool call declined by the operator."),
        },
        Message::Assistant { content: "It was declined.".into(), tool_calls: vec![] },
        Message::User { content: "ok".into() },
    ]
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "lookup_record".into(),
            description: "Look a record up.".into(),
            input_schema: json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        },
        ToolSpec {
            name: "delete_record".into(),
            description: "Delete a record.".into(),
            input_schema: json!({"type": "object", "required": ["id"]}),
        },
    ]
}

#[tokio::test]
async fn the_request_carries_messages_tools_and_the_key_in_the_openai_wire_shape() {
    for stream in [false, true] {
        let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("fine"))]).await;
        model(&fake, stream).step(&conversation(), &tools()).await.unwrap();
        let requests = fake.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].path, "/v1/chat/completions");
        assert_eq!(requests[0].authorization.as_deref(), Some(format!("Bearer {KEY}").as_str()));
        assert_eq!(
            requests[0].body,
            json!({
                "model": "fake-model",
                "messages": [
                    {"role": "system", "content": "You are careful."},
                    {"role": "user", "content": "look up r1, then delete it"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_a", "type": "function", "function": {"name": "lookup_record", "arguments": "{\"id\":\"r1\"}"}},
                        {"id": "call_b", "type": "function", "function": {"name": "delete_record", "arguments": "{\"id\":\"r1\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_a", "content": "{\"id\":\"r1\",\"found\":true}"},
                    {"role": "tool", "tool_call_id": "call_b", "content": "Tool call declined by the operator."},
                    {"role": "assistant", "content": "It was declined."},
                    {"role": "user", "content": "ok"},
                ],
                "stream": stream,
                "tools": [
                    {"type": "function", "function": {"name": "lookup_record", "description": "Look a record up.", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}},
                    {"type": "function", "function": {"name": "delete_record", "description": "Delete a record.", "parameters": {"type": "object", "required": ["id"]}}},
                ],
                "tool_choice": "auto",
            })
        );
    }
}

#[tokio::test]
async fn without_tools_or_key_the_request_has_no_tools_no_tool_choice_and_no_authorization() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("hi"))]).await;
    let mut config = OpenAiConfig::new(format!("{}/", fake.base_url), "llama3.1:8b");
    config.stream = false;
    config.temperature = Some(0.2);
    config.max_tokens = Some(256);
    let model = OpenAiCompatible::new(config, None).unwrap();
    assert_eq!(model.id(), "openai-compatible/llama3.1:8b");
    model.step(&[Message::User { content: "hello".into() }], &[]).await.unwrap();
    let sent = &fake.requests()[0];
    assert_eq!(sent.authorization, None);
    assert_eq!(
        sent.body,
        json!({"model": "llama3.1:8b", "messages": [{"role": "user", "content": "hello"}], "stream": false, "temperature": 0.2, "max_tokens": 256})
    );
}

#[tokio::test]
async fn the_key_never_shows_in_the_models_debug_output() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("hi"))]).await;
    let shown = format!("{:?}", model(&fake, true));
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("***"), "{shown}");
}

#[tokio::test]
async fn a_base_url_that_is_not_http_is_refused_at_construction() {
    let err = OpenAiCompatible::new(OpenAiConfig::new("ftp://example.test/v1", "m"), None).unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    assert!(OpenAiCompatible::new(OpenAiConfig::new("not a url", "m"), None).is_err());
    assert!(OpenAiCompatible::new(OpenAiConfig::new("http://127.0.0.1:1/v1", " "), None).is_err());
}
