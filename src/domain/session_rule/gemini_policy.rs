//! Gemini CLI's policy file of this console (`~/.gemini/policies/approval-console.toml`), as text:
//! the rules an "always allow" grant in user scope adds (one `[[rule]]` per command, each under a
//! comment naming its grant — Gemini's TOML reader skips comments) and what revoking the grant takes
//! out (that grant's rules only, nothing else of the file). Pure: the hook writes the file on the
//! agent's machine, the console edits it on revoke (after a backup).

use serde_json::{json, Value};

/// The file, under the agent's home (`$GEMINI_CLI_HOME`, else `$HOME`, as Gemini CLI reads it).
pub const FILE: &str = ".gemini/policies/approval-console.toml";

/// The priority of its rules within Gemini's user tier (0–999).
const PRIORITY: u32 = 100;

/// The tag line before a grant's rule.
fn tag(grant: &str) -> String {
    format!("# approval-console grant {grant}")
}

/// Whether `grant` may name a rule in the file (it is written into a comment line).
fn grant_ok(grant: &str) -> bool {
    !grant.is_empty() && grant.len() <= 100 && grant.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The policy rule allowing shell commands that start with `prefix` (Gemini's `commandPrefix`
/// matches the command itself or the command followed by more words).
pub fn rule(prefix: &str) -> Value {
    json!({ "toolName": "run_shell_command", "commandPrefix": prefix, "decision": "allow", "priority": PRIORITY })
}

/// `file` (the file's text, empty when there is none) with `rule` ([`rule`]) of `grant` added; `None`
/// when it holds it already, or `rule` is not one of [`rule`]'s or `grant` not an id.
pub fn add(file: &str, grant: &str, rule: &Value) -> Option<String> {
    let prefix = rule["commandPrefix"].as_str().filter(|p| !p.is_empty() && !p.contains(['\n', '\r']))?;
    if !grant_ok(grant) || *rule != self::rule(prefix) {
        return None;
    }
    // Quoted by the TOML writer (a basic string, every character TOML forbids escaped).
    let quoted = toml::Value::String(prefix.to_owned()).to_string();
    let block = format!(
        "{}\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = {quoted}\ndecision = \"allow\"\npriority = {PRIORITY}\n",
        tag(grant)
    );
    if file.contains(&block) {
        return None;
    }
    let mut out = file.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&block);
    Some(out)
}

/// `file` without the rules of `grant` (each from its tag line to the blank line or end that closes
/// it), and how many were taken out; every other line is kept as it was.
pub fn remove(file: &str, grant: &str) -> (String, usize) {
    if !grant_ok(grant) {
        return (file.to_owned(), 0);
    }
    let tag = tag(grant);
    let mut out: Vec<&str> = Vec::new();
    let mut removed = 0;
    let mut lines = file.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim_end() != tag {
            out.push(line);
            continue;
        }
        removed += 1;
        while lines.peek().is_some_and(|l| !l.trim().is_empty()) {
            lines.next();
        }
        // The blank line that closed it goes too, or the one before it when it was the last.
        if lines.next().is_none() && out.last().is_some_and(|l| l.trim().is_empty()) {
            out.pop();
        }
    }
    (out.concat(), removed)
}

/// The rules of `grant` in `file`: their command prefixes.
pub fn prefixes_of(file: &str, grant: &str) -> Vec<String> {
    let tag = tag(grant);
    let mut found = Vec::new();
    let mut lines = file.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == tag {
            for l in lines.by_ref().take_while(|l| !l.trim().is_empty()) {
                let value = l.strip_prefix("commandPrefix = ").and_then(|v| toml::from_str::<toml::Table>(&format!("v = {v}")).ok());
                if let Some(v) = value.as_ref().and_then(|t| t.get("v")).and_then(toml::Value::as_str) {
                    found.push(v.to_owned());
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grants_rule_is_added_once_as_gemini_reads_it_and_removed_alone() {
        let mine = "# kept by hand\n[[rule]]\ntoolName = \"read_file\"\ndecision = \"allow\"\npriority = 5\n";
        let once = add(mine, "g_1", &rule("npm test")).unwrap();
        assert_eq!(add(&once, "g_1", &rule("npm test")), None, "already there");
        let both = add(&once, "g_2", &rule("say \"hi\" \\ there")).unwrap();
        let parsed: toml::Table = toml::from_str(&both).unwrap();
        let rules = parsed["rule"].as_array().unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[1]["commandPrefix"].as_str(), Some("npm test"));
        assert_eq!(rules[2]["commandPrefix"].as_str(), Some("say \"hi\" \\ there"));
        assert_eq!((rules[1]["decision"].as_str(), rules[1]["priority"].as_integer()), (Some("allow"), Some(100)));
        assert_eq!(prefixes_of(&both, "g_2"), vec!["say \"hi\" \\ there".to_owned()]);
        // Characters TOML forbids in a string as they are (DEL, controls) are escaped, and read back.
        let odd = add("", "g_3", &rule("echo a\u{7f}b\u{1}c")).unwrap();
        let parsed: toml::Table = toml::from_str(&odd).unwrap();
        assert_eq!(parsed["rule"][0]["commandPrefix"].as_str(), Some("echo a\u{7f}b\u{1}c"));
        assert_eq!(prefixes_of(&odd, "g_3"), vec!["echo a\u{7f}b\u{1}c".to_owned()]);

        let (without, n) = remove(&both, "g_1");
        assert_eq!(n, 1);
        assert!(without.starts_with(mine), "nothing else touched: {without}");
        assert_eq!(prefixes_of(&without, "g_1"), Vec::<String>::new());
        assert_eq!(prefixes_of(&without, "g_2").len(), 1);
        let (only_mine, n) = remove(&without, "g_2");
        assert_eq!((only_mine.as_str(), n), (mine, 1));
        assert_eq!(remove(mine, "g_9"), (mine.to_owned(), 0));
    }

    #[test]
    fn nothing_but_its_own_allow_rule_of_a_grant_id_is_written() {
        assert_eq!(add("", "g_1\n[[rule]]", &rule("ls")), None, "a grant id cannot break out of its comment");
        assert_eq!(add("", "g_1", &rule("ls\nrm")), None);
        assert_eq!(add("", "g_1", &json!({ "toolName": "*", "decision": "allow", "priority": 999 })), None);
        let mut wider = rule("ls");
        wider["toolName"] = json!("*");
        assert_eq!(add("", "g_1", &wider), None);
        assert!(add("", "g_1", &rule("ls")).unwrap().starts_with("# approval-console grant g_1\n[[rule]]\n"));
    }
}
