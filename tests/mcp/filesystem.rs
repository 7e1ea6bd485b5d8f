//! The real `@modelcontextprotocol/server-filesystem` on a fresh folder: its tools join the agent with
//! their schemas, `write_file` pauses for approval by configuration (S1) and writes nothing until it
//! is approved (S6), a decline writes nothing and tells the model, a plain tool runs at once.

use crate::*;
use approval_console::app::App;
use approval_console::domain::{CallKind, ItemState, Verdict};
use serde_json::json;
use std::time::Duration;

/// A temp dir with `files/` (the server's root) and `data/` (the console's database).
struct Folders {
    _tmp: tempfile::TempDir,
    files: std::path::PathBuf,
    data: std::path::PathBuf,
}

fn folders() -> Folders {
    let tmp = tempfile::tempdir().unwrap();
    // The server compares real paths: resolve /tmp symlinks up front.
    let root = tmp.path().canonicalize().unwrap();
    let (files, data) = (root.join("files"), root.join("data"));
    std::fs::create_dir(&files).unwrap();
    std::fs::create_dir(&data).unwrap();
    Folders { _tmp: tmp, files, data }
}

/// One agent with the filesystem server on `files`, `write_file` needing approval.
fn agents_toml(files: &std::path::Path) -> String {
    format!("[[agents]]\nid = \"{AGENT}\"\n{}[agents.approval]\ntools = {{ write_file = true }}\n", filesystem_entry("fs", files, 30))
}

const LIMIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn s01_the_servers_tools_join_the_agent_with_their_schemas_and_configured_approval() {
    let f = folders();
    let (agent, seen) = agent(&agents_toml(&f.files), vec![]).await;
    let names: Vec<&str> = agent.tools.iter().map(|t| t.name()).collect();
    for expected in ["read_text_file", "write_file", "list_directory", "list_allowed_directories", "get_file_info", "ask_operator"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let write = agent.tool("write_file").unwrap();
    assert!(write.require_approval(), "write_file needs approval: agents.toml says so");
    assert!(!agent.tool("read_text_file").unwrap().require_approval());
    let schema = write.input_schema();
    assert_eq!(schema["type"], "object");
    let required: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(required.contains(&"path") && required.contains(&"content"), "{schema}");
    assert_eq!(schema["properties"]["content"]["type"], "string", "{schema}");
    assert!(!write.description().is_empty());

    let app = App::open(&f.data, vec![agent]).await.unwrap();
    run(&app, "hello", LIMIT).await;
    let seen = seen.lock().unwrap();
    let shown = seen[0].tools.iter().find(|t| t.name == "write_file").expect("the model is shown write_file");
    assert_eq!(shown.input_schema, schema, "the model gets the server's inputSchema as is");
}

#[tokio::test]
async fn s06_write_file_writes_nothing_until_approved_then_the_file_is_there() {
    let f = folders();
    let path = f.files.join("note.txt");
    let script = vec![
        calls(&[("write_file", json!({"path": path, "content": "approved content\n"}))]),
        ModelTurn { text: "written".into(), tool_calls: vec![] },
    ];
    let (agent, seen) = agent(&agents_toml(&f.files), script).await;
    let app = App::open(&f.data, vec![agent]).await.unwrap();

    let run_id = run(&app, "write a note", LIMIT).await;
    let pending = waiting(&app, &run_id).await;
    assert_eq!(pending.len(), 1, "write_file waits for approval");
    let entry = app.queue_item(&pending[0].id, &app.local_admin("test")).await.unwrap();
    assert_eq!((entry.kind, entry.tool_name.as_str()), (CallKind::Approval, "write_file"));
    assert_eq!(entry.args["content"], "approved content\n");
    assert!(listing(&f.files).is_empty(), "nothing is written before the approval: {:?}", listing(&f.files));

    let decided = decide(&app, &pending[0].id, Verdict::Approve).await;
    assert_eq!(decided.state, ItemState::Delivered);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "approved content\n");
    let outcome = decided.decision.unwrap().outcome.unwrap();
    assert!(text(&outcome["result"]).contains("Successfully wrote"), "{outcome}");
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1);
    assert!(text(&results[0].1).contains(&format!("Successfully wrote to {}", path.display())), "{results:?}");
    assert!(waiting(&app, &run_id).await.is_empty());
}

#[tokio::test]
async fn s06_a_declined_write_file_writes_nothing_and_the_model_is_told() {
    let f = folders();
    let script = vec![calls(&[("write_file", json!({"path": f.files.join("nope.txt"), "content": "x"}))])];
    let (agent, seen) = agent(&agents_toml(&f.files), script).await;
    let app = App::open(&f.data, vec![agent]).await.unwrap();

    let run_id = run(&app, "write", LIMIT).await;
    let pending = waiting(&app, &run_id).await;
    assert_eq!(pending.len(), 1);
    let decided = decide(&app, &pending[0].id, Verdict::Decline { reason: Some("not in this folder".into()) }).await;
    assert_eq!(decided.state, ItemState::Delivered);

    assert!(listing(&f.files).is_empty(), "a declined call writes nothing: {:?}", listing(&f.files));
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1);
    let told = text(&results[0].1);
    assert!(told.contains("declined") && told.contains("not in this folder"), "{told}");
}

#[tokio::test]
async fn a_tool_without_approval_runs_at_once_and_its_result_reaches_the_model() {
    let f = folders();
    std::fs::write(f.files.join("seed.txt"), "seed content").unwrap();
    let script = vec![calls(&[
        ("list_directory", json!({"path": f.files})),
        ("read_text_file", json!({"path": f.files.join("seed.txt")})),
        ("read_text_file", json!({"path": "/etc/hostname"})),
    ])];
    let (agent, seen) = agent(&agents_toml(&f.files), script).await;
    let app = App::open(&f.data, vec![agent]).await.unwrap();

    let run_id = run(&app, "look around", LIMIT).await;
    assert!(waiting(&app, &run_id).await.is_empty(), "nothing waits for approval");
    let results = tool_results(&seen);
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(results[0].1, json!({"content": "[FILE] seed.txt"}), "structuredContent is the result");
    assert_eq!(results[1].1, json!({"content": "seed content"}));
    let refused = text(&results[2].1);
    assert!(refused.contains("Tool read_text_file failed") && refused.contains("Access denied"), "isError is a tool error: {refused}");
}

#[tokio::test]
async fn a_clashing_tool_of_a_later_server_is_prefixed_and_can_be_flagged_by_that_name() {
    let f = folders();
    let other = f.files.join("other");
    std::fs::create_dir(&other).unwrap();
    let text = format!(
        "[[agents]]\nid = \"{AGENT}\"\n{}{}[agents.approval]\ntools = {{ write_file = true, other_write_file = true }}\n",
        filesystem_entry("fs", &f.files, 30),
        filesystem_entry("other", &other, 30),
    );
    let (agent, _) = agent(&text, vec![]).await;
    let names: Vec<&str> = agent.tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"write_file") && names.contains(&"other_write_file"), "{names:?}");
    assert!(agent.tool("other_write_file").unwrap().require_approval());
    assert!(!agent.tool("other_read_text_file").unwrap().require_approval());
    let out = agent.tool("other_list_allowed_directories").unwrap().execute(&json!({}), None).await.unwrap();
    assert!(format!("{out:?}").contains(&*other.to_string_lossy()), "the prefixed tool calls its own server: {out:?}");

    let e = load(&text.replace("other_write_file", "other_write_fil")).await.unwrap_err();
    assert!(e.to_string().contains("approval.tools.other_write_fil") && e.message.contains("other_write_file"), "{e}");
}
