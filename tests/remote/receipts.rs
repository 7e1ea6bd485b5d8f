//! The seed's `beforeToolCall` pattern for real (issue 29): the real Mastra server's `ops` agent runs
//! `deleteRecord` only when the hook built on this repo's TypeScript verifier
//! (`verifiers/typescript/src/mastra.ts`) finds the call's receipt at the console and it holds —
//! signature, key, expiry, the arguments about to run, used once (a SQLite store of its own).
//!
//! The refusals are driven as a rogue or confused executor would: the console stores its decisions
//! (never delivering them: the engine is removed), then the Mastra server is told to approve each
//! call directly, with the receipt or the call altered on the way.

use super::*;
use approval_console::domain::receipt::{self, Signer};

/// A console with an agent credential for the hook, then a Mastra server whose `ops` agent checks
/// receipts against it, added as engine `m`.
async fn setup_checked() -> (tempfile::TempDir, MastraServer, Console) {
    let tmp = tempfile::tempdir().unwrap();
    let console = Console::start(&tmp.path().join("console")).await;
    let (status, made) = console.post("/api/tokens", json!({ "name": "mastra-hook", "role": "agent" })).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let mastra_dir = tmp.path().join("mastra");
    std::fs::create_dir_all(&mastra_dir).unwrap();
    let store = format!("sqlite:{}", tmp.path().join("used-receipts.db").display());
    let env = [
        ("MASTRA_RECEIPTS_CONSOLE", console.base.as_str()),
        ("MASTRA_RECEIPTS_TOKEN", made["token"].as_str().unwrap()),
        ("MASTRA_RECEIPTS_STORE", store.as_str()),
    ];
    let mastra = MastraServer::start_with(&mastra_dir, None, &env);
    console.add_engine("m", &mastra, 200).await;
    (tmp, mastra, console)
}

/// What the hook refused, by code, from the server's tool log.
fn refused(mastra: &MastraServer) -> Vec<String> {
    mastra.tools_ran().iter().filter_map(|t| t["refused"].as_str().map(str::to_owned)).collect()
}

#[tokio::test]
async fn an_approved_call_runs_once_its_receipt_holds() {
    let (_tmp, mastra, console) = setup_checked().await;
    mastra.generate("ops", "delete rec-ok", Some(("t-ok", "u-ok"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let (status, after) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["decision"]["delivery"], "delivered", "{after}");
    assert_eq!(ran(&mastra, "deleteRecord"), vec![json!({ "tool": "deleteRecord", "input": { "id": "rec-ok" } })]);
    assert!(refused(&mastra).is_empty(), "{:?}", mastra.tools_ran());
    assert!(after["decision"]["receipt"].is_string());
}

/// `approve-tool-call` sent to the Mastra server directly (not by the console).
async fn approve_directly(mastra: &MastraServer, item: &Value) -> Vec<Value> {
    let ids = json!({ "runId": item["runId"], "toolCallId": item["toolCallId"] });
    mastra.post_sse("/api/agents/ops/approve-tool-call", &ids).await
}

/// Replaces the receipt the console stores for `item`'s decision.
async fn store_receipt(console: &Console, item: &Value, receipt: &str) {
    let item = approval_console::domain::ItemId::new(item["id"].as_str().unwrap());
    let changed = approval_console::store::testing::replace_receipt(console.app.testing().db(), &item, receipt).await.unwrap();
    assert_eq!(changed, 1);
}

#[tokio::test]
async fn changed_arguments_a_replay_an_expired_an_unknown_and_a_forged_receipt_are_each_refused() {
    let (tmp, mastra, console) = setup_checked().await;
    let names = ["changed", "replayed", "expired", "unknown", "forged", "undecided"];
    for name in names {
        mastra.generate("ops", &format!("delete rec-{name}"), Some((&format!("t-{name}"), "u"))).await;
    }
    let items = console.wait_pending(names.len(), |i| i["engine"] == "m").await;
    let item = |name: &str| items.iter().find(|i| i["args"]["id"] == format!("rec-{name}")).unwrap().clone();
    // Every call but one decided in the console, none delivered by it: the engine goes away.
    let mut decided = std::collections::HashMap::new();
    for name in &names[..5] {
        let it = item(name);
        let request = approval_console::domain::DecisionRequest {
            verdict: approval_console::domain::Verdict::Approve,
            fingerprint: approval_console::domain::Fingerprint::parse(it["fingerprint"].as_str().unwrap()).unwrap(),
            operator: "alice (test)".into(),
            operator_key: Some("local:alice".into()),
        };
        let id = approval_console::domain::ItemId::new(it["id"].as_str().unwrap());
        decided.insert(*name, console.app.testing().decide(&id, request).await.unwrap());
    }
    let (status, body) = console.send(reqwest::Method::DELETE, "/api/engines/m", json!({})).await;
    assert!(status.is_success(), "{body}");

    // The arguments changed after the approval, behind the console's back.
    let changed = item("changed");
    assert!(mastra.tamper_args(changed["runId"].as_str().unwrap(), "rec-changed", "rec-everything").await > 0);
    approve_directly(&mastra, &changed).await;

    // A replay: the call ran on its receipt; the server's storage is then put back as it was before,
    // and the same approval arrives again.
    let replayed = item("replayed");
    let mut mastra = mastra;
    let files = |to: &std::path::Path, from: &std::path::Path| {
        for suffix in ["", "-wal", "-shm"] {
            let (from, to) = (format!("{}{suffix}", from.display()), format!("{}{suffix}", to.display()));
            let _ = std::fs::remove_file(&to);
            if std::path::Path::new(&from).exists() {
                std::fs::copy(&from, &to).unwrap();
            }
        }
    };
    let backup = tmp.path().join("mastra-before.db");
    mastra.kill();
    files(&backup, &mastra.db);
    mastra.restart();
    approve_directly(&mastra, &replayed).await;
    assert_eq!(ran(&mastra, "deleteRecord"), vec![json!({ "tool": "deleteRecord", "input": { "id": "rec-replayed" } })]);
    mastra.kill();
    files(&mastra.db, &backup);
    mastra.restart();
    approve_directly(&mastra, &replayed).await;

    // Expired: re-signed with the console's own key, its lifetime over.
    let genuine = decided["expired"].receipt.clone().unwrap();
    let (header, mut claims) = receipt::decode(&genuine).unwrap();
    let key_file = console.dir.join("receipt-keys").join(format!("{}.key", header.kid));
    let own = Signer::from_secret_text(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    claims.issued_at -= 7200;
    claims.expires_at = claims.issued_at + 3600;
    store_receipt(&console, &item("expired"), &own.sign(&claims)).await;
    approve_directly(&mastra, &item("expired")).await;

    // Signed by a key the console never published.
    let (_, claims) = receipt::decode(decided["unknown"].receipt.as_deref().unwrap()).unwrap();
    store_receipt(&console, &item("unknown"), &Signer::generate().sign(&claims)).await;
    approve_directly(&mastra, &item("unknown")).await;

    // Forged: its claims changed (another approver), its signature kept.
    let genuine = decided["forged"].receipt.clone().unwrap();
    let parts: Vec<&str> = genuine.split('.').collect();
    let (_, mut claims) = receipt::decode(&genuine).unwrap();
    claims.approvers = vec!["local:mallory".into()];
    let payload = approval_console::domain::canonical_json(&serde_json::to_value(&claims).unwrap()).unwrap();
    use base64::Engine as _;
    let forged = format!("{}.{}.{}", parts[0], base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload), parts[2]);
    store_receipt(&console, &item("forged"), &forged).await;
    approve_directly(&mastra, &item("forged")).await;

    // Never decided: no receipt at all.
    approve_directly(&mastra, &item("undecided")).await;

    assert_eq!(
        refused(&mastra),
        ["fingerprint_mismatch", "replayed", "expired", "unknown_key", "bad_signature", "no_receipt"],
        "{:?}",
        mastra.tools_ran()
    );
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1, "only the genuine first run of rec-replayed ran: {:?}", mastra.tools_ran());
}
