//! `approval-console`: serve the console, or work the queue from a terminal. Thin: parse, call the
//! core, print (the commands are in `cli/`, one function each).

mod cli;

use clap::Parser;
use std::io::IsTerminal;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    if !matches!(cli.command, cli::Command::Serve { .. }) {
        // A one-shot command whose output is cut (`openapi | head`) ends quietly, as Unix tools do,
        // instead of panicking on the closed pipe. `serve` keeps serving when its stdout goes away.
        // SAFETY: restoring the default action of SIGPIPE; nothing else handles it in this process.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    approval_console::logging::init(std::io::stderr().is_terminal());
    match cli::run(cli).await {
        Ok(code) => code,
        Err(e) => {
            let domain = e.downcast_ref::<approval_console::domain::Error>();
            let code = domain.map(|e| format!(" [{}]", e.code())).unwrap_or_default();
            eprintln!("error{code}: {e:#}");
            std::process::ExitCode::from(domain.map_or(2, cli::exit_code))
        }
    }
}
