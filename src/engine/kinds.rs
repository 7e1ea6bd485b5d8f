//! The registry of engine kinds: what each [`CallSource`] is and how the console reaches it.
//!
//! A call comes from one of three families of kinds: this console's **local** engine (in team mode
//! also another console's, `local@<instance>`), a **remote** server the console polls (Mastra,
//! LangGraph), or an agent that **submits** its calls itself (HTTP, the coding agents' hooks, the
//! MCP gate). This is the one place that says which kind is which: everything else asks the
//! registry (`tests/layers.rs` fails on a match on a kind anywhere else). The console owns what is
//! the same for every kind around it — fingerprint checks (C3), batching, holding, retries, leases.
//!
//! Adding a kind: a variant of [`CallSource`] (the compiler then points here), its entry in
//! [`kind`], its module (for a remote kind, an [`crate::engine::remote::Adapter`] and the
//! [`RemoteKind`] that declares it — no poll, lease or retry code: the console's supervisor runs
//! every remote kind), a migration if it stores anything of its own, and its fixture server for the
//! tests. The registry names the kinds' modules; they never name the registry (`tests/layers.rs`).

use crate::domain::{CallSource, EngineId, Error};
pub use crate::engine::remote::RemoteKind;

/// What a kind is.
#[derive(Clone, Copy)]
pub enum Family {
    /// This console's local engine, or (team mode) another console's.
    Local,
    /// A server the console polls for paused calls and sends decisions to.
    Remote(&'static RemoteKind),
    /// Agents that submit their calls themselves and wait for the decision.
    Submitted {
        /// Whether the agent can run a call with arguments the operator edited (Claude Code's
        /// `PreToolUse` takes `updatedInput`; Codex refuses it; Gemini CLI merges an edit into the
        /// model's arguments rather than replacing them, so it is offered none; the others have no way
        /// to say it).
        takes_edits: bool,
    },
}

/// One kind: its source, how people call it, and its family.
#[derive(Clone, Copy)]
pub struct Kind {
    pub source: CallSource,
    pub label: &'static str,
    pub family: Family,
}

/// The registry: every kind, by its source. A new [`CallSource`] fails to compile here until it
/// is registered.
pub fn kind(source: CallSource) -> Kind {
    let (label, family) = match source {
        CallSource::Local => ("local engine", Family::Local),
        CallSource::Mastra => remote_kind(&crate::engine::mastra::KIND),
        CallSource::Langgraph => remote_kind(&crate::engine::langgraph::KIND),
        CallSource::AgUi => remote_kind(&crate::engine::agui::KIND),
        CallSource::Http => ("HTTP agent", Family::Submitted { takes_edits: false }),
        CallSource::ClaudeCode => ("Claude Code", Family::Submitted { takes_edits: true }),
        CallSource::Codex => ("Codex", Family::Submitted { takes_edits: false }),
        CallSource::Gemini => ("Gemini CLI", Family::Submitted { takes_edits: false }),
        CallSource::Mcp => ("MCP gate", Family::Submitted { takes_edits: false }),
        // ACP answers a permission request with one of the agent's options: no arguments of its own.
        CallSource::Acp => ("ACP agent", Family::Submitted { takes_edits: false }),
        // The SDK adapters (`adapters/`) run the call the model made or none: an SDK's own approval
        // step has no way to run changed arguments, so an edit is refused before it is offered.
        CallSource::OpenaiAgents => ("OpenAI Agents SDK", Family::Submitted { takes_edits: false }),
        CallSource::AiSdk => ("AI SDK", Family::Submitted { takes_edits: false }),
        CallSource::Adk => ("Google ADK", Family::Submitted { takes_edits: false }),
        CallSource::Langchain => ("LangChain", Family::Submitted { takes_edits: false }),
        CallSource::A2a => remote_kind(&crate::engine::a2a::KIND),
    };
    Kind { source, label, family }
}

/// A remote kind's entry, as its module declares it.
fn remote_kind(declared: &'static RemoteKind) -> (&'static str, Family) {
    (declared.label, Family::Remote(declared))
}

/// The kinds of remote servers, in the order they are offered.
pub fn remote_kinds() -> impl Iterator<Item = CallSource> {
    CallSource::ALL.into_iter().filter(|s| matches!(kind(*s).family, Family::Remote(_)))
}

/// The kind a new remote engine is when none is said.
pub fn default_remote() -> CallSource {
    remote_kinds().next().expect("a remote kind is registered")
}

/// How to reach a remote kind; `invalid_request` naming the remote kinds for any other source.
pub fn remote(source: CallSource) -> Result<&'static RemoteKind, Error> {
    match kind(source).family {
        Family::Remote(r) => Ok(r),
        _ => Err(Error::InvalidRequest(format!("engine kind {:?}: use {}", source.as_str(), names(remote_kinds())))),
    }
}

/// A remote kind by name (any case, trimmed), as the CLI takes it.
pub fn parse_remote(text: &str) -> Result<CallSource, Error> {
    let name = text.trim().to_ascii_lowercase();
    remote_kinds()
        .find(|s| s.as_str() == name)
        .ok_or_else(|| Error::InvalidRequest(format!("engine kind {name:?}: use {}", names(remote_kinds()))))
}

/// The names of the remote kinds, as serde's errors list what was expected.
static REMOTE_NAMES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| remote_kinds().map(|s| s.as_str()).collect());

/// Reads a remote kind from a request (`#[serde(deserialize_with)]`): any other value is refused as
/// an unknown variant that names the remote kinds only ("expected `mastra` or `langgraph`").
pub fn deserialize_remote<'de, D: serde::Deserializer<'de>>(d: D) -> Result<CallSource, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(d)?;
    remote_kinds().find(|s| s.as_str() == name).ok_or_else(|| <D::Error as serde::de::Error>::unknown_variant(&name, &REMOTE_NAMES))
}

/// The sources of calls that agents submit themselves. Each is an engine of its own name.
pub fn submitted() -> impl Iterator<Item = CallSource> {
    CallSource::ALL.into_iter().filter(|s| is_submitted(*s))
}

pub fn is_submitted(source: CallSource) -> bool {
    matches!(kind(source).family, Family::Submitted { .. })
}

/// A source of submitted calls by its name (`http`, `claude-code`, …).
pub fn parse_submitted(text: &str) -> Option<CallSource> {
    CallSource::parse(text).filter(|s| is_submitted(*s))
}

/// The names of `sources`, as an error message lists them: "a, b or c".
pub fn names(sources: impl Iterator<Item = CallSource>) -> String {
    let all: Vec<&str> = sources.map(|s| s.as_str()).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => (*last).to_owned(),
        None => String::new(),
    }
}

/// Whether a submitted source's agent can run a call with edited arguments.
pub fn takes_edits(source: CallSource) -> bool {
    matches!(kind(source).family, Family::Submitted { takes_edits: true })
}

/// Whether a submitted source's relayed permission prompts (previews) join its hook's calls for
/// the same tool call: Claude Code's channel relay (`app::calls` `join`).
pub fn joins_relayed_previews(source: CallSource) -> bool {
    source == CallSource::ClaudeCode
}

/// The local engine's id: `local` on a console of its own, `local@<instance>` in team mode (each
/// console's local engine is an engine of its own in the shared queue).
pub fn local_engine(instance: Option<&str>) -> EngineId {
    match instance {
        None => EngineId::local(),
        Some(name) => EngineId::new(format!("{}@{name}", EngineId::local().as_str())),
    }
}

/// The instance of a team-mode console whose local engine `engine` is (`local@<instance>`).
pub fn local_instance(engine: &str) -> Option<&str> {
    engine.strip_prefix(EngineId::local().as_str())?.strip_prefix('@')
}

/// The tools the coding agents whose hooks this console answers call by name (Claude Code's,
/// Codex's, Gemini CLI's): known before any of their calls was queued, for rules about them.
pub const CODING_AGENT_TOOLS: &[&str] = &[
    "Bash",
    "Edit",
    "MultiEdit",
    "Write",
    "Read",
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "Glob",
    "Grep",
    "Task",
    "shell",
    "apply_patch",
    "exec_command",
    "run_shell_command",
    "write_file",
    "replace",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_is_registered_once_in_one_family() {
        let remote: Vec<_> = remote_kinds().collect();
        let submitted: Vec<_> = submitted().collect();
        assert_eq!(remote, [CallSource::Mastra, CallSource::Langgraph, CallSource::AgUi, CallSource::A2a]);
        for source in remote {
            let declared = super::remote(source).unwrap();
            assert_eq!(declared.source, source, "a remote kind is registered under the source it declares");
            assert_eq!(kind(source).label, declared.label);
        }
        assert_eq!(
            submitted,
            [
                CallSource::Http,
                CallSource::ClaudeCode,
                CallSource::Codex,
                CallSource::Gemini,
                CallSource::Mcp,
                CallSource::Acp,
                CallSource::OpenaiAgents,
                CallSource::AiSdk,
                CallSource::Adk,
                CallSource::Langchain
            ]
        );
        assert!(matches!(kind(CallSource::Local).family, Family::Local));
        assert_eq!(default_remote(), CallSource::Mastra);
        assert!(takes_edits(CallSource::ClaudeCode) && !takes_edits(CallSource::Codex) && !takes_edits(CallSource::Mastra));
    }

    #[test]
    fn kinds_are_parsed_by_family() {
        assert_eq!(parse_remote(" LangGraph ").unwrap(), CallSource::Langgraph);
        let e = parse_remote("http").unwrap_err().to_string();
        assert!(e.contains("use mastra, langgraph, ag-ui or a2a"), "{e}");
        assert!(remote(CallSource::Codex).is_err());
        assert_eq!(parse_submitted("claude-code"), Some(CallSource::ClaudeCode));
        assert_eq!(parse_submitted("mastra"), None);
        assert_eq!(names(submitted()), "http, claude-code, codex, gemini, mcp, acp, openai-agents, ai-sdk, adk or langchain");
        let read = |v: serde_json::Value| deserialize_remote(v).map_err(|e| e.to_string());
        assert_eq!(read(serde_json::json!("langgraph")), Ok(CallSource::Langgraph));
        assert_eq!(read(serde_json::json!("a2a")), Ok(CallSource::A2a));
        assert_eq!(
            read(serde_json::json!("http")).unwrap_err(),
            "unknown variant `http`, expected one of `mastra`, `langgraph`, `ag-ui`, `a2a`"
        );
    }

    #[test]
    fn the_local_engine_of_a_team_console_names_its_instance() {
        assert_eq!(local_engine(None).as_str(), "local");
        assert_eq!(local_engine(Some("b")).as_str(), "local@b");
        assert_eq!(local_instance("local@b"), Some("b"));
        assert_eq!(local_instance("local"), None);
        assert_eq!(local_instance("localx@b"), None);
        assert_eq!(local_instance("mastra"), None);
    }
}
