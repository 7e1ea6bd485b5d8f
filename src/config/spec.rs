//! The file's shape, as `serde` reads it: unknown fields are refused, and the values whose mistakes
//! are reported keep their place in the text (`Spanned`).

use crate::engine::local::model::OpenAiConfig;
use serde::Deserialize;
use std::collections::BTreeMap;

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
    OpenaiCompatible(OpenAiConfig),
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
