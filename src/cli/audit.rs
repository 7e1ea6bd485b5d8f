//! `audit verify|list|export`.

use anyhow::Result;
use approval_console::app::audit::ExportFormat;
use approval_console::app::query::AuditQuery;
use approval_console::app::App;
use approval_console::domain::text::visible;
use std::io::Write;
use std::process::ExitCode;

/// Walks the hash chain; exit code 1 naming the first bad entry.
pub async fn verify(app: &App) -> Result<ExitCode> {
    let v = app.verify_audit().await?;
    match v.first_bad {
        None => println!("audit log intact: {} entries checked", v.checked),
        Some(bad) => {
            println!("audit log BROKEN at entry {}: {} ({} entries before it are intact)", bad.seq, bad.problem, v.checked);
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The newest `limit` entries, newest first.
pub async fn list(app: &App, limit: u32) -> Result<()> {
    let page = app.audit_page(&AuditQuery { item: None, limit: Some(limit), cursor: None }).await?;
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
    }
    Ok(())
}

/// The whole log to standard output, oldest first.
pub async fn export(app: &App, format: &str) -> Result<()> {
    use futures::StreamExt;
    let format = ExportFormat::parse(format)?;
    let mut out = std::io::stdout().lock();
    let mut chunks = std::pin::pin!(app.export_audit(format));
    while let Some(chunk) = chunks.next().await {
        out.write_all(chunk?.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}
