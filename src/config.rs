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

use crate::domain::AgentId;
use crate::engine::local::agent::{Agent, Model, SubAgent, Tool, ToolOutput};
use crate::engine::local::demo;
use crate::engine::local::mcp::{self, McpServer, McpTool};
use crate::engine::local::model::{ApiKey, OpenAiCompatible, OpenAiConfig};
use crate::engine::local::policy::Rules;
use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    agents: Vec<AgentSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentSpec {
    id: toml::Spanned<String>,
    name: Option<String>,
    #[serde(default)]
    instructions: String,
    #[serde(default)]
    tools: Vec<toml::Spanned<String>>,
    #[serde(default)]
    memory: bool,
    model: Option<toml::Spanned<ModelSpec>>,
    approval: Option<ApprovalSpec>,
    #[serde(default)]
    mcp: Vec<McpSpec>,
    /// Agents this one may delegate to, as tools `agent-<id>` (S13).
    #[serde(default)]
    sub_agents: Vec<toml::Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpSpec {
    name: toml::Spanned<String>,
    command: toml::Spanned<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Environment variables whose values are OS keyring entries (by name), like `api_key_ref`.
    #[serde(default)]
    env_refs: BTreeMap<String, toml::Spanned<String>>,
    timeout_secs: Option<toml::Spanned<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "api", rename_all = "kebab-case")]
enum ModelSpec {
    Demo,
    OpenaiCompatible(OpenAiConfig),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalSpec {
    #[serde(default)]
    tools: BTreeMap<String, toml::Spanned<bool>>,
    rules: Option<toml::Spanned<toml::Value>>,
}

/// The built-in tools, by name.
fn builtin(name: &str) -> Option<Arc<dyn Tool>> {
    match name {
        "delete_record" => Some(Arc::new(demo::DeleteRecord)),
        "lookup_record" => Some(Arc::new(demo::LookupRecord)),
        "ask_operator" => Some(Arc::new(demo::AskOperator)),
        _ => None,
    }
}

const BUILTIN_NAMES: &str = "ask_operator, delete_record, lookup_record";

/// A tool with its approval flag set by configuration (S1).
struct Flagged {
    inner: Arc<dyn Tool>,
    require_approval: bool,
}

#[async_trait]
impl Tool for Flagged {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn input_schema(&self) -> Value {
        self.inner.input_schema()
    }
    fn require_approval(&self) -> bool {
        self.require_approval
    }
    fn suspend_schema(&self) -> Option<Value> {
        self.inner.suspend_schema()
    }
    fn resume_schema(&self) -> Option<Value> {
        self.inner.resume_schema()
    }
    fn sub_agent(&self) -> Option<&AgentId> {
        self.inner.sub_agent()
    }
    async fn execute(&self, args: &Value, resume: Option<&Value>) -> Result<ToolOutput, String> {
        self.inner.execute(args, resume).await
    }
}

/// Loads the agents of `path`, reading model API keys from the OS keyring. A missing file is not an
/// error: it gives no agents (the caller runs the demo agent).
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

/// Parses and validates an agents file's text (`path` is only for messages); `secret` reads a key
/// by its keyring name.
pub async fn parse_agents<F, Fut>(path: &Path, text: &str, secret: F) -> Result<Vec<Agent>, ConfigError>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<ApiKey, String>>,
{
    let err = |span: Option<std::ops::Range<usize>>, field: String, message: String| ConfigError {
        file: path.into(),
        line: span.map(|s| position(text, s.start)),
        field,
        message,
    };
    let file: File = toml::from_str(text).map_err(|e| {
        let message = e.message().to_owned();
        err(e.span(), "(document)".into(), message)
    })?;
    let all_ids: HashSet<String> = file.agents.iter().map(|a| a.id.get_ref().clone()).collect();
    let mut delegations: Vec<(String, String, std::ops::Range<usize>)> = Vec::new();
    let mut seen = HashSet::new();
    let mut agents = Vec::new();
    for (i, spec) in file.agents.into_iter().enumerate() {
        let id = spec.id.get_ref().clone();
        let at = |field: &str| format!("agents[{i}].{field}");
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(err(Some(spec.id.span()), at("id"), format!("{id:?} is not a valid id (letters, digits, `-`, `_`)")));
        }
        if !seen.insert(id.clone()) {
            return Err(err(Some(spec.id.span()), at("id"), format!("agent id {id:?} is used twice")));
        }
        let overrides: BTreeMap<String, toml::Spanned<bool>> = spec.approval.as_ref().map(|a| a.tools.clone()).unwrap_or_default();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut names = HashSet::new();
        for (j, name) in spec.tools.iter().enumerate() {
            let tool = builtin(name.get_ref()).ok_or_else(|| {
                err(
                    Some(name.span()),
                    at(&format!("tools[{j}]")),
                    format!("unknown tool {:?} (built-in tools: {BUILTIN_NAMES})", name.get_ref()),
                )
            })?;
            if names.insert(name.get_ref().clone()) {
                tools.push(tool);
            }
        }
        for (j, key) in spec.sub_agents.iter().enumerate() {
            let k = key.get_ref();
            if !all_ids.contains(k.as_str()) || k == &id {
                let why = if k == &id { "an agent cannot be its own sub-agent".to_owned() } else { format!("no agent has the id {k:?}") };
                return Err(err(Some(key.span()), at(&format!("sub_agents[{j}]")), why));
            }
            if names.insert(format!("agent-{k}")) {
                tools.push(Arc::new(SubAgent::new(
                    AgentId::new(k.clone()),
                    format!("Delegate a task to agent {k}: give it a prompt, get its answer"),
                )));
            }
            delegations.push((id.clone(), k.clone(), key.span()));
        }
        if names.insert("ask_operator".into()) {
            tools.push(builtin("ask_operator").expect("built in"));
        }
        // Every server's settings are checked before the first one starts.
        let mut servers: HashSet<String> = HashSet::new();
        let mut configs = Vec::new();
        for (j, server) in spec.mcp.into_iter().enumerate() {
            let at = |field: &str| at(&format!("mcp[{j}].{field}"));
            let name = server.name.get_ref().clone();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(err(
                    Some(server.name.span()),
                    at("name"),
                    format!("{name:?} is not a valid MCP server name (letters, digits, `-`, `_`)"),
                ));
            }
            if !servers.insert(name.clone()) {
                return Err(err(Some(server.name.span()), at("name"), format!("MCP server name {name:?} is used twice in agent {id:?}")));
            }
            if server.command.get_ref().trim().is_empty() {
                return Err(err(Some(server.command.span()), at("command"), "the command is empty".into()));
            }
            let mut config = mcp::ServerConfig::new(name.clone(), server.command.get_ref().clone(), server.args);
            config.env = server.env;
            if let Some(secs) = &server.timeout_secs {
                if *secs.get_ref() == 0 {
                    return Err(err(Some(secs.span()), at("timeout_secs"), "must be at least 1".into()));
                }
                config.timeout = std::time::Duration::from_secs(*secs.get_ref());
            }
            for (var, entry) in &server.env_refs {
                let value =
                    secret(entry.get_ref().clone()).await.map_err(|m| err(Some(entry.span()), at(&format!("env_refs.{var}")), m))?;
                config.env.insert(var.clone(), value.expose().to_owned());
            }
            configs.push((j, server.name, server.command, config));
        }
        for (j, name_at, command_at, config) in configs {
            let at = |field: &str| at(&format!("mcp[{j}].{field}"));
            let name = config.name.clone();
            let (started, listed) = McpServer::start(&id, config).await.map_err(|e| {
                err(Some(command_at.span()), at("command"), format!("MCP server {name:?} of agent {id:?} did not start: {e}"))
            })?;
            let named = McpTool::named(&started, listed, &mut names).map_err(|e| err(Some(name_at.span()), at("name"), e))?;
            tools.extend(named.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
        }
        for (name, flag) in &overrides {
            if !names.contains(name.as_str()) {
                let mut known: Vec<&str> = names.iter().map(String::as_str).collect();
                known.sort_unstable();
                let known = known.join(", ");
                return Err(err(
                    Some(flag.span()),
                    at(&format!("approval.tools.{name}")),
                    format!("{name:?} is not one of this agent's tools ({known})"),
                ));
            }
        }
        let tools = tools
            .into_iter()
            .map(|t| match overrides.get(t.name()) {
                Some(flag) => Arc::new(Flagged { require_approval: *flag.get_ref(), inner: t }) as Arc<dyn Tool>,
                None => t,
            })
            .collect();
        let model: Arc<dyn Model> = match spec.model {
            None => Arc::new(demo::DemoModel),
            Some(spanned) => {
                let span = spanned.span();
                match spanned.into_inner() {
                    ModelSpec::Demo => Arc::new(demo::DemoModel),
                    ModelSpec::OpenaiCompatible(config) => {
                        let key = match &config.api_key_ref {
                            None => None,
                            Some(name) => {
                                Some(secret(name.clone()).await.map_err(|m| err(Some(span.clone()), at("model.api_key_ref"), m))?)
                            }
                        };
                        Arc::new(OpenAiCompatible::new(config, key).map_err(|e| err(Some(span.clone()), at("model"), e.to_string()))?)
                    }
                }
            }
        };
        let approval_rules = match spec.approval.and_then(|a| a.rules) {
            None => None,
            Some(rules) => {
                let span = rules.span();
                let json =
                    serde_json::to_value(rules.into_inner()).map_err(|e| err(Some(span.clone()), at("approval.rules"), e.to_string()))?;
                Some(Rules::parse(&json).map_err(|e| err(Some(span), at("approval.rules"), e.to_string()))?)
            }
        };
        agents.push(Agent {
            name: spec.name.unwrap_or_else(|| id.clone()),
            id: AgentId::new(id),
            instructions: spec.instructions,
            model,
            tools,
            approval_rules,
            memory: spec.memory,
        });
    }
    // A cycle of sub-agents would delegate forever.
    for (from, to, span) in &delegations {
        let mut stack = vec![to.clone()];
        let mut visited = HashSet::new();
        while let Some(next) = stack.pop() {
            if &next == from {
                return Err(err(
                    Some(span.clone()),
                    format!("agents[{}].sub_agents", agents.iter().position(|a| a.id.as_str() == from).unwrap_or(0)),
                    format!("delegating from {from:?} to {to:?} makes a cycle"),
                ));
            }
            if visited.insert(next.clone()) {
                stack.extend(delegations.iter().filter(|(f, _, _)| f == &next).map(|(_, t, _)| t.clone()));
            }
        }
    }
    Ok(agents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Agent>, ConfigError> {
        let secrets = |name: String| async move {
            if name == "good" {
                Ok(ApiKey::new("sk-test"))
            } else {
                Err(format!("no secret named {name} in the OS keyring"))
            }
        };
        futures::executor::block_on(parse_agents(Path::new("agents.toml"), text, secrets))
    }

    #[test]
    fn a_valid_file_defines_agents_with_their_tools_and_flags() {
        let agents = parse(
            r#"
[[agents]]
id = "ops"
name = "Ops"
tools = ["lookup_record", "delete_record"]
[agents.approval]
tools = { lookup_record = true, delete_record = false }
"#,
        )
        .unwrap();
        assert_eq!(agents.len(), 1);
        let ops = &agents[0];
        assert_eq!((ops.id.as_str(), ops.name.as_str()), ("ops", "Ops"));
        let flags: Vec<(&str, bool)> = ops.tools.iter().map(|t| (t.name(), t.require_approval())).collect();
        assert_eq!(flags, [("lookup_record", true), ("delete_record", false), ("ask_operator", false)]);
    }

    #[test]
    fn errors_name_the_file_line_and_field() {
        let e = parse("[[agents]]\nid = \"ops\"\ntools = [\"lookup_record\",\n  \"delet_record\"]\n").unwrap_err();
        assert_eq!(e.to_string(), "agents.toml:4:3: agents[0].tools[1]: unknown tool \"delet_record\" (built-in tools: ask_operator, delete_record, lookup_record)");
        let e = parse("[[agents]]\nid = \"a\"\n[[agents]]\nid = \"a\"\n").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some((4, 6)), "agents[1].id"));
        let e = parse("[[agents]]\nid = \"a b\"\n").unwrap_err();
        assert!(e.to_string().starts_with("agents.toml:2:6: agents[0].id:"), "{e}");
        let e = parse("[[agents]]\nid = \"a\"\ncolour = 3\n").unwrap_err();
        assert_eq!(e.line.map(|l| l.0), Some(3), "{e}");
        assert!(e.message.contains("colour"), "{e}");
        let e = parse("[[agents]]\nid = \"a\"\n[agents.model]\napi = \"gpt\"\n").unwrap_err();
        assert!(e.message.contains("gpt"), "{e}");
        let e = parse("[[agents]\n").unwrap_err();
        assert_eq!(e.line.map(|l| l.0), Some(1), "{e}");
        let e = parse("[[agents]]\nid = \"a\"\n[agents.approval]\ntools = { nope = true }\n").unwrap_err();
        assert!(e.to_string().contains("agents[0].approval.tools.nope"), "{e}");
    }

    async fn parse_async(text: &str) -> Result<Vec<Agent>, ConfigError> {
        let secrets = |name: String| async move {
            if name == "good" {
                Ok(ApiKey::new("sk-test"))
            } else {
                Err(format!("no secret named {name} in the OS keyring"))
            }
        };
        parse_agents(Path::new("agents.toml"), text, secrets).await
    }

    #[tokio::test]
    async fn mcp_server_mistakes_are_located_and_name_the_agent_and_server() {
        let server = |body: &str| format!("[[agents]]\nid = \"ops\"\n[[agents.mcp]]\n{body}");
        let e = parse_async(&server("name = \"f s\"\ncommand = \"x\"\n")).await.unwrap_err();
        assert!(e.to_string().starts_with("agents.toml:4:8: agents[0].mcp[0].name:"), "{e}");
        let e = parse_async(&server("name = \"fs\"\n")).await.unwrap_err();
        assert!(e.message.contains("command"), "{e}");
        let e = parse_async(&server("name = \"fs\"\ncommand = \"x\"\ntimeout_secs = 0\n")).await.unwrap_err();
        assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].mcp[0].timeout_secs", Some(6)), "{e}");
        let e = parse_async(&server("name = \"fs\"\ncommand = \"x\"\nenv_refs = { TOKEN = \"missing\" }\n")).await.unwrap_err();
        assert_eq!(e.field, "agents[0].mcp[0].env_refs.TOKEN", "{e}");
        assert!(e.message.contains("no secret named missing"), "{e}");
        let e = parse_async(&server("name = \"fs\"\ncommand = \"x\"\nport = 3\n")).await.unwrap_err();
        assert!(e.message.contains("port"), "{e}");

        let e = parse_async(&server("name = \"fs\"\ncommand = \"/nonexistent/mcp-server\"\nargs = [\"--root\", \"/tmp\"]\n"))
            .await
            .unwrap_err();
        assert_eq!(e.field, "agents[0].mcp[0].command", "{e}");
        assert_eq!(e.line.map(|l| l.0), Some(5), "{e}");
        assert!(
            e.message.starts_with("MCP server \"fs\" of agent \"ops\" did not start: could not run \"/nonexistent/mcp-server\""),
            "{e}"
        );
        assert!(e.message.contains("No such file"), "{e}");

        let two = "[[agents]]\nid = \"ops\"\n[[agents.mcp]]\nname = \"fs\"\ncommand = \"/nonexistent/a\"\n[[agents.mcp]]\nname = \"fs\"\ncommand = \"/nonexistent/b\"\n";
        let e = parse_async(two).await.unwrap_err();
        assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].mcp[1].name", Some(7)), "checked before any server starts: {e}");
    }

    #[test]
    fn sub_agents_become_tools_and_bad_or_cyclic_ones_are_refused() {
        let agents = parse("[[agents]]\nid = \"boss\"\nsub_agents = [\"worker\"]\n[agents.approval]\ntools = { agent-worker = true }\n[[agents]]\nid = \"worker\"\ntools = [\"delete_record\"]\n").unwrap();
        let boss = &agents[0];
        let delegate = boss.tool("agent-worker").expect("agent-worker tool");
        assert_eq!(delegate.sub_agent().map(|a| a.as_str()), Some("worker"));
        assert!(delegate.require_approval(), "flags work on sub-agent tools too");
        let e = parse("[[agents]]\nid = \"boss\"\nsub_agents = [\"nobody\"]\n").unwrap_err();
        assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].sub_agents[0]", Some(3)), "{e}");
        let e = parse("[[agents]]\nid = \"a\"\nsub_agents = [\"a\"]\n").unwrap_err();
        assert!(e.message.contains("its own sub-agent"), "{e}");
        let e = parse("[[agents]]\nid = \"a\"\nsub_agents = [\"b\"]\n[[agents]]\nid = \"b\"\nsub_agents = [\"c\"]\n[[agents]]\nid = \"c\"\nsub_agents = [\"a\"]\n").unwrap_err();
        assert!(e.message.contains("cycle"), "{e}");
    }

    #[tokio::test]
    async fn a_missing_file_gives_no_agents() {
        assert!(load_agents(Path::new("/nonexistent/agents.toml")).await.unwrap().is_empty());
    }

    #[test]
    fn an_openai_compatible_model_with_a_keyring_reference_and_agent_rules() {
        let agents = parse(
            r#"
[[agents]]
id = "ops"
memory = true
tools = ["delete_record"]
[agents.model]
api = "openai-compatible"
provider = "ollama"
base_url = "http://127.0.0.1:11434/v1"
model = "llama3.1"
api_key_ref = "good"
[agents.approval]
rules = [{ tool = "ask_*", when = [{ pointer = "/question", matches = "prod" }] }]
"#,
        )
        .unwrap();
        assert_eq!(agents[0].model.id(), "ollama/llama3.1");
        assert!(agents[0].memory);
        let rules = agents[0].approval_rules.as_ref().unwrap();
        assert_eq!(rules.first_match("ask_operator", &serde_json::json!({"question": "wipe prod?"})), Some(0));
        assert_eq!(rules.first_match("ask_operator", &serde_json::json!({"question": "lunch?"})), None);
    }

    #[test]
    fn model_and_rule_mistakes_are_located() {
        let model = |extra: &str| {
            format!(
                "[[agents]]\nid = \"a\"\n[agents.model]\napi = \"openai-compatible\"\nbase_url = \"http://x/v1\"\nmodel = \"m\"\n{extra}"
            )
        };
        let e = parse(&model("api_key_ref = \"missing\"\n")).unwrap_err();
        assert_eq!(e.field, "agents[0].model.api_key_ref");
        assert!(e.message.contains("no secret named missing"), "{e}");
        assert_eq!(e.line.map(|l| l.0), Some(3), "{e}");
        let e = parse(&model("api_key = \"sk-live-123\"\n")).unwrap_err();
        assert!(!e.to_string().contains("sk-live-123"), "a key written into the file is never echoed: {e}");
        let e = parse(&model("").replace("http://x/v1", "ftp://x")).unwrap_err();
        assert_eq!(e.field, "agents[0].model", "{e}");
        let e = parse(
            "[[agents]]\nid = \"a\"\n[agents.approval]\nrules = [{ tool = \"x\", when = [{ pointer = \"/a\", matches = \"(\" }] }]\n",
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].approval.rules", Some(4)), "{e}");
    }
}
