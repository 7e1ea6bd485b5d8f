//! Language model providers for the local engine, each an implementation of
//! [`Model`](super::agent::Model). `openai`: any server speaking OpenAI's chat completions with tool
//! calling (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter).
//!
//! Secrets: a provider gets its API key as an [`ApiKey`] value from whoever builds it. Configuration
//! files (the later `agents.toml`) hold only the name of an OS keyring entry, never the key itself;
//! [`ApiKey`] deliberately has no `Deserialize`, so no config struct can carry one.

pub mod openai;
pub(crate) mod sse;

pub use openai::{OpenAiCompatible, OpenAiConfig};

use std::fmt;

/// An API key. Its `Debug` and `Display` print `***`; the only way to the value is
/// [`ApiKey::expose`], used where the key goes on the wire (the `Authorization` header).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself: for the request header only, never for a message or a log line.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***` (provider answers may echo it).
    pub(crate) fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_owned()
        } else {
            text.replace(&self.0, "***")
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::ApiKey;

    #[test]
    fn an_api_key_never_shows_in_debug_or_display() {
        let key = ApiKey::new("sk-live-secret");
        assert_eq!(format!("{key:?} {key} {:?}", Some(key.clone())), "*** *** Some(***)");
        assert_eq!(key.redact("bad key sk-live-secret!"), "bad key ***!");
    }
}
