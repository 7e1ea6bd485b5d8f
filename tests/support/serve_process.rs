//! The real `approval-console serve` binary as a child process, for tests and benchmarks that need a
//! separate process (kill -9, restarts, the CLI beside a server). Included with `#[path]`; each
//! includer uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The environment a console process over `data_dir` needs to reach the data directory's database:
/// the PostgreSQL URL a test kept in `test-database-url` there (team-mode runs of the tests), else
/// nothing (the directory's SQLite file).
pub fn database_env(data_dir: &Path) -> Vec<(&'static str, String)> {
    match std::fs::read_to_string(data_dir.join("test-database-url")) {
        Ok(url) => vec![("APPROVAL_CONSOLE_DATABASE_URL", url)],
        Err(_) => vec![],
    }
}

/// A credential made with the CLI (`tokens add NAME --role ROLE`) on `data_dir`'s database (the
/// team's, when the directory names one): its token.
pub fn add_token(bin: &str, data_dir: &Path, name: &str, role: &str) -> String {
    let out = Command::new(bin)
        .args(["--data-dir", data_dir.to_str().expect("utf-8 path"), "tokens", "add", name, "--role", role])
        .envs(database_env(data_dir))
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .expect("run tokens add");
    assert!(out.status.success(), "tokens add: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8").lines().last().expect("the token line").trim().to_owned()
}

/// Reads an SSE byte stream into `text` until it holds `needle` (10 s at most, then panics with what
/// came).
pub async fn read_until<S, B, E>(stream: &mut S, text: &mut String, needle: &str)
where
    S: futures::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Debug,
{
    use futures::StreamExt;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while !text.contains(needle) {
        let chunk = tokio::time::timeout_at(deadline, stream.next())
            .await
            .unwrap_or_else(|_| panic!("no {needle} in time; got {text}"))
            .expect("stream open")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(chunk.as_ref()));
    }
}

/// A running `serve`; killed (SIGKILL) when dropped.
pub struct ServeProcess {
    pub child: Child,
    /// `http://127.0.0.1:<port>`
    pub base: String,
    token: String,
    http: reqwest::Client,
}

/// GET with the bearer token; the answer's JSON (`Null` if it is not JSON).
pub async fn get_json(http: &reqwest::Client, url: &str, token: &str) -> serde_json::Value {
    http.get(url).bearer_auth(token).send().await.expect("GET").json().await.unwrap_or(serde_json::Value::Null)
}

/// POST JSON with the bearer token; the answer's JSON (`Null` if it is not JSON).
pub async fn post_json(http: &reqwest::Client, url: &str, token: &str, body: &serde_json::Value) -> serde_json::Value {
    http.post(url).bearer_auth(token).json(body).send().await.expect("POST").json().await.unwrap_or(serde_json::Value::Null)
}

impl ServeProcess {
    /// Starts `serve --port 0` over `data_dir` with `token`, and waits for the URL it prints.
    pub fn start(bin: &str, data_dir: &Path, token: &str) -> Self {
        Self::start_with(bin, data_dir, token, &[])
    }

    /// [`Self::start`] with more arguments to `serve` (`--agents FILE`).
    pub fn start_with(bin: &str, data_dir: &Path, token: &str, more: &[&str]) -> Self {
        Self::start_args(bin, data_dir, token, &[&["--token", token][..], more].concat())
    }

    /// `serve --port 0` with `args` and no `--token` of its own (`--token-file FILE`); `token` is the
    /// session token those arguments give it, for [`Self::get`] and [`Self::post`].
    pub fn start_args(bin: &str, data_dir: &Path, token: &str, args: &[&str]) -> Self {
        Self::start_open_files(bin, data_dir, token, args, None)
    }

    /// [`Self::start_args`] with `RLIMIT_NOFILE` (soft and hard) set to `open_files` for the process.
    pub fn start_open_files(bin: &str, data_dir: &Path, token: &str, args: &[&str], open_files: Option<u64>) -> Self {
        Self::spawn(bin, data_dir, token, args, open_files, &[])
    }

    /// [`Self::start_with`] with these environment variables set too (`XDG_RUNTIME_DIR`: where it
    /// leaves its record of where it serves).
    pub fn start_env(bin: &str, data_dir: &Path, token: &str, more: &[&str], env: &[(&str, &Path)]) -> Self {
        Self::spawn(bin, data_dir, token, &[&["--token", token][..], more].concat(), None, env)
    }

    fn spawn(bin: &str, data_dir: &Path, token: &str, args: &[&str], open_files: Option<u64>, env: &[(&str, &Path)]) -> Self {
        let mut command = Command::new(bin);
        command
            .args(["--data-dir", data_dir.to_str().expect("utf-8 path"), "serve"])
            // A port of its own (`--port N` in `args`: a restart on the same address), else any free one.
            .args(if args.contains(&"--port") { &[][..] } else { &["--port", "0"][..] })
            .args(args)
            .envs(database_env(data_dir))
            .envs(env.iter().copied())
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdout(Stdio::piped());
        if let Some(n) = open_files {
            use std::os::unix::process::CommandExt;
            // SAFETY: only setrlimit (async-signal-safe) between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let rl = libc::rlimit { rlim_cur: n as libc::rlim_t, rlim_max: n as libc::rlim_t };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &rl) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command.spawn().expect("start approval-console serve");
        let mut line = String::new();
        // The reader borrows the pipe; the pipe itself stays open with the child.
        BufReader::new(child.stdout.as_mut().expect("piped stdout")).read_line(&mut line).expect("read the URL line");
        let at = line.find("http://").unwrap_or_else(|| panic!("no URL printed: {line:?}"));
        let end = line[at..].find("/#").expect("URL with a fragment") + at;
        Self { base: line[at..end].to_owned(), child, token: token.to_owned(), http: reqwest::Client::new() }
    }

    /// GET `path` (`/api/…`) with this server's token.
    pub async fn get(&self, path: &str) -> serde_json::Value {
        get_json(&self.http, &format!("{}{path}", self.base), &self.token).await
    }

    /// POST JSON to `path` with this server's token.
    pub async fn post(&self, path: &str, body: serde_json::Value) -> serde_json::Value {
        post_json(&self.http, &format!("{}{path}", self.base), &self.token, &body).await
    }

    /// Queue entry `id` once its decision's delivery is over (the console answers a decision before
    /// it delivers it): polled until its state is no longer `decided`, with a deadline.
    pub async fn settled(&self, id: &str) -> serde_json::Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let item = self.get(&format!("/api/queue/{id}")).await;
            if item["state"] != "decided" {
                return item;
            }
            assert!(std::time::Instant::now() < deadline, "entry {id} still being delivered after 60 s: {item}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// `agent`'s runs once none is left, stored or going on (a run goes on after its decision was
    /// answered): its `suspended-runs`, polled until empty, with a deadline.
    pub async fn runs_over(&self, agent: &str) -> serde_json::Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let runs = self.get(&format!("/api/agents/{agent}/suspended-runs")).await;
            if runs["total"] == 0 {
                return runs;
            }
            assert!(std::time::Instant::now() < deadline, "runs of {agent} still stored after 60 s: {runs}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// SIGKILL, no graceful shutdown; waits for the process to be gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One sample of a Prometheus text page (`name{labels} value`), if the page has it.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// The server's store counters so far, from its `/api/metrics`.
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreCounts {
    pub commits: f64,
    pub writes: f64,
    /// SQL statements, `BEGIN` and `COMMIT` included (also the metrics page's own few, and the
    /// change feed's poll of four a second: next to nothing per cycle).
    pub statements: f64,
    /// Of those, the ones run without a round trip to another thread (SQLite's point reads).
    pub direct: f64,
}

impl StoreCounts {
    pub async fn read(http: &reqwest::Client, base: &str, token: &str) -> Self {
        let text = http.get(format!("{base}/api/metrics")).bearer_auth(token).send().await.unwrap().text().await.unwrap();
        let value = |series| metric(&text, series).unwrap_or(0.0);
        Self {
            commits: value("approval_console_store_commits_total"),
            writes: value("approval_console_store_writes_total"),
            statements: value("approval_console_store_statements_total"),
            direct: value("approval_console_store_direct_statements_total"),
        }
    }

    /// Per cycle since `before`: "commits/cycle 3.00 (writes/cycle 3.00, statements/cycle 27.0, 9.0
    /// of them without a hop)".
    pub fn per_cycle_since(&self, before: &Self, cycles: usize) -> String {
        let n = cycles as f64;
        format!(
            "commits/cycle {:.2} (writes/cycle {:.2}, statements/cycle {:.1}, {:.1} of them without a hop)",
            (self.commits - before.commits) / n,
            (self.writes - before.writes) / n,
            (self.statements - before.statements) / n,
            (self.direct - before.direct) / n
        )
    }
}

/// A new directory for a connector's own state (its `XDG_STATE_HOME`: the console's receipt keys it
/// trusts on first use), one per run: a console on a port an earlier test's console had must not be
/// judged by that one's keys. All under one directory per test process, in the system's temp
/// directory (left there: a few small files).
#[allow(dead_code)]
pub fn connector_state() -> std::path::PathBuf {
    static BASE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let base =
        BASE.get_or_init(|| tempfile::Builder::new().prefix("approval-console-connector-").tempdir().expect("a temp directory").keep());
    base.join(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string())
}
