//! Operators' channels and escalation (issue 28) against real receivers on 127.0.0.1: webhooks that
//! check the HMAC signature, a Slack-compatible endpoint, a real SMTP server (aiosmtpd, STARTTLS)
//! for mail; escalation to a second person after its delay, stopped by a claim; retries.

use super::helpers::*;
use crate::helpers::wait;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxStatus};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request a receiver got: its path, headers and body.
pub type Got = (String, HeaderMap, Vec<u8>);

/// Requests one receiver got.
#[derive(Clone, Default)]
pub struct Inbox {
    pub got: Arc<Mutex<Vec<Got>>>,
    /// Answers to give before 200 (e.g. two 500s).
    fail_first: Arc<Mutex<u32>>,
}

async fn receive(State(inbox): State<Inbox>, uri: axum::http::Uri, headers: HeaderMap, body: axum::body::Bytes) -> AxStatus {
    inbox.got.lock().unwrap().push((uri.path().to_owned(), headers, body.to_vec()));
    let mut fail = inbox.fail_first.lock().unwrap();
    if *fail > 0 {
        *fail -= 1;
        return AxStatus::INTERNAL_SERVER_ERROR;
    }
    AxStatus::OK
}

/// A receiver on 127.0.0.1: its base URL and what it got.
pub async fn receiver() -> (String, Inbox) {
    let inbox = Inbox::default();
    let app = axum::Router::new().fallback(receive).with_state(inbox.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), inbox)
}

impl Inbox {
    pub fn bodies(&self, path: &str) -> Vec<(HeaderMap, Value)> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| p == path)
            .map(|(_, h, b)| (h.clone(), serde_json::from_slice(b).unwrap_or(Value::Null)))
            .collect()
    }
}

/// The call's messages once every one is sent (the receiver may have it before the console records it).
pub async fn all_sent(t: &TestApp, id: &str) -> Vec<Value> {
    wait::until(Duration::from_secs(30), || async {
        let m = messages(t, id).await;
        if !m.is_empty() && m.iter().all(|m| m["state"] == "sent") {
            Ok(m)
        } else {
            Err(format!("not all recorded sent: {m:?}"))
        }
    })
    .await
}

/// Sets channel `name`'s secret as the local admin (the session token on 127.0.0.1) does.
pub async fn set_secret(t: &TestApp, name: &str, value: &str) {
    let (status, body) = t.put(&format!("/api/settings/reach/channels/{name}/secret"), json!({ "value": value })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

pub fn webhook(name: &str, person: &str, url: &str) -> Value {
    json!({ "name": name, "kind": "webhook", "person": person, "target": url })
}

pub async fn messages(t: &TestApp, id: &str) -> Vec<Value> {
    let (_, reach) = t.get(&format!("/api/queue/{id}/reach")).await;
    reach["messages"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_paused_call_reaches_a_signed_webhook_and_a_slack_channel_with_its_link_and_no_arguments() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    t.app.set_link_base("https://console.example.com:8443");
    let (base, inbox) = receiver().await;
    set_secret(&t, "ops-hook", "s3cret-key").await;
    set_secret(&t, "ops-slack", &format!("{base}/services/T000/B000/XXXX")).await;
    let settings = json!({ "channels": [
        webhook("ops-hook", "alice", &format!("{base}/hook")),
        { "name": "ops-slack", "kind": "slack", "person": "alice" },
    ]});
    let (status, body) = t.put("/api/settings/reach", settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    t.generate("delete rec-42").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap().to_owned();

    let got = wait::until(Duration::from_secs(30), || async {
        let (hooks, slack) = (inbox.bodies("/hook"), inbox.bodies("/services/T000/B000/XXXX"));
        if hooks.is_empty() || slack.is_empty() {
            Err(format!("{} webhook, {} slack requests so far", hooks.len(), slack.len()))
        } else {
            Ok((hooks, slack))
        }
    })
    .await;
    let (headers, hook) = &got.0[0];
    assert_eq!(hook["id"], id.as_str());
    assert_eq!(hook["tool"], "delete_record");
    assert_eq!(hook["fingerprint"], item["fingerprint"]);
    assert_eq!(hook["link"], format!("https://console.example.com:8443/#call={id}"));
    assert!(hook.get("args").is_none(), "no arguments unless the channel says so");
    assert!(!hook.to_string().contains("rec-42"));
    // The signature: HMAC-SHA256 over "timestamp.body" under the shared key.
    let ts = headers["x-approval-console-timestamp"].to_str().unwrap().parse::<i64>().unwrap();
    let raw = inbox.got.lock().unwrap().iter().find(|(p, _, _)| p == "/hook").unwrap().2.clone();
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"s3cret-key").unwrap();
    mac.update(format!("{ts}.").as_bytes());
    mac.update(&raw);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(headers["x-approval-console-signature"].to_str().unwrap(), expected);
    let (_, slack) = &got.1[0];
    let blocks = slack["blocks"].to_string();
    assert!(blocks.contains("Open") && blocks.contains(&format!("#call={id}")), "{blocks}");

    let sent = all_sent(&t, &id).await;
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|m| m["sentAt"].is_string()), "{sent:?}");
    // The settings change is audited; no secret is in the settings or the audit log.
    let (_, log) = t.get("/api/audit?limit=50").await;
    let text = log.to_string();
    assert!(text.contains("settings.changed") && !text.contains("s3cret-key") && !text.contains("XXXX"));
}

#[tokio::test]
async fn escalation_reaches_the_second_person_after_its_delay_and_a_claim_stops_it() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let (base, inbox) = receiver().await;
    set_secret(&t, "alice-hook", "k").await;
    set_secret(&t, "bob-hook", "k").await;
    let settings = json!({
        "channels": [webhook("alice-hook", "alice", &format!("{base}/alice")), webhook("bob-hook", "bob", &format!("{base}/bob"))],
        "rules": [{ "name": "deletes", "tools": ["delete_record"], "steps": [
            { "afterSecs": 0, "notify": ["alice"] },
            { "afterSecs": 2, "notify": ["bob"] },
        ]}],
    });
    assert_eq!(t.put("/api/settings/reach", settings).await.0, StatusCode::OK);

    // Nobody claims the first call: bob hears of it, after alice, not before its 2 s.
    t.generate("delete a").await;
    let first = t.pending().await.remove(0);
    let first_id = first["id"].as_str().unwrap().to_owned();
    wait::until(Duration::from_secs(30), || async {
        let to_bob = inbox.bodies("/bob").into_iter().any(|(_, b)| b["id"] == first_id.as_str());
        if to_bob {
            Ok(())
        } else {
            Err("bob not told yet".to_owned())
        }
    })
    .await;
    let sent = all_sent(&t, &first_id).await;
    let at = |person: &str| {
        let m = sent.iter().find(|m| m["person"] == person).unwrap();
        chrono::DateTime::parse_from_rfc3339(m["sentAt"].as_str().unwrap()).unwrap()
    };
    let paused = chrono::DateTime::parse_from_rfc3339(first["pausedAt"].as_str().unwrap()).unwrap();
    assert!(at("bob") - paused >= chrono::Duration::seconds(2), "bob's step waits its delay");
    assert!(at("alice") <= at("bob"));

    // The second call, under a rule whose second step waits ten minutes, is claimed as soon as
    // alice is told: bob's message is skipped at once, never sent.
    let later = json!({
        "channels": [webhook("alice-hook", "alice", &format!("{base}/alice")), webhook("bob-hook", "bob", &format!("{base}/bob"))],
        "rules": [{ "name": "deletes", "tools": ["delete_record"], "steps": [
            { "afterSecs": 0, "notify": ["alice"] },
            { "afterSecs": 600, "notify": ["bob"] },
        ]}],
    });
    assert_eq!(t.put("/api/settings/reach", later).await.0, StatusCode::OK);
    t.generate("delete b").await;
    let second = t.pending().await.into_iter().find(|i| i["id"] != first_id.as_str()).unwrap();
    let second_id = second["id"].as_str().unwrap().to_owned();
    wait::until(Duration::from_secs(30), || async {
        let told = inbox.bodies("/alice").into_iter().any(|(_, b)| b["id"] == second_id.as_str());
        if told {
            Ok(())
        } else {
            Err("alice not told yet".to_owned())
        }
    })
    .await;
    let (status, claimed) = t.post(&format!("/api/queue/{second_id}/claim"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    assert_eq!(claimed["claim"]["person"], t.app.operator());
    let bob = claimed["messages"].as_array().unwrap().iter().find(|m| m["person"] == "bob").cloned().unwrap();
    assert_eq!(bob["state"], "skipped", "the claim stops the escalation at once: {bob}");
    assert!(bob["lastError"].as_str().unwrap().contains("claimed"));
    assert!(!inbox.bodies("/bob").into_iter().any(|(_, b)| b["id"] == second_id.as_str()), "bob is never told");
    let (_, log) = t.get("/api/audit?limit=50").await;
    assert!(log["entries"].as_array().unwrap().iter().any(|e| e["action"] == "call.claimed" && e["queueItemId"] == second_id.as_str()));
}

#[tokio::test]
async fn a_failing_channel_is_tried_again_until_it_answers_and_a_decided_call_is_not_sent() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let (base, inbox) = receiver().await;
    *inbox.fail_first.lock().unwrap() = 2;
    set_secret(&t, "hook", "k").await;
    let settings = json!({ "channels": [webhook("hook", "alice", &format!("{base}/hook"))] });
    assert_eq!(t.put("/api/settings/reach", settings).await.0, StatusCode::OK);
    t.generate("delete a").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    let m = wait::until(Duration::from_secs(60), || async {
        let m = messages(&t, &id).await;
        match m.first() {
            Some(m) if m["state"] == "sent" => Ok(m.clone()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(m["attempts"], 3, "two failures, then sent");
    assert_eq!(inbox.bodies("/hook").len(), 3);

    // Bad settings are refused whole: a webhook without its signing secret.
    let (status, refused) = t
        .put(
            "/api/settings/reach",
            json!({ "channels": [{ "name": "x", "kind": "webhook", "person": "a", "target": "http://127.0.0.1:1/" }] }),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
}

#[tokio::test]
async fn mail_goes_through_a_real_smtp_server_over_starttls_with_a_text_and_an_html_part() {
    let Some(python) = std::env::var_os("APPROVAL_CONSOLE_TEST_PYTHON") else {
        eprintln!("SKIPPED: APPROVAL_CONSOLE_TEST_PYTHON is not set (scripts/test makes the venv with aiosmtpd)");
        return;
    };
    let t = spawn_app().await;
    let _background = t.app.start(None);
    // The SMTP server's certificate, made here; the channel trusts it by its ca_file.
    let pair = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap().self_signed(&pair).unwrap();
    let (cert_file, key_file, out) = (t.dir.join("smtp-cert.pem"), t.dir.join("smtp-key.pem"), t.dir.join("mail"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, pair.serialize_pem()).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/smtp.py");
    let mut server = tokio::process::Command::new(python)
        .args([script.as_os_str(), cert_file.as_os_str(), key_file.as_os_str(), out.as_os_str()])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut line = String::new();
    tokio::io::BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).await.unwrap();
    let port: u16 = line.trim().parse().unwrap_or_else(|_| panic!("smtp.py printed {line:?}"));

    t.app.set_link_base("https://console.example.com:8443");
    let settings = json!({ "channels": [{
        "name": "alice-mail", "kind": "email", "person": "alice", "target": "alice@example.com",
        "server": format!("127.0.0.1:{port}"), "from": "console@example.com", "caFile": cert_file.to_string_lossy(),
    }]});
    assert_eq!(t.put("/api/settings/reach", settings).await.0, StatusCode::OK);
    t.generate("delete <b>rec</b>").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    let mail = wait::until(Duration::from_secs(30), || async {
        std::fs::read_to_string(out.join("1.eml")).map_err(|e| format!("no mail yet: {e}"))
    })
    .await;
    assert!(mail.starts_with("X-Tls: yes"), "STARTTLS: {}", &mail[..40]);
    assert!(mail.contains("X-Envelope-To: alice@example.com"));
    assert!(mail.contains("text/plain") && mail.contains("text/html"), "both parts");
    // Quoted-printable writes `=` as `=3D`.
    assert!(mail.contains(&format!("#call={id}")) || mail.contains(&format!("#call=3D{id}")), "the link: {mail}");
    all_sent(&t, &id).await;
}

#[tokio::test]
async fn a_matrix_room_on_a_real_homeserver_receives_the_message_with_its_html_escaped() {
    let Some(python) = std::env::var_os("APPROVAL_CONSOLE_TEST_PYTHON") else {
        eprintln!("SKIPPED: APPROVAL_CONSOLE_TEST_PYTHON is not set (scripts/test makes the venv with matrix-synapse)");
        return;
    };
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/matrix.py");
    let mut server = tokio::process::Command::new(python)
        .arg(script)
        .arg(t.dir.join("synapse"))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut line = String::new();
    tokio::io::BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).await.unwrap();
    let hs: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("matrix.py printed {line:?}"));
    let (url, token, room) = (hs["url"].as_str().unwrap(), hs["token"].as_str().unwrap(), hs["room"].as_str().unwrap());
    set_secret(&t, "ops-room", token).await;
    let settings = json!({ "channels": [{ "name": "ops-room", "kind": "matrix", "person": "ops", "target": room, "server": url, "includeArgs": true }] });
    assert_eq!(t.put("/api/settings/reach", settings).await.0, StatusCode::OK);
    t.generate("delete <script>x</script>").await;
    let id = t.pending().await.remove(0)["id"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    let event = wait::until(Duration::from_secs(60), || async {
        let page: Value = http
            .get(format!("{url}/_matrix/client/v3/rooms/{room}/messages?dir=b&limit=20"))
            .bearer_auth(token)
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        page["chunk"]
            .as_array()
            .and_then(|c| {
                c.iter().find(|e| e["type"] == "m.room.message" && e["content"]["body"].as_str().is_some_and(|b| b.contains(&id))).cloned()
            })
            .ok_or_else(|| "no message in the room yet".to_owned())
    })
    .await;
    let content = &event["content"];
    assert_eq!(content["format"], "org.matrix.custom.html");
    assert!(content["body"].as_str().unwrap().contains("delete_record"));
    let html = content["formatted_body"].as_str().unwrap();
    assert!(html.contains("&lt;script&gt;") && !html.contains("<script"), "the arguments, escaped: {content}");
    all_sent(&t, &id).await;
}
