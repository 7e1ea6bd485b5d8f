//! A newcomer's first hour with the CLI beside a running `serve` (issue 25): the CLI finds the console
//! that serves and says which database it read, a read never creates a data directory, and the
//! browser link survives a restart. Each test runs the real binaries in a home of its own (its own
//! `HOME` and `XDG_RUNTIME_DIR`), so nothing of the machine's own consoles is seen or touched. On
//! SQLite only: a team's console names its database (`--database-url`) and discovers nothing.

use crate::helpers::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A home of its own: `HOME`, `XDG_RUNTIME_DIR`, and where a data directory would be by default.
struct Home {
    tmp: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self { tmp: tempfile::tempdir().unwrap() }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_approval-console"));
        c.args(args)
            .env("HOME", self.tmp.path().join("home"))
            .env("XDG_RUNTIME_DIR", self.tmp.path().join("run"))
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("APPROVAL_CONSOLE_DATA_DIR")
            .env_remove("APPROVAL_CONSOLE_DATABASE_URL")
            .env_remove("APPROVAL_CONSOLE_TOKEN")
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdin(Stdio::null());
        c
    }

    /// The data directory a command uses when none is named and no console serves.
    fn default_data_dir(&self) -> PathBuf {
        self.tmp.path().join("home/.local/share/approval-console")
    }

    /// `serve --port 0` over `data_dir` with `more`; the child and the URL it printed (with the token).
    fn serve(&self, data_dir: &Path, more: &[&str]) -> (Child, String) {
        let mut child = self
            .command(&[&["--data-dir", data_dir.to_str().unwrap(), "serve", "--port", "0"][..], more].concat())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        let at = line.find("http://").unwrap_or_else(|| panic!("no URL printed: {line:?}"));
        (child, line[at..].trim().to_owned())
    }
}

/// `http://127.0.0.1:PORT` and the token of a URL `serve` printed.
fn split(url: &str) -> (&str, &str) {
    url.split_once("/#token=").expect("a URL with its token")
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test]
async fn the_cli_works_on_the_console_that_serves_and_a_read_creates_nothing() {
    if on_postgres() {
        return; // team mode names its database; nothing to discover
    }
    let home = Home::new();
    let data_dir = home.tmp.path().join("ac");
    let (server, url) = home.serve(&data_dir, &[]);
    let (base, token) = split(&url);
    let http = reqwest::Client::new();
    let answer = http
        .post(format!("{base}/api/agents/demo/generate"))
        .bearer_auth(token)
        .json(&serde_json::json!({ "messages": [{ "role": "user", "content": "delete rec-7" }] }))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{}", answer.text().await.unwrap());

    // No --data-dir: the one console serving is used, and the CLI says which.
    let listed = home.command(&["queue"]).output().unwrap();
    let out = String::from_utf8_lossy(&listed.stdout);
    let err = String::from_utf8_lossy(&listed.stderr);
    assert!(listed.status.success(), "{out}{err}");
    assert!(out.contains("delete_record"), "the waiting call is listed: {out}");
    assert!(err.contains(&format!("using the console serving at {base}")) && err.contains(data_dir.to_str().unwrap()), "{err}");
    assert!(!home.default_data_dir().exists(), "no other data directory was made");

    // Named, the data directory wins: an empty one is not created by a read.
    let elsewhere = home.tmp.path().join("elsewhere");
    let named = home.command(&["--data-dir", elsewhere.to_str().unwrap(), "queue"]).output().unwrap();
    assert_eq!(named.status.code(), Some(3), "{}", text_of(&named));
    assert!(text_of(&named).contains("nothing has run with this data directory"), "{}", text_of(&named));
    assert!(!elsewhere.exists(), "a read made no data directory");

    // Nothing serves: the default data directory, which a read does not create either.
    stop(server);
    let alone = home.command(&["queue"]).output().unwrap();
    assert_eq!(alone.status.code(), Some(3), "{}", text_of(&alone));
    assert!(
        text_of(&alone).contains(home.default_data_dir().to_str().unwrap()),
        "it names the database it looked for: {}",
        text_of(&alone)
    );
    assert!(!text_of(&alone).contains("using the console serving"), "a killed console is not found: {}", text_of(&alone));
    assert!(!home.default_data_dir().exists());
}

#[tokio::test]
async fn with_two_consoles_serving_the_cli_asks_which() {
    if on_postgres() {
        return;
    }
    let home = Home::new();
    let (a, _) = home.serve(&home.tmp.path().join("a"), &[]);
    let (b, _) = home.serve(&home.tmp.path().join("b"), &[]);
    let out = home.command(&["queue"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text_of(&out));
    let text = text_of(&out);
    assert!(text.contains("several consoles are serving") && text.contains("--data-dir"), "{text}");
    assert!(
        text.contains(home.tmp.path().join("a").to_str().unwrap()) && text.contains(home.tmp.path().join("b").to_str().unwrap()),
        "{text}"
    );
    stop(a);
    stop(b);
}

#[tokio::test]
async fn the_session_token_survives_a_restart_until_new_token() {
    if on_postgres() {
        return;
    }
    let home = Home::new();
    let data_dir = home.tmp.path().join("ac");
    let http = reqwest::Client::new();
    let session = |base: String, token: String| {
        let http = http.clone();
        async move { http.get(format!("{base}/api/session")).bearer_auth(token).send().await.unwrap().status().as_u16() }
    };

    let (first, url) = home.serve(&data_dir, &[]);
    let (_, kept) = split(&url);
    let kept = kept.to_owned();
    stop(first);
    let (second, url) = home.serve(&data_dir, &[]);
    let (base, again) = split(&url);
    assert_eq!(again, kept, "the same link after a restart");
    assert_eq!(session(base.to_owned(), kept.clone()).await, 200);
    stop(second);

    let (third, url) = home.serve(&data_dir, &["--new-token"]);
    let (base, new) = split(&url);
    assert_ne!(new, kept, "--new-token makes another");
    assert_eq!(session(base.to_owned(), new.to_owned()).await, 200);
    assert_eq!(session(base.to_owned(), kept.clone()).await, 401, "the old link stops working");
    stop(third);
    let (fourth, url) = home.serve(&data_dir, &[]);
    assert_eq!(split(&url).1, new, "the new one is kept");
    stop(fourth);
}
