//! Language model providers for the local engine, each an implementation of
//! [`Model`](super::agent::Model). `openai`: any server speaking OpenAI's chat completions with tool
//! calling (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter).
//!
//! Secrets: a provider gets its API key as an [`ApiKey`] (from [`crate::secrets`]) from whoever builds it. Configuration
//! files (the later `agents.toml`) hold only the name of an OS keyring entry, never the key itself;
//! [`ApiKey`] deliberately has no `Deserialize`, so no config struct can carry one.

pub mod openai;
pub(crate) mod sse;

pub use openai::{OpenAiCompatible, OpenAiConfig};

/// Where the key type lives (it holds remote engines' tokens too).
pub use crate::secrets::ApiKey;
