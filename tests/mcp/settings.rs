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
        if name == "echo-prefix" {
            Ok(ApiKey::new("from-the-keyring"))
        } else {
            Err(format!("no secret named {name}"))
        }
    };

    let plain = format!("[[agents]]\nid = \"{AGENT}\"\n{entry}env = {{ ECHO_PREFIX = \"from-env\" }}\n");
    let agents = parse_agents(Path::new("agents.toml"), &plain, keyring).await.unwrap();
    let out = agents[0].tool("echo").unwrap().execute(&json!({"text": "hi"}), None).await.unwrap();
    assert_eq!(out, ToolOutput::Done(json!("from-env: hi")), "a text result is the text, as a JSON string");

    let secret = format!(
        "[[agents]]\nid = \"{AGENT}\"\n{entry}env = {{ ECHO_PREFIX = \"from-env\" }}\nenv_refs = {{ ECHO_PREFIX = \"echo-prefix\" }}\n"
    );
    let agents = parse_agents(Path::new("agents.toml"), &secret, keyring).await.unwrap();
    let out = agents[0].tool("echo").unwrap().execute(&json!({"text": "hi"}), None).await.unwrap();
    assert_eq!(out, ToolOutput::Done(json!("from-the-keyring: hi")), "env_refs wins over env");
}

#[tokio::test]
async fn a_server_gets_only_what_its_config_names_plus_path_home_and_lang() {
    // The test process has many variables (CARGO_*, RUST_*, maybe APPROVAL_CONSOLE_TOKEN): none of
    // them may reach a server, which could be anything a config names.
    assert!(std::env::vars().any(|(k, _)| k.starts_with("CARGO")), "the test runs with variables the server must not see");
    let entry = misbehaving_entry("envy", &["env"], 5);
    let text = format!("[[agents]]\nid = \"{AGENT}\"\n{entry}env = {{ ECHO_PREFIX = \"x\" }}\n");
    let agents =
        parse_agents(Path::new("agents.toml"), &text, |_| async { Err::<ApiKey, String>("no keyring here".into()) }).await.unwrap();
    let ToolOutput::Done(names) = agents[0].tool("echo").unwrap().execute(&json!({"text": "?"}), None).await.unwrap() else {
        panic!("no answer")
    };
    let names: Vec<String> = names.as_str().unwrap().split(',').map(str::to_owned).collect();
    let allowed = ["ECHO_PREFIX", "HOME", "LANG", "PATH"];
    assert!(names.iter().all(|n| allowed.contains(&n.as_str())), "the server saw {names:?}");
    assert!(names.contains(&"ECHO_PREFIX".to_owned()) && names.contains(&"PATH".to_owned()), "{names:?}");
}
