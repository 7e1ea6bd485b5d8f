//! The command line as clap reads it: every command, option and argument with its description.

mod channels;
mod groups;

pub use channels::{ChannelSecretCommand, ChannelsCommand};
use clap::{Parser, Subcommand, ValueEnum};
pub use groups::{
    AuditCommand, DevicesCommand, EnginesCommand, HookAgent, HookEventArg, HookTarget, HooksCommand, PolicyCommand, ReceiptCommand,
    SecretCommand, TokensCommand, VerifyArgs,
};
use std::path::PathBuf;

/// One inbox for the sensitive tool calls that AI agents want to make.
///
/// Agents pause before sensitive tool calls; each paused call waits in a queue (SQLite, in the data
/// directory; or PostgreSQL with --database-url, shared by a team) with its arguments and
/// fingerprint until an operator approves, declines or answers it.
/// Start with `approval-console serve` and open the printed URL.
#[derive(Parser)]
#[command(
    name = "approval-console",
    version,
    propagate_version = true,
    after_help = concat!(
        "Without --data-dir, a command on the queue uses the console that is serving (it says which on stderr), ",
        "else the default data directory; a command that only reads never creates one.\n\n",
        "Exit codes: 0 done; 1 a check failed (audit verify, engines sync, policy check, receipt verify); 2 an error (bad input, refused, ",
        "already decided, …); 3 not found (a call, a secret, a credential, a database); 4 unavailable (the keyring, ",
        "an engine, a busy database): try again later."
    )
)]
pub struct Cli {
    /// Where the database lives [default: $XDG_DATA_HOME/approval-console or ~/.local/share/approval-console]
    #[arg(long, global = true, env = "APPROVAL_CONSOLE_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Team mode: a PostgreSQL database several consoles share (`postgres://USER@HOST:PORT/DB`; the
    /// password best in ~/.pgpass or PGPASSWORD, not in the URL) [default: the SQLite file in the data
    /// directory]. The data directory still keeps this console's own files.
    #[arg(long, global = true, env = "APPROVAL_CONSOLE_DATABASE_URL", value_name = "URL", hide_env_values = true)]
    pub database_url: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

/// `--agents`, for the commands that run agents (and so start their MCP servers).
#[derive(clap::Args, Clone, Default)]
pub struct AgentsFile {
    /// The local engine's agents [default: agents.toml in the data directory; without it, the demo
    /// agent]. A file named here must exist.
    #[arg(long, env = "APPROVAL_CONSOLE_AGENTS", value_name = "FILE")]
    pub agents: Option<PathBuf>,
}

/// `serve`'s remote listener (issue 28): off unless --listen is given.
#[derive(clap::Args, Clone, Default)]
pub struct RemoteArgs {
    /// Also listen on ADDR:PORT (e.g. 0.0.0.0:8443) for paired phones, over TLS only, beside
    /// 127.0.0.1. Operators there sign in with a paired device's passkey (`devices pair`), and each
    /// decision asks for it again; agents may use their tokens. Off by default.
    #[arg(long, env = "APPROVAL_CONSOLE_LISTEN", value_name = "ADDR:PORT")]
    pub listen: Option<std::net::SocketAddr>,
    /// The name phones reach the listener by (a DNS name: browsers refuse passkeys on a bare IP
    /// address) [default: the --listen address]. Requests for any other Host are refused.
    #[arg(long, env = "APPROVAL_CONSOLE_PUBLIC_NAME", value_name = "NAME", requires = "listen")]
    pub public_name: Option<String>,
    /// The listener's certificate chain (PEM) [default: one made on first use, kept owner-only in
    /// the data directory's tls/, for the public name, the address and localhost].
    #[arg(long, env = "APPROVAL_CONSOLE_TLS_CERT", value_name = "FILE", requires_all = ["listen", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM; owner-only).
    #[arg(long, env = "APPROVAL_CONSOLE_TLS_KEY", value_name = "FILE", requires_all = ["listen", "tls_cert"])]
    pub tls_key: Option<PathBuf>,
}

/// `serve`'s per-credential quotas (docs/security.md, "The network boundary").
#[derive(clap::Args, Clone)]
pub struct QuotaArgs {
    /// Submitted calls, and runs, that one stored credential may start per second (each its own
    /// quota; beyond it: 429 rate_limited with Retry-After). The session token has none.
    #[arg(long, default_value_t = 10.0, env = "APPROVAL_CONSOLE_QUOTA_PER_SEC", value_name = "N")]
    pub quota_per_sec: f64,
    /// …and how many at once after a pause.
    #[arg(long, default_value_t = 30, env = "APPROVAL_CONSOLE_QUOTA_BURST", value_name = "N")]
    pub quota_burst: u32,
    /// Largest `args` (and `payload`, `resumeSchema`) of a submitted call, in bytes of compact JSON
    /// (beyond it: 413 payload_too_large).
    #[arg(long, default_value_t = 256 * 1024, env = "APPROVAL_CONSOLE_MAX_ARGS_BYTES", value_name = "BYTES")]
    pub max_args_bytes: usize,
    /// Long polls (`GET /api/calls/{id}?waitSecs=`) one credential may hold at once.
    #[arg(long, default_value_t = 32, env = "APPROVAL_CONSOLE_MAX_LONG_POLLS", value_name = "N")]
    pub max_long_polls: usize,
}

impl QuotaArgs {
    pub fn limits(&self) -> approval_console::api::Limits {
        approval_console::api::Limits {
            calls_per_sec: self.quota_per_sec,
            calls_burst: self.quota_burst,
            runs_per_sec: self.quota_per_sec,
            runs_burst: self.quota_burst,
            max_args_bytes: self.max_args_bytes,
            waits_per_credential: self.max_long_polls,
            ..Default::default()
        }
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the web UI, the console API and the local engine's API on 127.0.0.1.
    ///
    /// Prints the UI's URL once, with the session token (the local admin's) in the URL fragment.
    /// Every /api route but /api/health needs `Authorization: Bearer <token>`; give agents and
    /// other people tokens of their own (`approval-console tokens add`).
    Serve {
        #[command(flatten)]
        agents: AgentsFile,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 4319, env = "APPROVAL_CONSOLE_PORT")]
        port: u16,
        /// Session token for the API [default: the one kept owner-only in the data directory
        /// (`session-token`), made on the first start, so links and bookmarks survive a restart].
        /// Every user of the machine can read a command line (`ps`): on a shared server use --token-file.
        #[arg(long, env = "APPROVAL_CONSOLE_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Make a new kept session token: the old one (open tabs, bookmarks) stops working.
        #[arg(long, conflicts_with_all = ["token", "token_file"])]
        new_token: bool,
        /// Read the session token from FILE: the token alone, one final newline allowed. The file
        /// must be yours and owner-only (`chmod 600 FILE`), else serve refuses to start. For a server
        /// without a keyring (team mode); a symbolic link is refused, name the file itself.
        #[arg(long, env = "APPROVAL_CONSOLE_TOKEN_FILE", value_name = "FILE", conflicts_with = "token")]
        token_file: Option<PathBuf>,
        /// Raise a desktop notification for each new pending call (needs a notification service on
        /// the session bus; without one the console keeps working and says so once).
        #[arg(long, env = "APPROVAL_CONSOLE_NOTIFY")]
        notify: bool,
        #[command(flatten)]
        remote: RemoteArgs,
        #[command(flatten)]
        quotas: QuotaArgs,
    },
    /// List the queue, newest first: pending calls, or every call with its outcome (--all).
    Queue {
        /// Show every call (decided, delivered, expired, gone…), not only the pending ones.
        #[arg(long)]
        all: bool,
        /// Only calls of this agent (its id).
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        /// Only calls of this tool.
        #[arg(long, value_name = "TOOL")]
        tool: Option<String>,
        /// Most rows shown.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one call in full (JSON).
    Show {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
    },
    /// Approve a call: shows tool, arguments and fingerprint, and asks.
    Approve {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Decline a call, optionally with a reason the agent is told: shows the call, and asks.
    Decline {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// Told to the agent (and kept in the audit log), e.g. "wrong customer".
        #[arg(long, short)]
        reason: Option<String>,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Answer a suspended call with resume data (JSON, checked against the tool's resume schema):
    /// shows the call and its question, and asks.
    Resume {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// The resume data, e.g. '{"answer":"blue"}'.
        #[arg(long, short)]
        data: String,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Say what became of an interrupted call (the console stopped while its tool ran, so it was
    /// never run again by itself and its run waits): it ran, it did not run, or run it again (tools
    /// marked idempotent only). Shows the call, and asks; the run goes on afterwards.
    Resolve {
        /// The call's id as `queue --all` lists it, or any unique start of it.
        id: String,
        /// What became of it.
        #[arg(value_enum)]
        how: ResolveHow,
        /// With `ran`: what the tool returned, as JSON, told to the agent's model (default: a sentence
        /// saying it ran and its result was lost).
        #[arg(long, short)]
        result: Option<String>,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// The audit log: verify its hash chain, list or export it.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Check agents.toml and list the local engine's agents, their tools and approval settings.
    Agents {
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Print the console API's OpenAPI document (JSON).
    Openapi,
    /// Print the operation catalog (JSON): every operation's name, HTTP route, role and whether the
    /// desktop window has it. With --typescript, as the UI's module (ui/src/lib/backend/operations.gen.ts).
    Manifest {
        /// Print a TypeScript module instead of JSON.
        #[arg(long, conflicts_with = "authorization")]
        typescript: bool,
        /// Print the authorization table (Markdown): every operation × kind of caller × listener,
        /// allowed, step-up, refused or not served (docs/security.md holds it).
        #[arg(long)]
        authorization: bool,
    },
    /// Remote engines: Mastra and LangGraph servers whose waiting calls are queued here.
    ///
    /// A running `serve` picks up changes within two seconds. Tokens go to the OS keyring only.
    Engines {
        #[command(subcommand)]
        command: EnginesCommand,
    },
    /// Secrets (model API keys) in the OS keyring: never in the database, a config file or a log.
    ///
    /// On a server without a keyring, name owner-only files instead: `api_key_file` in agents.toml,
    /// `serve --token-file`.
    Secret {
        #[command(subcommand)]
        command: SecretCommand,
    },
    /// Operators' channels (Settings → Channels): their secrets, which only the local admin sets.
    Channels {
        #[command(subcommand)]
        command: ChannelsCommand,
    },
    /// Credentials for the HTTP API, each with a role: `agent` (start runs, list its own suspended
    /// runs; never decide), `viewer` (read the metrics and the team's figures, nothing else),
    /// `operator` (the console and decisions), `admin` (also grants, settings, engines).
    ///
    /// Only a hash of each token is stored: a token is shown once, when it is made. The token that
    /// `serve` prints (or `--token`) is the local admin's and is not listed here.
    Tokens {
        #[command(subcommand)]
        command: TokensCommand,
    },
    /// Phones and other devices that reach the console through `serve --listen`: pair one (a QR
    /// code and a short code; the phone then registers a passkey), list, rename, revoke.
    ///
    /// A device is an operator credential of the person who paired it; each of its decisions asks
    /// for its passkey. Revoking it ends its sessions at once.
    Devices {
        #[command(subcommand)]
        command: DevicesCommand,
    },
    /// Signed decision receipts (docs/receipts.md): print a call's receipt (`receipt ID`, by the
    /// call's id or the receipt's), check one offline against a key set, print the public keys,
    /// rotate this console's signing key.
    ///
    /// Every decision is signed with this console's Ed25519 key; the place where a tool runs checks
    /// the receipt (its key, signature, expiry, and the arguments about to run) before running it.
    #[command(args_conflicts_with_subcommands = true)]
    Receipt {
        #[command(subcommand)]
        command: Option<ReceiptCommand>,
        /// The call's id (or the receipt's, `rct_…`) whose receipt to print.
        id: Option<String>,
        /// Print JSON: the call's id, the receipt (JWS), its key id and its claims.
        #[arg(long)]
        json: bool,
        /// Print the receipt alone, the signed text (JWS) on one line: what the place where the
        /// tool runs checks (`receipt ID --jws > receipt.jws`, then `receipt verify receipt.jws`).
        #[arg(long, conflicts_with = "json")]
        jws: bool,
    },
    /// Safety policy as code: check, diff, apply and export the policy file (high-risk tools, risk
    /// rules, quorums, time limits); the quorums of the two-person rule (admins only; the CLI is the
    /// local admin).
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// A coding agent's hook: reads the hook event (PreToolUse or PermissionRequest) on stdin,
    /// queues the tool call in the console, waits for an operator's decision and prints the
    /// decision JSON the agent expects. Fails closed: console unreachable, no decision within
    /// --timeout or bad input → deny, with the reason. The console is the one serving now, found as
    /// every CLI command finds it (or --url, APPROVAL_CONSOLE_URL); an agent credential's token comes
    /// from APPROVAL_CONSOLE_AGENT_TOKEN (`tokens add NAME --role agent`); APPROVAL_CONSOLE_TOKEN,
    /// the console's session token, is never read as one.
    /// `hooks install` writes the agent's settings.
    Hook {
        #[command(subcommand)]
        agent: HookAgent,
    },
    /// The coding agents' hook settings.
    Hooks {
        #[command(subcommand)]
        command: HooksCommand,
    },
    /// Claude Code's channel relay: its permission prompts answered from the queue (an MCP channel
    /// server on stdio).
    ///
    /// Claude Code starts it as an MCP channel server (see the README, "Claude Code's channel
    /// relay"). Each prompt the agent
    /// relays (tool, description, a preview of the arguments cut at 200 characters) waits in the
    /// console's queue as a preview-only call of source claude-code; an operator's approve or decline
    /// goes back as the channel's answer, racing the agent's own dialog (the first answer wins). A
    /// preview-only call is rated high risk: no grant approves it. Nothing is answered when the
    /// console cannot be reached, the approval's receipt does not hold, or nobody decides within
    /// --timeout (the call then leaves the queue): the agent's own dialog decides.
    Channel {
        /// The agent whose prompts are relayed.
        #[arg(value_enum)]
        agent: ChannelAgent,
        /// The console's address [default: the console serving now, else http://127.0.0.1:4319].
        #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
        url: Option<String>,
        /// Seconds a relayed prompt waits in the queue before it is withdrawn.
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: u64,
        /// Trust only the receipt keys in FILE (a JWKS, owner-only) [default: the console's,
        /// trusted on first use].
        #[arg(long, env = "APPROVAL_CONSOLE_JWKS", value_name = "FILE")]
        jwks: Option<PathBuf>,
    },
    /// Codex through its app-server: its approval requests answered from the queue (run it in place
    /// of `codex app-server`).
    ///
    /// Runs `codex app-server` and sits between it and its client (an
    /// editor, or any program speaking the app-server's JSON-RPC on stdio), which runs this command
    /// instead of `codex app-server`. Every message passes through unchanged, except Codex's requests
    /// to approve a command or a file change: each becomes a call of source codex in the console
    /// (the command and its risk, the file change as a diff), and the operator's decision goes back
    /// to Codex (approve → accept, decline → decline; a decline's reason stays in the audit). Codex
    /// waits as long as the operator takes; while the console cannot be reached (a restart) the
    /// call is asked about again, ever less often, and nothing is lost. Fails closed: no agent
    /// credential, a refusal, an edit, a receipt that does not verify, no decision within
    /// --timeout → decline. An action Codex's own reviewer (auto-review) denied is queued too,
    /// rated high; an operator's approval overrides that one denial once
    /// (thread/approveGuardianDeniedAction), anything else leaves it standing. The console and the
    /// agent credential are found as the hooks find them (the serving console or
    /// APPROVAL_CONSOLE_URL; APPROVAL_CONSOLE_AGENT_TOKEN); nothing of APPROVAL_CONSOLE_* reaches
    /// Codex.
    Codex {
        /// The console's address [default: the console serving now, found as every CLI command
        /// finds it, else http://127.0.0.1:4319].
        #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
        url: Option<String>,
        /// Seconds an approval waits for a decision (then it is declined and leaves the queue). The
        /// console's own time limit for the call still applies.
        #[arg(long, env = "APPROVAL_CONSOLE_CODEX_TIMEOUT", default_value_t = 86_400, value_parser = clap::value_parser!(u64).range(1..=604_800))]
        timeout: u64,
        /// Trust only the receipt keys in FILE (a JWKS, owner-only) [default: the console's,
        /// trusted on first use and kept in ~/.local/state/approval-console/connector/].
        #[arg(long, env = "APPROVAL_CONSOLE_JWKS", value_name = "FILE")]
        jwks: Option<PathBuf>,
        /// The Codex program (run as `PROGRAM app-server CODEX_ARGS…`).
        #[arg(long, env = "APPROVAL_CONSOLE_CODEX", default_value = "codex", value_name = "PROGRAM")]
        codex: PathBuf,
        /// More arguments for `codex app-server` (`-c key=value`, `--enable FEATURE`), after `--`.
        #[arg(last = true, value_name = "CODEX_ARGS")]
        codex_args: Vec<String>,
    },
    /// An MCP server over stdio in front of another one (`-- COMMAND ARGS…`): it offers the
    /// upstream's tools, and a call of a tool it asks about runs only once an operator approved it
    /// in the console (declined → a tool error with the reason). Asked about: every tool but those
    /// named with --pass; the upstream's annotations skip nothing unless --trust-annotations. The
    /// console and an agent credential's token are found as the hooks find them (the serving
    /// console or APPROVAL_CONSOLE_URL; APPROVAL_CONSOLE_AGENT_TOKEN); nothing of APPROVAL_CONSOLE_*
    /// reaches the upstream. Fails closed: console unreachable or no decision within --timeout → the call is not
    /// run. Speaks every MCP revision on both sides: a 2026-07-28 client is answered with a task
    /// (if it takes the Tasks extension) or, after --hold, `input_required` with the console's
    /// link to the call; calling again finds the same waiting call. An upstream's own question
    /// (`input_required`, e.g. a Mastra tool that suspends) is asked in the console too.
    McpGate {
        /// Always ask about TOOL, even when --pass or --trust-annotations would let it pass (repeat
        /// for more).
        #[arg(long = "ask", value_name = "TOOL")]
        ask: Vec<String>,
        /// Never ask about TOOL: you trust it (repeat for more). --ask wins.
        #[arg(long = "pass", value_name = "TOOL")]
        pass: Vec<String>,
        /// Trust the upstream's own annotations: a tool it marks read-only (`readOnlyHint: true`) and
        /// not destructive passes unasked. The upstream decides what those hints say: use it only for
        /// a server you trust.
        #[arg(long)]
        trust_annotations: bool,
        /// The console's address [default: the console serving now, found as every CLI command
        /// finds it (its record in $XDG_RUNTIME_DIR/approval-console/serving; with --data-dir, the
        /// one serving that directory), else http://127.0.0.1:4319].
        #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
        url: Option<String>,
        /// Seconds a call waits for a decision before it fails (and leaves the queue). Keep it
        /// below your MCP client's request timeout (often 60 s).
        #[arg(long, env = "APPROVAL_CONSOLE_GATE_TIMEOUT", default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: u64,
        /// Seconds a 2026-07-28 client's call is held before the gate answers `input_required`
        /// with the console's link (the client calls again to get the result). Clients on the
        /// older revisions are held until --timeout.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3_600))]
        hold: u64,
        /// The calls' agent in the queue [default: the upstream command's name].
        #[arg(long)]
        agent: Option<String>,
        /// Trust only the receipt keys in FILE (a JWKS, owner-only) [default: the console's,
        /// trusted on first use and kept in ~/.local/state/approval-console/connector/].
        #[arg(long, env = "APPROVAL_CONSOLE_JWKS", value_name = "FILE")]
        jwks: Option<PathBuf>,
        /// The upstream MCP server: its command and arguments, after `--`.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        upstream: Vec<String>,
    },
    /// A relay between your editor (this command's stdin and stdout) and an Agent Client Protocol
    /// agent (`-- AGENT_COMMAND ARGS…`, e.g. `npx @zed-industries/claude-code-acp`): in the editor's agent
    /// settings, run this command instead of the agent's. Every message passes through unchanged,
    /// but the agent's permission requests (`session/request_permission`): each is queued in the
    /// console (source `acp`: the tool call, its content and locations; the options the agent
    /// offers) and answered with the agent's option for the operator's decision — approve: its
    /// `allow_once`, or `allow_always` when an "always allow" grant approved it; decline: its
    /// `reject_once`. With --editor-decides-too the editor is asked as well: the first answer wins,
    /// the other is cancelled. The console and an agent credential's token are found as the hooks
    /// find them (the serving console or APPROVAL_CONSOLE_URL; APPROVAL_CONSOLE_AGENT_TOKEN);
    /// nothing of APPROVAL_CONSOLE_* reaches the agent. Fails closed: console unreachable, or no
    /// decision within --timeout → the agent's reject option. A console restart loses nothing: the
    /// request waits, asking again until the console is back.
    Acp {
        /// Also forward each permission request to the editor; the first answer (editor or console)
        /// wins, and the other is cancelled (the queued call withdrawn, or the editor's prompt
        /// cancelled). Without it, the editor never sees the agent's permission requests.
        #[arg(long)]
        editor_decides_too: bool,
        /// The console's address [default: the console serving now, found as every CLI command
        /// finds it, else http://127.0.0.1:4319].
        #[arg(long, env = "APPROVAL_CONSOLE_URL", value_name = "URL")]
        url: Option<String>,
        /// Seconds a permission request waits for a decision before the agent gets its reject option
        /// (and the call leaves the queue). ACP agents wait as long as it takes.
        #[arg(long, env = "APPROVAL_CONSOLE_ACP_TIMEOUT", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..=604_800))]
        timeout: u64,
        /// The calls' agent in the queue [default: the agent command's name].
        #[arg(long)]
        agent: Option<String>,
        /// Trust only the receipt keys in FILE (a JWKS, owner-only) [default: the console's,
        /// trusted on first use and kept in ~/.local/state/approval-console/connector/].
        #[arg(long, env = "APPROVAL_CONSOLE_JWKS", value_name = "FILE")]
        jwks: Option<PathBuf>,
        /// The ACP agent: its command and arguments, after `--`.
        #[arg(last = true, required = true, value_name = "AGENT_COMMAND")]
        command: Vec<String>,
    },
}

/// An agent whose permission prompts a channel relays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ChannelAgent {
    /// Claude Code (channels with the permission relay: v2.1.81 or later).
    ClaudeCode,
}

/// What became of an interrupted call.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ResolveHow {
    /// It ran: the agent is told so (with --result, what it returned).
    Ran,
    /// It did not run: the agent is told the call failed.
    DidNotRun,
    /// Run it again, approved by you now (tools marked idempotent only).
    RunAgain,
}
