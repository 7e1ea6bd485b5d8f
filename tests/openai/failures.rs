//! Retries (429 with `Retry-After`, 5xx, connection failures) counted from the fake's request log,
//! and one clear error for each way a provider can fail. No error ever holds the key.

use crate::fake_server::{text_completion, text_stream, tool_call_stream, End, FakeOpenAi, Reply};
use crate::{error_text, model, model_with, KEY};
use approval_console::engine::local::agent::{Message, Model};
use approval_console::engine::local::model::{OpenAiCompatible, OpenAiConfig};
use serde_json::json;
use std::time::{Duration, Instant};

fn user() -> Vec<Message> {
    vec![Message::User { content: "hi".into() }]
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_the_asked_delay_then_succeeds() {
    let fake = FakeOpenAi::scripted(vec![
        Reply::error(429, "Rate limit reached for requests", Some("rate_limit_exceeded")).with_header("retry-after", "1"),
        Reply::Json(text_completion("after the wait")),
    ])
    .await;
    let turn = model(&fake, false).step(&user(), &[]).await.unwrap();
    assert_eq!(turn.text, "after the wait");
    let log = fake.requests();
    assert_eq!(log.len(), 2);
    let waited = log[1].at - log[0].at;
    assert!(waited >= Duration::from_millis(950), "Retry-After: 1 honoured, waited {waited:?}");
}

#[tokio::test]
async fn a_retry_after_longer_than_the_cap_waits_only_the_cap() {
    let fake = FakeOpenAi::scripted(vec![
        Reply::error(429, "slow down", None).with_header("retry-after", "3600"),
        Reply::sse(text_stream(&["ok"])),
    ])
    .await;
    let started = Instant::now();
    let turn = model_with(&fake, |c| c.retry_after_cap_secs = 1).step(&user(), &[]).await.unwrap();
    assert_eq!(turn.text, "ok");
    assert_eq!(fake.request_count(), 2);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());
}

#[tokio::test]
async fn two_500s_are_retried_with_backoff_and_the_third_attempt_succeeds() {
    let fake = FakeOpenAi::scripted(vec![
        Reply::error(500, "The server had an error while processing your request.", None),
        Reply::Status { status: 502, headers: vec![], body: "<html>Bad Gateway</html>".into() },
        Reply::sse(tool_call_stream("call_1", "lookup_record", r#"{"id":"r1"}"#, 3)),
    ])
    .await;
    let turn = model_with(&fake, |c| c.retry_base_ms = 20).step(&user(), &[]).await.unwrap();
    assert_eq!(turn.tool_calls[0].args, json!({"id": "r1"}));
    let log = fake.requests();
    assert_eq!(log.len(), 3);
    assert!(log[1].at - log[0].at >= Duration::from_millis(10), "backoff of at least half the base");
    assert!(log[2].at - log[1].at >= Duration::from_millis(20), "doubled");
    assert_eq!(log[0].body, log[2].body, "the same request each time");
}

#[tokio::test]
async fn a_server_failing_every_time_is_given_up_on_after_max_retries() {
    let fake = FakeOpenAi::scripted(vec![Reply::error(503, "overloaded", None)]).await;
    let e = model_with(&fake, |c| c.max_retries = 2).step(&user(), &[]).await.unwrap_err();
    let text = error_text(&e);
    assert_eq!(fake.request_count(), 3, "one attempt and two retries");
    assert!(text.contains("HTTP 503") && text.contains("overloaded") && text.contains("gave up after 3 attempts"), "{text}");
    assert!(text.contains("fake/fake-model"), "names the model: {text}");
}

#[tokio::test]
async fn a_server_that_cannot_be_reached_is_retried_then_reported() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut config = OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"), "m");
    config.retry_base_ms = 1;
    config.max_retries = 1;
    let e = OpenAiCompatible::new(config, None).unwrap().step(&user(), &[]).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("cannot reach the server") && text.contains("gave up after 2 attempts"), "{text}");
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
}

#[tokio::test]
async fn a_refused_key_is_a_clear_401_error_that_never_echoes_the_key_and_is_not_retried() {
    let fake = FakeOpenAi::scripted(vec![Reply::error(401, &format!("Incorrect API key provided: {KEY}."), Some("invalid_api_key"))]).await;
    let text = error_text(&model(&fake, true).step(&user(), &[]).await.unwrap_err());
    assert_eq!(fake.request_count(), 1);
    assert!(text.contains("refused the API key (HTTP 401)") && text.contains("\"fake-model\""), "{text}");

    let fake = FakeOpenAi::scripted(vec![Reply::error(403, "forbidden", None)]).await;
    let text =
        OpenAiCompatible::new(OpenAiConfig::new(&fake.base_url, "m"), None).unwrap().step(&user(), &[]).await.unwrap_err().to_string();
    assert!(text.contains("HTTP 403") && text.contains("no API key is configured"), "{text}");
}

#[tokio::test]
async fn an_unknown_model_is_named_in_the_error() {
    let fake = FakeOpenAi::scripted(vec![Reply::error(
        404,
        "The model `gpt-9-turbo` does not exist or you do not have access to it.",
        Some("model_not_found"),
    )])
    .await;
    let text = error_text(&model_with(&fake, |c| c.model = "gpt-9-turbo".into()).step(&user(), &[]).await.unwrap_err());
    assert_eq!(fake.request_count(), 1);
    assert!(text.contains("model \"gpt-9-turbo\" is unknown to the server (HTTP 404)"), "{text}");
    // Ollama's shape: {"error": "..."} without a code.
    let fake = FakeOpenAi::scripted(vec![Reply::status(404, json!({"error": "model \"llama9\" not found, try pulling it first"}))]).await;
    let text = error_text(&model(&fake, true).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("unknown to the server") && text.contains("try pulling it first"), "{text}");
}

#[tokio::test]
async fn a_wrong_base_url_says_there_is_no_endpoint_there() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(text_completion("never"))]).await;
    let base = fake.base_url.trim_end_matches("/v1").to_owned();
    let text = error_text(&model_with(&fake, |c| c.base_url = base).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("no chat completions endpoint") && text.contains("check base_url"), "{text}");
    assert_eq!(fake.request_count(), 0, "the fake only records its real endpoint");
}

#[tokio::test]
async fn a_400_shows_the_providers_message_with_the_key_blanked_out() {
    let fake = FakeOpenAi::scripted(vec![Reply::error(
        400,
        &format!("Invalid schema for function 'delete_record': 'required' is not an array (request from key {KEY})"),
        Some("invalid_function_parameters"),
    )])
    .await;
    let text = error_text(&model(&fake, false).step(&user(), &[]).await.unwrap_err());
    assert_eq!(fake.request_count(), 1, "a 400 is not retried");
    assert!(text.contains("rejected the request (HTTP 400)") && text.contains("Invalid schema for function 'delete_record'"), "{text}");
    assert!(text.contains("from key ***"), "{text}");
}

#[tokio::test]
async fn an_answer_that_is_not_json_says_so_and_quotes_it() {
    let fake =
        FakeOpenAi::scripted(vec![Reply::Raw { content_type: "text/html", body: "<html><body>Gateway says hello</body></html>".into() }])
            .await;
    let text = error_text(&model(&fake, false).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("the answer is not JSON") && text.contains("text/html") && text.contains("Gateway says hello"), "{text}");
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn an_answer_without_choices_says_so() {
    let fake = FakeOpenAi::scripted(vec![Reply::Json(json!({"id": "x", "object": "chat.completion", "choices": []}))]).await;
    let text = error_text(&model(&fake, false).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("no choices[0]"), "{text}");
}

#[tokio::test]
async fn a_stream_cut_off_midway_is_an_error_saying_what_was_missing() {
    let mut events = tool_call_stream("call_1", "delete_record", r#"{"id":"rec-1"}"#, 4);
    events.truncate(3);
    let fake = FakeOpenAi::scripted(vec![Reply::sse(events.clone()).ending(End::Close)]).await;
    let text = error_text(&model(&fake, true).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("stream ended before the answer was complete") && text.contains("no finish_reason and no [DONE]"), "{text}");
    assert!(text.contains("1 partial tool calls"), "{text}");
    assert_eq!(fake.request_count(), 1);

    let fake = FakeOpenAi::scripted(vec![Reply::sse(events).ending(End::Abort)]).await;
    let text = error_text(&model(&fake, true).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("the stream broke off after"), "{text}");
}

#[tokio::test]
async fn a_stream_that_stalls_is_a_timeout_error_after_the_stall_limit() {
    let fake = FakeOpenAi::scripted(vec![Reply::sse(text_stream(&["thinking", "…"])[..2].to_vec()).ending(End::Stall)]).await;
    let started = Instant::now();
    let e = model_with(&fake, |c| c.stall_timeout_secs = 1).step(&user(), &[]).await.unwrap_err();
    let text = error_text(&e);
    assert!(text.contains("the stream stalled: nothing for 1 s") && text.contains("after 2 events"), "{text}");
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(950) && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn an_error_sent_inside_the_stream_is_reported() {
    let fake = FakeOpenAi::scripted(vec![Reply::sse(vec![
        crate::fake_server::chunk(json!({"role": "assistant", "content": "par"}), None),
        json!({"error": {"message": "upstream provider crashed", "code": 502}}).to_string(),
    ])
    .ending(End::Close)])
    .await;
    let text = error_text(&model(&fake, true).step(&user(), &[]).await.unwrap_err());
    assert!(text.contains("reported an error in the stream: upstream provider crashed"), "{text}");
}
