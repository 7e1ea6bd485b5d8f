//! `policy quorum`: the two-person rule's quorums, as the local admin.

use super::args::PolicyCommand;
use anyhow::{Context, Result};
use approval_console::app::policy::{PolicyFile, Unseen};
use approval_console::app::widening::Widening;
use approval_console::app::App;
use approval_console::domain::safety::QuorumSettings;
use approval_console::domain::text::visible;
use approval_console::domain::Error;
use approval_console::domain::{grade, Cx};
use std::process::ExitCode;

/// `policy check|diff|apply|export|quorum`; `policy check` exits 1 when it finds a problem.
pub async fn run(app: &App, command: PolicyCommand) -> Result<ExitCode> {
    let by = app.local_admin::<grade::Local>("cli");
    let done = |r: Result<()>| r.map(|()| ExitCode::SUCCESS);
    match command {
        PolicyCommand::Check { file, yes } => check(app, &read(&file)?, unseen(yes), &by).await,
        PolicyCommand::Diff { file } => done(diff(app, &read(&file)?, &by).await),
        PolicyCommand::Apply { file, yes } => done(apply(app, &read(&file)?, yes, &by).await),
        PolicyCommand::ShadowReport { json } => done(shadow_report(app, json, &by).await),
        PolicyCommand::Export => {
            let (file, version) = app.export_policy(&by.narrow()).await?;
            print!("# In force: version {version}\n{}", file.to_toml());
            Ok(ExitCode::SUCCESS)
        }
        quorum_command @ PolicyCommand::Quorum { .. } => done(quorum(app, quorum_command, &by).await),
    }
}

/// `--yes` of `policy check` and `policy apply`: a tool not seen yet is accepted (said on stderr).
fn unseen(yes: bool) -> Unseen {
    if yes {
        Unseen::Accept
    } else {
        Unseen::Refuse
    }
}

/// `policy quorum …`: lists, shows or sets the quorums.
async fn quorum(app: &App, command: PolicyCommand, by: &Cx<grade::Local>) -> Result<()> {
    let PolicyCommand::Quorum { tool, approvals, off, critical, json, yes } = command else { unreachable!("only quorum runs here") };
    if let (Some(tool), Some(n)) = (&tool, approvals) {
        if n >= 2 {
            check_known(app, tool, yes, by).await?;
        }
    }
    // A quorum lowered or removed asks for --yes, as a policy file that widens does.
    let widening = Widening::confirmed(yes);
    let settings = match (&tool, approvals, off, critical) {
        (_, _, _, Some(n)) => Some(app.set_critical_quorum(n, widening, &by.narrow()).await),
        (Some(tool), _, true, _) => Some(app.set_quorum(tool, 1, widening, &by.narrow()).await),
        (Some(tool), Some(n), false, _) => Some(app.set_quorum(tool, n, widening, &by.narrow()).await),
        _ => None,
    };
    let settings = settings.transpose().map_err(unconfirmed)?;
    let changed = settings.is_some();
    let settings = match settings {
        Some(s) => s,
        None => app.quorum_settings(&by.narrow()).await?,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&settings)?);
        return Ok(());
    }
    let Some(tool) = tool else {
        list(&settings);
        return Ok(());
    };
    let needs = if changed { "now needs" } else { "needs" };
    match settings.quorum(&tool) {
        1 => println!("{} {needs} one approval (no quorum)", visible(&tool)),
        n => println!("{} {needs} {n} approvals by different operators", visible(&tool)),
    }
    Ok(())
}

/// A widening refused for want of `--yes`: what widens, one line each on stderr, then the refusal.
fn unconfirmed(e: Error) -> anyhow::Error {
    match e {
        Error::WideningUnconfirmed { widens } => {
            for l in &widens {
                eprintln!("{l}");
            }
            anyhow::anyhow!("this lowers what runs only after several operators (above); add --yes if that is meant — nothing was changed")
        }
        e => e.into(),
    }
}

/// Refuses (without `yes`) a rule for a tool nothing has named, with the known names it may have
/// meant; with `yes`, says so on stderr and goes on.
async fn check_known(app: &App, tool: &str, yes: bool, by: &Cx<grade::Local>) -> Result<()> {
    let known = app.known_tools(&by.narrow()).await?;
    if known.contains(tool) {
        return Ok(());
    }
    let mut near: Vec<(f64, &String)> =
        known.iter().map(|k| (strsim::jaro_winkler(tool, k), k)).filter(|(score, _)| *score >= 0.8).collect();
    near.sort_by(|a, b| b.0.total_cmp(&a.0));
    let hint = match near.first() {
        Some((_, k)) => format!(" Did you mean {}?", visible(k)),
        None => String::new(),
    };
    let what = format!("no agent, engine or queued call has named a tool {}.{hint}", visible(tool));
    if yes {
        eprintln!("warning: {what} The rule is set anyway (--yes): it applies once a call of that exact name comes.");
        return Ok(());
    }
    Err(Error::InvalidRequest(format!("{what} Nothing was changed; to set it for a tool not seen yet, add --yes.")).into())
}

fn list(settings: &QuorumSettings) {
    match settings.critical {
        Some(n) => println!("Every call rated critical needs {n} approvals by different operators."),
        None => println!("Calls rated critical need what their tool needs (set a quorum for them: --critical 2)."),
    }
    if settings.rules.is_empty() {
        println!("No quorums: every call needs one approval. Set one: approval-console policy quorum <tool> 2");
        return;
    }
    let mut rules = settings.rules.clone();
    rules.sort_by(|a, b| a.tool.cmp(&b.tool));
    println!("{:<40} APPROVALS", "TOOL");
    for r in &rules {
        println!("{:<40} {}", visible(&r.tool), r.approvals);
    }
}

/// The policy file at `path`, read and parsed.
fn read(path: &std::path::Path) -> Result<PolicyFile> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(PolicyFile::parse(&text)?)
}

/// `policy check`: exit code 0 when the file would apply, 1 with each problem on stderr (a
/// check that failed, as `audit verify`'s), 2 when it cannot be read at all.
async fn check(app: &App, file: &PolicyFile, unseen: Unseen, by: &Cx<grade::Local>) -> Result<ExitCode> {
    let findings = app.check_policy(file, unseen, &by.narrow()).await?;
    for n in &findings.notes {
        eprintln!("warning: {n}");
    }
    if findings.errors.is_empty() {
        println!("The policy is valid (version {} once applied).", file.version()?);
        return Ok(ExitCode::SUCCESS);
    }
    for e in &findings.errors {
        eprintln!("error: {e}");
    }
    eprintln!("{} problem(s) in the policy: nothing was applied", findings.errors.len());
    Ok(ExitCode::from(1))
}

async fn diff(app: &App, file: &PolicyFile, by: &Cx<grade::Local>) -> Result<()> {
    let (now, version) = app.policy_in_force(&by.narrow()).await?;
    let lines = approval_console::app::policy::diff(&now, file);
    if lines.is_empty() {
        println!("No change: the policy in force (version {version}) is this one.");
    } else {
        println!("Against the policy in force (version {version} → {}):", file.version()?);
        for l in lines {
            println!("{l}");
        }
    }
    Ok(())
}

async fn apply(app: &App, file: &PolicyFile, yes: bool, by: &Cx<grade::Local>) -> Result<()> {
    let (now, before) = app.policy_in_force(&by.narrow()).await?;
    let lines = approval_console::app::policy::diff(&now, file);
    if lines.is_empty() {
        println!("No change: the policy in force (version {before}) is this one.");
        return Ok(());
    }
    if yes {
        for n in app.check_policy(file, Unseen::Accept, &by.narrow()).await?.notes {
            eprintln!("warning: {n}");
        }
    }
    let after = match app.apply_policy(file, Widening::confirmed(yes), unseen(yes), &by.narrow()).await {
        Err(Error::WideningUnconfirmed { widens }) => {
            for l in &widens {
                eprintln!("{l}");
            }
            anyhow::bail!(
                "this policy lets more through without an operator (above); apply it with --yes if that is meant — nothing was applied"
            );
        }
        other => other?,
    };
    for l in &lines {
        println!("{l}");
    }
    println!("Applied: version {before} → {after}.");
    Ok(())
}

async fn shadow_report(app: &App, json: bool, by: &Cx<grade::Local>) -> Result<()> {
    let report = app.shadow_report(&by.narrow()).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    if report.grants.is_empty() {
        println!("No shadow grants. Make one with \"shadow\": true (POST /api/grants), or in the window's \"Always allow…\" form.");
        return Ok(());
    }
    for r in &report.grants {
        let g = &r.grant;
        let scope = g.agent_id.as_deref().map_or(format!("engine {}", g.engine), |a| format!("agent {}", visible(a)));
        println!(
            "Shadow grant {} — {} of {scope}{}",
            g.id,
            visible(&g.tool_name),
            if g.conditions.is_empty() { "" } else { ", with conditions" }
        );
        println!(
            "  would have approved {} call(s): {} approved by an operator too, {} declined, {} expired, {} waiting",
            r.would_approve,
            r.agreed,
            r.declined.len(),
            r.expired,
            r.waiting
        );
        if r.held_back > 0 {
            println!("  {} more it covers are high-risk or under a quorum: it would not have approved them", r.held_back);
        }
        println!("  waiting it would have saved: {}", approval_console::domain::human_secs(r.saved_secs));
        for m in &r.declined {
            let why = m.reason.as_deref().map(|w| format!(": {}", visible(w))).unwrap_or_default();
            println!("  declined by {} — {} {}{why}", visible(&m.operator), m.item, visible(&m.args.to_string()));
        }
        if r.cut {
            println!("  (only the first {} calls were read)", approval_console::console::shadow::MAX_CALLS);
        }
    }
    Ok(())
}
