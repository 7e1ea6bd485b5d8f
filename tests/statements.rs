//! The store's statement counter (`store::statements`), in a test binary of its own: the counter
//! is the process's, and sqlx reports a SQLite statement on its connection's own thread, so only a
//! process-wide subscriber with no other test beside it hears exactly one test's statements.

use approval_console::store::{statements, Db};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

/// Every statement counts once, `BEGIN` and `COMMIT` included, while the printed log stays at `info`.
#[tokio::test]
async fn each_statement_is_counted_once_whatever_the_log_prints() {
    let subscriber = tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_filter(tracing_subscriber::EnvFilter::new("info")))
        .with(statements::Counter.with_filter(statements::Counter));
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path()).await.unwrap();
    // The first round opens the pool's connections (their PRAGMAs count too); the second runs on them.
    for round in ["first", "second"] {
        let (before, direct_before) = (statements::count(), statements::direct());
        approval_console::store::testing::put_setting(&db, round).await.unwrap();
        let read = approval_console::store::testing::setting_text(&db, round).await.unwrap();
        assert_eq!(read.as_deref(), Some("{}"));
        let counted = statements::count() - before;
        if round == "second" {
            // BEGIN IMMEDIATE, INSERT, COMMIT, SELECT.
            assert_eq!(counted, 4);
            // The write ran whole on the writer's own connection, in this task; the pool's read did not.
            assert_eq!(statements::direct() - direct_before, 3);
        } else {
            assert!(counted >= 4, "{counted}");
        }
    }
}
