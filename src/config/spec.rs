//! The file's shape, as `serde` reads it: unknown fields are refused, and the values whose mistakes
//! are reported keep their place in the text (`Spanned`).

use crate::engine::local::model::OpenAiConfig;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    #[serde(default)]
    pub(super) agents: Vec<AgentSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AgentSpec {
    pub(super) id: toml::Spanned<String>,
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) instructions: String,
    #[serde(default)]
    pub(super) tools: Vec<toml::Spanned<String>>,
    #[serde(default)]
    pub(super) memory: bool,
    pub(super) model: Option<toml::Spanned<ModelSpec>>,
    pub(super) approval: Option<ApprovalSpec>,
    #[serde(default)]
    pub(super) mcp: Vec<McpSpec>,
    /// Agents this one may delegate to, as tools `agent-<id>` (S13).
    #[serde(default)]
    pub(super) sub_agents: Vec<toml::Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct McpSpec {
    pub(super) name: toml::Spanned<String>,
    pub(super) command: toml::Spanned<String>,
    #[serde(default)]
    pub(super) args: Vec<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    /// Environment variables whose values are OS keyring entries (by name), like `api_key_ref`.
    #[serde(default)]
    pub(super) env_refs: BTreeMap<String, toml::Spanned<String>>,
    pub(super) timeout_secs: Option<toml::Spanned<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "api", rename_all = "kebab-case")]
pub(super) enum ModelSpec {
    Demo,
    OpenaiCompatible(OpenAiSpec),
}

/// `api = "openai-compatible"`: the model's settings, and where its key is read from besides the
/// keyring: `api_key_file`, a file of its own (relative paths from the agents file's directory).
/// Every other field is [`OpenAiConfig`]'s, which refuses unknown ones (a key written into the file).
#[derive(Debug)]
pub(super) struct OpenAiSpec {
    pub(super) api_key_file: Option<PathBuf>,
    pub(super) config: OpenAiConfig,
}

impl<'de> Deserialize<'de> for OpenAiSpec {
    // Not `#[serde(flatten)]`: a flattened struct ignores unknown fields instead of refusing them.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(deserializer)?;
        let api_key_file = match table.remove("api_key_file") {
            None => None,
            Some(toml::Value::String(path)) if !path.is_empty() => Some(PathBuf::from(path)),
            Some(toml::Value::String(_)) => return Err(D::Error::custom("api_key_file is empty: name the file that holds the key")),
            Some(other) => return Err(D::Error::custom(format!("api_key_file must be a path (a string), not {}", other.type_str()))),
        };
        let config = OpenAiConfig::deserialize(toml::Value::Table(table)).map_err(|e| D::Error::custom(e.message()))?;
        Ok(Self { api_key_file, config })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ApprovalSpec {
    #[serde(default)]
    pub(super) tools: BTreeMap<String, toml::Spanned<bool>>,
    pub(super) rules: Option<toml::Spanned<toml::Value>>,
    /// Tools whose second run with the same arguments does no more than the first: an interrupted
    /// call of one may be run again by the operator.
    #[serde(default)]
    pub(super) idempotent: Vec<toml::Spanned<String>>,
}
