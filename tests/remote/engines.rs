//! Engines: added, changed and removed through the API and the CLI; health for every kind of failure.

use super::*;
use reqwest::Method;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_approval-console");

#[tokio::test]
async fn engines_are_added_checked_changed_and_removed_through_the_api() {
    let tmp = tempfile::tempdir().unwrap();
    let console = Console::start(tmp.path()).await;
    for (body, needle) in [
        (json!({ "name": "a", "baseUrl": "ftp://x" }), "http"),
        (json!({ "name": "a", "baseUrl": "http://u:p@127.0.0.1:1" }), "credentials"),
        (json!({ "name": "local", "baseUrl": "http://127.0.0.1:1" }), "local"),
        (json!({ "name": "a b", "baseUrl": "http://127.0.0.1:1" }), "letters"),
        (json!({ "name": "a", "baseUrl": "http://127.0.0.1:1", "pollMs": 5 }), "poll"),
        (json!({ "name": "a", "baseUrl": "http://127.0.0.1:1", "extra": 1 }), "extra"),
    ] {
        let (status, answer) = console.post("/api/engines", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} → {answer}");
        assert!(answer["message"].as_str().unwrap().contains(needle), "{body} → {answer}");
    }
    assert_eq!(console.get("/api/engines").await.1, json!([]), "nothing stored by refused requests");

    let (status, added) = console.post("/api/engines", json!({ "name": "prod", "baseUrl": "http://127.0.0.1:9" })).await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    assert_eq!((added["hasToken"].as_bool(), added["pollMs"].as_u64()), (Some(false), Some(1000)));
    let (status, dup) = console.post("/api/engines", json!({ "name": "prod", "baseUrl": "http://127.0.0.1:9" })).await;
    assert_eq!((status, dup["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));

    let (status, edited) = console.send(Method::PATCH, "/api/engines/prod", json!({ "pollMs": 250 })).await;
    assert_eq!(status, StatusCode::OK, "{edited}");
    assert_eq!((edited["pollMs"].as_u64(), edited["baseUrl"].as_str()), (Some(250), Some("http://127.0.0.1:9")));
    assert_eq!(console.send(Method::PATCH, "/api/engines/nope", json!({})).await.0, StatusCode::NOT_FOUND);
    assert_eq!(console.post("/api/engines/nope/sync", json!({})).await.0, StatusCode::NOT_FOUND);

    let (status, _) = console.send(Method::DELETE, "/api/engines/prod", json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(console.get("/api/engines").await.1, json!([]));
    assert_eq!(console.send(Method::DELETE, "/api/engines/prod", json!(null)).await.0, StatusCode::NOT_FOUND);
    // Like every route, the engines API needs the session token.
    let r = console.http.get(format!("{}/api/engines", console.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

/// `GET /api/engine-kinds`: the kinds a new remote engine may be, the default first — the kind an
/// engine added without one gets; an agent may not ask.
#[tokio::test]
async fn the_remote_kinds_are_listed_the_default_first() {
    let tmp = tempfile::tempdir().unwrap();
    let console = Console::start(tmp.path()).await;
    let (status, kinds) = console.get("/api/engine-kinds").await;
    assert_eq!(status, StatusCode::OK, "{kinds}");
    assert_eq!(kinds, json!(["mastra", "langgraph", "ag-ui", "a2a"]));
    let (status, added) = console.post("/api/engines", json!({ "name": "prod", "baseUrl": "http://127.0.0.1:9" })).await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    assert_eq!(added["kind"], kinds[0], "an engine added without a kind is the first listed");
    let r = console.http.get(format!("{}/api/engine-kinds", console.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn an_unreachable_engine_is_reported_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let console = Console::start(tmp.path()).await;
    // A port nobody listens on: 1 (tcpmux), never served here — a free port found by binding and
    // letting go could be taken meanwhile by another test's server.
    let port = 1;
    console.post("/api/engines", json!({ "name": "gone", "baseUrl": format!("http://127.0.0.1:{port}"), "pollMs": 100 })).await;
    let (status, body) = console.post("/api/engines/gone/sync", json!({})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("engine_unreachable")), "{body}");
    let engine = console.engine("gone").await;
    assert_eq!(engine["health"]["state"], "unreachable");
    assert!(engine["health"]["lastError"].as_str().unwrap().contains("cannot connect"), "{engine}");
    assert!(engine["health"]["lastOkAt"].is_null());
    assert!(console.queue("state=all").await.is_empty());
}

#[tokio::test]
async fn a_server_that_wants_a_token_gives_auth_failed_and_queues_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), Some("the-right-token"));
    mastra.generate("ops", "delete rec-t", Some(("t-t", "u-t"))).await;
    let console = Console::start(&tmp.path().join("console")).await;
    console.add_engine("m", &mastra, 200).await;
    let (status, body) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("engine_unreachable")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("401"), "{body}");
    let engine = console.engine("m").await;
    assert_eq!(engine["health"]["state"], "auth_failed", "{engine}");
    assert!(engine["health"]["lastError"].as_str().unwrap().contains("401"));
    assert!(console.queue("").await.is_empty());
}

/// A server on 127.0.0.1 that answers every request with `body` as JSON.
async fn answering(body: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            let body = body.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = socket.read(&mut buf).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn malformed_answers_make_an_engine_incompatible_and_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let console = Console::start(tmp.path()).await;
    for (name, body, needle) in [
        ("garbage", "{\"agents\": [1, 2".to_owned(), "malformed JSON"),
        ("deep", format!("{}{}", "[".repeat(5000), "]".repeat(5000)), "malformed JSON"),
        ("array", "[1, 2, 3]".to_owned(), "JSON object of agents"),
    ] {
        let url = answering(body).await;
        console.post("/api/engines", json!({ "name": name, "baseUrl": url, "pollMs": 3_600_000 })).await;
        let (status, answer) = console.post(&format!("/api/engines/{name}/sync"), json!({})).await;
        assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_GATEWAY, Some("engine_error")), "{name}: {answer}");
        let engine = console.engine(name).await;
        assert_eq!(engine["health"]["state"], "incompatible", "{name}: {engine}");
        assert!(engine["health"]["lastError"].as_str().unwrap().contains(needle), "{name}: {engine}");
    }
    // Agents listed, but their runs are not in Mastra's shape.
    let url = answering("{\"ops\": {\"id\": \"ops\", \"tools\": {}}, \"runs\": 5}".to_owned()).await;
    console.post("/api/engines", json!({ "name": "shapes", "baseUrl": url, "pollMs": 3_600_000 })).await;
    let (status, answer) = console.post("/api/engines/shapes/sync", json!({})).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{answer}");
    assert!(answer["message"].as_str().unwrap().contains("runs"), "{answer}");
    assert!(console.queue("state=all").await.is_empty());
}

#[tokio::test]
async fn the_cli_adds_lists_syncs_and_removes_an_engine() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), None);
    mastra.generate("ops", "delete rec-cli", Some(("t-cli", "u-cli"))).await;
    let data = tmp.path().join("console");
    let run = |args: &[&str]| {
        let out =
            std::process::Command::new(BIN).arg("--data-dir").arg(&data).args(args).env("APPROVAL_CONSOLE_LOG", "warn").output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, out, err) = run(&["engines", "add", "cli-m", &mastra.base]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("reachable: 2 agents, 1 waiting calls queued"), "{out}");
    let (_, out, _) = run(&["queue", "--json"]);
    let queue: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(queue[0]["engine"], "cli-m");
    assert_eq!(queue[0]["args"], json!({ "id": "rec-cli" }));

    let (code, out, _) = run(&["engines", "list", "--json"]);
    assert_eq!(code, Some(0));
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (list[0]["name"].as_str(), list[0]["health"]["state"].as_str(), list[0]["pending"].as_i64()),
        (Some("cli-m"), Some("reachable"), Some(1))
    );

    // The CLI decides a remote call like a local one.
    let id = queue[0]["id"].as_str().unwrap();
    let (code, out, err) = run(&["approve", id, "--yes"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("state delivered"), "{out}");
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1);

    let (code, out, err) = run(&["engines", "sync", "nope"]);
    assert_ne!(code, Some(0), "{out}{err}");
    let (code, out, _) = run(&["engines", "remove", "cli-m"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("removed engine cli-m"));
    let (_, out, _) = run(&["engines", "list"]);
    assert!(out.contains("No remote engines"), "{out}");
}

#[tokio::test]
async fn a_token_for_this_session_only_skips_the_keyring_and_is_asked_for_again_after_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), Some("session-token-1"));
    mastra.generate("ops", "delete rec-s", Some(("t-s", "u-s"))).await;
    let dir = tmp.path().join("console");
    let console = Console::start(&dir).await;
    let (status, added) = console
        .post(
            "/api/engines",
            json!({ "name": "m", "baseUrl": mastra.base, "token": "session-token-1", "sessionOnly": true, "pollMs": 200 }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    assert_eq!((added["hasToken"].as_bool(), added["sessionToken"].as_bool()), (Some(true), Some(true)));
    console.wait_pending(1, |i| i["engine"] == "m").await;
    assert!(!std::fs::read(dir.join("approval-console.db")).unwrap().windows(15).any(|w| w == b"session-token-1"), "not in the database");

    // A restart forgets it, and says what to do.
    console.stop().await;
    let console = Console::start(&dir).await;
    let (status, body) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body["message"].as_str().unwrap().contains("enter it again"), "{body}");
    assert_eq!(console.engine("m").await["health"]["state"], "auth_failed");

    let (status, body) = console.send(Method::PATCH, "/api/engines/m", json!({ "token": "session-token-1", "sessionOnly": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(console.engine("m").await["health"]["state"], "reachable");
}

#[tokio::test]
async fn testing_a_connection_says_how_the_server_answers_and_stores_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), Some("the-right-token"));
    let console = Console::start(&tmp.path().join("console")).await;
    let test = |body: Value| console.post("/api/engines/test", body);

    let (status, ok) = test(json!({ "baseUrl": mastra.base, "token": "the-right-token" })).await;
    assert_eq!(status, StatusCode::OK, "{ok}");
    assert_eq!((ok["result"].as_str(), ok["agents"].as_u64()), (Some("reachable"), Some(2)), "{ok}");
    assert_eq!(ok["message"], "reachable: 2 agents");

    for body in [json!({ "baseUrl": mastra.base }), json!({ "baseUrl": mastra.base, "token": "wrong" })] {
        let (status, answer) = test(body.clone()).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["result"], "auth_failed", "{body} → {answer}");
        assert!(answer["message"].as_str().unwrap().contains("401"), "{answer}");
        assert!(answer["agents"].is_null());
    }

    // A port nobody listens on: 1 (tcpmux), never served here — a free port found by binding and
    // letting go could be taken meanwhile by another test's server.
    let port = 1;
    let (_, answer) = test(json!({ "baseUrl": format!("http://127.0.0.1:{port}") })).await;
    assert_eq!(answer["result"], "unreachable", "{answer}");
    assert!(answer["message"].as_str().unwrap().contains("cannot connect"), "{answer}");

    // Something that answers, but not as Mastra does: agents listed, no suspended-runs route shape.
    let url = answering("[1, 2, 3]".to_owned()).await;
    let (_, answer) = test(json!({ "baseUrl": url })).await;
    assert_eq!(answer["result"], "incompatible", "{answer}");
    let url = answering("{\"ops\": {\"id\": \"ops\"}}".to_owned()).await;
    let (_, answer) = test(json!({ "baseUrl": url })).await;
    assert_eq!(answer["result"], "incompatible", "{answer}");
    assert!(answer["message"].as_str().unwrap().contains("runs"), "{answer}");

    let (status, answer) = test(json!({ "baseUrl": "ftp://x" })).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{answer}");

    // Nothing was stored: no engine, and the token is nowhere in the database.
    assert_eq!(console.get("/api/engines").await.1, json!([]));
    assert!(!std::fs::read(tmp.path().join("console/approval-console.db")).unwrap().windows(15).any(|w| w == b"the-right-token"));
    let r = console.http.post(format!("{}/api/engines/test", console.base)).json(&json!({ "baseUrl": mastra.base })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "the session token is needed");

    // The route does not take the name "test" away from engines.
    let (status, added) = console
        .post(
            "/api/engines",
            json!({ "name": "test", "baseUrl": mastra.base, "token": "the-right-token", "sessionOnly": true, "pollMs": 3_600_000 }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    let (status, edited) = console.send(Method::PATCH, "/api/engines/test", json!({ "pollMs": 5000 })).await;
    assert_eq!((status, edited["pollMs"].as_u64()), (StatusCode::OK, Some(5000)), "{edited}");
    assert_eq!(console.post("/api/engines/test/sync", json!({})).await.0, StatusCode::OK);
    assert_eq!(console.send(Method::DELETE, "/api/engines/test", json!(null)).await.0, StatusCode::NO_CONTENT);
    assert_eq!(console.get("/api/engines").await.1, json!([]));
}
