//! A throwaway PostgreSQL cluster for the tests of one test binary: Debian's `postgresql` package
//! (the test command installs it), `initdb` in a temp directory, its own port on 127.0.0.1, run as
//! the unprivileged `postgres` user when the tests run as root (the server refuses root). Never the
//! machine's own cluster. A watchdog stops it and removes its directory when the test process ends.
//! Each test takes a database of its own ([`database`]).
//!
//! With `APPROVAL_CONSOLE_TEST_PG` set (a `postgres://` URL of a server the tests may create
//! databases on) that server is used instead.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::OnceLock;

static DURABLE: AtomicBool = AtomicBool::new(false);

/// Before the first [`database`]: the cluster fsyncs its commits, as a real server does (the tests'
/// runs without, for speed; benchmarks want the real cost).
pub fn durable() {
    DURABLE.store(true, Ordering::SeqCst);
}

/// The server's URL without a database name (`postgres://postgres@127.0.0.1:PORT`).
fn server() -> &'static str {
    static SERVER: OnceLock<String> = OnceLock::new();
    SERVER.get_or_init(|| match std::env::var("APPROVAL_CONSOLE_TEST_PG") {
        Ok(url) if !url.is_empty() => url.trim_end_matches('/').rsplit_once('/').map(|(s, _)| s.to_owned()).unwrap_or(url),
        _ => start_cluster(),
    })
}

fn bin_dir() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is not installed (/usr/lib/postgresql is missing): `apt-get install postgresql` (scripts/test does)")
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop().expect("no PostgreSQL server binaries under /usr/lib/postgresql/<version>/bin").1
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a server binary, as `postgres` when we are root.
fn pg(bin: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args).output().unwrap_or_else(|e| panic!("running {}: {e}", bin.display()))
}

fn start_cluster() -> String {
    let cluster = Cluster::start();
    let server = cluster.server.clone();
    // The binary's shared cluster lives as long as the process (its watchdog removes it).
    std::mem::forget(cluster);
    server
}

/// A PostgreSQL cluster of its own: the binary's shared one ([`database`]) for most tests, or one a
/// test starts for itself to [`Cluster::restart`] it without disturbing the others. A watchdog
/// stops it and removes its directory when the test process ends.
pub struct Cluster {
    /// `postgres://postgres@127.0.0.1:PORT`
    pub server: String,
    bin: PathBuf,
    data: PathBuf,
    log: PathBuf,
    opts: String,
}

impl Cluster {
    pub fn start() -> Self {
        let bin = bin_dir();
        let dir = tempfile::Builder::new().prefix("approval-console-pg-").tempdir().expect("temp dir").keep();
        if is_root() {
            let ok = Command::new("chown").arg("postgres").arg(&dir).status().map(|s| s.success()).unwrap_or(false);
            assert!(ok, "chown postgres {}: is the `postgres` user there (package postgresql)?", dir.display());
        }
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let data = dir.join("data");
        let out = pg(&bin.join("initdb"), &["-D", data.to_str().unwrap(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let fsync = if DURABLE.load(Ordering::SeqCst) { "on" } else { "off" };
        let opts = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync={fsync} -c max_connections=300", dir.display());
        let log = dir.join("log");
        let cluster = Self { server: format!("postgres://postgres@127.0.0.1:{port}"), bin: bin.clone(), data: data.clone(), log, opts };
        cluster.pg_ctl(&["start"]);
        // The watchdog: stops the cluster and removes it once this test process is gone.
        let stop = format!(
            "{}{} -D {} -m immediate stop",
            if is_root() { "runuser -u postgres -- " } else { "" },
            bin.join("pg_ctl").display(),
            data.display()
        );
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
            pid = std::process::id(),
            dir = dir.display()
        );
        // `setsid --fork`: the watchdog runs on in a session of its own; setsid itself returns at once.
        let started = Command::new("setsid")
            .args(["--fork", "sh", "-c", &script])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("start the cluster's watchdog");
        assert!(started.success(), "setsid failed to start the cluster's watchdog");
        cluster
    }

    /// `pg_ctl ACTION` on this cluster, waiting for it to finish (`-w`); panics with the log if it fails.
    fn pg_ctl(&self, action: &[&str]) {
        let mut args = vec!["-D", self.data.to_str().unwrap(), "-l", self.log.to_str().unwrap(), "-w", "-o", &self.opts];
        args.extend_from_slice(action);
        let out = pg(&self.bin.join("pg_ctl"), &args);
        assert!(
            out.status.success(),
            "pg_ctl {action:?} failed: {}{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }

    /// Restarts the server as an operator would (`pg_ctl restart -m fast`): every open session is
    /// ended (`57P01 admin_shutdown`, connections reset), new ones are refused until it is back;
    /// returns once it accepts connections again. Blocking: call it from `spawn_blocking`.
    pub fn restart(&self) {
        self.pg_ctl(&["-m", "fast", "restart"]);
    }

    /// A new, empty database on this cluster; its URL.
    pub async fn database(&self) -> String {
        new_database(&self.server).await
    }
}

/// A new, empty database on the test server; its URL.
pub async fn database() -> String {
    new_database(server()).await
}

async fn new_database(server: &str) -> String {
    use sqlx::Connection;
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!("t_{}_{}_{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst), rand_suffix());
    let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.expect("connect to the test PostgreSQL");
    sqlx::Executor::execute(&mut admin, format!("CREATE DATABASE {name}").as_str()).await.expect("create a test database");
    format!("{server}/{name}")
}

fn rand_suffix() -> String {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{t:08x}")
}
