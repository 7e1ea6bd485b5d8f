//! Answers parsed into a `ModelTurn`: plain text and tool calls, in one JSON answer or streamed as
//! SSE fragments.

use crate::fake_server::{chunk, completion, text_completion, text_stream, tool_call_completion, tool_call_stream, FakeOpenAi, Reply};
use crate::{error_text, model};
use approval_console::engine::local::agent::{Message, Model, ModelTurn, ProposedCall};
use serde_json::json;

fn user(text: &str) -> Vec<Message> {
    vec![Message::User { content: text.into() }]
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ProposedCall {
    ProposedCall { tool_call_id: id.into(), tool_name: name.into(), args }
}

#[tokio::test]
async fn a_plain_text_answer_is_a_turn_with_text_and_no_calls() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("Hello, operator."))]).await;
    let turn = model(&fake, false).step(&user("hi"), &[]).await.unwrap();
    assert_eq!(turn, ModelTurn { text: "Hello, operator.".into(), tool_calls: vec![] });
}

#[tokio::test]
async fn a_non_streamed_tool_call_answer_gives_the_calls_with_parsed_arguments() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(tool_call_completion(&[
        ("call_1", "lookup_record", r#"{"id":"r1"}"#),
        ("call_2", "list_records", ""),
    ]))])
    .await;
    let turn = model(&fake, false).step(&user("go"), &[]).await.unwrap();
    assert_eq!(turn.text, "");
    assert_eq!(turn.tool_calls, vec![call("call_1", "lookup_record", json!({"id": "r1"})), call("call_2", "list_records", json!({}))]);
}

#[tokio::test]
async fn a_streamed_text_answer_is_put_together_even_when_cut_inside_lines_and_characters() {
    let fake = FakeOpenAi::scripted(vec![Reply::sse(text_stream(&["Bon", "jour, ", "opérateur ", "✓"])).split_every(5)]).await;
    let turn = model(&fake, true).step(&user("hi"), &[]).await.unwrap();
    assert_eq!(turn, ModelTurn { text: "Bonjour, opérateur ✓".into(), tool_calls: vec![] });
}

#[tokio::test]
async fn a_streamed_tool_call_is_assembled_from_fragments_whose_id_and_name_come_only_first() {
    let events = tool_call_stream("call_Xy1", "delete_record", r#"{"id": "rec-42", "reason": "stale"}"#, 4);
    let fragments: Vec<serde_json::Value> = events
        .iter()
        .map(|e| serde_json::from_str::<serde_json::Value>(e).unwrap()["choices"][0]["delta"]["tool_calls"][0].clone())
        .collect();
    let pieces: Vec<_> = fragments.iter().filter(|f| f["function"]["arguments"].as_str().is_some_and(|a| !a.is_empty())).collect();
    assert!(pieces.len() >= 3, "arguments over at least 3 chunks");
    assert!(pieces.iter().all(|f| f["id"].is_null() && f["function"]["name"].is_null()), "id and name only in the first fragment");
    let fake = FakeOpenAi::scripted(vec![Reply::sse(events)]).await;
    let turn = model(&fake, true).step(&user("delete rec-42"), &[]).await.unwrap();
    assert_eq!(turn.tool_calls, vec![call("call_Xy1", "delete_record", json!({"id": "rec-42", "reason": "stale"}))]);
    assert_eq!(turn.text, "");
}

#[tokio::test]
async fn two_parallel_streamed_tool_calls_interleaved_by_index_are_told_apart() {
    let tc = |index: u64, rest: serde_json::Value| {
        let mut v = json!({"index": index});
        v.as_object_mut().unwrap().extend(rest.as_object().unwrap().clone());
        chunk(json!({"tool_calls": [v]}), None)
    };
    let events = vec![
        chunk(json!({"role": "assistant", "content": "Checking both. "}), None),
        tc(0, json!({"id": "call_A", "type": "function", "function": {"name": "lookup_record", "arguments": ""}})),
        tc(1, json!({"id": "call_B", "type": "function", "function": {"name": "delete_record", "arguments": ""}})),
        tc(0, json!({"function": {"arguments": "{\"i"}})),
        tc(1, json!({"function": {"arguments": "{\"id\": "}})),
        tc(0, json!({"function": {"arguments": "d\": \"r"}})),
        tc(1, json!({"function": {"arguments": "\"r2\"}"}})),
        tc(0, json!({"function": {"arguments": "1\"}"}})),
        chunk(json!({}), Some("tool_calls")),
        // A usage-only chunk, as `stream_options.include_usage` sends: no choices.
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 9}}).to_string(),
    ];
    let fake = FakeOpenAi::scripted(vec![Reply::sse(events.clone()), Reply::sse(events).split_every(7)]).await;
    for _ in 0..2 {
        let turn = model(&fake, true).step(&user("both"), &[]).await.unwrap();
        assert_eq!(turn.text, "Checking both. ");
        assert_eq!(
            turn.tool_calls,
            vec![call("call_A", "lookup_record", json!({"id": "r1"})), call("call_B", "delete_record", json!({"id": "r2"}))]
        );
    }
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_and_answers_json_is_understood() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("one piece"))]).await;
    assert_eq!(model(&fake, true).step(&user("hi"), &[]).await.unwrap().text, "one piece");
}

#[tokio::test]
async fn a_stream_with_finish_reason_but_no_done_marker_is_complete() {
    let fake = FakeOpenAi::scripted(vec![Reply::sse(text_stream(&["all ", "here"])).ending(crate::fake_server::End::Close)]).await;
    assert_eq!(model(&fake, true).step(&user("hi"), &[]).await.unwrap().text, "all here");
}

#[tokio::test]
async fn tool_arguments_that_are_not_json_are_a_run_error_naming_the_tool_and_quoting_them() {
    let bad = format!("{{\"id\": \"r1\", \"note\": \"{}", "x".repeat(400));
    let mut events = tool_call_stream("call_1", "delete_record", &bad, 3);
    *events.last_mut().unwrap() = chunk(json!({}), Some("length"));
    let fake = FakeOpenAi::scripted(vec![
        Reply::sse(events),
        Reply::Json(completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_2", "type": "function", "function": {"name": "lookup_record", "arguments": "{id: r1}"}}
            ]}),
            "tool_calls",
        )),
    ])
    .await;
    let streamed = error_text(&model(&fake, true).step(&user("go"), &[]).await.unwrap_err());
    assert!(streamed.contains("tool delete_record") && streamed.contains("not valid JSON"), "{streamed}");
    assert!(streamed.contains("token limit"), "{streamed}");
    assert!(streamed.contains(&bad[..150]) && !streamed.contains(&bad[..250]), "quotes the first 200 characters: {streamed}");
    let whole = error_text(&model(&fake, false).step(&user("go"), &[]).await.unwrap_err());
    assert!(whole.contains("tool lookup_record") && whole.contains("{id: r1}"), "{whole}");
    assert_eq!(fake.request_count(), 2, "a bad answer is not asked again");
}

#[tokio::test]
async fn s10_structured_output_asks_for_the_schema_and_parses_the_json_answer() {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]});
    let fake = FakeOpenAi::scripted(vec![
        Reply::Json(text_completion(r#"{"answer": "eu-west"}"#)),
        Reply::Json(text_completion("```json\n{\"answer\": \"us-east\"}\n```")),
        Reply::Json(text_completion("I think eu-west")),
    ])
    .await;
    let m = model(&fake, false);
    assert_eq!(m.extract(&user("eu-west please"), &schema).await.unwrap(), json!({"answer": "eu-west"}));
    let sent = &fake.requests()[0].body;
    assert_eq!(sent["response_format"]["type"], "json_schema");
    assert_eq!(sent["response_format"]["json_schema"]["schema"], schema);
    assert!(sent["tools"].is_null(), "no tools offered while extracting: {sent}");
    assert_eq!(sent["messages"].as_array().unwrap().last().unwrap()["content"], "eu-west please");
    assert_eq!(m.extract(&user("us-east"), &schema).await.unwrap(), json!({"answer": "us-east"}), "a fenced answer is accepted");
    let e = error_text(&m.extract(&user("?"), &schema).await.unwrap_err());
    assert!(e.contains("structured output is not JSON") && e.contains("I think eu-west"), "{e}");
}
