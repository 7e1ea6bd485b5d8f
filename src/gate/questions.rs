//! An upstream that asks before it runs: MCP 2026-07-28's `input_required` (a `@mastra/mcp` tool
//! that calls `suspend()` answers so). Each form it asks for becomes a question in the console
//! (a `suspend` entry whose resume schema is the form's), and the operator's answer goes back as
//! that request's `accept` with the data; a decline, an expiry or a console that cannot be reached
//! ends the call unrun. Only forms can be answered: a server asking for a link to be opened, for a
//! model's completion or for the client's roots gets the call failed with the reason.

use crate::app::calls::{NewCall, Outcome};
use crate::connector::ConsoleClient;
use crate::domain::CallSource;
use rmcp::model::{ElicitRequestParams, InputRequest, InputRequiredResult, InputResponses};
use serde_json::{json, Value};
use std::time::Duration;

/// Where a question comes from, for the console entry it becomes.
pub struct Asking<'a> {
    pub console: &'a ConsoleClient,
    pub agent: &'a str,
    pub upstream_command: &'a str,
    pub timeout: Duration,
    /// The Idempotency-Key prefix of this call's questions (one per round and request).
    pub key: &'a str,
}

/// The answers to the upstream's requests of one round: the responses and its `requestState`,
/// echoed as it came; `Err` with the reason the call is not run.
pub async fn answer(
    asking: &Asking<'_>,
    tool: &str,
    args: &Value,
    asked: InputRequiredResult,
    round: usize,
) -> Result<(InputResponses, Option<String>), String> {
    let mut responses = InputResponses::new();
    for (request, input) in asked.input_requests.unwrap_or_default() {
        let (message, schema) = form_of(&input)?;
        let call = NewCall {
            tool: tool.to_owned(),
            args: args.clone(),
            agent: asking.agent.to_owned(),
            thread: None,
            resume_schema: Some(schema),
            payload: Some(json!({ "message": message })),
            source: Some(CallSource::Mcp),
            context: Some(json!({ "upstream": asking.upstream_command, "upstreamAsks": request })),
        };
        let key = format!("{}:round{round}:{request}", asking.key);
        let status = asking.console.ask(&call, Some(&key), asking.timeout).await?;
        match status.outcome {
            Outcome::Answered => {
                responses.insert(request, json!({ "action": "accept", "content": status.data.unwrap_or_else(|| json!({})) }));
            }
            Outcome::Declined => {
                return Err(match status.reason {
                    Some(r) => format!("the upstream's question was declined in Approval Console: {r}"),
                    None => "the upstream's question was declined in Approval Console".to_owned(),
                })
            }
            _ => return Err("the upstream's question left the Approval Console queue unanswered".to_owned()),
        }
    }
    Ok((responses, asked.request_state))
}

/// The message and schema of a form the upstream asks for; `Err` for any other request.
fn form_of(input: &InputRequest) -> Result<(String, Value), String> {
    match input {
        InputRequest::Elicitation(request) => match &request.params {
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
                let schema = serde_json::to_value(requested_schema).map_err(|e| format!("the upstream's form does not serialise: {e}"))?;
                Ok((message.clone(), schema))
            }
            ElicitRequestParams::UrlElicitationParams { url, .. } => {
                Err(format!("the upstream asks for a link to be opened ({url}); the MCP gate answers only forms"))
            }
            #[allow(unreachable_patterns)]
            _ => Err("the upstream asks for a kind of input the MCP gate cannot answer".to_owned()),
        },
        InputRequest::CreateMessage(_) => {
            Err("the upstream asks for a model's completion (sampling); the MCP gate answers only forms".to_owned())
        }
        InputRequest::ListRoots(_) => Err("the upstream asks for the client's roots; the MCP gate answers only forms".to_owned()),
        #[allow(unreachable_patterns)]
        _ => Err("the upstream asks for a kind of input the MCP gate cannot answer".to_owned()),
    }
}
