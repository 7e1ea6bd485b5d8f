//! MCP servers die with the console (issue 15). A server runs in a process group of its own (so a
//! Ctrl+C in the console's terminal does not cut it mid-call; the console stops it in order), which
//! also means a console killed with SIGKILL used to leave it running, carrying out the calls already
//! written to its pipe. Now the console's direct child is a small guard, forked before the server's
//! `exec`: it asks the kernel for a signal when the console dies (`PR_SET_PDEATHSIG`) and then kills
//! the whole group — the server and anything it started (`npx` → `node`) — at once. Otherwise it
//! waits for the server and exits as it did, so the console sees the server's own exit status.
//!
//! Everything here runs between `fork` and `exec` in a process that may have been forked from a
//! multi-threaded one: only async-signal-safe calls, no allocation.

use std::io;

/// To be called from `pre_exec`: forks; the child returns (and goes on to `exec` the server), the
/// parent becomes the guard and never returns.
///
/// # Safety
/// Only between `fork` and `exec` (a `pre_exec` hook), in the group leader the console spawned.
pub(super) unsafe fn fork_guard() -> io::Result<()> {
    let console = libc::getppid();
    // The guard waits for two signals: the console's death (the one it asks for) and the server's
    // end. It holds back the stop signals the console sends the group, which are the server's to act on.
    let mut waited: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut waited);
    libc::sigaddset(&mut waited, libc::SIGUSR1);
    libc::sigaddset(&mut waited, libc::SIGCHLD);
    let mut blocked = waited;
    for held in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
        libc::sigaddset(&mut blocked, held);
    }
    let mut before: libc::sigset_t = std::mem::zeroed();
    if libc::sigprocmask(libc::SIG_BLOCK, &blocked, &mut before) != 0 {
        return Err(io::Error::last_os_error());
    }
    let server = libc::fork();
    if server < 0 {
        return Err(io::Error::last_os_error());
    }
    if server == 0 {
        // The server: its signals as they were, then `exec`.
        libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
        return Ok(());
    }
    // The guard. Asked for SIGUSR1 when the console goes; if it already went, act now.
    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGUSR1) != 0 || libc::getppid() != console {
        kill_group();
    }
    // The guard never `exec`s, so it holds every descriptor of the console, close-on-exec or not:
    // its copies of the pipes' console ends would keep the server from ever seeing its input end.
    close_all();
    loop {
        match libc::sigwaitinfo(&waited, std::ptr::null_mut()) {
            libc::SIGUSR1 => kill_group(),
            libc::SIGCHLD => {
                let mut status = 0;
                if libc::waitpid(server, &mut status, libc::WNOHANG) == server {
                    exit_as(status);
                }
            }
            _ => {}
        }
    }
}

/// Closes every descriptor (`close_range`, Linux 5.9 and later; else one by one up to the limit).
unsafe fn close_all() {
    if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) == 0 {
        return;
    }
    let mut limit: libc::rlimit = std::mem::zeroed();
    let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 { limit.rlim_cur.min(1 << 20) as libc::c_int } else { 1024 };
    for fd in 0..top {
        libc::close(fd);
    }
}

/// The console is gone: the server and all it started stop now, mid-call or not.
unsafe fn kill_group() -> ! {
    libc::kill(-libc::getpgrp(), libc::SIGKILL);
    libc::_exit(137)
}

/// Ends the guard the way the server ended: its exit code, or its signal.
unsafe fn exit_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        libc::signal(signal, libc::SIG_DFL);
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(libc::WEXITSTATUS(status))
}
