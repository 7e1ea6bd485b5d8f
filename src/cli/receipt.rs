//! `receipt ID`, `receipt verify` (offline), `receipt keys`, `receipt rotate` (docs/receipts.md).

use super::args::ReceiptCommand;
use anyhow::{Context, Result};
use approval_console::app::App;
use approval_console::domain::receipt::{self, Claims, Expect, Jwks, ReceiptError};
use approval_console::domain::text::visible;
use approval_console::domain::ReadError;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `receipt ID`: the call's receipt, its claims as read and the signed text (`jws`: the signed
/// text alone, for a `receipt.jws` file).
pub async fn show(app: &App, id: &str, json: bool, jws: bool) -> Result<()> {
    let view = app.receipt(id, &app.local_admin("cli")).await?;
    if jws {
        println!("{}", view.receipt);
        return Ok(());
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    let c = &view.claims;
    let decision = c.decision.as_str();
    println!("receipt      {}", c.id);
    println!("call         {} ({} on {}, {})", view.call_id, visible(&c.tool), visible(&c.engine), c.source);
    println!("decision     {decision}{}", if c.edited { ", with edited arguments" } else { "" });
    println!("approvers    {}", c.approvers.iter().map(|a| visible(a)).collect::<Vec<_>>().join(", "));
    println!("fingerprint  {}", c.fingerprint);
    if let Some(runs) = c.executed_fingerprint.as_ref().filter(|f| *f != &c.fingerprint) {
        println!("runs with    {runs}");
    }
    println!("policy       {}", c.policy_version);
    println!("issued       {}", when(c.issued_at));
    println!("expires      {}", when(c.expires_at));
    println!("key          {}", view.kid);
    println!();
    println!("{}", view.receipt);
    Ok(())
}

fn when(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string()).unwrap_or_else(|| secs.to_string())
}

/// `receipt keys` and `receipt rotate`.
pub async fn run(app: &App, command: ReceiptCommand) -> Result<()> {
    match command {
        ReceiptCommand::Keys => println!("{}", serde_json::to_string_pretty(&app.receipt_keys().await?)?),
        ReceiptCommand::Rotate => {
            let rotated = app.rotate_receipt_key(&app.local_admin("cli")).await?;
            println!("this console now signs receipts with {}; its previous key is retired (still published)", rotated.kid);
        }
        ReceiptCommand::Verify(_) => unreachable!("verify runs offline, without the console"),
    }
    Ok(())
}

/// `receipt verify`: offline, against a key set file. Exit 0 if the receipt holds, 1 if refused.
pub fn verify(command: ReceiptCommand) -> Result<ExitCode> {
    let ReceiptCommand::Verify(verify) = command else { unreachable!("only verify runs here") };
    let super::args::VerifyArgs { receipt, jwks, tool, args, args_file, run_id, tool_call_id, used, now, json } = *verify;
    let text = match receipt.as_deref() {
        None | Some("-") => read_stdin()?,
        // The receipt itself: three base64url parts (a path has no such shape, or is a file).
        Some(r) if !Path::new(r).exists() && r.split('.').count() == 3 && !r.contains('/') => r.to_owned(),
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading the receipt {p}"))?,
    };
    let keys: Jwks = serde_json::from_slice(&std::fs::read(&jwks).with_context(|| format!("reading the key set {}", jwks.display()))?)
        .with_context(|| format!("{} is not a JWKS ({{\"keys\": [...]}})", jwks.display()))?;
    // The arguments as written: a number no fingerprint binds is refused (step 9), not rounded into
    // its neighbour that the receipt may be for.
    let args: Option<Result<serde_json::Value, Vec<String>>> = match (args, args_file) {
        (Some(a), _) => Some(exact(&a).context("--args is not JSON")?),
        (None, Some(f)) => {
            let text = std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
            Some(exact(&text).with_context(|| format!("{} is not JSON", f.display()))?)
        }
        (None, None) => None,
    };
    let now = now.unwrap_or_else(|| chrono::Utc::now().timestamp());
    let checked = match (tool.as_deref(), args.as_ref()) {
        (Some(tool), Some(Ok(args))) => {
            let expect = Expect { tool, args, run_id: run_id.as_deref(), tool_call_id: tool_call_id.as_deref() };
            receipt::verify(&text, &keys, now, &expect)
        }
        (Some(tool), Some(Err(paths))) => {
            let unread = serde_json::Value::Null;
            let expect = Expect { tool, args: &unread, run_id: run_id.as_deref(), tool_call_id: tool_call_id.as_deref() };
            receipt::verify_call(&text, &keys, now, &expect).and_then(|_| Err(ReceiptError::AmbiguousArguments(paths.clone())))
        }
        _ => receipt::verify_signed(&text, &keys, now),
    };
    let ran_checks = tool.is_some();
    let checked = match (checked, &used) {
        (Ok(claims), Some(file)) => consume(file, &claims)?.map(|()| claims),
        (checked, _) => checked,
    };
    match checked {
        Ok(claims) => {
            let by = claims.approvers.iter().map(|a| visible(a)).collect::<Vec<_>>().join(", ");
            if json {
                println!("{}", serde_json::json!({ "ok": true, "argumentsChecked": ran_checks, "claims": claims }));
            } else if ran_checks {
                println!("receipt {} holds: {} may run with these arguments (approved by {by})", claims.id, visible(&claims.tool));
            } else {
                let decision = claims.decision.as_str();
                println!(
                    "receipt {} is signed by a published key and not expired: {decision} {} (by {by}); the arguments were not checked (--tool and --args)",
                    claims.id,
                    visible(&claims.tool)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if json {
                println!("{}", serde_json::json!({ "ok": false, "code": e.code(), "message": e.to_string() }));
            } else {
                eprintln!("refused ({}): {e}", e.code());
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// JSON text read exactly (`domain::read_exact`): its value, or the pointers to the numbers in it
/// that no fingerprint binds; `Err` when it is no JSON.
fn exact(text: &str) -> Result<Result<serde_json::Value, Vec<String>>> {
    match approval_console::domain::read_exact(text) {
        Ok(value) => Ok(Ok(value)),
        Err(ReadError::Inexact(paths)) => Ok(Err(paths)),
        Err(ReadError::Json(e)) => Err(e.into()),
    }
}

fn read_stdin() -> Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).context("reading the receipt from standard input")?;
    Ok(text)
}

/// Records the receipt's id in `file` (one per line; made owner-only), under an exclusive lock so
/// two checks at once count each other: `Ok(Err(replayed))` if it is there already; `Err` when the
/// file cannot be used (nothing is said of the receipt then).
fn consume(file: &PathBuf, claims: &Claims) -> Result<Result<(), ReceiptError>> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let what = || format!("the used-receipts file {}", file.display());
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(file)
        .with_context(what)?;
    // SAFETY: flock on a descriptor this function owns; released when `f` is closed.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error()).with_context(what);
    }
    let mut seen = String::new();
    f.read_to_string(&mut seen).with_context(what)?;
    if seen.lines().any(|l| l.split_whitespace().next() == Some(claims.id.as_str())) {
        return Ok(Err(ReceiptError::Replayed(claims.id.clone())));
    }
    writeln!(f, "{} {}", claims.id, claims.expires_at).and_then(|()| f.sync_all()).with_context(what)?;
    Ok(Ok(()))
}
