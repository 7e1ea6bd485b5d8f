//! `agents.toml`: the local engine's agents, validated at load with errors that name the file, the
//! line and the field. Without the file the demo agent runs.
//!
//! ```toml
//! [[agents]]
//! id = "ops"                              # required; letters, digits, `-`, `_`; unique
//! name = "Ops assistant"                  # default: the id
//! instructions = "You help with operations."
//! tools = ["lookup_record", "delete_record"]   # built-in tools; ask_operator is always there
//! memory = true                           # keep conversations per thread (default false)
//!
//! [agents.model]
//! api = "openai-compatible"               # or "demo" (the scripted demo model, the default)
//! provider = "ollama"                     # a label, shown as provider/model
//! base_url = "http://127.0.0.1:11434/v1"
//! model = "llama3.1"
//! api_key_ref = "ollama"                  # the OS keyring entry holding the key, never the key
//! # api_key_file = "keys/ollama"          # or, without a keyring (a server): an owner-only file
//!                                         # holding it (relative: to this file's directory); not both
//!
//! [agents.approval]
//! tools = { lookup_record = true }        # per-tool require_approval (S1), overrides the default
//! rules = [{ tool = "delete_*", when = [{ pointer = "/id", matches = "^prod-" }] }]  # policy.rs
//!
//! [[agents.mcp]]                          # an MCP server over stdio; its tools join the agent's
//! name = "fs"                             # letters, digits, `-`, `_`; unique in the agent
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv/shared"]
//! env = { LOG_LEVEL = "warn" }            # added to the console's environment
//! env_refs = { API_TOKEN = "fs-token" }   # values read from OS keyring entries, never written here
//! timeout_secs = 60                       # each request: start, list, call (default 60)
//! ```
//!
//! MCP servers start while the file loads (see [`crate::engine::local::mcp`] for names, results and
//! failures); one that does not start stops the load with its agent, name and stderr.

mod agent;
mod spec;

use crate::engine::local::agent::Agent;
use crate::engine::local::model::ApiKey;
use agent::Delegation;
use std::collections::HashSet;
use std::future::Future;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The file name looked for in the data directory.
pub const AGENTS_FILE: &str = "agents.toml";

/// A configuration problem, located.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {field}: {message}", file.display(), line.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub line: Option<(usize, usize)>,
    /// Where in the document: `agents[1].tools[2]`.
    pub field: String,
    pub message: String,
}

/// Loads the agents of `path`, reading model API keys from the OS keyring (`api_key_ref`) or from
/// their owner-only files (`api_key_file`, see [`crate::secrets::read_secret_file`]). A missing file
/// is not an error: it gives no agents (the caller runs the demo agent).
///
/// The file starts programs (MCP servers) with secrets in their environment, so it is refused when
/// another user could have changed it (or its directory), see [`crate::store::private::trusted_config`].
pub async fn load_agents(path: &Path) -> Result<Vec<Agent>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(ConfigError { file: path.into(), line: None, field: "(file)".into(), message: e.to_string() }),
    };
    if let Err(e) = crate::store::private::trusted_config(path) {
        return Err(ConfigError { file: path.into(), line: None, field: "(file)".into(), message: e.to_string() });
    }
    parse_agents(path, &text, |name| async move { crate::secrets::get(&name).await.map_err(|e| e.to_string()) }).await
}

/// 1-based line and column of a byte offset.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, column)
}

/// Where a file's text is, to turn a byte span into a located [`ConfigError`].
struct Located<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Located<'_> {
    fn err(&self, span: Option<Range<usize>>, field: String, message: String) -> ConfigError {
        ConfigError { file: self.path.into(), line: span.map(|s| position(self.text, s.start)), field, message }
    }
}

/// Parses and validates an agents file's text (`path` is for messages, and the directory relative
/// `api_key_file` paths start from); `secret` reads a key by its keyring name.
pub async fn parse_agents<F, Fut>(path: &Path, text: &str, secret: F) -> Result<Vec<Agent>, ConfigError>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<ApiKey, String>>,
{
    let loc = Located { path, text };
    let file: spec::File = toml::from_str(text).map_err(|e| loc.err(e.span(), "(document)".into(), e.message().to_owned()))?;
    let ids: HashSet<String> = file.agents.iter().map(|a| a.id.get_ref().clone()).collect();
    let mut delegations = Vec::new();
    let mut seen = HashSet::new();
    let mut agents = Vec::new();
    for (i, spec) in file.agents.into_iter().enumerate() {
        agents.push(agent::build(&loc, i, spec, &ids, &mut seen, &mut delegations, &secret).await?);
    }
    refuse_cycles(&loc, &agents, &delegations)?;
    Ok(agents)
}

/// A cycle of sub-agents would delegate forever.
fn refuse_cycles(loc: &Located, agents: &[Agent], delegations: &[Delegation]) -> Result<(), ConfigError> {
    for Delegation { from, to, span } in delegations {
        let mut stack = vec![to.clone()];
        let mut visited = HashSet::new();
        while let Some(next) = stack.pop() {
            if &next == from {
                let index = agents.iter().position(|a| a.id.as_str() == from).unwrap_or(0);
                return Err(loc.err(
                    Some(span.clone()),
                    format!("agents[{index}].sub_agents"),
                    format!("delegating from {from:?} to {to:?} makes a cycle"),
                ));
            }
            if visited.insert(next.clone()) {
                stack.extend(delegations.iter().filter(|d| d.from == next).map(|d| d.to.clone()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
