//! S3 and S4: per-call approval policies — declarative rules over HTTP, Rust predicates from an
//! embedder — and what of them survives in a run's snapshot.

use crate::helpers::*;
use approval_console::domain::{AgentId, Error};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, ToolSpec};
use approval_console::engine::local::policy::{needs_approval, PersistedPolicy, RequireToolApproval, Rules};
use approval_console::engine::local::{RunOptions, RunRequest, DEFAULT_MAX_STEPS};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `chain <id>`: `delete_record` first; once its result is in, `lookup_record`; then a text answer.
/// Two calls in two steps of one run, so that a call happens after the run was resumed from its snapshot.
struct ChainModel;

#[async_trait]
impl Model for ChainModel {
    fn id(&self) -> String {
        "test/chain".into()
    }

    async fn step(&self, messages: &[Message], _tools: &[ToolSpec]) -> Result<ModelTurn, Error> {
        let at = messages.iter().rposition(|m| matches!(m, Message::User { .. })).expect("a user message");
        let Message::User { content } = &messages[at] else { unreachable!() };
        let id = content.trim_start_matches("chain").trim();
        let results = messages[at..].iter().filter(|m| matches!(m, Message::Tool { .. })).count();
        let call =
            |n: usize, tool: &str| ProposedCall { tool_call_id: format!("call_{n}"), tool_name: tool.into(), args: json!({ "id": id }) };
        Ok(match results {
            0 => ModelTurn { text: String::new(), tool_calls: vec![call(1, "delete_record")] },
            1 => ModelTurn { text: String::new(), tool_calls: vec![call(2, "lookup_record")] },
            _ => ModelTurn { text: "chain done".into(), tool_calls: vec![] },
        })
    }
}

/// The `chain` agent: the counting demo tools driven by [`ChainModel`].
fn chain_agent(counters: &Counters) -> Vec<Agent> {
    let mut agent = counting_demo(counters);
    agent.id = AgentId::new("chain");
    agent.name = "Chain (test)".into();
    agent.model = Arc::new(ChainModel);
    vec![agent]
}

/// Starts a run from Rust, as an embedder would, and waits until it finished or paused.
async fn start(t: &TestApp, agent: &str, text: &str, policy: RequireToolApproval) -> String {
    let request = RunRequest {
        agent_id: AgentId::new(agent),
        messages: vec![Message::User { content: text.into() }],
        thread_id: None,
        resource_id: None,
        options: RunOptions::new(policy, DEFAULT_MAX_STEPS),
        run_id: Default::default(),
        started_by: None,
    };
    t.app.send(request, false, None, &t.app.local_admin("test")).await.expect("run starts").to_string()
}

/// The pending entries of one run.
async fn pending_of(t: &TestApp, run_id: &str) -> Vec<Value> {
    let (status, page) = t.get(&format!("/api/queue?run={run_id}")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"].as_array().unwrap().clone()
}

fn tool_names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["toolName"].as_str().unwrap()).collect()
}

/// The stored snapshot body of a run.
async fn snapshot(t: &TestApp, run_id: &str) -> Value {
    approval_console::store::testing::snapshot(t.app.testing().db(), run_id).await.unwrap().expect("a stored snapshot").1
}

const VIP_LOOKUPS: &str = r#"{"tool": "lookup_*", "when": [{"pointer": "/id", "matches": "^vip-"}]}"#;

fn vip_lookups() -> Value {
    serde_json::from_str(VIP_LOOKUPS).unwrap()
}

#[tokio::test]
async fn s03_rules_pause_only_matching_calls() {
    let t = spawn_app().await;
    let vip = t.generate_with(json!({"messages": "lookup vip-1", "requireToolApproval": vip_lookups()})).await;
    assert_eq!(vip["finishReason"], "suspended", "{vip}");
    assert_eq!(vip["suspendPayload"]["toolName"], "lookup_record");
    assert_eq!(t.counters.lookups(), 0, "a call matching the rule ran without approval");

    let plain = t.generate_with(json!({"messages": "lookup rec-1", "requireToolApproval": vip_lookups()})).await;
    assert_eq!(plain["finishReason"], "stop", "{plain}");
    assert_eq!(t.counters.lookups(), 1, "a call matching no rule did not run");

    // Rules add pauses; they never lift the tool's own flag (S1).
    let delete = t.generate_with(json!({"messages": "delete rec-1", "requireToolApproval": [vip_lookups()]})).await;
    assert_eq!(delete["finishReason"], "suspended");
    assert_eq!(t.counters.deletes(), 0);

    let pending = t.pending().await;
    assert_eq!(tool_names(&pending), ["delete_record", "lookup_record"]);
    assert_eq!(pending[1]["args"], json!({"id": "vip-1"}));
    // The audit trail says why each call paused.
    let (_, page) = t.get("/api/audit?limit=10").await;
    let reasons: Vec<&str> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "call.paused")
        .map(|e| e["details"]["approvalReason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(reasons.iter().any(|r| r.contains("rule 0 matched")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("S1")), "{reasons:?}");
}

#[tokio::test]
async fn s03_bad_rules_are_refused_with_400_naming_the_rule_and_field() {
    let t = spawn_app().await;
    let bad_regex = json!([{"tool": "delete_*"}, {"tool": "lookup_*", "when": [{"pointer": "/id", "matches": "(vip"}]}]);
    let cases = [
        (bad_regex, "rule 1, field \"when[0].matches\": invalid regular expression"),
        (json!({"tool": "lookup_[ab]"}), "rule 0, field \"tool\""),
        (json!({"when": [{"pointer": "id", "equals": "x"}]}), "rule 0, field \"when[0].pointer\""),
        (json!({"when": [{"pointer": "/amount", "gt": "100"}]}), "rule 0, field \"when[0].gt\": must be a number"),
        (json!("lookup_*"), "must be a boolean or rules"),
    ];
    for (rules, expected) in cases {
        let (status, body) = t.post("/api/agents/demo/generate", json!({"messages": "lookup vip-1", "requireToolApproval": rules})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["code"], "invalid_request");
        let message = body["message"].as_str().unwrap();
        assert!(message.starts_with("requireToolApproval: ") && message.contains(expected), "{message}");
    }
    assert_eq!(t.counters.lookups(), 0, "a refused request ran nothing");
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
}

#[tokio::test]
async fn s03_tool_flag_wins_over_a_predicate_that_says_no() {
    let t = spawn_app().await;
    let says_no = || RequireToolApproval::predicate(|_, _, _| Ok(false));
    let run = start(&t, "demo", "delete x", says_no()).await;
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["delete_record"]);
    assert_eq!(t.counters.deletes(), 0, "delete_record ran because the predicate said no");
    // The same predicate does let a plain tool run.
    let run = start(&t, "demo", "lookup x", says_no()).await;
    assert!(pending_of(&t, &run).await.is_empty());
    assert_eq!(t.counters.lookups(), 1);
}

#[tokio::test]
async fn s03_predicate_sees_the_call_and_its_run() {
    let t = spawn_app().await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let run = start(
        &t,
        "demo",
        "lookup vip-9",
        RequireToolApproval::predicate(move |tool, args, ctx| {
            log.lock().unwrap().push((tool.to_owned(), args.clone(), ctx.clone()));
            Ok(args["id"].as_str().is_some_and(|id| id.starts_with("vip-")))
        }),
    )
    .await;
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["lookup_record"]);
    assert_eq!(t.counters.lookups(), 0);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].0.as_str(), &seen[0].1), ("lookup_record", &json!({"id": "vip-9"})));
    assert_eq!(seen[0].2["runId"], run.as_str());
    assert_eq!(seen[0].2["agentId"], "demo");
}

#[tokio::test]
async fn s03_failing_predicate_requires_approval() {
    let t = spawn_app().await;
    let run = start(&t, "demo", "lookup x", RequireToolApproval::predicate(|_, _, _| Err("policy service unreachable".into()))).await;
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["lookup_record"]);
    assert_eq!(t.counters.lookups(), 0, "a call ran although its predicate failed");
}

#[tokio::test]
async fn s03_panicking_predicate_requires_approval() {
    let t = spawn_app().await;
    let run = start(&t, "demo", "lookup x", RequireToolApproval::predicate(|_, _, _| panic!("predicate bug"))).await;
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["lookup_record"]);
    assert_eq!(t.counters.lookups(), 0, "a call ran although its predicate panicked");
    // The server is unharmed: the next run works.
    let plain = t.generate("lookup y").await;
    assert_eq!(plain["finishReason"], "stop");
    assert_eq!(t.counters.lookups(), 1);
}

#[tokio::test]
async fn s03_slow_predicate_requires_approval() {
    let t = spawn_app().await;
    let slow = RequireToolApproval::predicate(|_, _, _| {
        std::thread::sleep(Duration::from_secs(3));
        Ok(false)
    });
    let started = Instant::now();
    let run = start(&t, "demo", "lookup x", slow).await;
    let took = started.elapsed();
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["lookup_record"]);
    assert_eq!(t.counters.lookups(), 0, "a call ran although its predicate timed out");
    assert!(took >= Duration::from_secs(1) && took < Duration::from_millis(2500), "the run waited {took:?}, not the 1 s limit");
}

#[tokio::test]
async fn s04_a_closure_is_not_persisted_and_later_calls_of_the_run_require_approval() {
    let t = TestApp::builder().agents(chain_agent).spawn().await;

    // In memory the closure decides: it lets the lookup run; the delete pauses on its own flag.
    let says_no_to_lookups = RequireToolApproval::predicate(|tool, _, _| Ok(tool != "lookup_record"));
    let run = start(&t, "demo", "both x", says_no_to_lookups).await;
    assert_eq!(t.counters.lookups(), 1);
    assert_eq!(tool_names(&pending_of(&t, &run).await), ["delete_record"]);
    assert_eq!(t.counters.deletes(), 0);
    // Stored: no closure, "approval required for every call" in its place, and why.
    let options = &snapshot(&t, &run).await["options"];
    assert_eq!(options, &json!({"requireToolApproval": true, "maxSteps": DEFAULT_MAX_STEPS, "predicateNotPersisted": true}));

    // A later call of a run started with a closure that says "no" to everything: once the run goes on
    // from its snapshot, the call pauses.
    let run = start(&t, "chain", "chain y", RequireToolApproval::predicate(|_, _, _| Ok(false))).await;
    let delete = pending_of(&t, &run).await.remove(0);
    assert_eq!(delete["toolName"], "delete_record");
    let (status, after) = t.approve(&delete).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(t.counters.deletes(), 1);
    let later = pending_of(&t, &run).await;
    assert_eq!(tool_names(&later), ["lookup_record"], "the later call did not pause");
    assert_eq!(t.counters.lookups(), 1, "the later call ran on the closure's word after the resume");

    let (status, after) = t.approve(&later[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(t.counters.lookups(), 2);
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 1, "the chain run finished; the demo run still waits");
}

#[tokio::test]
async fn s04_run_options_serialize_without_the_closure() {
    let options = RunOptions::new(RequireToolApproval::predicate(|_, _, _| Ok(false)), 7);
    assert!(matches!(options.policy(), RequireToolApproval::Predicate(_)), "in memory the closure decides");
    let stored = serde_json::to_value(&options).unwrap();
    assert_eq!(stored, json!({"requireToolApproval": true, "maxSteps": 7, "predicateNotPersisted": true}));
    let back: RunOptions = serde_json::from_value(stored).unwrap();
    assert_eq!(back.persisted_policy(), &PersistedPolicy::Always);
    assert!(back.predicate_not_persisted());
    let decision = needs_approval(false, &back.policy(), "lookup_record", &json!({"id": "x"}), &json!({})).await;
    assert!(decision.required, "{decision:?}");

    // Snapshots written when the flag was a plain boolean still read.
    let old: RunOptions = serde_json::from_value(json!({"requireToolApproval": false, "maxSteps": 5})).unwrap();
    assert_eq!(old, RunOptions::new(RequireToolApproval::Never, 5));
}

#[tokio::test]
async fn s04_rules_persist_across_a_restart() {
    let rules = Rules::parse(&vip_lookups()).unwrap();
    let options = RunOptions::new(RequireToolApproval::Rules(rules.clone()), 5);
    let back: RunOptions = serde_json::from_value(serde_json::to_value(&options).unwrap()).unwrap();
    assert_eq!(back, options);
    assert_eq!(back.persisted_policy(), &PersistedPolicy::Rules(rules.clone()));

    // Two runs under the rule; each pauses first on delete_record (S1).
    let t = TestApp::builder().agents(chain_agent).spawn().await;
    let mut runs = Vec::new();
    for id in ["vip-1", "rec-1"] {
        let (status, answer) =
            t.post("/api/agents/chain/generate", json!({"messages": format!("chain {id}"), "requireToolApproval": vip_lookups()})).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["suspendPayload"]["toolName"], "delete_record", "{answer}");
        let run = answer["runId"].as_str().unwrap().to_owned();
        assert_eq!(snapshot(&t, &run).await["options"]["requireToolApproval"], rules.to_json());
        runs.push(run);
    }
    let (dir, tmp, counters) = t.stop().await;

    // After the restart the stored rule still decides the runs' later calls.
    let t = TestApp::builder().dir(&dir).counters(counters.clone()).agents(chain_agent).spawn().await;
    for run in &runs {
        let delete = pending_of(&t, run).await.remove(0);
        assert_eq!(t.approve(&delete).await.0, StatusCode::OK);
    }
    assert_eq!(counters.deletes(), 2);
    assert_eq!(tool_names(&pending_of(&t, &runs[0]).await), ["lookup_record"], "the vip lookup did not pause after the restart");
    assert!(pending_of(&t, &runs[1]).await.is_empty(), "the plain lookup paused");
    assert_eq!(counters.lookups(), 1, "only the plain lookup ran");
    drop(tmp);
}

#[tokio::test]
async fn the_queue_says_why_each_call_paused_and_whether_its_tool_is_high_risk() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    t.generate_with(json!({ "messages": "lookup rec-2", "requireToolApproval": true })).await;
    t.generate_with(json!({ "messages": "lookup vip-3", "requireToolApproval": [{ "tool": "delete_*" }, vip_lookups()] })).await;
    t.generate("ask which region?").await;
    let reasons: Vec<(String, Value, bool)> = t
        .pending()
        .await
        .iter()
        .rev()
        .map(|i| (i["toolName"].as_str().unwrap().to_owned(), i["pauseReason"].clone(), i["highRisk"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("delete_record".into(), json!({ "kind": "tool" }), false),
            ("lookup_record".into(), json!({ "kind": "request" }), false),
            ("lookup_record".into(), json!({ "kind": "requestRule", "rule": 2 }), false),
            ("ask_operator".into(), json!({ "kind": "suspended" }), false),
        ]
    );
    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": true, "highRiskTools": ["delete_record"] })).await;
    assert_eq!(status, StatusCode::OK);
    let delete = t.pending().await.into_iter().find(|i| i["toolName"] == "delete_record").unwrap();
    assert_eq!(delete["highRisk"], true);
    assert_eq!(t.item(delete["id"].as_str().unwrap()).await["highRisk"], true);
}
