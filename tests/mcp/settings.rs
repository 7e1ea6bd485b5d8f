//! A server's settings reach its process: `env`, and `env_refs` read from the OS keyring.

use crate::*;
use approval_console::config::parse_agents;
use approval_console::engine::local::agent::ToolOutput;
use approval_console::engine::local::model::ApiKey;
use serde_json::json;
use std::path::Path;

#[tokio::test]
async fn env_and_keyring_values_reach_the_server_process() {
    let entry = misbehaving_entry("echo", &["ok"], 5);
    let keyring = |name: String| async move {
        if name == "echo-prefix" { Ok(ApiKey::new("from-the-keyring")) } else { Err(format!("no secret named {name}")) }
    };

    let plain = format!("[[agents]]\nid = \"{AGENT}\"\n{entry}env = {{ ECHO_PREFIX = \"from-env\" }}\n");
    let agents = parse_agents(Path::new("agents.toml"), &plain, keyring).await.unwrap();
    let out = agents[0].tool("echo").unwrap().execute(&json!({"text": "hi"}), None).await.unwrap();
    assert_eq!(out, ToolOutput::Done(json!("from-env: hi")), "a text result is the text, as a JSON string");

    let secret = format!("[[agents]]\nid = \"{AGENT}\"\n{entry}env = {{ ECHO_PREFIX = \"from-env\" }}\nenv_refs = {{ ECHO_PREFIX = \"echo-prefix\" }}\n");
    let agents = parse_agents(Path::new("agents.toml"), &secret, keyring).await.unwrap();
    let out = agents[0].tool("echo").unwrap().execute(&json!({"text": "hi"}), None).await.unwrap();
    assert_eq!(out, ToolOutput::Done(json!("from-the-keyring: hi")), "env_refs wins over env");
}
