//! Prints figures, asserts nothing. `cargo bench --bench figures -- floor` (env: BENCH_CYCLES, default 2000
//! per level; BENCH_CLIENTS, default "1,32").
//!
//! What an approval cycle cannot go below on this machine, whatever the console does: the same
//! three HTTP requests as `mastra_ratio`'s cycle (generate → suspended-runs →
//! approve-tool-call-generate) answered by handlers that do nothing but send a body of the real
//! answer's size, through the same HTTP stack as `serve` (axum on a runtime of its own, on
//! 127.0.0.1) and the same client; and the three durable commits of the cycle (C5: the pause, the
//! decision, the delivery), each an append of a commit's size to a file followed by `fdatasync`, the
//! way SQLite's WAL syncs a commit. Prints each floor and the ceiling they make together, to read
//! beside `mastra_ratio`, `throughput` and `calls`.
//!
//! And what the store's statements cost by the way they reach SQLite, on a database the console
//! opened (its migrations, its pragmas): through sqlx's pool as the store runs them today (every
//! statement a round trip to the connection's own thread: a wake-up there and one back), and as
//! whole operations run on a connection's own thread (rusqlite, one round trip per operation, not
//! per statement): a point read, and a write transaction of six statements and its commit.

use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

/// The answers' sizes of one console cycle (measured against `serve` on the demo agent).
const GENERATE: usize = 582;
const LISTED: usize = 281;
const APPROVED: usize = 322;
/// Pages one commit of the cycle writes to the WAL (strace of `serve`: 25–30 frames of 4 KiB + 24 bytes).
const COMMIT_PAGES: usize = 28;

fn body(len: usize) -> String {
    let filler = "x".repeat(len.saturating_sub(40));
    json!({ "finishReason": "suspended", "runId": "r", "pad": filler }).to_string()
}

/// A server on its own two-worker runtime (as `serve` runs), answering the cycle's three routes.
fn start_server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let (generated, listed, approved) = (body(GENERATE), body(LISTED), body(APPROVED));
            let app = Router::new()
                .route("/api/agents/demo/generate", post(move |_: axum::Json<Value>| async move { generated }))
                .route("/api/agents/demo/suspended-runs", get(move || async move { listed }))
                .route("/api/agents/demo/approve-tool-call-generate", post(move |_: axum::Json<Value>| async move { approved }));
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(format!("http://{}", listener.local_addr().unwrap())).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

async fn cycle(http: &reqwest::Client, base: &str, i: usize) {
    let send = |r: reqwest::RequestBuilder| async move {
        let r = r.bearer_auth("bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035").send().await.unwrap();
        assert!(r.status().is_success());
        r.json::<Value>().await.unwrap()
    };
    let message = json!({ "messages": [{ "role": "user", "content": format!("delete floor-{i}") }] });
    send(http.post(format!("{base}/api/agents/demo/generate")).json(&message)).await;
    send(http.get(format!("{base}/api/agents/demo/suspended-runs"))).await;
    send(http.post(format!("{base}/api/agents/demo/approve-tool-call-generate")).json(&json!({ "runId": "r", "toolCallId": "c" }))).await;
}

async fn rate(http: &reqwest::Client, base: &str, clients: usize, cycles: usize) -> f64 {
    let per_client = cycles.div_ceil(clients);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let (http, base) = (http.clone(), base.to_owned());
            tokio::spawn(async move {
                for i in 0..per_client {
                    cycle(&http, &base, c * per_client + i).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    (per_client * clients) as f64 / started.elapsed().as_secs_f64()
}

/// One commit's sync: `COMMIT_PAGES` WAL frames written, then `fdatasync`. `grow`: appended to the
/// end (a WAL that grows); else written over earlier frames (a WAL that SQLite started again from
/// its beginning after a checkpoint, its usual state).
fn commit_syncs(dir: &std::path::Path, commits: usize, grow: bool) -> Vec<Duration> {
    let path = dir.join(if grow { "grow.wal" } else { "reuse.wal" });
    let mut file = std::fs::OpenOptions::new().create(true).read(true).write(true).truncate(true).open(&path).unwrap();
    let frame = vec![7u8; 4096 + 24];
    let commit = frame.len() * COMMIT_PAGES;
    let span = 1000 * frame.len();
    if !grow {
        file.write_all(&vec![0u8; span + commit]).unwrap();
        file.sync_all().unwrap();
    }
    let mut took = Vec::with_capacity(commits);
    for i in 0..commits {
        let start = if grow { (i * commit) as u64 } else { ((i * commit) % span) as u64 };
        let started = Instant::now();
        for p in 0..COMMIT_PAGES {
            file.write_all_at(&frame, start + (p * frame.len()) as u64).unwrap();
        }
        file.sync_data().unwrap();
        took.push(started.elapsed());
    }
    took.sort();
    took
}

/// Statements of a write transaction in [`store_costs`] (the approval's decision writes 3–6).
const WRITE_STATEMENTS: usize = 6;

/// An operation sent to the thread that owns the connection.
type Job = Box<dyn FnOnce(&mut rusqlite::Connection) + Send>;

/// A connection owned by a thread of its own that runs whole operations sent to it.
struct OwnThread {
    jobs: std::sync::mpsc::Sender<Job>,
}

impl OwnThread {
    fn open(path: &std::path::Path) -> Self {
        let mut conn = rusqlite::Connection::open(path).unwrap();
        conn.execute_batch("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
            .unwrap();
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        std::thread::spawn(move || {
            for job in queue {
                job(&mut conn);
            }
        });
        Self { jobs }
    }

    async fn run<T: Send + 'static>(&self, op: impl FnOnce(&mut rusqlite::Connection) -> T + Send + 'static) -> T {
        let (tell, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |conn| {
                let _ = tell.send(op(conn));
            }))
            .unwrap();
        answer.await.unwrap()
    }
}

/// p50 of a point read and of a write transaction, through sqlx's pool and on a connection's own thread.
async fn store_costs(rounds: usize) -> [(f64, f64); 2] {
    use sqlx::Row;
    let dir = tempfile::tempdir().unwrap();
    let db = approval_console::store::Db::open(dir.path()).await.unwrap();
    // sqlx's own pool on the file the store made (the store's pool is its own).
    let file = dir.path().join("approval-console.db");
    let pool = &sqlx::any::AnyPoolOptions::new().max_connections(8).connect(&format!("sqlite://{}", file.display())).await.unwrap();
    sqlx::query("CREATE TABLE bench_rows (k TEXT PRIMARY KEY, v TEXT NOT NULL, n INTEGER NOT NULL)").execute(pool).await.unwrap();
    for k in 0..1000 {
        sqlx::query("INSERT INTO bench_rows (k, v, n) VALUES ($1, $2, 0)")
            .bind(format!("k{k}"))
            .bind("x".repeat(300))
            .execute(pool)
            .await
            .unwrap();
    }
    let own = OwnThread::open(&dir.path().join("approval-console.db"));
    let (mut sqlx_read, mut sqlx_write, mut own_read, mut own_write) = (vec![], vec![], vec![], vec![]);
    for i in 0..rounds {
        let key = format!("k{}", i % 1000);
        let started = Instant::now();
        let row = sqlx::query("SELECT v, n FROM bench_rows WHERE k = $1").bind(&key).fetch_one(pool).await.unwrap();
        let _: i64 = row.try_get("n").unwrap();
        sqlx_read.push(started.elapsed());

        let started = Instant::now();
        let mut conn = pool.acquire().await.unwrap();
        sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await.unwrap();
        for s in 0..WRITE_STATEMENTS {
            sqlx::query("UPDATE bench_rows SET n = n + 1 WHERE k = $1")
                .bind(format!("k{}", (i * 7 + s) % 1000))
                .execute(&mut *conn)
                .await
                .unwrap();
        }
        sqlx::query("COMMIT").execute(&mut *conn).await.unwrap();
        drop(conn);
        sqlx_write.push(started.elapsed());

        let started = Instant::now();
        let k = key.clone();
        let n: i64 = own
            .run(move |conn| {
                conn.prepare_cached("SELECT v, n FROM bench_rows WHERE k = $1").unwrap().query_row([&k], |r| r.get(1)).unwrap()
            })
            .await;
        assert!(n >= 0);
        own_read.push(started.elapsed());

        let started = Instant::now();
        own.run(move |conn| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
            for s in 0..WRITE_STATEMENTS {
                tx.prepare_cached("UPDATE bench_rows SET n = n + 1 WHERE k = $1")
                    .unwrap()
                    .execute([format!("k{}", (i * 7 + s) % 1000)])
                    .unwrap();
            }
            tx.commit().unwrap();
        })
        .await;
        own_write.push(started.elapsed());
    }
    db.close().await;
    let mut all = [sqlx_read, sqlx_write, own_read, own_write];
    for v in &mut all {
        v.sort();
    }
    [(at(&all[0], 0.5), at(&all[2], 0.5)), (at(&all[1], 0.5), at(&all[3], 0.5))]
}

fn at(sorted: &[Duration], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3
}

pub async fn run() {
    let cycles: usize = std::env::var("BENCH_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let levels: Vec<usize> =
        std::env::var("BENCH_CLIENTS").unwrap_or_else(|_| "1,32".into()).split(',').filter_map(|v| v.trim().parse().ok()).collect();
    let base = start_server();
    let http = reqwest::Client::new();
    rate(&http, &base, 1, 200).await;
    println!("floor of an approval cycle on this machine: 3 HTTP requests that do nothing, 3 synced commits; {cycles} cycles per level");
    let mut sequential = None;
    for &clients in &levels {
        let r = rate(&http, &base, clients, cycles).await;
        if clients == 1 {
            sequential = Some(r);
        }
        println!("  HTTP only, {clients:>2} clients: {r:>7.0} cycles/s ({:.3} ms per cycle per client)", clients as f64 * 1e3 / r);
    }
    let dir = tempfile::tempdir_in(std::env::var_os("BENCH_DATA_DIR").unwrap_or_else(|| std::env::temp_dir().into())).unwrap();
    let reuse = commit_syncs(dir.path(), 600, false);
    let grow = commit_syncs(dir.path(), 300, true);
    println!(
        "  commit sync ({COMMIT_PAGES} pages + fdatasync), WAL reused: p50 {:.3} ms p99 {:.3} ms; WAL growing: p50 {:.3} ms p99 {:.3} ms",
        at(&reuse, 0.5),
        at(&reuse, 0.99),
        at(&grow, 0.5),
        at(&grow, 0.99)
    );
    if let Some(r) = sequential {
        let floor = 1e3 / r + 3.0 * at(&reuse, 0.5);
        println!(
            "  sequential cycle floor: {floor:.3} ms = at most {:.0} cycles/s for a console that did no other work (HTTP + 3 syncs)",
            1e3 / floor
        );
    }
    let [read, write] = store_costs(2000).await;
    println!("  store, sqlx's pool (a round trip per statement) vs a connection's own thread (a round trip per operation), p50:");
    println!("    point read ...................................... {:.3} ms vs {:.3} ms", read.0, read.1);
    println!(
        "    write: BEGIN, {WRITE_STATEMENTS} statements, COMMIT (synced) ........ {:.3} ms vs {:.3} ms (the difference over {} statements: {:.3} ms each)",
        write.0,
        write.1,
        WRITE_STATEMENTS + 1,
        (write.0 - write.1) / (WRITE_STATEMENTS + 1) as f64
    );
    std::io::stdout().flush().unwrap();
}
