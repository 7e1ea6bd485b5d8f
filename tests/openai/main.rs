//! The OpenAI-compatible model provider against a real HTTP server (`fake_server`) speaking the chat
//! completions wire format: one binary, one module per area.

mod answers;
mod deliver;
mod engine;
mod failures;
mod fake_server;
mod requests;
mod serve;
#[path = "../support/serve_process.rs"]
mod serve_process;
pub use serve_process::ServeProcess;

use approval_console::domain::Error;
use approval_console::engine::local::model::{ApiKey, OpenAiCompatible, OpenAiConfig};
use fake_server::FakeOpenAi;

/// The API key every test model sends; no error text may contain it.
pub const KEY: &str = "sk-test-SECRET-4f1c9e";

/// A model on the fake with the key, fast retries (1 ms base) and the given streaming mode.
pub fn model(fake: &FakeOpenAi, stream: bool) -> OpenAiCompatible {
    model_with(fake, |c| c.stream = stream)
}

/// Same, with further settings.
pub fn model_with(fake: &FakeOpenAi, adjust: impl FnOnce(&mut OpenAiConfig)) -> OpenAiCompatible {
    let mut config = OpenAiConfig::new(&fake.base_url, "fake-model");
    config.provider = "fake".into();
    config.retry_base_ms = 1;
    adjust(&mut config);
    OpenAiCompatible::new(config, Some(ApiKey::new(KEY))).expect("model")
}

/// An error's text, after checking that neither its `Display` nor its `Debug` holds the key.
pub fn error_text(e: &Error) -> String {
    let (shown, debug) = (e.to_string(), format!("{e:?}"));
    assert!(!shown.contains(KEY) && !debug.contains(KEY), "the API key leaked: {shown} / {debug}");
    assert_eq!(e.code(), "engine_error");
    shown
}
