//! The channels' secrets (issue 44): a namespace of their own, set by the local admin alone. An
//! admin token cannot point a channel at any other secret of this machine (the receipts' signing
//! key, the session token, an engine's keyring entry); a secret set by the local admin is used and
//! never shown; plain SMTP goes only to this machine.

use super::helpers::*;
use super::reach::{all_sent, messages, receiver, set_secret, webhook};
use crate::helpers::wait;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

/// Everything the catcher received, headers and bodies, as text.
fn caught(inbox: &super::reach::Inbox) -> String {
    inbox
        .got
        .lock()
        .unwrap()
        .iter()
        .map(|(path, headers, body)| format!("{path} {headers:?} {}\n", String::from_utf8_lossy(body)))
        .collect()
}

/// A Matrix channel to `base`'s catcher that names its secret by place, as settings could before.
fn named(base: &str, field: &str, place: &str) -> Value {
    let mut channel =
        json!({ "name": "ops-room", "kind": "matrix", "person": "ops", "target": "!room:localhost", "server": format!("{base}/matrix") });
    channel[field] = json!(place);
    json!({ "channels": [channel] })
}

#[tokio::test]
async fn an_admin_token_can_point_no_channel_at_the_receipt_key_the_session_token_or_an_engines_keyring_entry() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let (base, inbox) = receiver().await;
    let admin = t.token("boss", Role::Admin).await;
    // The console's receipt key (a rotation makes one now) and its session token file.
    let (status, rotated) = t.call_as(&admin, Method::POST, "/api/receipts/keys/rotate", Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let kid = rotated["kid"].as_str().unwrap().to_owned();
    let key_file = t.dir.join("receipt-keys").join(format!("{kid}.key"));
    let key = std::fs::read_to_string(&key_file).unwrap().trim().to_owned();
    let session = approval_console::app::serving::session_token(&t.dir, false).unwrap();
    let session_file = t.dir.join("session-token");
    assert!(!key.is_empty() && session_file.exists());

    let places = [
        ("secretFile", key_file.to_string_lossy().into_owned()),
        ("secretFile", session_file.to_string_lossy().into_owned()),
        ("secretRef", "engine.prod.token.0123456789abcdef".to_owned()),
        ("secretRef", format!("receipt-key:{kid}")),
    ];
    for (field, place) in &places {
        for (who, token) in [("an admin token", admin.as_str()), ("the local admin", TOKEN)] {
            let (status, body) = t.call_as(token, Method::PUT, "/api/settings/reach", Some(named(&base, field, place))).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{who}, {field} {place}: {body}");
            assert_eq!(body["code"], "invalid_request");
            let said = body["message"].as_str().unwrap();
            assert!(said.contains(field) && said.contains("channels secret set ops-room"), "says how instead: {said}");
        }
    }
    // Nor through the channel's own secret: an admin token may not set or remove one, and a name
    // is a channel's, never a path.
    let path = "/api/settings/reach/channels/ops-room/secret";
    let (status, body) = t.call_as(&admin, Method::PUT, path, Some(json!({ "value": "attacker-token" }))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("only the local admin"), "{body}");
    let (status, body) = t.call_as(&admin, Method::DELETE, path, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = t.put("/api/settings/reach/channels/..%2Fsession-token/secret", json!({ "value": "x" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(std::fs::read_to_string(&session_file).unwrap().trim(), session, "the session token file is untouched");
    // And a channel that needs a secret has none until the local admin sets it.
    let bare = json!({ "channels": [{ "name": "ops-room", "kind": "matrix", "person": "ops", "target": "!room:localhost", "server": format!("{base}/matrix") }] });
    let (status, body) = t.call_as(&admin, Method::PUT, "/api/settings/reach", Some(bare)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("none is set"), "{body}");
    assert_eq!(t.count("SELECT COUNT(*) FROM settings WHERE key = 'reach'").await, 0, "nothing was stored");

    // A channel whose secret the local admin set: the admin token may route calls to it. Once its
    // message arrived, the worker has run: the catcher never got a secret of this console.
    set_secret(&t, "ops-hook", "hook-key").await;
    let settings = json!({ "channels": [webhook("ops-hook", "ops", &format!("{base}/hook"))] });
    let (status, body) = t.call_as(&admin, Method::PUT, "/api/settings/reach", Some(settings)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    t.generate("delete rec-1").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    all_sent(&t, &id).await;
    let seen = caught(&inbox);
    assert!(seen.contains("/hook"), "{seen}");
    assert!(!seen.contains("/matrix"), "nothing went to the Matrix catcher: {seen}");
    assert!(!seen.contains(&key) && !seen.contains(&session), "no secret of the console was sent");
    let (_, stored) = t.get("/api/settings/reach").await;
    assert!(!stored.to_string().contains("receipt-keys") && !stored.to_string().contains("session-token"), "{stored}");
}

#[tokio::test]
async fn a_stored_document_naming_a_secret_file_still_loads_and_its_channel_reports_no_secret_set() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let (base, inbox) = receiver().await;
    let session = approval_console::app::serving::session_token(&t.dir, false).unwrap();
    // As an older version stored it (settings saved by an admin token before this check).
    let old: approval_console::domain::reach::ReachSettings =
        serde_json::from_value(named(&base, "secretFile", &t.dir.join("session-token").to_string_lossy())).unwrap();
    approval_console::store::settings::update(
        t.app.testing().db(),
        "an older version",
        |_: approval_console::domain::reach::ReachSettings| Ok(old),
    )
    .await
    .unwrap();
    let (status, stored) = t.get("/api/settings/reach").await;
    assert_eq!(status, StatusCode::OK, "it loads: {stored}");
    assert_eq!(stored["channels"][0]["name"], "ops-room");
    // Saved again as it is, it is refused, saying how to set the channel's secret instead.
    let (status, body) = t.put("/api/settings/reach", stored).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let said = body["message"].as_str().unwrap();
    assert!(said.contains("secretFile") && said.contains("channels secret set ops-room"), "{said}");

    // Its channel sends nothing: "no secret set", to the end (`reach.failed`).
    t.generate("delete rec-1").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    let first = wait::until(Duration::from_secs(30), || async {
        let m = messages(&t, &id).await;
        match m.first() {
            Some(m) if m["lastError"].is_string() => Ok(m.clone()),
            other => Err(format!("not tried yet: {other:?}")),
        }
    })
    .await;
    assert!(first["lastError"].as_str().unwrap().contains("no secret set for channel ops-room"), "{first}");
    // Its last attempt now, rather than after the backoff's two minutes.
    approval_console::store::testing::make_reach_due(t.app.testing().db(), &approval_console::domain::ItemId::new(&id), 7).await.unwrap();
    let failed = wait::until(Duration::from_secs(30), || async {
        let (_, log) = t.get("/api/audit?limit=50").await;
        log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["action"] == "reach.failed")
            .cloned()
            .ok_or_else(|| "not given up yet".to_owned())
    })
    .await;
    assert!(failed["details"]["error"].as_str().unwrap().contains("no secret set"), "{failed}");
    assert!(inbox.got.lock().unwrap().is_empty(), "nothing reached the catcher: {}", caught(&inbox));
    assert!(!caught(&inbox).contains(&session));
}

#[tokio::test]
async fn a_channel_secret_set_by_the_local_admin_is_used_and_never_shown_in_the_settings_the_audit_log_or_the_api() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let (base, inbox) = receiver().await;
    let secret = "s3cret-only-here-7f3a";
    set_secret(&t, "ops-hook", secret).await;
    // Kept owner-only, in the channels' own folder.
    let dir = t.dir.join("channel-secrets");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&dir), mode(&dir.join("ops-hook"))), (0o700, 0o600));
    let (status, listed) = t.get("/api/settings/reach/secrets").await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed, json!([{ "channel": "ops-hook", "kept": "file" }]));

    let settings = json!({ "channels": [webhook("ops-hook", "alice", &format!("{base}/hook"))] });
    assert_eq!(t.put("/api/settings/reach", settings).await.0, StatusCode::OK);
    t.generate("delete rec-1").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    all_sent(&t, &id).await;
    // Signed with it.
    let (headers, raw) = inbox.got.lock().unwrap().iter().find(|(p, _, _)| p == "/hook").map(|(_, h, b)| (h.clone(), b.clone())).unwrap();
    let ts = headers["x-approval-console-timestamp"].to_str().unwrap().parse::<i64>().unwrap();
    assert_eq!(
        headers["x-approval-console-signature"].to_str().unwrap(),
        approval_console::notify::reach::send::signature(secret, ts, &raw)
    );

    // Nowhere to be read back: the settings, the list, the call's messages, the audit log, the database.
    let (_, stored) = t.get("/api/settings/reach").await;
    let (_, listed) = t.get("/api/settings/reach/secrets").await;
    let (_, reach) = t.get(&format!("/api/queue/{id}/reach")).await;
    let (_, log) = t.get("/api/audit?limit=100").await;
    for shown in [&stored, &listed, &reach, &log] {
        assert!(!shown.to_string().contains(secret), "{shown}");
    }
    let rows = "SELECT COUNT(*) FROM audit_log WHERE details LIKE '%s3cret%' OR actor LIKE '%s3cret%'";
    assert_eq!(t.count(rows).await + t.count("SELECT COUNT(*) FROM settings WHERE value LIKE '%s3cret%'").await, 0);
    let set = log["entries"].as_array().unwrap().iter().find(|e| e["action"] == "channel_secret.set").cloned().expect("audited");
    assert_eq!(set["details"], json!({ "channel": "ops-hook", "kept": "file" }));

    // Removed by the local admin, audited; the channel then has none (and its settings cannot be saved as they are).
    let (status, removed) = t.call_as(TOKEN, Method::DELETE, "/api/settings/reach/channels/ops-hook/secret", None).await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(removed["removedFrom"], json!(["file"]));
    assert!(!dir.join("ops-hook").exists());
    assert_eq!(t.get("/api/settings/reach/secrets").await.1, json!([]));
    let (_, log) = t.get("/api/audit?limit=100").await;
    assert!(log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["action"] == "channel_secret.removed" && e["details"]["channel"] == "ops-hook"));
    let (status, _) = t.call_as(TOKEN, Method::DELETE, "/api/settings/reach/channels/ops-hook/secret", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn plain_smtp_is_refused_to_a_host_beyond_this_machine_and_taken_to_loopback() {
    let t = spawn_app().await;
    let mail = |server: &str| json!({ "channels": [{ "name": "relay", "kind": "email", "person": "ops", "target": "ops@example.com", "server": server, "tls": "none" }] });
    for server in ["smtp.example.com:25", "10.0.0.5:25", "127.0.0.1.example.com:25"] {
        let (status, body) = t.put("/api/settings/reach", mail(server)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{server}: {body}");
        assert!(body["message"].as_str().unwrap().contains("plain SMTP"), "{body}");
    }
    for server in ["127.0.0.1:25", "localhost:2525", "[::1]:25"] {
        let (status, body) = t.put("/api/settings/reach", mail(server)).await;
        assert_eq!(status, StatusCode::OK, "{server}: {body}");
    }
}

#[tokio::test]
async fn the_cli_sets_lists_and_removes_a_channels_secret_and_never_prints_it() {
    let t = spawn_app().await;
    let file = t.dir.join("hook.secret");
    std::fs::write(&file, "cli-s3cret\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let set = cli(&t.dir, &["channels", "secret", "set", "ops-hook", "--file", &file.to_string_lossy()]);
    assert!(set.status.success(), "{}", text_of(&set));
    // From standard input, as `secret set` reads one.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .arg("--data-dir")
        .arg(&t.dir)
        .args(["channels", "secret", "set", "ops-slack"])
        .envs(serve_process::database_env(&t.dir))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"https://hooks.example/slack-s3cret\n").unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success(), "{}", text_of(&piped));
    let listed = cli(&t.dir, &["channels", "secret", "list"]);
    let said = format!("{}{}{}", text_of(&set), text_of(&piped), text_of(&listed));
    assert!(said.contains("ops-hook") && said.contains("ops-slack"), "{said}");
    assert!(!said.contains("s3cret"), "never the value: {said}");
    let (_, api) = t.get("/api/settings/reach/secrets").await;
    assert_eq!(api, json!([{ "channel": "ops-hook", "kept": "file" }, { "channel": "ops-slack", "kept": "file" }]));
    let (_, log) = t.get("/api/audit?limit=20").await;
    let by: Vec<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "channel_secret.set")
        .map(|e| e["actor"].as_str().unwrap())
        .collect();
    assert_eq!(by.len(), 2);
    assert!(by.iter().all(|a| a.ends_with("(cli)")), "{by:?}");
    let removed = cli(&t.dir, &["channels", "secret", "remove", "ops-hook"]);
    assert!(removed.status.success(), "{}", text_of(&removed));
    assert_eq!(cli(&t.dir, &["channels", "secret", "remove", "ops-hook"]).status.code(), Some(3), "none left: not found");
}
