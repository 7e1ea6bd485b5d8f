//! Agent definitions for the local engine: a model, tools, and the tools' approval flags (S1).

use crate::domain::{AgentId, Error};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// A tool call proposed by a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposedCall {
    pub tool_call_id: String,
    pub tool_name: String,
    pub args: Value,
}

/// A conversation message as the run keeps it (and the snapshot stores it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: String,
        #[serde(default, rename = "toolCalls")]
        tool_calls: Vec<ProposedCall>,
    },
    Tool {
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        #[serde(rename = "toolName")]
        tool_name: String,
        content: Value,
    },
}

/// What a model answers for one step: text, tool calls, or both.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTurn {
    pub text: String,
    pub tool_calls: Vec<ProposedCall>,
}

/// A tool as the model sees it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// A language model: given the conversation and the tools, the next step.
#[async_trait]
pub trait Model: Send + Sync {
    /// `provider/model`, shown in the agent listing.
    fn id(&self) -> String;
    async fn step(&self, messages: &[Message], tools: &[ToolSpec]) -> Result<ModelTurn, Error>;

    /// Structured output: data fitting `schema`, taken from the conversation (used by auto-resume,
    /// S10, to turn the user's next message into resume data). The caller validates the answer.
    async fn extract(&self, messages: &[Message], schema: &Value) -> Result<Value, Error> {
        let _ = (messages, schema);
        Err(Error::Engine(format!("model {} cannot extract structured data", self.id())))
    }
}

/// What a tool's execution gives.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutput {
    /// The result handed to the model.
    Done(Value),
    /// S8: the tool suspends with this payload and waits for resume data.
    Suspend(Value),
}

/// A tool the local engine can run.
#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    fn input_schema(&self) -> Value;
    /// S1: always pause for approval before executing.
    fn require_approval(&self) -> bool {
        false
    }
    /// Running it twice with the same arguments does no more than running it once: an interrupted
    /// call of it may be run again (issue 15). Off unless the tool or the configuration says so.
    fn idempotent(&self) -> bool {
        false
    }
    fn suspend_schema(&self) -> Option<Value> {
        None
    }
    fn resume_schema(&self) -> Option<Value> {
        None
    }
    /// Runs the tool. `resume` is the operator's resume data after a suspend (S8). An `Err` is a tool
    /// error, handed to the model as the result.
    async fn execute(&self, args: &Value, resume: Option<&Value>) -> Result<ToolOutput, String>;

    /// S13: `Some(agent)` if this tool is that sub-agent (`agent-<key>`); the engine runs it as a
    /// child run instead of calling [`Tool::execute`].
    fn sub_agent(&self) -> Option<&AgentId> {
        None
    }
}

/// A sub-agent as its supervisor's tool `agent-<key>` (as in Mastra), taking `{prompt}`.
pub struct SubAgent {
    key: AgentId,
    name: String,
    description: String,
}

impl SubAgent {
    pub fn new(key: AgentId, description: impl Into<String>) -> Self {
        Self { name: format!("agent-{key}"), key, description: description.into() }
    }
}

#[async_trait]
impl Tool for SubAgent {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Value {
        serde_json::json!({"type": "object", "properties": {"prompt": {"type": "string", "description": "What the sub-agent should do"}}, "required": ["prompt"]})
    }
    fn sub_agent(&self) -> Option<&AgentId> {
        Some(&self.key)
    }
    async fn execute(&self, _args: &Value, _resume: Option<&Value>) -> Result<ToolOutput, String> {
        Err(format!("{} is a sub-agent: the engine runs it", self.name))
    }
}

/// An agent of the local engine.
#[derive(Clone)]
pub struct Agent {
    pub id: AgentId,
    pub name: String,
    pub instructions: String,
    pub model: Arc<dyn Model>,
    pub tools: Vec<Arc<dyn Tool>>,
    /// The agent's own approval rules (from its definition): a call they match pauses, whatever the
    /// request asks; OR-ed with the tool flags (S1) and the request's policy (S2, S3).
    pub approval_rules: Option<super::policy::Rules>,
    /// Keep conversations: with a thread and a resource, a run starts from the thread's earlier
    /// messages and adds its own when it finishes.
    pub memory: bool,
}

impl Agent {
    pub fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec { name: t.name().into(), description: t.description().into(), input_schema: t.input_schema() })
            .collect()
    }
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("model", &self.model.id())
            .field("tools", &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>())
            .finish()
    }
}
