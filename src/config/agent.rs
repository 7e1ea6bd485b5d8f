//! One `[[agents]]` entry turned into an [`Agent`]: its tools (built-in, sub-agents, MCP servers',
//! `ask_operator`), their approval flags, its model and its approval rules. Every mistake is
//! located at the value that made it.

use super::spec::{AgentSpec, McpSpec, ModelSpec, OpenAiSpec};
use super::{ConfigError, Located};
use crate::domain::AgentId;
use crate::engine::local::agent::{Agent, Model, SubAgent, Tool, ToolOutput};
use crate::engine::local::demo;
use crate::engine::local::mcp::{self, McpServer, McpTool};
use crate::engine::local::model::{ApiKey, OpenAiCompatible};
use crate::engine::local::policy::Rules;
use async_trait::async_trait;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::ops::Range;
use std::sync::Arc;

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

/// A delegation `from` → `to` (S13), where it is written, for the cycle check once all agents are read.
pub(super) struct Delegation {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) span: Range<usize>,
}

/// Where in the document agent `index`'s values are, and how its mistakes are reported.
struct Entry<'a> {
    loc: &'a Located<'a>,
    index: usize,
    id: String,
}

impl Entry<'_> {
    fn err(&self, span: Range<usize>, field: &str, message: impl Into<String>) -> ConfigError {
        self.loc.err(Some(span), format!("agents[{}].{field}", self.index), message.into())
    }
}

/// `true` for names made of letters, digits, `-` and `_`.
fn plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Builds agent `index`; `ids` are every agent's ids (sub-agents may name later ones), `seen` the
/// ids read so far. Its delegations are added to `delegations`.
pub(super) async fn build<F, Fut>(
    loc: &Located<'_>,
    index: usize,
    spec: AgentSpec,
    ids: &HashSet<String>,
    seen: &mut HashSet<String>,
    delegations: &mut Vec<Delegation>,
    secret: &F,
) -> Result<Agent, ConfigError>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<ApiKey, String>>,
{
    let id = spec.id.get_ref().clone();
    let entry = Entry { loc, index, id: id.clone() };
    if !plain_name(&id) {
        return Err(entry.err(spec.id.span(), "id", format!("{id:?} is not a valid id (letters, digits, `-`, `_`)")));
    }
    if !seen.insert(id.clone()) {
        return Err(entry.err(spec.id.span(), "id", format!("agent id {id:?} is used twice")));
    }
    let mut names = HashSet::new();
    let mut tools = builtin_tools(&entry, &spec.tools, &mut names)?;
    tools.extend(sub_agent_tools(&entry, &spec.sub_agents, ids, &mut names, delegations)?);
    if names.insert("ask_operator".into()) {
        tools.push(builtin("ask_operator").expect("built in"));
    }
    tools.extend(mcp_tools(&entry, spec.mcp, &mut names, secret).await?);
    let overrides = spec.approval.as_ref().map(|a| a.tools.clone()).unwrap_or_default();
    let idempotent = spec.approval.as_ref().map(|a| a.idempotent.clone()).unwrap_or_default();
    let tools = flagged(&entry, tools, &overrides, &idempotent, &names)?;
    let model = model(&entry, spec.model, secret).await?;
    let approval_rules = match spec.approval.and_then(|a| a.rules) {
        None => None,
        Some(rules) => {
            let span = rules.span();
            let json = serde_json::to_value(rules.into_inner()).map_err(|e| entry.err(span.clone(), "approval.rules", e.to_string()))?;
            Some(Rules::parse(&json).map_err(|e| entry.err(span, "approval.rules", e.to_string()))?)
        }
    };
    Ok(Agent {
        name: spec.name.unwrap_or_else(|| id.clone()),
        id: AgentId::new(id),
        instructions: spec.instructions,
        model,
        tools,
        approval_rules,
        memory: spec.memory,
    })
}

/// `tools = [...]`: built-in tools, each once.
fn builtin_tools(entry: &Entry, listed: &[toml::Spanned<String>], names: &mut HashSet<String>) -> Result<Vec<Arc<dyn Tool>>, ConfigError> {
    let mut tools = Vec::new();
    for (j, name) in listed.iter().enumerate() {
        let tool = builtin(name.get_ref()).ok_or_else(|| {
            entry.err(name.span(), &format!("tools[{j}]"), format!("unknown tool {:?} (built-in tools: {BUILTIN_NAMES})", name.get_ref()))
        })?;
        if names.insert(name.get_ref().clone()) {
            tools.push(tool);
        }
    }
    Ok(tools)
}

/// `sub_agents = [...]`: a tool `agent-<id>` for each (S13), which must name another agent.
fn sub_agent_tools(
    entry: &Entry,
    listed: &[toml::Spanned<String>],
    ids: &HashSet<String>,
    names: &mut HashSet<String>,
    delegations: &mut Vec<Delegation>,
) -> Result<Vec<Arc<dyn Tool>>, ConfigError> {
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for (j, key) in listed.iter().enumerate() {
        let to = key.get_ref();
        if to == &entry.id {
            return Err(entry.err(key.span(), &format!("sub_agents[{j}]"), "an agent cannot be its own sub-agent"));
        }
        if !ids.contains(to.as_str()) {
            return Err(entry.err(key.span(), &format!("sub_agents[{j}]"), format!("no agent has the id {to:?}")));
        }
        if names.insert(format!("agent-{to}")) {
            let description = format!("Delegate a task to agent {to}: give it a prompt, get its answer");
            tools.push(Arc::new(SubAgent::new(AgentId::new(to.clone()), description)));
        }
        delegations.push(Delegation { from: entry.id.clone(), to: to.clone(), span: key.span() });
    }
    Ok(tools)
}

/// `[[agents.mcp]]`: every server's settings are checked (and its keyring entries read) before the
/// first one starts; then each starts and lists its tools.
async fn mcp_tools<F, Fut>(
    entry: &Entry<'_>,
    specs: Vec<McpSpec>,
    names: &mut HashSet<String>,
    secret: &F,
) -> Result<Vec<Arc<dyn Tool>>, ConfigError>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<ApiKey, String>>,
{
    let id = &entry.id;
    let mut servers: HashSet<String> = HashSet::new();
    let mut configs = Vec::new();
    for (j, server) in specs.into_iter().enumerate() {
        let field = |f: &str| format!("mcp[{j}].{f}");
        let name = server.name.get_ref().clone();
        if !plain_name(&name) {
            return Err(entry.err(
                server.name.span(),
                &field("name"),
                format!("{name:?} is not a valid MCP server name (letters, digits, `-`, `_`)"),
            ));
        }
        if !servers.insert(name.clone()) {
            return Err(entry.err(server.name.span(), &field("name"), format!("MCP server name {name:?} is used twice in agent {id:?}")));
        }
        if server.command.get_ref().trim().is_empty() {
            return Err(entry.err(server.command.span(), &field("command"), "the command is empty"));
        }
        let mut config = mcp::ServerConfig::new(name, server.command.get_ref().clone(), server.args);
        config.env = server.env;
        if let Some(secs) = &server.timeout_secs {
            if *secs.get_ref() == 0 {
                return Err(entry.err(secs.span(), &field("timeout_secs"), "must be at least 1"));
            }
            config.timeout = std::time::Duration::from_secs(*secs.get_ref());
        }
        for (var, key) in &server.env_refs {
            let value = secret(key.get_ref().clone()).await.map_err(|m| entry.err(key.span(), &field(&format!("env_refs.{var}")), m))?;
            config.env.insert(var.clone(), value.expose().to_owned());
        }
        configs.push((j, server.name.span(), server.command.span(), config));
    }
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for (j, name_at, command_at, config) in configs {
        let name = config.name.clone();
        let (started, listed) = McpServer::start(id, config).await.map_err(|e| {
            entry.err(command_at, &format!("mcp[{j}].command"), format!("MCP server {name:?} of agent {id:?} did not start: {e}"))
        })?;
        let named = McpTool::named(&started, listed, names).map_err(|e| entry.err(name_at, &format!("mcp[{j}].name"), e))?;
        tools.extend(named.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
    }
    Ok(tools)
}

/// `[agents.approval] tools = { name = bool }`: per-tool `require_approval` (S1), and
/// `idempotent = [name, …]`: tools an interrupted call of which may be run again; each naming one of
/// the agent's tools.
fn flagged(
    entry: &Entry,
    tools: Vec<Arc<dyn Tool>>,
    overrides: &BTreeMap<String, toml::Spanned<bool>>,
    idempotent: &[toml::Spanned<String>],
    names: &HashSet<String>,
) -> Result<Vec<Arc<dyn Tool>>, ConfigError> {
    let unknown = |span: std::ops::Range<usize>, field: String, name: &str| {
        let mut known: Vec<&str> = names.iter().map(String::as_str).collect();
        known.sort_unstable();
        let known = known.join(", ");
        entry.err(span, &field, format!("{name:?} is not one of this agent's tools ({known})"))
    };
    if let Some((name, flag)) = overrides.iter().find(|(name, _)| !names.contains(name.as_str())) {
        return Err(unknown(flag.span(), format!("approval.tools.{name}"), name));
    }
    if let Some(name) = idempotent.iter().find(|n| !names.contains(n.get_ref().as_str())) {
        return Err(unknown(name.span(), "approval.idempotent".into(), name.get_ref()));
    }
    let marked = |name: &str| idempotent.iter().any(|n| n.get_ref() == name);
    Ok(tools
        .into_iter()
        .map(|t| {
            let (flag, idem) = (overrides.get(t.name()).map(|f| *f.get_ref()), marked(t.name()));
            if flag.is_none() && !idem {
                return t;
            }
            let require_approval = flag.unwrap_or_else(|| t.require_approval());
            let idempotent = idem || t.idempotent();
            Arc::new(Flagged { require_approval, idempotent, inner: t }) as Arc<dyn Tool>
        })
        .collect())
}

/// `[agents.model]`: the demo model unless an OpenAI-compatible one is set (its key read from the
/// keyring by name, `api_key_ref`, or from an owner-only file, `api_key_file`; never both).
async fn model<F, Fut>(entry: &Entry<'_>, spec: Option<toml::Spanned<ModelSpec>>, secret: &F) -> Result<Arc<dyn Model>, ConfigError>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<ApiKey, String>>,
{
    let Some(spanned) = spec else { return Ok(Arc::new(demo::DemoModel)) };
    let span = spanned.span();
    match spanned.into_inner() {
        ModelSpec::Demo => Ok(Arc::new(demo::DemoModel)),
        ModelSpec::OpenaiCompatible(OpenAiSpec { api_key_file, config }) => {
            let key = match (&config.api_key_ref, api_key_file) {
                (None, None) => None,
                (Some(_), Some(_)) => {
                    return Err(entry.err(
                        span,
                        "model.api_key_file",
                        format!("agent {:?} sets both api_key_ref and api_key_file: keep one (the keyring entry, or the file)", entry.id),
                    ))
                }
                (Some(name), None) => Some(secret(name.clone()).await.map_err(|m| entry.err(span.clone(), "model.api_key_ref", m))?),
                (None, Some(file)) => {
                    // Relative to the agents file, not to wherever the console was started from.
                    let file = match entry.loc.path.parent() {
                        Some(dir) => dir.join(file),
                        None => file,
                    };
                    let key = crate::secrets::read_secret_file(&file)
                        .map_err(|e| entry.err(span.clone(), "model.api_key_file", format!("agent {:?}: {e}", entry.id)))?;
                    Some(key)
                }
            };
            Ok(Arc::new(OpenAiCompatible::new(config, key).map_err(|e| entry.err(span, "model", e.to_string()))?))
        }
    }
}

/// A tool with its approval flag (S1) and its idempotent mark set by configuration.
struct Flagged {
    inner: Arc<dyn Tool>,
    require_approval: bool,
    idempotent: bool,
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
    fn idempotent(&self) -> bool {
        self.idempotent
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
