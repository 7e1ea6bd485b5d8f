//! Issue 27, policy as code: `approval-console policy export|check|diff|apply` on the real CLI
//! against a running console's data — a round trip, refusals that say what is wrong, a widening
//! that needs --yes, the version recorded in `policy.applied` and in each decision's audit entry.

use crate::helpers::*;
use serde_json::{json, Value};
use std::path::Path;

async fn run(dir: &Path, args: Vec<String>) -> std::process::Output {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || cli(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

fn args(words: &[&str], file: &Path) -> Vec<String> {
    words.iter().map(|w| w.to_string()).chain([file.display().to_string()]).collect()
}

#[tokio::test]
async fn a_policy_file_is_checked_diffed_applied_with_its_version_recorded_and_exported_back() {
    let t = spawn_app().await;
    let dir = t.dir.clone();
    let work = tempfile::tempdir().unwrap();
    // The policy in force, exported: applying it changes nothing.
    let exported = run(&dir, vec!["policy".into(), "export".into()]).await;
    assert!(exported.status.success(), "{}", text_of(&exported));
    let first = work.path().join("first.toml");
    std::fs::write(&first, &exported.stdout).unwrap();
    let same = run(&dir, args(&["policy", "apply"], &first)).await;
    assert!(same.status.success() && text_of(&same).contains("No change"), "{}", text_of(&same));

    // A policy with a misspelt tool and a pattern that does not compile: refused, each problem said.
    let bad = work.path().join("bad.toml");
    std::fs::write(&bad, "high_risk_tools = [\"delete_recrod\"]\n[[risk_rule]]\ntool = \"Bash\"\non = \"command\"\nregex = \"(\"\nlevel = \"high\"\nreason = \"x\"\n").unwrap();
    let checked = run(&dir, args(&["policy", "check"], &bad)).await;
    assert!(!checked.status.success(), "{}", text_of(&checked));
    assert!(text_of(&checked).contains("delete_recrod") && text_of(&checked).contains("does not compile"), "{}", text_of(&checked));
    let refused = run(&dir, args(&["policy", "apply"], &bad)).await;
    assert!(!refused.status.success(), "{}", text_of(&refused));

    // A good one: checked, diffed, applied; its version is in force and audited.
    let good = work.path().join("policy.toml");
    std::fs::write(
        &good,
        "high_risk_tools = [\"delete_record\"]\ncritical_approvals = 2\n\n[[time_limit]]\ntool = \"*\"\nafter_secs = 3600\n\n\
         [[risk_rule]]\ntool = \"Bash\"\non = \"command\"\nregex = \"kubectl .*apply.*\"\nlevel = \"high\"\nreason = \"applies to a cluster\"\n",
    )
    .unwrap();
    let checked = run(&dir, args(&["policy", "check"], &good)).await;
    assert!(checked.status.success(), "{}", text_of(&checked));
    let diff = run(&dir, args(&["policy", "diff"], &good)).await;
    let diff_text = text_of(&diff);
    for line in
        ["+ high-risk tool delete_record", "~ critical calls: 1 → 2 approvals", "+ time limit *: 3600 s", "+ risk rule Bash on command"]
    {
        assert!(diff_text.contains(line), "{line} in {diff_text}");
    }
    let applied = run(&dir, args(&["policy", "apply"], &good)).await;
    assert!(applied.status.success(), "{}", text_of(&applied));
    let version = text_of(&applied)
        .lines()
        .find_map(|l| l.strip_prefix("Applied: version "))
        .unwrap()
        .split(" → ")
        .nth(1)
        .unwrap()
        .trim_end_matches('.')
        .to_owned();
    assert!(version.starts_with("p-"), "{version}");
    assert_eq!(t.get("/api/settings/safety").await.1["highRiskTools"], json!(["delete_record"]), "a running console has it at once");
    let (_, page) = t.get("/api/audit?action=policy.applied").await;
    let entry = page["entries"].as_array().unwrap().iter().find(|e| e["action"] == "policy.applied").cloned().unwrap_or(Value::Null);
    assert_eq!(entry["details"]["after"], version.as_str(), "{page}");

    // The screens read it: the version in force and the files applied.
    let (status, view) = t.get("/api/policy").await;
    assert!(status.is_success(), "{view}");
    assert_eq!(view["version"], version.as_str(), "{view}");
    assert_eq!(
        (view["applied"][0]["after"].as_str(), view["applied"][0]["by"].as_str().map(|b| b.contains("cli"))),
        (Some(version.as_str()), Some(true)),
        "{view}"
    );
    assert!(view["file"].as_str().unwrap().contains("high_risk_tools = [\"delete_record\"]"), "{view}");

    // A decision taken now names that version in its audit entry.
    let answer = t.generate("delete rec-policy").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    assert_eq!(item["highRisk"], true, "{item}");
    let (status, body) = t.approve(&item).await;
    assert!(status.is_success(), "{body}");
    let (_, audit) = t.get(&format!("/api/audit?item={}", item["id"].as_str().unwrap())).await;
    let decided = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "decision.approve").cloned().unwrap();
    assert_eq!(decided["details"]["policyVersion"], version.as_str(), "{decided}");

    // Exported again: the same policy, and the same version.
    let again = run(&dir, vec!["policy".into(), "export".into()]).await;
    let text = String::from_utf8_lossy(&again.stdout).to_string();
    assert!(text.contains(&format!("version {version}")), "{text}");
    let back = approval_console::app::policy::PolicyFile::parse(&text).unwrap();
    assert_eq!(back, approval_console::app::policy::PolicyFile::parse(&std::fs::read_to_string(&good).unwrap()).unwrap());

    // Going back to the first policy widens (no high-risk tool, no critical quorum): --yes needed.
    let widening = run(&dir, args(&["policy", "apply"], &first)).await;
    assert!(!widening.status.success() && text_of(&widening).contains("(widens"), "{}", text_of(&widening));
    assert_eq!(t.get("/api/settings/safety").await.1["highRiskTools"], json!(["delete_record"]), "nothing applied");
    let forced = run(&dir, [args(&["policy", "apply"], &first), vec!["--yes".into()]].concat()).await;
    assert!(forced.status.success(), "{}", text_of(&forced));
    assert_eq!(t.get("/api/settings/safety").await.1["highRiskTools"], json!([]));
}
