//! The docs' way (docs/reference/agents-toml.md): `agents.toml` names an OpenAI-compatible server, `approval-console serve` runs
//! the agent on it, a call pauses, the operator approves through the console API, the run finishes.

use crate::fake_server::{approval_cycle, FakeOpenAi};
use crate::ServeProcess;
use serde_json::json;

#[tokio::test]
async fn an_agent_from_agents_toml_on_an_openai_compatible_server_pauses_and_finishes_after_approval() {
    let fake = FakeOpenAi::answering(approval_cycle(true)).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agents.toml"), fake.ops_agent_toml()).unwrap();
    let token = "serve-test-token-2d9f6b1e8a4c7305d2f9b6e1a8c47350";
    let server = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir.path(), token);
    let agents = server.get("/api/agents").await;
    assert_eq!(agents["ops"]["provider"], "fake");
    assert_eq!(agents["ops"]["modelId"], "fake-model");

    let paused = server.post("/api/agents/ops/generate", json!({"messages": "delete rec-42"})).await;
    assert_eq!(paused["finishReason"], "suspended", "{paused}");
    assert_eq!(paused["suspendPayload"]["args"], json!({"id": "rec-42"}));
    let page = server.get("/api/queue").await;
    let item = &page["items"][0];
    let id = item["id"].as_str().unwrap();
    server.post(&format!("/api/queue/{id}/approve"), json!({"fingerprint": item["fingerprint"]})).await;
    let after = server.settled(id).await;
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(after["decision"]["outcome"]["result"], json!({"deleted": "rec-42"}));
    // The model got the tool result and answered: the run is over.
    server.runs_over("ops").await;
    assert_eq!(fake.request_count(), 2);
}

#[tokio::test]
async fn an_api_key_file_next_to_agents_toml_is_sent_as_the_models_key() {
    use std::os::unix::fs::PermissionsExt;
    let fake = FakeOpenAi::answering(approval_cycle(true)).await;
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("model.key");
    std::fs::write(&key_file, format!("{}\n", crate::KEY)).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(
        dir.path().join("agents.toml"),
        format!(
            "[[agents]]\nid = \"ops\"\ntools = [\"delete_record\"]\n\n[agents.model]\napi = \"openai-compatible\"\nbase_url = \"{}\"\nmodel = \"fake-model\"\napi_key_file = \"model.key\"\n",
            fake.base_url
        ),
    )
    .unwrap();
    let server =
        ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir.path(), "serve-test-token-2d9f6b1e8a4c7305d2f9b6e1a8c47350");
    let paused = server.post("/api/agents/ops/generate", json!({"messages": "delete rec-7"})).await;
    assert_eq!(paused["finishReason"], "suspended", "{paused}");
    let sent = fake.requests();
    assert_eq!(sent[0].authorization.as_deref(), Some(format!("Bearer {}", crate::KEY).as_str()), "the file's key, without its newline");
}
