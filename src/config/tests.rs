//! `agents.toml` read and refused: each mistake named by file, line and field.

use super::*;

/// The keyring of these tests: one entry, `good`.
async fn secrets(name: String) -> Result<ApiKey, String> {
    if name == "good" {
        Ok(ApiKey::new("sk-test"))
    } else {
        Err(format!("no secret named {name} in the OS keyring"))
    }
}

fn parse(text: &str) -> Result<Vec<Agent>, ConfigError> {
    futures::executor::block_on(parse_async(text))
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
    assert_eq!(
        e.to_string(),
        "agents.toml:4:3: agents[0].tools[1]: unknown tool \"delet_record\" (built-in tools: ask_operator, delete_record, lookup_record)"
    );
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

    let e =
        parse_async(&server("name = \"fs\"\ncommand = \"/nonexistent/mcp-server\"\nargs = [\"--root\", \"/tmp\"]\n")).await.unwrap_err();
    assert_eq!(e.field, "agents[0].mcp[0].command", "{e}");
    assert_eq!(e.line.map(|l| l.0), Some(5), "{e}");
    assert!(e.message.starts_with("MCP server \"fs\" of agent \"ops\" did not start: could not run \"/nonexistent/mcp-server\""), "{e}");
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
        format!("[[agents]]\nid = \"a\"\n[agents.model]\napi = \"openai-compatible\"\nbase_url = \"http://x/v1\"\nmodel = \"m\"\n{extra}")
    };
    let e = parse(&model("api_key_ref = \"missing\"\n")).unwrap_err();
    assert_eq!(e.field, "agents[0].model.api_key_ref");
    assert!(e.message.contains("no secret named missing"), "{e}");
    assert_eq!(e.line.map(|l| l.0), Some(3), "{e}");
    let e = parse(&model("api_key = \"sk-live-123\"\n")).unwrap_err();
    assert!(!e.to_string().contains("sk-live-123"), "a key written into the file is never echoed: {e}");
    let e = parse(&model("").replace("http://x/v1", "ftp://x")).unwrap_err();
    assert_eq!(e.field, "agents[0].model", "{e}");
    let e =
        parse("[[agents]]\nid = \"a\"\n[agents.approval]\nrules = [{ tool = \"x\", when = [{ pointer = \"/a\", matches = \"(\" }] }]\n")
            .unwrap_err();
    assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].approval.rules", Some(4)), "{e}");
}

/// An agents file in its own directory, `model` its model table's extra lines.
fn openai_agent(model: &str) -> String {
    format!("[[agents]]\nid = \"ops\"\n[agents.model]\napi = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n{model}")
}

fn owner_only(path: &Path, content: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn an_api_key_file_is_read_relative_to_the_agents_file_and_a_bad_one_stops_the_load_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let agents_file = dir.path().join("agents.toml");
    owner_only(&dir.path().join("keys/model.key"), "sk-from-file\n", 0o600);
    // Relative to the agents file's directory, not to the process's (the crate root, which has no keys/).
    let text = openai_agent("api_key_file = \"keys/model.key\"\n");
    assert!(!Path::new("keys/model.key").exists());
    let agents = parse_agents(&agents_file, &text, secrets).await.unwrap();
    assert_eq!(agents[0].model.id(), "openai-compatible/m");
    let absolute = openai_agent(&format!("api_key_file = \"{}\"\n", dir.path().join("keys/model.key").display()));
    assert!(parse_agents(Path::new("elsewhere/agents.toml"), &absolute, secrets).await.is_ok(), "an absolute path is taken as it is");

    owner_only(&dir.path().join("keys/model.key"), "sk-from-file\n", 0o644);
    let e = parse_agents(&agents_file, &text, secrets).await.unwrap_err();
    assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].model.api_key_file", Some(3)), "{e}");
    assert!(e.message.contains("agent \"ops\"") && e.message.contains("its mode is 0644"), "{e}");
    assert!(e.message.contains(&format!("chmod 600 {}", dir.path().join("keys/model.key").display())), "{e}");
    assert!(!format!("{e} {e:?}").contains("sk-from-file"), "the key is never shown: {e}");

    let missing = openai_agent("api_key_file = \"keys/none.key\"\n");
    let e = parse_agents(&agents_file, &missing, secrets).await.unwrap_err();
    assert!(e.to_string().contains(&dir.path().join("keys/none.key").display().to_string()), "names the resolved path: {e}");
}

#[test]
fn an_agent_with_both_api_key_ref_and_api_key_file_is_refused_naming_it() {
    let e = parse(&openai_agent("api_key_ref = \"good\"\napi_key_file = \"model.key\"\n")).unwrap_err();
    assert_eq!((e.field.as_str(), e.line.map(|l| l.0)), ("agents[0].model.api_key_file", Some(3)), "{e}");
    assert!(e.message.contains("agent \"ops\" sets both api_key_ref and api_key_file"), "{e}");
    let e = parse(&openai_agent("api_key_file = 3\n")).unwrap_err();
    assert!(e.message.contains("api_key_file must be a path"), "{e}");
    let e = parse(&openai_agent("api_key_file = \"\"\n")).unwrap_err();
    assert!(e.message.contains("api_key_file is empty"), "{e}");
    let e = parse(&openai_agent("api_key = \"sk-live-123\"\n")).unwrap_err();
    assert!(e.message.contains("unknown field `api_key`") && !e.to_string().contains("sk-live-123"), "still refused: {e}");
}
