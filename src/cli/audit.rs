//! `audit verify|list|export`.

use anyhow::Result;
use approval_console::app::audit::ExportFormat;
use approval_console::app::query::AuditQuery;
use approval_console::app::App;
use approval_console::domain::text::visible;
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;

/// Walks the hash chain; exit code 1 naming the first bad entry.
pub async fn verify(app: &App) -> Result<ExitCode> {
    let v = app.verify_audit(&app.local_admin("cli")).await?;
    match v.first_bad {
        None => println!("audit log intact: {} entries checked", v.checked),
        Some(bad) => {
            println!("audit log BROKEN at entry {}: {} ({} entries before it are intact)", bad.seq, bad.problem, v.checked);
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The newest `limit` entries, newest first; a change to the rules (settings, engines, tokens)
/// with what changed on the line after it.
pub async fn list(app: &App, limit: u32) -> Result<()> {
    let page = app.audit_page(&AuditQuery { limit: Some(limit), ..Default::default() }, &app.local_admin("cli")).await?;
    for e in page.entries {
        println!(
            "{:>6} {} {:<22} {:<24} {:<20} {}",
            e.seq,
            e.at,
            e.action,
            visible(&e.actor),
            visible(e.tool_name.as_deref().unwrap_or("-")),
            e.fingerprint.as_deref().map(|f| &f[..f.len().min(19)]).unwrap_or("-")
        );
        if let Some(change) = change(&e.action, &e.details) {
            println!("{:>6} {}", "", visible(&change));
        }
    }
    Ok(())
}

/// What a change entry (`settings.changed`, `engine.*`, `credential.*`) changed, for people: its
/// subject (`quorum`, `engine prod`, `credential ci-bot`), then each top-level field that differs,
/// `before → after` (`rules: [] → [{…}]`). `None` for the entries of calls.
fn change(action: &str, details: &Value) -> Option<String> {
    let text = |key: &str| details.get(key).and_then(Value::as_str);
    let subject = if action == "settings.changed" {
        text("setting")?.to_owned()
    } else if action.starts_with("engine.") {
        format!("engine {}", text("engine")?)
    } else {
        let name = text("name").filter(|_| action.starts_with("credential."))?;
        let role = details.get("role").and_then(Value::as_str).unwrap_or("?");
        return Some(format!("credential {name} ({role})"));
    };
    let (before, after) = (details.get("before").filter(|v| !v.is_null()), details.get("after").filter(|v| !v.is_null()));
    let mut parts = vec![];
    match (before.and_then(Value::as_object), after.and_then(Value::as_object)) {
        (Some(b), Some(a)) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let (was, now) = (b.get(k).unwrap_or(&Value::Null), a.get(k).unwrap_or(&Value::Null));
                if was != now {
                    parts.push(format!("{k}: {} → {}", short(was), short(now)));
                }
            }
        }
        _ => match (before, after) {
            (None, Some(a)) => parts.push(format!("added {}", short(a))),
            (Some(b), None) => parts.push(format!("removed (was {})", short(b))),
            (Some(b), Some(a)) => parts.push(format!("{} → {}", short(b), short(a))),
            (None, None) => {}
        },
    }
    if let Some(token) = details.get("tokenChange").and_then(Value::as_str) {
        parts.push(format!("token {token}"));
    }
    Some(format!("{subject}: {}", if parts.is_empty() { "no change".to_owned() } else { parts.join("; ") }))
}

/// Compact JSON, cut at 100 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 100 {
        format!("{}…", text.chars().take(100).collect::<String>())
    } else {
        text
    }
}

/// The whole log to standard output, oldest first.
pub async fn export(app: &App, format: &str) -> Result<()> {
    use futures::StreamExt;
    let format = ExportFormat::parse(format)?;
    let mut out = std::io::stdout().lock();
    let mut chunks = std::pin::pin!(app.export_audit(format, &app.local_admin("cli"))?);
    while let Some(chunk) = chunks.next().await {
        out.write_all(chunk?.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_change_shows_only_what_differs() {
        let d = json!({ "setting": "quorum", "before": { "rules": [{ "tool": "x", "approvals": 2 }] }, "after": { "rules": [] } });
        assert_eq!(change("settings.changed", &d).unwrap(), r#"quorum: rules: [{"tool":"x","approvals":2}] → []"#);
        let d = json!({ "engine": "m", "before": { "baseUrl": "http://a", "token": "keyring" }, "after": { "baseUrl": "http://b", "token": "keyring" }, "tokenChange": "replaced" });
        assert_eq!(change("engine.changed", &d).unwrap(), r#"engine m: baseUrl: "http://a" → "http://b"; token replaced"#);
        let removed = json!({ "engine": "m", "before": { "pollMs": 1 }, "after": null });
        assert_eq!(change("engine.removed", &removed).unwrap(), r#"engine m: removed (was {"pollMs":1})"#);
        assert_eq!(change("credential.created", &json!({ "name": "ci", "role": "viewer" })).unwrap(), "credential ci (viewer)");
        let decision = json!({ "engine": "local", "name": "x", "setting": "y" });
        assert_eq!(change("decision.approve", &decision), None, "a call's entry is no change");
    }
}
