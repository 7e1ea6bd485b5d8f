//! Prints figures, asserts nothing. Needs a notification service for part 1:
//!     scripts/with-desktop cargo bench --bench figures -- desktop
//! (env: BENCH_PAUSES, default 50; BENCH_PENDING, default 100000).
//!
//! 1. notification latency: from a local run pausing (the demo agent's `generate` answered
//!    `suspended`) to the desktop notification being accepted on the session bus (the
//!    notification server answered Notify), p50/p99 (target < 100 ms p99);
//! 2. start-up with BENCH_PENDING pending calls: opening the data directory and recovering (what the
//!    desktop app does before its window shows), then the first page of the queue (what the window
//!    shows first) — the target is < 1 s to a visible queue;
//! 3. the RSS of this process (the core as the desktop app embeds it) with BENCH_PENDING pending;
//! 4. with APPROVAL_CONSOLE_DESKTOP_BIN, TAURI_BASELINE_BIN and TAURI_DRIVER set (`scripts/bench-desktop`
//!    builds and sets them): the real app's start to a visible queue over the same data directory,
//!    and the idle memory of its processes (WebKit's included) against a minimal Tauri app — see
//!    bench/desktop-window.mjs;
//! 5. with APPROVAL_CONSOLE_BIN set (also by `scripts/bench-desktop`): the web UI over the same data
//!    directory in headless chromium — first render after the data arrived, frame times while
//!    scrolling, a paused call to its row on screen — see bench/ui-queue.mjs.

use approval_console::app::query::QueueQuery;
use approval_console::app::App;
use approval_console::domain::AgentId;
use approval_console::engine::local::agent::Message;
use approval_console::engine::local::RunRequest;
use approval_console::notify::desktop::DesktopNotifier;
use approval_console::notify::{Choice, Notice, Notifier};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The real desktop notifier, noting when each notice was accepted by the server.
struct Timed {
    shown: Mutex<Vec<Instant>>,
}

impl Notifier for Timed {
    fn show(&self, notice: Notice, answer: Box<dyn FnOnce(Option<Choice>) + Send>) -> Result<(), String> {
        DesktopNotifier.show(notice, answer)?;
        self.shown.lock().unwrap().push(Instant::now());
        Ok(())
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

pub async fn run() {
    let pauses = env_usize("BENCH_PAUSES", 50);
    let pending = env_usize("BENCH_PENDING", 100_000);

    // 1. notification latency.
    if std::env::var("APPROVAL_CONSOLE_DESKTOP_TESTS").as_deref() == Ok("1") {
        let tmp = tempfile::tempdir().unwrap();
        let app = App::open(tmp.path(), vec![]).await.unwrap();
        let timed = Arc::new(Timed { shown: Mutex::new(vec![]) });
        let _bg = app.start(Some(timed.clone() as Arc<dyn Notifier>));
        let mut latencies = Vec::new();
        for i in 0..pauses {
            let request = RunRequest {
                agent_id: AgentId::new("demo"),
                messages: vec![Message::User { content: format!("delete rec-{i}") }],
                thread_id: None,
                resource_id: None,
                options: Default::default(),
                run_id: Default::default(),
                started_by: None,
            };
            app.send(request, false, None, &app.local_admin("bench")).await.unwrap();
            let paused = Instant::now();
            let deadline = paused + Duration::from_secs(10);
            loop {
                if timed.shown.lock().unwrap().len() > i {
                    break;
                }
                assert!(Instant::now() < deadline, "notification {i} not shown within 10 s");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            latencies.push(timed.shown.lock().unwrap()[i].saturating_duration_since(paused));
            // Apart enough that each call is told alone.
            tokio::time::sleep(Duration::from_millis(700)).await;
        }
        latencies.sort();
        println!(
            "pause → notification on the bus ({pauses} pauses, real dunst): p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms   (target p99 < 100 ms)",
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
            ms(*latencies.last().unwrap())
        );
    } else {
        println!("notification latency: skipped (run under scripts/with-desktop)");
    }

    // 2. start-up with many pending calls, 3. RSS.
    let tmp = tempfile::tempdir().unwrap();
    let rate = crate::fill::fill(tmp.path(), pending).await;
    println!("filled {pending} pending calls ({rate:.0}/s)");
    let before = rss_kib();
    let t = Instant::now();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    let _serving = app.recover().await.unwrap();
    let opened = t.elapsed();
    let page = app.queue_page(&QueueQuery { limit: Some(50), ..Default::default() }, &app.local_admin("bench")).await.unwrap();
    let first_page = t.elapsed();
    assert_eq!(page.items.len(), 50);
    println!(
        "start with {pending} pending: open + recover {:.0} ms, first page of 50 at {:.0} ms   (target < 1000 ms to a visible queue, window start not included)",
        ms(opened),
        ms(first_page)
    );
    println!(
        "RSS of the core with {pending} pending: {:.1} MiB (process before opening: {:.1} MiB)",
        rss_kib() as f64 / 1024.0,
        before as f64 / 1024.0
    );

    // 4. The window, over the same data directory (released first: one serving process per directory).
    drop(_serving);
    app.testing().close().await;
    let window_env = ["APPROVAL_CONSOLE_DESKTOP_BIN", "TAURI_BASELINE_BIN", "TAURI_DRIVER"];
    if window_env.iter().all(|v| std::env::var_os(v).is_some()) && std::env::var_os("DISPLAY").is_some() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/desktop-window.mjs");
        let status = std::process::Command::new("node").arg(script).arg(tmp.path()).arg(pending.to_string()).status();
        if !matches!(status, Ok(s) if s.success()) {
            println!("window start and memory: the script failed ({status:?})");
        }
    } else {
        println!(
            "window start and memory: skipped (run scripts/bench-desktop, which builds the app and the baseline and sets {window_env:?})"
        );
    }

    // 5. The web UI over the same data directory.
    if std::env::var_os("APPROVAL_CONSOLE_BIN").is_some() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/ui-queue.mjs");
        let status = std::process::Command::new("node").arg(script).arg(tmp.path()).arg(pending.to_string()).status();
        if !matches!(status, Ok(s) if s.success()) {
            println!("web UI: the script failed ({status:?})");
        }
    } else {
        println!("web UI with {pending} pending: skipped (set APPROVAL_CONSOLE_BIN, or run scripts/bench-desktop)");
    }
}
