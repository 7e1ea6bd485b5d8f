//! Rules for shell commands, each simple command judged after its wrappers are taken off.

use super::shell;
use super::{files, infra};
use super::{Level, Risk, Scene};

/// Inner lines (`sh -c '…'`, `eval …`) are judged this deep at most.
const MAX_DEPTH: usize = 4;

/// Judges every command of `line`.
pub(super) fn judge_line(line: &str, scene: Scene<'_>, risk: &mut Risk, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let commands = shell::commands(line);
    let downloads = commands.iter().any(|c| is_download(unwrap(&c.words).0));
    // `cd DIR && …`: the commands after it run there.
    let mut moved: Option<String> = None;
    for c in &commands {
        let (words, _) = unwrap(&c.words);
        let here = match &moved {
            Some(dir) => Scene { cwd: scene.cwd, dir: Some(dir.as_str()) },
            None => scene,
        };
        for target in &c.writes {
            files::judge_write(target, here, risk);
        }
        let Some(name) = words.first().map(|w| base(w)) else { continue };
        if name.contains("$(…)") || name.starts_with('$') {
            risk.add(Level::Medium, "runs a command it computes (a variable or a substitution names it)");
        }
        if name == "cd" || name == "pushd" {
            moved = match operands(words).first() {
                Some(dir) if dir.starts_with('/') => Some((*dir).to_owned()),
                Some(dir) => here.dir.or(here.cwd).map(|cwd| format!("{}/{dir}", cwd.trim_end_matches('/'))),
                None => None,
            };
            continue;
        }
        // A download read by an interpreter: piped into it, or handed to it as its script.
        if is_interpreter(name) || matches!(name, "source" | "." | "eval") {
            let piped = commands.iter().any(|d| d.pipeline == c.pipeline && d.stage < c.stage && is_download(unwrap(&d.words).0));
            let no_script = words[1..].iter().all(|w| w.starts_with('-'));
            let substituted = words.iter().any(|w| w.contains("$(…)"));
            if piped || (downloads && (no_script || substituted)) {
                risk.add(Level::Critical, "pipes a download into a shell");
            }
        }
        // Secrets read, then sent: `cat ~/.aws/credentials | curl …`, `env | nc host`.
        if c.stage > 0 && is_sender(name) {
            for d in commands.iter().filter(|d| d.pipeline == c.pipeline && d.stage < c.stage) {
                let (dw, _) = unwrap(&d.words);
                if operands(dw).iter().any(|p| files::is_credential(p) || p.contains(".ssh") || p.contains(".aws")) {
                    risk.add(Level::Critical, "sends credentials over the network");
                } else if d.words.first().is_some_and(|w| matches!(base(w), "env" | "printenv" | "set" | "export")) {
                    risk.add(Level::High, "sends the environment (its secrets) over the network");
                }
            }
        }
        judge(name, words, here, risk, depth);
    }
}

/// A command that sends what it reads to another machine.
fn is_sender(name: &str) -> bool {
    matches!(name, "curl" | "wget" | "nc" | "ncat" | "netcat" | "socat" | "telnet" | "scp" | "ssh" | "sftp" | "rsync" | "openssl")
}

/// The command's base name (`/usr/bin/rm` → `rm`).
pub(super) fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_download(words: &[String]) -> bool {
    words.first().is_some_and(|w| matches!(base(w), "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "iwr" | "Invoke-WebRequest"))
}

fn is_interpreter(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "ash" | "python" | "python3" | "perl" | "ruby" | "node" | "php" | "pwsh"
    )
}

/// The command a wrapper runs (`sudo -u x`, `env A=1`, `nohup`, `timeout 10`, `xargs -0`, `nice -n
/// 5`, assignments `A=1 cmd`), and whether it runs elevated (`sudo`, `doas`).
fn unwrap(mut words: &[String]) -> (&[String], bool) {
    let mut elevated = false;
    for _ in 0..16 {
        let Some(first) = words.first() else { break };
        let rest = &words[1..];
        let takes_arg: &[&str] = match base(first) {
            _ if is_assignment(first) => {
                words = rest;
                continue;
            }
            "sudo" | "doas" | "run0" => {
                elevated = true;
                &["-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-R", "-T"]
            }
            "env" => &["-u", "-C", "-S", "--unset", "--chdir"],
            "nohup" | "time" | "command" | "exec" | "builtin" | "stdbuf" | "unbuffer" | "setsid" | "caffeinate" => &[],
            "nice" | "ionice" | "chrt" | "taskset" => &["-n", "-c", "-p"],
            "timeout" => &["-s", "-k", "--signal", "--kill-after"],
            "xargs" => &["-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"],
            "watch" => &["-n", "-d", "--interval"],
            _ => break,
        };
        let name = base(first).to_owned();
        let mut i = 0;
        while i < rest.len() {
            let w = rest[i].as_str();
            if w == "--" {
                i += 1;
                break;
            }
            if name == "env" && is_assignment(w) {
                i += 1;
                continue;
            }
            if !w.starts_with('-') || w == "-" {
                break;
            }
            i += if takes_arg.contains(&w) { 2 } else { 1 };
        }
        // `timeout 10 cmd`, `nice 5`: the duration or value comes first.
        if matches!(name.as_str(), "timeout") && i < rest.len() {
            i += 1;
        }
        words = &rest[i.min(rest.len())..];
    }
    (words, elevated)
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The words that are not options (`-x`, `--x`), after the command name; `--` ends the options.
pub(super) fn operands(words: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut options = true;
    // Empty words (a wrapper with nothing after it) have none.
    for w in words.iter().skip(1) {
        if options && w == "--" {
            options = false;
        } else if options && w.starts_with('-') && w.len() > 1 {
            continue;
        } else {
            out.push(w.as_str());
        }
    }
    out
}

/// Whether a short or long option is given: `flag('r', "recursive")` finds `-r`, `-rf`, `-fr`,
/// `--recursive`.
pub(super) fn has(words: &[String], short: Option<char>, long: &[&str]) -> bool {
    words.iter().skip(1).take_while(|w| *w != "--").any(|w| {
        if let Some(l) = w.strip_prefix("--") {
            let l = l.split('=').next().unwrap_or(l);
            long.contains(&l)
        } else if let Some(s) = w.strip_prefix('-') {
            short.is_some_and(|c| s.chars().all(|x| x.is_ascii_alphanumeric()) && s.contains(c))
        } else {
            false
        }
    })
}

pub(super) fn judge(name: &str, words: &[String], scene: Scene<'_>, risk: &mut Risk, depth: usize) {
    match name {
        "rm" | "rmdir" | "unlink" => rm(words, scene, risk),
        "git" => git(words, risk),
        "chmod" | "chown" | "chgrp" => chmod(name, words, scene, risk),
        "dd" if words.iter().any(|w| w.strip_prefix("of=").is_some_and(files::is_device)) => {
            risk.add(Level::Critical, "writes a raw disk device");
        }
        "shred" => {
            let ops = operands(words);
            let level = if ops.iter().any(|p| files::is_device(p)) {
                Level::Critical
            } else if ops.iter().all(|p| files::outside(p, scene).is_none()) {
                Level::Medium
            } else {
                Level::High
            };
            risk.add(level, "destroys files beyond recovery");
        }
        "truncate" => {
            for p in operands(words) {
                files::judge_write(p, scene, risk);
            }
        }
        n if n.starts_with("mkfs") || matches!(n, "mke2fs" | "wipefs" | "fdisk" | "sfdisk" | "parted" | "sgdisk" | "mkswap") => {
            let listing = matches!(n, "fdisk" | "sfdisk" | "parted" | "sgdisk") && has(words, Some('l'), &["list"])
                || n == "wipefs" && !has(words, Some('a'), &["all"]) && !has(words, Some('o'), &["offset"]);
            let device = operands(words).iter().any(|p| files::is_device(p));
            if !listing {
                risk.add(if device { Level::Critical } else { Level::Medium }, "formats or repartitions a disk");
            }
        }
        "terraform" | "tofu" | "terragrunt" => infra::terraform(words, risk),
        "kubectl" | "oc" | "k" => infra::kubectl(words, risk),
        "helm" => match sub(words, 0) {
            Some("uninstall" | "delete" | "del" | "un") => risk.add(Level::High, "removes a release from the cluster"),
            Some("upgrade" | "install" | "rollback") => risk.add(Level::Medium, "changes what runs in the cluster"),
            _ => {}
        },
        "docker" | "podman" | "nerdctl" => infra::docker(words, risk),
        "aws" => infra::aws(words, risk),
        "gcloud" | "gsutil" | "az" | "doctl" | "heroku" | "flyctl" | "fly" | "vercel" | "firebase" => infra::cloud(name, words, risk),
        "npm" | "yarn" | "pnpm" | "bun" if !has(words, None, &["dry-run"]) => {
            if matches!(sub(words, 0), Some("publish" | "unpublish" | "deprecate")) {
                risk.add(Level::High, "publishes a package");
            }
        }
        "cargo" | "poetry" | "flit" | "hatch" | "uv" if !has(words, None, &["dry-run"]) => {
            if matches!(sub(words, 0), Some("publish" | "yank" | "owner")) {
                risk.add(Level::High, "publishes a package");
            }
        }
        "twine" | "gem" | "dotnet" | "mvn" | "gradle" | "./gradlew" | "gradlew" => {
            let publish = words.iter().any(|w| matches!(w.as_str(), "upload" | "push" | "deploy" | "publish" | "release:perform"));
            if publish && !(name == "gem" && sub(words, 0) != Some("push")) {
                risk.add(Level::High, "publishes a package");
            }
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => risk.add(Level::High, "shuts down or reboots the machine"),
        "init" | "telinit" if matches!(sub(words, 0), Some("0" | "6")) => risk.add(Level::High, "shuts down or reboots the machine"),
        "systemctl" => match sub(words, 0) {
            Some("poweroff" | "reboot" | "halt" | "kexec") => risk.add(Level::High, "shuts down or reboots the machine"),
            Some("stop" | "disable" | "mask" | "kill") => risk.add(Level::Medium, "stops a system service"),
            _ => {}
        },
        "crontab" if has(words, Some('r'), &[]) => risk.add(Level::High, "removes every scheduled job"),
        "crontab" if words.iter().any(|w| w == "-") || (operands(words).len() == 1 && !has(words, Some('l'), &[])) => {
            risk.add(Level::High, "replaces every scheduled job")
        }
        "dropdb" => {
            let scratch = operands(words).iter().all(|d| d.contains("test") || d.contains("tmp") || d.contains("scratch"));
            risk.add(if scratch { Level::Medium } else { Level::High }, "drops a database");
        }
        "redis-cli" if words.iter().any(|w| matches!(w.to_ascii_uppercase().as_str(), "FLUSHALL" | "FLUSHDB")) => {
            risk.add(Level::High, "deletes every key of a cache or database")
        }
        "mongo" | "mongosh"
            if words.iter().any(|w| w.contains("dropDatabase") || w.contains(".drop()") || w.contains("deleteMany({})")) =>
        {
            risk.add(Level::High, "drops a database")
        }
        "iptables" | "ip6tables" | "nft" | "ufw"
            if has(words, Some('F'), &["flush"]) || words.iter().any(|w| matches!(w.as_str(), "flush" | "disable" | "reset")) =>
        {
            risk.add(Level::High, "removes the firewall's rules");
        }
        "userdel" | "deluser" | "passwd" | "usermod" | "visudo" => risk.add(Level::Medium, "changes user accounts"),
        "kill" | "pkill" | "killall"
            if words.iter().any(|w| w == "-1") && words.iter().any(|w| w == "-9" || w == "-KILL")
                || words.iter().any(|w| w == "1") && name == "kill" =>
        {
            risk.add(Level::High, "kills every process");
        }
        "find" => {
            if words.iter().any(|w| w == "-delete") {
                let root = operands(words).first().is_some_and(|p| files::outside(p, scene).is_some());
                risk.add(if root { Level::High } else { Level::Medium }, "deletes the files it finds");
            }
            if let Some(i) = words.iter().position(|w| w == "-exec" || w == "-execdir") {
                let inner: Vec<String> = words[i + 1..].iter().take_while(|w| *w != ";" && *w != "+" && *w != "\\;").cloned().collect();
                if let Some(n) = inner.first().map(|w| base(w).to_owned()) {
                    judge(&n, &inner, scene, risk, depth + 1);
                }
            }
        }
        "mv" | "cp" | "install" | "tee" | "ln" | "rsync" | "scp" => {
            let ops = operands(words);
            let targets: Vec<&str> = if name == "tee" { ops } else { ops.last().copied().into_iter().collect() };
            for t in targets {
                files::judge_write(t, scene, risk);
            }
            if name == "rsync" && has(words, None, &["delete", "delete-before", "delete-after", "delete-during"]) {
                risk.add(Level::Medium, "deletes files at the destination that the source lacks");
            }
        }
        "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd" | "clickhouse-client" | "cockroach" => {
            for (i, w) in words.iter().enumerate() {
                let inline = matches!(w.as_str(), "-c" | "-e" | "--command" | "--execute" | "-Q" | "--query");
                if inline {
                    if let Some(sql) = words.get(i + 1) {
                        super::sql::judge(sql, risk);
                    }
                } else if let Some(sql) = w.strip_prefix("--command=").or_else(|| w.strip_prefix("--execute=")) {
                    super::sql::judge(sql, risk);
                }
            }
            if name == "sqlite3" {
                if let Some(sql) = operands(words).get(1) {
                    super::sql::judge(sql, risk);
                }
            }
        }
        "eval" => judge_line(&words[1..].join(" "), scene, risk, depth + 1),
        "python" | "python3" if words.get(1).is_some_and(|w| w == "-m") && words.len() > 2 => {
            let inner = &words[2..];
            judge(base(&inner[0]), inner, scene, risk, depth + 1);
        }
        n if is_interpreter(n) => {
            // `sh -c '…'`: the script is a line of its own.
            if let Some(i) =
                words.iter().position(|w| w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c') && w.len() <= 4))
            {
                if matches!(n, "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash") {
                    if let Some(script) = words.get(i + 1) {
                        judge_line(script, scene, risk, depth + 1);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The `n`-th operand after the command name (a subcommand).
pub(super) fn sub(words: &[String], n: usize) -> Option<&str> {
    operands(words).get(n).copied()
}

fn rm(words: &[String], scene: Scene<'_>, risk: &mut Risk) {
    let recursive = has(words, Some('r'), &["recursive"]) || has(words, Some('R'), &[]);
    if has(words, None, &["no-preserve-root"]) {
        risk.add(Level::Critical, "deletes everything, the root directory included");
    }
    for target in operands(words) {
        let var = target
            .strip_prefix('$')
            .is_some_and(|v| !v.starts_with("HOME") && !v.starts_with("{HOME") && !v.starts_with("PWD") && v.contains('/'));
        if recursive && var {
            risk.add(Level::High, "recursive delete of a path built from a variable (empty, it is the root)");
        }
        let how = files::place(target, scene);
        match (recursive, how) {
            (true, files::Place::Root | files::Place::Home | files::Place::System) => {
                risk.add(Level::Critical, "recursive delete of a system or home directory")
            }
            (true, files::Place::Outside) => risk.add(Level::High, "recursive delete outside the working directory"),
            (true, files::Place::Everything) => risk.add(Level::High, "recursive delete of the whole working directory"),
            (false, files::Place::Root | files::Place::Home | files::Place::System) => risk.add(Level::High, "deletes system files"),
            (false, files::Place::Outside) => risk.add(Level::Medium, "deletes files outside the working directory"),
            _ => {}
        }
        if files::is_credential(target) || files::is_vcs_store(target) {
            risk.add(Level::High, "deletes credentials or the repository's history");
        }
    }
}

/// Branches whose history others build on.
pub(super) fn protected(branch: &str) -> bool {
    let b = branch.trim_start_matches('+').trim_start_matches("refs/heads/");
    matches!(b, "main" | "master" | "trunk" | "prod" | "production" | "live" | "stable" | "develop" | "HEAD")
        || b.starts_with("release")
        || b.starts_with("prod/")
        || b.starts_with("production/")
}

fn git(words: &[String], risk: &mut Risk) {
    // `git -C dir push …`: the subcommand after git's own options.
    let mut i = 1;
    while i < words.len() && words[i].starts_with('-') {
        i += if matches!(words[i].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") { 2 } else { 1 };
    }
    let Some(cmd) = words.get(i) else { return };
    let args = &words[i..];
    match cmd.as_str() {
        "push" => {
            let ops = operands(args);
            let refspecs: Vec<&str> = ops.iter().skip(1).copied().collect();
            let dests: Vec<&str> = refspecs.iter().map(|r| r.rsplit(':').next().unwrap_or(r)).collect();
            let forced = has(args, Some('f'), &["force"]) || refspecs.iter().any(|r| r.starts_with('+'));
            let lease = has(args, None, &["force-with-lease", "force-if-includes"]);
            let deleting = has(args, Some('d'), &["delete"]) || refspecs.iter().any(|r| r.starts_with(':'));
            let protected_dest = dests.iter().any(|d| protected(d));
            if has(args, None, &["mirror"]) {
                risk.add(Level::High, "mirror push (overwrites and deletes remote branches)");
            }
            if deleting {
                let what: Vec<&str> = if has(args, Some('d'), &["delete"]) { refspecs.clone() } else { dests.clone() };
                if what.iter().any(|d| protected(d)) {
                    risk.add(Level::High, "deletes a protected branch");
                } else {
                    risk.add(Level::Medium, "deletes a remote branch");
                }
            }
            if forced {
                if protected_dest || dests.is_empty() {
                    risk.add(Level::High, "force push to a protected branch");
                } else {
                    risk.add(Level::Medium, "force push (rewrites a branch's history)");
                }
            } else if lease && (protected_dest || dests.is_empty()) {
                risk.add(Level::High, "force push to a protected branch");
            } else if lease {
                risk.add(Level::Low, "force push with lease to a feature branch");
            }
        }
        // Commits a reset leaves behind stay in the reflog; uncommitted changes do not.
        "reset" if has(args, None, &["hard"]) => risk.add(Level::Medium, "discards uncommitted changes"),
        "clean" if has(args, Some('f'), &["force"]) && has(args, Some('x'), &[]) && !has(args, Some('n'), &["dry-run"]) => {
            risk.add(Level::High, "deletes untracked and ignored files (local configuration and secrets too)")
        }
        "clean" if has(args, Some('f'), &["force"]) && !has(args, Some('n'), &["dry-run"]) => {
            risk.add(Level::Medium, "deletes untracked files")
        }
        "branch" if has(args, Some('D'), &[]) => {
            let level = if operands(args).iter().any(|b| protected(b)) { Level::High } else { Level::Medium };
            risk.add(level, "deletes a branch whatever it holds");
        }
        "filter-branch" | "filter-repo" => risk.add(Level::High, "rewrites the repository's history"),
        "checkout" | "restore" if operands(args).contains(&".") && (cmd == "restore" || args.iter().any(|w| w == "--")) => {
            risk.add(Level::Medium, "discards uncommitted changes")
        }
        "stash" if matches!(operands(args).first(), Some(&"clear" | &"drop")) => risk.add(Level::Medium, "drops stashed changes"),
        "update-ref" if has(args, Some('d'), &[]) => risk.add(Level::Medium, "deletes a reference"),
        "rebase" if operands(args).iter().any(|b| protected(b)) && has(args, Some('i'), &["interactive", "root"]) => {
            risk.add(Level::Medium, "rewrites history")
        }
        _ => {}
    }
}

fn chmod(name: &str, words: &[String], scene: Scene<'_>, risk: &mut Risk) {
    let recursive = has(words, Some('R'), &["recursive"]);
    let ops = operands(words);
    let Some((mode, paths)) = ops.split_first() else { return };
    let open = name == "chmod"
        && (mode.ends_with("777")
            || mode.ends_with("666")
            || mode.contains("o+w")
            || mode.contains("a+w")
            || *mode == "+w"
            || mode.contains("a+rwx"));
    for p in paths {
        let place = files::place(p, scene);
        match place {
            files::Place::Root | files::Place::System | files::Place::Home if recursive => {
                risk.add(Level::Critical, "changes permissions or owners of a whole system or home directory")
            }
            files::Place::Root | files::Place::System | files::Place::Home => {
                risk.add(Level::High, "changes permissions or owners of system files")
            }
            _ => {}
        }
        if open {
            let level = if matches!(place, files::Place::Inside | files::Place::Unknown) { Level::Medium } else { Level::High };
            risk.add(level, "makes files writable by everyone");
        }
        if files::is_credential(p) && name == "chmod" && open {
            risk.add(Level::High, "exposes credentials");
        }
    }
}
