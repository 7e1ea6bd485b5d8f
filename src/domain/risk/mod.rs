//! Risk from the arguments (issue 27): what a call would do, judged from its tool and arguments —
//! a level (low, medium, high, critical) and the reasons, in words an operator reads in a second
//! ("force push to a protected branch", "pipes a download into a shell").
//!
//! Built-in rules: shell commands, split as a shell would ([`shell`]: every command of a pipeline or
//! list, substitutions, `sudo`/`env`/`xargs`/`sh -c` wrappers, quoted arguments); SQL; file writes
//! (credentials, CI configuration, shell profiles, system files, outside the working directory);
//! amounts of money; hidden and look-alike characters anywhere in the arguments ([`marks`]). Pure:
//! no I/O, the same answer for the same call.

mod commands;
pub mod custom;
mod files;
mod infra;
mod marks;
pub mod shell;
mod sql;

pub use files::looks_secret;

use serde::Serialize;
use serde_json::Value;

/// How hard an operator should look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Low => "low",
            Level::Medium => "medium",
            Level::High => "high",
            Level::Critical => "critical",
        }
    }
}

/// A call's risk: the highest level of its reasons (low without any).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Risk {
    pub level: Level,
    /// Why, the most serious first; each one once.
    pub reasons: Vec<Reason>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Reason {
    pub level: Level,
    pub text: String,
}

impl Risk {
    /// High or critical: a call an operator decides in the console, after its confirm step — never
    /// a grant, a notification's Approve or an engine-client route.
    pub fn needs_operator(&self) -> bool {
        self.level >= Level::High
    }

    /// The most serious reason, for a refusal's message ("" when there is none).
    pub fn first_reason(&self) -> &str {
        self.reasons.first().map_or("", |r| r.text.as_str())
    }

    /// Adds a reason (once: the same text again keeps the higher level), most serious first.
    pub fn add(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if let Some(r) = self.reasons.iter_mut().find(|r| r.text == text) {
            r.level = r.level.max(level);
        } else {
            self.reasons.push(Reason { level, text });
        }
        self.reasons.sort_by_key(|r| std::cmp::Reverse(r.level));
        self.level = self.level.max(level);
    }
}

/// What is known around a call besides its arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scene<'a> {
    /// The agent's working directory, when its source says (a hook's `cwd`).
    pub cwd: Option<&'a str>,
    /// Where the command runs when a `cd` in its line moved it (relative paths resolve here).
    pub dir: Option<&'a str>,
}

/// Amounts of money above this are high risk.
pub const LARGE_AMOUNT: f64 = 10_000.0;

/// The risk of calling `tool` with `args`.
pub fn assess(tool: &str, args: &Value, scene: Scene<'_>) -> Risk {
    let mut risk = Risk::default();
    for line in command_lines(tool, args) {
        commands::judge_line(&line, scene, &mut risk, 0);
    }
    for text in sql_texts(tool, args) {
        sql::judge(&text, &mut risk);
    }
    for path in written_paths(tool, args) {
        files::judge_write(&path, scene, &mut risk);
    }
    amounts(args, 0, &mut risk);
    marks::judge(args, &mut risk);
    risk
}

/// What an MCP server says of its tool (`annotations`: `destructiveHint`, `openWorldHint`, …), as
/// hints: its own claims, so they only add a reason — a tool it marks destructive is at least
/// medium — and never lower what the arguments show (a "read-only" `rm -rf /` stays critical).
pub fn hints(annotations: &Value, risk: &mut Risk) {
    if annotations.get("destructiveHint").and_then(Value::as_bool) == Some(true) {
        risk.add(Level::Medium, "its MCP server marks it destructive");
    }
}

/// Each simple command a call's shell lines run, its words joined by one space (for operators'
/// rules, [`custom`]).
pub fn commands_of(tool: &str, args: &Value) -> Vec<String> {
    command_lines(tool, args).iter().flat_map(|line| shell::commands(line)).map(|c| c.words.join(" ")).collect()
}

/// The command lines a call runs: `command` (a string, or an argv such as Codex's
/// `["bash", "-lc", "…"]`, whose script is the line) of a shell-like tool, or of any tool whose
/// arguments name one.
fn command_lines(tool: &str, args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["command", "cmd", "script"] {
        match args.get(key) {
            Some(Value::String(s)) if super::grant::shell_like(tool) || key == "command" => out.push(s.clone()),
            Some(Value::Array(argv)) => {
                let words: Vec<String> = argv.iter().filter_map(|w| w.as_str().map(str::to_owned)).collect();
                // Codex's `["apply_patch", "*** Begin Patch…"]`: a patch, judged by the files it writes.
                if words.first().is_some_and(|w| w.rsplit('/').next() == Some("apply_patch")) {
                    continue;
                }
                out.push(argv_line(&words));
            }
            _ => {}
        }
    }
    out
}

/// An argv (`["git", "commit", "-m", "a b"]`) as the shell line that runs it: its words joined by
/// one space, each quoted where it needs quotes (`git commit -m 'a b'`).
pub fn argv_line(argv: &[String]) -> String {
    argv.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// `word` quoted for a shell line (single quotes unless it needs none).
fn shell_quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c)) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// SQL a call runs: `sql` or `query` of a tool whose name or text says SQL.
fn sql_texts(tool: &str, args: &Value) -> Vec<String> {
    let t = tool.to_ascii_lowercase();
    let sqlish = ["sql", "query", "database", "db", "postgres", "mysql", "sqlite"].iter().any(|w| t.contains(w));
    let mut out = Vec::new();
    for key in ["sql", "query", "statement", "statements"] {
        if let Some(Value::String(s)) = args.get(key) {
            if key == "sql" || sqlish || sql::looks_like_sql(s) {
                out.push(s.clone());
            }
        }
    }
    out
}

/// Files a call writes: the path of a writing tool (Write, Edit, MultiEdit, NotebookEdit,
/// write_file, …), and each file a patch (`apply_patch`) adds, updates or deletes.
fn written_paths(tool: &str, args: &Value) -> Vec<String> {
    let t = tool.to_ascii_lowercase();
    let writes = ["write", "edit", "create_file", "save", "patch", "append", "put_file", "move", "rename"].iter().any(|w| t.contains(w));
    let mut out = Vec::new();
    if writes {
        for key in ["file_path", "path", "notebook_path", "filename", "file", "target", "destination"] {
            if let Some(Value::String(p)) = args.get(key) {
                out.push(p.clone());
            }
        }
    }
    for key in ["patch", "input", "command"] {
        let text = match args.get(key) {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).find(|s| s.contains("*** Begin Patch")),
            _ => None,
        };
        if let Some(text) = text.filter(|s| s.contains("*** Begin Patch")) {
            for line in text.lines() {
                for marker in ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "] {
                    if let Some(p) = line.strip_prefix(marker) {
                        out.push(p.trim().to_owned());
                    }
                }
            }
        }
    }
    out
}

/// Money: a field named like an amount holding a number (or a numeric string) above
/// [`LARGE_AMOUNT`], anywhere in the first levels of the arguments.
fn amounts(v: &Value, depth: usize, risk: &mut Risk) {
    if depth > 4 {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, v) in map.iter().take(256) {
                let k = k.to_ascii_lowercase();
                let moneyish = ["amount", "total", "price", "cost", "sum", "value_usd", "payout"]
                    .iter()
                    .any(|w| k == *w || k.starts_with(&format!("{w}_")) || k.ends_with(&format!("_{w}")));
                if moneyish {
                    let n = match v {
                        Value::Number(n) => n.as_f64(),
                        Value::String(s) => s.trim().replace(',', "").parse::<f64>().ok(),
                        _ => None,
                    };
                    // Minor units (`amount_cents`): a hundredth of the amount.
                    let n = if k.contains("cents") || k.contains("minor") { n.map(|n| n / 100.0) } else { n };
                    if n.is_some_and(|n| n.abs() > LARGE_AMOUNT) {
                        risk.add(Level::High, "amount over 10,000");
                    }
                }
                amounts(v, depth + 1, risk);
            }
        }
        Value::Array(items) => items.iter().take(256).for_each(|v| amounts(v, depth + 1, risk)),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
