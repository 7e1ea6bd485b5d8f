//! The subcommands of the command groups (`hook`, `hooks`, `policy`, `tokens`, `audit`, `engines`,
//! `secret`), with their options and arguments.

use clap::{Subcommand, ValueEnum};
use std::path::PathBuf;

/// The sources an agent's token may be limited to: the registry's submitted kinds.
fn submitted_sources() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(approval_console::engine::kinds::submitted().map(|s| s.as_str()))
}

#[derive(Subcommand)]
pub enum HookAgent {
    /// Claude Code (`hooks.PreToolUse` or `hooks.PermissionRequest` in .claude/settings.json): an
    /// approval with edited input runs the edit (`updatedInput`).
    ClaudeCode(HookArgs),
    /// Codex CLI (`PreToolUse` or `PermissionRequest` hooks in its config): allow or deny, never
    /// edited input (Codex refuses it).
    Codex(HookArgs),
    /// Gemini CLI (`hooks.BeforeTool` in ~/.gemini/settings.json): allow or deny, never edited input.
    Gemini(HookArgs),
}

#[derive(Subcommand)]
pub enum HooksCommand {
    /// Write the hook into the agent's settings: `hook claude-code|codex|gemini` by the absolute path
    /// of this binary, a timeout, and (Claude Code) `"onFailure": "block"`, so that a hook that cannot
    /// run blocks the call instead of letting it through (Codex, Gemini CLI: a missing or crashing
    /// hook blocks; one that runs past the agent's timeout cannot be made to, see the README).
    ///
    /// Merges into the file: everything else in it is kept, an entry of ours is rewritten where it
    /// is, and installing again changes nothing. The file as it was is kept beside it (FILE.bak.N);
    /// a file that does not parse is refused and left as it is.
    Install {
        /// Which agent.
        #[arg(value_enum)]
        agent: HookTarget,
        /// The settings file [default: ~/.claude/settings.json; for Codex $CODEX_HOME/config.toml or
        /// ~/.codex/config.toml; for Gemini CLI ~/.gemini/settings.json]. A project's own is e.g.
        /// .claude/settings.json.
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
        /// Print the file as it would be, and write nothing.
        #[arg(long)]
        print: bool,
        /// The hook's own --timeout in seconds (it denies then); the agent's timeout for the hook is
        /// 10 s more.
        #[arg(long, default_value_t = approval_console::hook::install::DEFAULT_TIMEOUT_SECS, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: u64,
        /// The console the hook asks, written into the hook's command (`--url URL`) [default: the
        /// console serving now, found as every CLI command finds it, written when it is not at
        /// http://127.0.0.1:4319; with none serving, nothing is written and the hook looks for
        /// the serving console each time it runs].
        #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
        url: Option<String>,
        /// The event the hook goes under, moving an entry of ours there (Claude Code, Codex)
        /// [default: where an entry of ours is; a new one under pre-tool-use]. pre-tool-use: every
        /// call of a matching tool asks the console, whatever the agent's own allow rules say.
        /// permission-request: only a call the agent would ask you about asks the console (its own
        /// rules and modes decide first), and an "always allow" grant's approval writes a session
        /// rule back to the agent, so it stops asking for that command in the session.
        #[arg(long, value_enum, value_name = "EVENT")]
        event: Option<HookEventArg>,
    },
}

/// The event a Claude Code or Codex hook goes under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HookEventArg {
    /// Before every call of a matching tool (PreToolUse).
    PreToolUse,
    /// When the agent would ask its user (PermissionRequest).
    PermissionRequest,
}

/// A coding agent whose settings `hooks install` writes.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum HookTarget {
    ClaudeCode,
    Codex,
    Gemini,
}

#[derive(clap::Args)]
pub struct HookArgs {
    /// The console's address [default: the console serving now, found as every CLI command finds
    /// it (its record in $XDG_RUNTIME_DIR/approval-console/serving; with --data-dir, the one serving
    /// that directory), else http://127.0.0.1:4319].
    #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
    pub url: Option<String>,
    /// Seconds to wait for a decision before denying (and withdrawing the call from the queue).
    /// Keep it below the hook's own timeout in the agent's settings (`hooks install` gives that 10 s
    /// more).
    #[arg(long, env = "APPROVAL_CONSOLE_HOOK_TIMEOUT", default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Trust only the receipt keys in FILE (a JWKS, owner-only: `curl URL/.well-known/jwks.json >
    /// FILE; chmod 600 FILE`) [default: the console's, trusted on first use and kept in
    /// ~/.local/state/approval-console/connector/].
    #[arg(long, env = "APPROVAL_CONSOLE_JWKS", value_name = "FILE")]
    pub jwks: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// Checks a policy file without applying it: it reads, every rule compiles and is in range,
    /// every tool it names is known or listed in its `expected_tools` (a misspelt tool would leave
    /// the real one unprotected), no risk rule rates a high-risk tool below high. Exit code 0 if it
    /// would apply; 1 with each problem on stderr; 2 if the file cannot be read.
    Check {
        /// The policy file (TOML; `policy export` writes one).
        file: std::path::PathBuf,
        /// Accept tools no agent, engine or queued call has named yet (a warning each), as
        /// `policy apply --yes` does.
        #[arg(long)]
        yes: bool,
    },
    /// What applying a policy file would change against the policy in force, one line per change;
    /// a change that lets more through without an operator says "(widens)".
    Diff {
        /// The policy file to compare with the policy in force.
        file: std::path::PathBuf,
    },
    /// Puts a policy file in force: checked, then stored in one transaction and audited
    /// (`policy.applied` with the versions before and after). A change that widens needs --yes, as
    /// does a tool nothing has named yet that the file does not list in `expected_tools`.
    Apply {
        /// The policy file to put in force.
        file: std::path::PathBuf,
        /// Apply although it widens (removes a high-risk tool, lowers a quorum, drops a high risk
        /// rule), and although it names tools no agent, engine or queued call has named yet.
        #[arg(long)]
        yes: bool,
    },
    /// What each shadow grant (made with "shadow": it approves nothing) would have done beside what
    /// operators did: the calls it would have approved, how many an operator approved too, the ones
    /// an operator declined, and the waiting it would have saved.
    ShadowReport {
        /// Print JSON (as `GET /api/grants/shadow-report` answers).
        #[arg(long)]
        json: bool,
    },
    /// Prints the policy in force as a policy file (`policy export > policy.toml`); `policy apply`
    /// of it changes nothing, and `policy check` passes it (the tools of its rules that this console
    /// has not seen are listed in `expected_tools`).
    Export,
    /// The two-person rule: each call of TOOL runs only after N approvals by N different operators
    /// (credentials; the local admin is one, in the window, the CLI and notifications alike), all
    /// of the same fingerprint. One decline ends it; its time limit covers the whole quorum; whoever
    /// started the run cannot approve it; no grant applies to it.
    ///
    /// `policy quorum` lists the quorums; `policy quorum TOOL` shows one; `policy quorum TOOL 2`
    /// sets one (2–10); `policy quorum TOOL 1` or `policy quorum TOOL --off` removes it.
    /// `policy quorum --critical 2` makes every call rated critical (by its arguments: `rm -rf /`,
    /// `curl … | sh`) need 2 approvals, whatever its tool; `--critical 1` removes that. Lowering or
    /// removing a quorum lets calls run on fewer approvals: it needs --yes. A running `serve`
    /// applies a change at once, to waiting calls too.
    Quorum {
        /// The tool's name, exactly (as `queue` shows it).
        tool: Option<String>,
        /// How many different operators must approve each call of it: 2–10 sets, 1 removes.
        #[arg(requires = "tool", conflicts_with = "off")]
        approvals: Option<u32>,
        /// Remove TOOL's quorum: one approval is enough again.
        #[arg(long, requires = "tool")]
        off: bool,
        /// Set it although no agent, engine or queued call has named TOOL yet (else refused with
        /// the names it may have meant: a misspelt tool would leave the real one unprotected); and
        /// lower or remove a quorum (else refused, saying what it lowers).
        #[arg(long)]
        yes: bool,
        /// How many different operators must approve each call rated critical, whatever its tool:
        /// 2–10 sets, 1 removes.
        #[arg(long, value_name = "N", conflicts_with_all = ["tool", "off"])]
        critical: Option<u32>,
        /// Print JSON (the settings as `GET /api/settings/quorum` answers them).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum DevicesCommand {
    /// Start pairing a phone: prints a QR code, its link and a short code (single use, 10 minutes).
    /// Open the link on the phone (or type the code on the listener's page), then register a passkey.
    /// Needs `serve --listen` on this data directory (running, or run before).
    Pair {
        /// The device's name [default: <person>-phone-N].
        #[arg(long)]
        name: Option<String>,
        /// Whose operator credential it is (the two-person rule counts its approvals as that
        /// person's). Without it, a terminal is asked (Enter alone: yours, the local admin's); a
        /// run off a terminal (a script) is refused.
        #[arg(long)]
        person: Option<String>,
    },
    /// List the paired devices.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rename a device.
    Rename {
        /// The device's name now (`devices list`).
        name: String,
        /// Its new name: 1–64 letters, digits, '.', '_', '-'.
        new_name: String,
    },
    /// Revoke a device: its sessions end at once; pairing it again makes a new device.
    Revoke {
        /// The device's name (`devices list`).
        name: String,
    },
}

#[derive(Subcommand)]
pub enum TokensCommand {
    /// Make a credential and print its token, alone, on the last line of standard output.
    ///
    /// E.g. `TOKEN=$(approval-console tokens add ci-bot --role agent | tail -1)`.
    Add {
        /// A name for the audit log: 1–64 letters, digits, '.', '_', '-'.
        name: String,
        /// What the token may do.
        #[arg(long, value_parser = ["agent", "viewer", "operator", "admin"])]
        role: String,
        /// An agent name its submitted calls may claim (repeat for more). Without it, the calls it
        /// submits (POST /api/calls, the hooks, the MCP gate) are queued under its own name,
        /// whatever agent they say they are; grants for an agent then bind to that name.
        #[arg(long = "agent", value_name = "AGENT")]
        agents: Vec<String>,
        /// A source its submitted calls may claim (repeat for more) [default: any].
        #[arg(long = "source", value_name = "SOURCE", value_parser = submitted_sources())]
        sources: Vec<String>,
        /// Whose credential it is [default: its name]. The two-person rule counts persons: one
        /// person's credentials, and the local admin (the OS account) of the same name, approve once.
        #[arg(long, value_name = "NAME")]
        person: Option<String>,
    },
    /// The credentials: name, role, when made and last used (never a token).
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a credential: its token stops working at once, also in a running `serve`.
    Revoke {
        /// The credential's name.
        name: String,
    },
}

#[derive(Subcommand)]
pub enum AuditCommand {
    /// Walk the hash chain; name the first entry edited, removed or reordered. Exit code 1 if broken.
    Verify,
    /// The newest entries, newest first.
    List {
        /// How many entries.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Print the whole log, oldest first: JSON Lines (the entries as the API answers them, hashes
    /// checkable) or CSV (cells a spreadsheet would run as formulas are prefixed with ').
    Export {
        /// `jsonl` (JSON Lines) or `csv`.
        #[arg(long, value_parser = ["jsonl", "csv"], default_value = "jsonl")]
        format: String,
    },
}

#[derive(Subcommand)]
pub enum EnginesCommand {
    /// List remote engines with their health and queue counts.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a Mastra or LangGraph server or an A2A agent, e.g. `approval-console engines add prod http://127.0.0.1:4111`,
    /// `approval-console engines add graphs http://127.0.0.1:2024 --kind langgraph` or
    /// `approval-console engines add refunds http://127.0.0.1:9999 --kind a2a`.
    ///
    /// With --token, the token is read from standard input (on a terminal: asked, without echo) and
    /// stored in the OS keyring; it never appears in the database, a file or a log.
    Add {
        /// A name (letters, digits, '.', '_', '-'): the engine's id in the queue.
        name: String,
        /// The server's base URL (a Mastra server's API is under /api; a LangGraph server's at the root;
        /// an A2A agent's where its /.well-known/agent-card.json is).
        url: String,
        /// Which API the server speaks: mastra (suspended runs of its agents), langgraph
        /// (interrupted threads), ag-ui (an agent endpoint whose runs the console relays) or a2a
        /// (tasks waiting for input).
        #[arg(long, value_parser = ["mastra", "langgraph", "ag-ui", "a2a"], default_value = "mastra")]
        kind: String,
        /// Ask for a bearer token (or read one line from standard input).
        #[arg(long)]
        token: bool,
        /// How often to look for waiting calls, in milliseconds.
        #[arg(long, default_value_t = approval_console::console::remotes::DEFAULT_POLL_MS)]
        poll_ms: u32,
        /// Add it without first checking that it answers as a server of that kind (at most 10 s).
        /// Without this, a URL that does not answer, or answers as something else, adds nothing
        /// (exit code 4 or 2); a refused token is added all the same (edit it with --token).
        #[arg(long)]
        no_check: bool,
    },
    /// Change an engine's URL, token or poll interval.
    Edit {
        /// The engine's name, as `engines list` shows it.
        name: String,
        /// A new base URL. An engine with a token needs --token (or --keep-token, or --clear-token) too.
        #[arg(long)]
        url: Option<String>,
        /// Ask for a new bearer token (or read one line from standard input).
        #[arg(long, conflicts_with = "clear_token")]
        token: bool,
        /// Forget the stored token.
        #[arg(long)]
        clear_token: bool,
        /// With --url: send the stored token to the new URL too. Without it, changing the URL of an
        /// engine that has a token needs --token or --clear-token.
        #[arg(long, requires = "url", conflicts_with_all = ["token", "clear_token"])]
        keep_token: bool,
        /// How often to look for suspended runs, in milliseconds.
        #[arg(long)]
        poll_ms: Option<u32>,
    },
    /// Remove an engine and its token. Its queue entries stay as history.
    Remove {
        /// The engine's name, as `engines list` shows it.
        name: String,
    },
    /// Sync an engine now (complete listing) and print what changed. Exit code 1 if it failed.
    Sync {
        /// The engine's name, as `engines list` shows it.
        name: String,
    },
}

#[derive(Subcommand)]
pub enum SecretCommand {
    /// Store a secret: reads one line from standard input (on a terminal: asks, without echo).
    ///
    /// E.g. `approval-console secret set openai < key.txt`; replaces any value it had.
    Set {
        /// The secret's name, as an agent's `api_key_ref` or an MCP server's `env_refs` names it.
        name: String,
    },
    /// Say whether a secret is stored, and its length (never its value). Exit code 3 if it is not
    /// stored, 4 if the keyring is not available.
    Check {
        /// The secret's name.
        name: String,
    },
    /// Remove a secret from the OS keyring.
    Delete {
        /// The secret's name.
        name: String,
    },
}

#[derive(Clone, Subcommand)]
pub enum ReceiptCommand {
    /// Check a receipt offline, as the place where the tool runs would (docs/receipts.md): its key
    /// in the key set, signature, expiry, decision, tool, and that the arguments about to run are
    /// the ones approved. Exit code 0 if it holds, 1 if refused (the reason's code is printed).
    /// Without --tool and --args: only that it is signed by a key of the set and not expired (what
    /// it says is proven; whether it lets a call run is not checked).
    Verify(Box<VerifyArgs>),
    /// Print the public keys that sign receipts (this console's and, in team mode, every console's):
    /// the JSON Web Key Set served at /.well-known/jwks.json.
    Keys,
    /// Make a new signing key for this console; the old one is retired (kept in the key set, so what
    /// it signed before still verifies). Audited. Admins only (the CLI is the local admin).
    Rotate,
}

/// `receipt verify`'s arguments.
#[derive(Clone, clap::Args)]
pub struct VerifyArgs {
    /// The receipt: a file holding it, the receipt itself (a JWS), or `-`/nothing: standard input.
    pub receipt: Option<String>,
    /// The key set: a JWKS file (`approval-console receipt keys > jwks.json`, or the console's
    /// /.well-known/jwks.json).
    #[arg(long)]
    pub jwks: PathBuf,
    /// The tool about to run (with --args or --args-file).
    #[arg(long, requires = "about_to_run")]
    pub tool: Option<String>,
    /// The arguments about to run, as JSON (with --tool). Numbers are judged as written: one no
    /// double holds exactly (2^60 + 1, 0.10000000000000001) is refused (ambiguous_arguments).
    #[arg(long, group = "about_to_run", requires = "tool")]
    pub args: Option<String>,
    /// The arguments about to run, as a JSON file (with --tool).
    #[arg(long, group = "about_to_run", requires = "tool")]
    pub args_file: Option<PathBuf>,
    /// The run the call must belong to.
    #[arg(long)]
    pub run_id: Option<String>,
    /// The engine's id of the call it must be.
    #[arg(long)]
    pub tool_call_id: Option<String>,
    /// Record the receipt as used in this file (made owner-only if missing) and refuse one used
    /// before (`replayed`): a receipt runs a tool once. With --tool and --args.
    #[arg(long, requires = "tool")]
    pub used: Option<PathBuf>,
    /// Check as of this Unix time (seconds) instead of now.
    #[arg(long)]
    pub now: Option<i64>,
    /// Print one JSON line: {"ok": true, "claims": …} or {"ok": false, "code": …, "message": …}.
    #[arg(long)]
    pub json: bool,
}
