//! Prints figures, asserts nothing about speed. `cargo bench --bench figures -- mcp_overhead` (env: BENCH_CALLS,
//! default 200). Needs `node` on PATH and `npm ci` in tests/mcp.
//!
//! What one MCP tool call costs through the `Tool` impl: `execute` → rmcp `tools/call` over the
//! stdio pipes → the real `@modelcontextprotocol/server-filesystem` (Node) → answer parsed → result
//! value. Calls of two cheap tools one after another, then the same calls 8 at a time (one server,
//! requests multiplexed on its pipe), against a built-in tool's `execute` as the floor. Also the time
//! to start a server (spawn, initialize, tools/list), what an agent pays per server at load.

use approval_console::engine::local::agent::Tool;
use approval_console::engine::local::demo::LookupRecord;
use approval_console::engine::local::mcp::{McpServer, McpTool, ServerConfig};
use futures::future::join_all;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WARM_UP: usize = 20;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

async fn sequential(tool: &dyn Tool, args: &Value, n: usize) -> Duration {
    for _ in 0..WARM_UP {
        tool.execute(args, None).await.expect("the call succeeds");
    }
    let started = Instant::now();
    for _ in 0..n {
        tool.execute(args, None).await.expect("the call succeeds");
    }
    started.elapsed() / n as u32
}

async fn concurrent(tool: &Arc<dyn Tool>, args: &Value, n: usize, width: usize) -> Duration {
    let started = Instant::now();
    for _ in 0..n.div_ceil(width) {
        let batch = (0..width).map(|_| {
            let tool = tool.clone();
            let args = args.clone();
            tokio::spawn(async move { tool.execute(&args, None).await.expect("the call succeeds") })
        });
        join_all(batch).await;
    }
    started.elapsed() / (n.div_ceil(width) * width) as u32
}

pub async fn run() {
    let n = env_usize("BENCH_CALLS", 200).max(1);
    let server_js =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(server_js.is_file(), "{} is missing: run `npm ci` in tests/mcp", server_js.display());
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::write(root.join("file.txt"), "x").unwrap();
    let config = ServerConfig::new("fs", "node", [server_js.to_string_lossy().into_owned(), root.to_string_lossy().into_owned()]);

    let mut starts = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let (server, tools) = McpServer::start("bench", config.clone()).await.expect("the server starts");
        starts.push(started.elapsed());
        drop((server, tools));
    }
    starts.sort();
    let (server, listed) = McpServer::start("bench", config).await.expect("the server starts");
    let tools: Vec<Arc<dyn Tool>> =
        McpTool::named(&server, listed, &mut HashSet::new()).unwrap().into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>).collect();
    let tool = |name: &str| tools.iter().find(|t| t.name() == name).unwrap().clone();

    println!(
        "MCP tool call overhead — {n} calls per line (after {WARM_UP} warm-up), @modelcontextprotocol/server-filesystem on node {}",
        std::process::Command::new("node")
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    );
    println!("  server start (spawn + initialize + tools/list, median of 5)  {:9.1} ms", starts[2].as_secs_f64() * 1000.0);

    let floor = sequential(&LookupRecord, &json!({"id": "r1"}), n).await;
    println!("  built-in tool execute (lookup_record), the floor            {:9.1} µs/call", us(floor));
    for (name, args) in [("list_allowed_directories", json!({})), ("get_file_info", json!({"path": root.join("file.txt")}))] {
        let per = sequential(tool(name).as_ref(), &args, n).await;
        println!("  {name:<26} one at a time                      {:9.1} µs/call   {:8.0} calls/s", us(per), 1.0 / per.as_secs_f64());
        let per = concurrent(&tool(name), &args, n, 8).await;
        println!("  {name:<26} 8 in flight                        {:9.1} µs/call   {:8.0} calls/s", us(per), 1.0 / per.as_secs_f64());
    }
}
