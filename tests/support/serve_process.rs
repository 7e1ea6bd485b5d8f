//! The real `approval-console serve` binary as a child process, for tests and benchmarks that need a
//! separate process (kill -9, restarts, the CLI beside a server). Included with `#[path]`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running `serve`; killed (SIGKILL) when dropped.
pub struct ServeProcess {
    pub child: Child,
    /// `http://127.0.0.1:<port>`
    pub base: String,
}

impl ServeProcess {
    /// Starts `serve --port 0` over `data_dir` with `token`, and waits for the URL it prints.
    pub fn start(bin: &str, data_dir: &Path, token: &str) -> Self {
        let mut child = Command::new(bin)
            .args(["--data-dir", data_dir.to_str().expect("utf-8 path"), "serve", "--port", "0", "--token", token])
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdout(Stdio::piped())
            .spawn()
            .expect("start approval-console serve");
        let mut line = String::new();
        // The reader borrows the pipe; the pipe itself stays open with the child.
        BufReader::new(child.stdout.as_mut().expect("piped stdout")).read_line(&mut line).expect("read the URL line");
        let at = line.find("http://").unwrap_or_else(|| panic!("no URL printed: {line:?}"));
        let end = line[at..].find("/#").expect("URL with a fragment") + at;
        Self { base: line[at..end].to_owned(), child }
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
