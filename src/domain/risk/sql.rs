//! Rules for SQL: each statement of a text, its comments and string literals set aside.

use super::{Level, Risk};

/// Whether `text` reads as SQL (starts with a statement keyword).
pub(super) fn looks_like_sql(text: &str) -> bool {
    let words = words_of(&strip(text));
    words.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "SELECT"
                | "INSERT"
                | "UPDATE"
                | "DELETE"
                | "DROP"
                | "TRUNCATE"
                | "ALTER"
                | "CREATE"
                | "GRANT"
                | "REVOKE"
                | "WITH"
                | "MERGE"
                | "REPLACE"
                | "VACUUM"
        )
    })
}

/// `text` without comments, each string literal and quoted name replaced by a placeholder word
/// (a `;` or `WHERE` inside quotes is no statement's).
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '-' if chars.get(i + 1) == Some(&'-') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                out.push(' ');
                continue;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
                out.push(' ');
                continue;
            }
            '\'' | '"' | '`' => {
                let q = c;
                i += 1;
                while i < chars.len() {
                    if chars[i] == q {
                        if chars.get(i + 1) == Some(&q) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                out.push_str(if q == '\'' { " 'x' " } else { " name " });
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

fn words_of(statement: &str) -> Vec<String> {
    statement
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_uppercase())
        .collect()
}

/// Judges every statement of `text`.
pub(super) fn judge(text: &str, risk: &mut Risk) {
    for statement in strip(text).split(';').take(256) {
        let w = words_of(statement);
        let first = w.iter().position(|x| x != "EXPLAIN" && x != "ANALYZE");
        let Some(first) = first else { continue };
        // `EXPLAIN` alone runs nothing; `EXPLAIN ANALYZE` does.
        let explained = w[..first].iter().any(|x| x == "EXPLAIN");
        if explained && !w[..first].iter().any(|x| x == "ANALYZE") {
            continue;
        }
        let w = &w[first..];
        let has = |k: &str| w.iter().any(|x| x == k);
        // `WHERE 1=1`, `OR 1=1`, `WHERE TRUE`: a condition every row meets is none.
        let joined = w.join(" ");
        let tautology = ["1=1", "1 = 1", "'X'='X'", "'X' = 'X'", "WHERE TRUE", "OR TRUE"].iter().any(|t| joined.contains(t));
        let has = |k: &str| has(k) && !(k == "WHERE" && tautology);
        match w[0].as_str() {
            "DROP" => match w.get(1).map(String::as_str) {
                Some("DATABASE" | "SCHEMA" | "USER" | "ROLE" | "OWNED") => risk.add(Level::Critical, "drops a database"),
                Some("INDEX" | "VIEW" | "TRIGGER" | "FUNCTION" | "PROCEDURE" | "SEQUENCE") => {
                    risk.add(Level::Medium, "drops a database object")
                }
                _ => risk.add(Level::High, "drops a table"),
            },
            "TRUNCATE" => risk.add(Level::High, "empties a table"),
            "DELETE" if !has("WHERE") => risk.add(Level::High, "deletes every row of a table"),
            "DELETE" => risk.add(Level::Medium, "deletes rows"),
            "UPDATE" if !has("WHERE") => risk.add(Level::High, "changes every row of a table"),
            "UPDATE" => risk.add(Level::Low, "changes rows"),
            "GRANT" | "REVOKE" => {
                let wide = has("ALL") || has("SUPERUSER") || has("PUBLIC");
                risk.add(if wide { Level::High } else { Level::Medium }, "changes database privileges");
            }
            "ALTER" => {
                if has("DROP") {
                    risk.add(Level::High, "drops part of a table");
                } else if has("USER") || has("ROLE") {
                    risk.add(Level::High, "changes database accounts");
                } else {
                    risk.add(Level::Medium, "changes a table's structure");
                }
            }
            "CREATE" if has("USER") || has("ROLE") => {
                let level = if has("SUPERUSER") { Level::High } else { Level::Medium };
                risk.add(level, "changes database accounts");
            }
            "WITH" if has("DELETE") || has("UPDATE") => {
                let level = if has("WHERE") { Level::Medium } else { Level::High };
                risk.add(level, "changes rows");
            }
            _ => {}
        }
    }
}
