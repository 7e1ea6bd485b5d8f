//! Races: several operators deciding the same call at once.

use crate::helpers::*;
use reqwest::StatusCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_clients_approving_the_same_call_at_once_exactly_one_wins_and_the_tool_runs_once() {
    let t = spawn_app().await;
    for round in 0..5 {
        t.generate(&format!("delete rec-{round}")).await;
        let item = t.pending().await.remove(0);
        let attempts = (0..8).map(|_| t.approve(&item));
        let results = futures::future::join_all(attempts).await;
        let wins = results.iter().filter(|(s, _)| *s == StatusCode::OK).count();
        let refused = results.iter().filter(|(s, b)| *s == StatusCode::CONFLICT && b["code"] == "already_decided").count();
        assert_eq!((wins, refused), (1, 7), "round {round}: {results:?}");
        assert_eq!(t.counters.deletes(), round + 1);
        let decisions = t
            .count(&format!(
                "SELECT COUNT(*) FROM audit_log WHERE action = 'decision.approve' AND queue_item_id = '{}'",
                item["id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(decisions, 1);
    }
}
