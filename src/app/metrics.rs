//! `GET /api/metrics`: what a monitoring system scrapes, in the Prometheus text format (version
//! 0.0.4): the queue's depth by state and engine, decisions by verdict and delivery, the engines'
//! health, and how this process's writes share commits.

use super::App;
use crate::domain::Error;
use crate::domain::{grade, Cx};
use std::fmt::Write;

impl App {
    /// The metrics as Prometheus text; viewers, operators and admins.
    pub async fn metrics(&self, _by: &Cx<grade::Viewer>) -> Result<String, Error> {
        let crate::store::stats::Gauges { queue, decisions, engines } = crate::store::stats::gauges(&self.db).await?;

        let mut out = String::new();
        family(&mut out, "approval_console_queue_items", "gauge", "Calls in the queue, by engine and state.");
        for (engine, state, n) in &queue {
            let _ = writeln!(out, "approval_console_queue_items{{engine=\"{}\",state=\"{}\"}} {n}", label(engine), label(state));
        }
        family(
            &mut out,
            "approval_console_decisions",
            "gauge",
            "Decisions stored, by verdict and delivery state (failed: the engine refused it).",
        );
        for (kind, delivery, n) in &decisions {
            let _ = writeln!(out, "approval_console_decisions{{verdict=\"{}\",delivery=\"{}\"}} {n}", label(kind), label(delivery));
        }
        family(&mut out, "approval_console_engine_reachable", "gauge", "1 if the remote engine answered at its last contact, else 0.");
        for (name, health) in &engines {
            let up = u8::from(health == "reachable");
            let _ = writeln!(out, "approval_console_engine_reachable{{engine=\"{}\",health=\"{}\"}} {up}", label(name), label(health));
        }
        let counts = self.db.write_counts();
        family(&mut out, "approval_console_store_writes_total", "counter", "Writes this process committed.");
        let _ = writeln!(out, "approval_console_store_writes_total {}", counts.writes);
        family(
            &mut out,
            "approval_console_store_commits_total",
            "counter",
            "Commits (fsyncs) that held them: writes that arrive together share one.",
        );
        let _ = writeln!(out, "approval_console_store_commits_total {}", counts.commits);
        family(
            &mut out,
            "approval_console_store_statements_total",
            "counter",
            "SQL statements this process ran, BEGIN and COMMIT included.",
        );
        let _ = writeln!(out, "approval_console_store_statements_total {}", crate::store::statements::count());
        family(
            &mut out,
            "approval_console_store_direct_statements_total",
            "counter",
            "Of those, the ones run in the task that asked, without a round trip to another thread (SQLite's writes and point reads).",
        );
        let _ = writeln!(out, "approval_console_store_direct_statements_total {}", crate::store::statements::direct());
        Ok(out)
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value as the text format wants it: backslash, quote and newline escaped.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn label_values_are_escaped() {
        assert_eq!(super::label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
