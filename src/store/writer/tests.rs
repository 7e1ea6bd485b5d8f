//! Unit tests of `store::writer`: group commit, rollback, cancellation.

use super::*;
use crate::store::sql::sql;
use crate::store::Db;
use std::time::Duration;

async fn db() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path()).await.unwrap();
    let mut tx = db.begin_write().await.unwrap();
    sql("CREATE TABLE t (x INTEGER PRIMARY KEY)").execute(&mut tx).await.unwrap();
    tx.commit().await.unwrap();
    (dir, db)
}

async fn insert(db: &Db, x: i64) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("INSERT INTO t (x) VALUES (?)").bind(x).execute(&mut tx).await?;
    tx.commit().await
}

async fn rows(db: &Db) -> Vec<i64> {
    sqlx::query_scalar("SELECT x FROM t ORDER BY x").fetch_all(db.pool()).await.unwrap()
}

/// Holds a writer open until `n` more wait for their turn.
async fn until_waiting(db: &Db, n: usize) {
    for _ in 0..1000 {
        if db.writer.waiting.load(Ordering::SeqCst) == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("{n} writers never queued");
}

#[tokio::test]
async fn a_commit_announces_itself_once_on_disk_and_a_rolled_back_write_does_not() {
    let (_dir, db) = db().await;
    let mut committed = db.committed();
    committed.mark_unchanged();
    let mut dropped = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (1)").execute(&mut dropped).await.unwrap();
    drop(dropped);
    let mut open = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (2)").execute(&mut open).await.unwrap();
    assert!(!committed.has_changed().unwrap(), "nothing announced before a commit");
    open.commit().await.unwrap();
    assert!(committed.has_changed().unwrap(), "the commit announced its change: no writer calls anything after it");
    assert_eq!(rows(&db).await, [2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_writers_that_queue_behind_one_share_its_commit_and_each_returns_only_once_it_is_on_disk() {
    let (_dir, db) = db().await;
    let before = db.write_counts();
    let mut first = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (0)").execute(&mut first).await.unwrap();
    let others: Vec<_> = (1..=10)
        .map(|x| {
            tokio::spawn({
                let db = db.clone();
                async move { insert(&db, x).await }
            })
        })
        .collect();
    until_waiting(&db, 10).await;
    first.commit().await.unwrap();
    // `commit` returned, so the row is committed: another connection sees it.
    assert!(rows(&db).await.contains(&0));
    for o in others {
        o.await.unwrap().unwrap();
    }
    assert_eq!(rows(&db).await, (0..=10).collect::<Vec<_>>());
    let after = db.write_counts();
    assert_eq!(after.writes - before.writes, 11);
    assert_eq!(after.commits - before.commits, 1, "eleven writers, one commit");
    // A lone writer commits at once and waits for nobody.
    insert(&db, 11).await.unwrap();
    assert_eq!(db.write_counts().commits - after.commits, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_a_failed_or_dropped_writer_loses_only_its_own_work() {
    let (_dir, db) = db().await;
    insert(&db, 1).await.unwrap();
    let mut first = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (2)").execute(&mut first).await.unwrap();
    let dup = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 1).await } // the primary key is taken: this writer fails
    });
    let dropped = tokio::spawn({
        let db = db.clone();
        async move {
            let mut tx = db.begin_write().await.unwrap();
            sql("INSERT INTO t (x) VALUES (3)").execute(&mut tx).await.unwrap();
            drop(tx);
        }
    });
    let last = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 4).await }
    });
    until_waiting(&db, 3).await;
    first.commit().await.unwrap();
    assert!(dup.await.unwrap().is_err());
    dropped.await.unwrap();
    last.await.unwrap().unwrap();
    assert_eq!(rows(&db).await, vec![1, 2, 4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_a_batch_sqlite_rolled_back_tells_each_of_its_writers_and_the_next_starts_afresh() {
    let (_dir, db) = db().await;
    let mut first = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (1)").execute(&mut first).await.unwrap();
    // As SQLite does after a full disk or an I/O error: the whole transaction ends under a writer.
    let breaker = tokio::spawn({
        let db = db.clone();
        async move {
            let mut tx = db.begin_write().await.unwrap();
            sql("INSERT INTO t (x) VALUES (2)").execute(&mut tx).await.unwrap();
            sql("ROLLBACK").execute(&mut tx).await.unwrap();
            drop(tx);
        }
    });
    until_waiting(&db, 1).await;
    let first_told = tokio::spawn(first.commit());
    breaker.await.unwrap();
    let told = tokio::time::timeout(Duration::from_secs(10), first_told).await.expect("told").unwrap();
    assert!(told.is_err(), "its work was rolled back, so its commit must not say it is on disk");
    insert(&db, 3).await.unwrap();
    assert_eq!(rows(&db).await, vec![3]);

    // A writer that joins after the transaction ended under an earlier one starts a new batch.
    let mut first = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (4)").execute(&mut first).await.unwrap();
    sql("ROLLBACK").execute(&mut first).await.unwrap();
    let joiner = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 5).await }
    });
    until_waiting(&db, 1).await;
    assert!(first.commit().await.is_err());
    joiner.await.unwrap().unwrap();
    assert_eq!(rows(&db).await, vec![3, 5]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_a_caller_cancelled_while_it_waits_or_commits_leaves_no_writer_stuck() {
    let (_dir, db) = db().await;
    let first = db.begin_write().await.unwrap();
    // Cancelled while waiting for its turn.
    let waiting = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 1).await }
    });
    until_waiting(&db, 1).await;
    waiting.abort();
    // Cancelled half-way through a commit another writer follows.
    let next = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 2).await }
    });
    drop(first);
    tokio::time::timeout(Duration::from_secs(10), next).await.expect("the next writer got its turn").unwrap().unwrap();
    tokio::time::timeout(Duration::from_secs(10), insert(&db, 3)).await.expect("writes go on").unwrap();
    let got = rows(&db).await;
    assert!(got.contains(&2) && got.contains(&3), "{got:?}");
}

/// The writer checkpoints the WAL between batches once about `checkpoint::PAGES` frames were
/// written, so SQLite starts the WAL again from its beginning (this process's commits never
/// checkpoint on their own: without the writer's checkpoints the WAL would hold every frame).
#[tokio::test]
async fn the_wal_is_checkpointed_between_batches_and_started_again() {
    let (_dir, db) = db().await;
    let writes = 3 * checkpoint::PAGES as i64 / 2;
    for x in 0..writes {
        insert(&db, x).await.unwrap();
    }
    assert_eq!(rows(&db).await.len(), writes as usize);
    // (busy, frames in the WAL, frames copied): each insert wrote at least one frame; the WAL holds
    // those since the last checkpoint, not all of them.
    let (_, frames, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(db.pool()).await.unwrap();
    assert!(frames < writes * 2 / 3, "{frames} frames in the WAL after {writes} writes");
}

/// Another process holds SQLite's write lock: a write waits for it without holding up the runtime
/// (its `BEGIN IMMEDIATE` waits on a blocking thread), then goes through; one that waits longer
/// than the busy timeout fails with `storage_busy`, and the next write works.
#[tokio::test(flavor = "current_thread")]
async fn a_write_waits_for_another_process_off_the_runtime_and_gives_up_after_the_busy_timeout() {
    let (dir, db) = db().await;
    let other = rusqlite::Connection::open(dir.path().join(crate::store::DB_FILE)).unwrap();
    other.execute_batch("BEGIN IMMEDIATE; INSERT INTO t (x) VALUES (1);").unwrap();
    let waiting = tokio::spawn({
        let db = db.clone();
        async move { insert(&db, 2).await }
    });
    // One runtime thread: these ticks happen only if the waiting write does not block it.
    // Blocked, the thread would miss them for a whole busy timeout.
    let ticking = std::time::Instant::now();
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(ticking.elapsed() < conn::BUSY, "the runtime's one thread was held for {:?}", ticking.elapsed());
    assert!(!waiting.is_finished(), "the write must wait for the other process's lock");
    other.execute_batch("COMMIT").unwrap();
    tokio::time::timeout(Duration::from_secs(10), waiting).await.expect("the write went through").unwrap().unwrap();
    assert_eq!(rows(&db).await, vec![1, 2]);

    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    let busy = insert(&db, 3).await;
    assert!(matches!(busy, Err(Error::StorageBusy)), "{busy:?}");
    assert!(started.elapsed() >= conn::BUSY, "it waited the busy timeout first: {:?}", started.elapsed());
    other.execute_batch("ROLLBACK").unwrap();
    insert(&db, 4).await.unwrap();
    assert_eq!(rows(&db).await, vec![1, 2, 4]);
}

/// The bulk of a checkpoint copies the WAL beside the writers: it completes while a writer holds
/// its turn (a transaction open).
#[tokio::test]
async fn a_checkpoint_copies_the_wal_while_a_writer_holds_its_turn() {
    let (_dir, db) = db().await;
    for x in 0..100 {
        insert(&db, x).await.unwrap();
    }
    let mut holding = db.begin_write().await.unwrap();
    sql("INSERT INTO t (x) VALUES (1000)").execute(&mut holding).await.unwrap();
    let copied = tokio::time::timeout(Duration::from_secs(10), db.writer.copy_ahead()).await.expect("it waits for no writer").unwrap();
    // (The writer's own checkpoints ran meanwhile, every few dozen writes: some frames are left.)
    assert!(copied > 0, "{copied} frames copied after 100 writes");
    holding.commit().await.unwrap();
    assert_eq!(rows(&db).await.len(), 101);
}

/// The writer's own connection keeps the pool's promises: commits synced (`synchronous = FULL`,
/// C5), foreign keys enforced, WAL, and no checkpoint inside a commit.
#[tokio::test]
async fn the_writers_connection_has_the_pools_settings() {
    let (_dir, db) = db().await;
    let mut tx = db.begin_write().await.unwrap();
    let mut pooled = db.pool().acquire().await.unwrap();
    for pragma in ["synchronous", "foreign_keys", "journal_mode", "wal_autocheckpoint"] {
        let text = format!("PRAGMA {pragma}");
        let written = sql(text.clone()).fetch_one(&mut tx).await.unwrap();
        let pooled_row = sql(text).fetch_one(&mut pooled).await.unwrap();
        let read =
            |row: &crate::store::sql::Row| row.try_get::<i64>(0).map(|n| n.to_string()).or_else(|_| row.try_get::<String>(0)).unwrap();
        assert_eq!(read(&written), read(&pooled_row), "{pragma}");
    }
    let synced = sql("PRAGMA synchronous").fetch_one(&mut tx).await.unwrap();
    assert_eq!(synced.try_get::<i64>(0).unwrap(), 2, "FULL");
    drop(tx);
}
