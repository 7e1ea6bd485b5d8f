//! Unit tests of `engine/local/mcp`.

use super::*;
use rmcp::model::{ContentBlock, JsonObject};
use serde_json::json;

fn result(content: Vec<ContentBlock>, structured: Option<Value>, is_error: Option<bool>) -> CallToolResult {
    let mut r = CallToolResult::success(content);
    r.structured_content = structured;
    r.is_error = is_error;
    r
}

#[test]
fn a_result_is_its_structured_content_else_its_text_and_an_error_is_a_tool_error() {
    let text = vec![ContentBlock::text("line 1"), ContentBlock::text("line 2")];
    assert_eq!(result_value(result(text.clone(), None, None)), Ok(json!("line 1\nline 2")));
    assert_eq!(result_value(result(text.clone(), Some(json!({"content": "x"})), None)), Ok(json!({"content": "x"})));
    assert_eq!(result_value(result(text, Some(json!({"content": "x"})), Some(true))), Err("line 1\nline 2".into()));
    assert_eq!(result_value(result(vec![], Some(json!({"e": 1})), Some(true))), Err(r#"{"e":1}"#.into()));
    assert_eq!(result_value(result(vec![ContentBlock::image("AAAA", "image/png")], None, None)), Ok(json!("[image image/png]")));
}

#[tokio::test]
async fn a_clashing_name_gets_the_server_prefix_and_a_double_clash_is_refused() {
    let server = Arc::new(McpServer {
        agent: "a".into(),
        config: ServerConfig::new("fs", "true", Vec::<String>::new()),
        process: tokio::sync::Mutex::new(None),
        last_exit: Mutex::new(None),
    });
    let tool = |name: &str| rmcp::model::Tool::new(name.to_owned(), "d", Arc::new(JsonObject::new()));
    let mut taken: HashSet<String> = ["ask_operator".to_owned(), "read_file".to_owned()].into();
    let named = McpTool::named(&server, vec![tool("read_file"), tool("write_file")], &mut taken).unwrap();
    assert_eq!(
        named.iter().map(|t| (t.name(), t.remote_name.as_str())).collect::<Vec<_>>(),
        [("fs_read_file", "read_file"), ("write_file", "write_file")]
    );
    let e = McpTool::named(&server, vec![tool("read_file")], &mut taken).err().unwrap();
    assert!(e.contains("\"fs_read_file\""), "{e}");
}

#[test]
fn a_server_configs_debug_shows_env_names_not_values() {
    let mut config = ServerConfig::new("fs", "npx", Vec::<String>::new());
    config.env.insert("API_TOKEN".into(), "s3cr3t-value".into());
    let shown = format!("{config:?}");
    assert!(shown.contains("API_TOKEN") && !shown.contains("s3cr3t-value"), "{shown}");
}
