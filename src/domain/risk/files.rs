//! Where a path points, for rules about deleting and writing files.

use super::{Level, Risk, Scene};

/// Where a path points, seen from the agent's working directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// `/` or everything under it (`/*`).
    Root,
    /// A home directory itself (`~`, `$HOME`, `/home/x`, `/root`) or everything in it.
    Home,
    /// A system directory or file (`/etc`, `/usr`, `/var/lib/…`, …).
    System,
    /// Another place outside the working directory.
    Outside,
    /// The whole working directory (`.`, `*`, `./*`).
    Everything,
    /// Scratch space: `/tmp`, `/var/tmp`, a cache directory (`~/.cache`).
    Scratch,
    /// Inside the working directory.
    Inside,
    /// Relative, with no working directory known: taken as inside.
    Unknown,
}

const SYSTEM: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/boot",
    "/var",
    "/opt",
    "/sys",
    "/proc",
    "/dev",
    "/srv",
    "/snap",
    "/System",
    "/Library",
    "/Applications",
    "/private",
];

/// A path with `~`, `$HOME` and `${HOME}` left as they are, trailing slashes and `/*` removed.
fn trimmed(path: &str) -> &str {
    let mut p = path.trim();
    loop {
        let next = p.strip_suffix("/*").or_else(|| p.strip_suffix("/.")).or_else(|| if p.len() > 1 { p.strip_suffix('/') } else { None });
        match next {
            Some(n) if !n.is_empty() => p = n,
            Some(_) => return "/",
            None => return p,
        }
    }
}

fn home_relative(p: &str) -> Option<&str> {
    ["~", "$HOME", "${HOME}"].iter().find_map(|h| p.strip_prefix(h).filter(|rest| rest.is_empty() || rest.starts_with('/')))
}

/// `path` with `.` and `..` resolved lexically, against `cwd` when relative.
fn absolute(path: &str, cwd: &str) -> String {
    let joined = if path.starts_with('/') { path.to_owned() } else { format!("{cwd}/{path}") };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

pub(super) fn place(path: &str, scene: Scene<'_>) -> Place {
    let p = trimmed(path);
    if p == "/" || p == "/*" || p.is_empty() && path.trim().starts_with('/') {
        return Place::Root;
    }
    if ["/tmp/", "/var/tmp/", "/dev/shm/", "$TMPDIR/", "${TMPDIR}/"].iter().any(|t| p.starts_with(t))
        || p.contains("/.cache/")
        || p.ends_with("/.cache")
    {
        return Place::Scratch;
    }
    if let Some(rest) = home_relative(p) {
        let rest = trimmed(rest.trim_start_matches('/'));
        return if rest.is_empty() || rest == "*" || rest == "/" { Place::Home } else { Place::Outside };
    }
    if scene.dir.is_none() && matches!(p, "." | "*" | "./*" | ".*" | "./") {
        return Place::Everything;
    }
    // The working directory is reported by the call's own source: it makes paths under it the
    // project's only when it is no system directory, home or the root — an agent claiming to work in
    // /etc does not make /etc its own.
    let project = scene.cwd.filter(|c| c.starts_with('/')).map(|c| absolute(c, "/")).filter(|p| may_be_project(p));
    let abs = match scene.dir.or(scene.cwd).filter(|d| d.starts_with('/')) {
        _ if p.starts_with('/') => absolute(p, "/"),
        Some(dir) => absolute(p, &absolute(dir, "/")),
        // No working directory: `..` leaves it, anything else stays in it.
        None => return if p.starts_with("..") { Place::Outside } else { Place::Unknown },
    };
    if let Some(project) = &project {
        if abs == *project {
            return Place::Everything;
        }
        if abs.starts_with(&format!("{project}/")) {
            return Place::Inside;
        }
    }
    if abs == "/" {
        return Place::Root;
    }
    if abs == "/root"
        || abs == "/home"
        || abs.strip_prefix("/home/").is_some_and(|u| !u.contains('/'))
        || abs.strip_prefix("/Users/").is_some_and(|u| !u.contains('/'))
    {
        return Place::Home;
    }
    if SYSTEM.iter().any(|s| abs == *s || abs.starts_with(&format!("{s}/"))) {
        // Scratch space is nobody's system.
        if abs.starts_with("/var/tmp/") || abs.starts_with("/dev/shm/") {
            return Place::Outside;
        }
        return Place::System;
    }
    if abs == "/tmp" || abs.starts_with("/tmp/") {
        return Place::Outside;
    }
    Place::Outside
}

/// Where applications live, under which a working directory (a level down or more) is a project.
const APP_ROOTS: &[&str] = &["/srv/", "/opt/", "/var/www/"];

/// Whether a reported working directory (absolute, resolved) can be a project: not the root, a home
/// or a system directory — except an application's own directory under [`APP_ROOTS`] (`/srv/api`).
fn may_be_project(dir: &str) -> bool {
    match place(dir, Scene::default()) {
        Place::Outside | Place::Scratch => true,
        Place::System => APP_ROOTS.iter().any(|r| dir.strip_prefix(r).is_some_and(|rest| !rest.is_empty())),
        _ => false,
    }
}

/// Where `path` leaves the working directory, if it does.
pub(super) fn outside(path: &str, scene: Scene<'_>) -> Option<Place> {
    match place(path, scene) {
        Place::Inside | Place::Unknown | Place::Everything | Place::Scratch => None,
        p => Some(p),
    }
}

pub(super) fn is_device(path: &str) -> bool {
    let p = path.trim();
    p.starts_with("/dev/")
        && !matches!(
            p,
            "/dev/null"
                | "/dev/zero"
                | "/dev/stdout"
                | "/dev/stderr"
                | "/dev/stdin"
                | "/dev/tty"
                | "/dev/random"
                | "/dev/urandom"
                | "/dev/full"
        )
        && !p.starts_with("/dev/fd/")
        && !p.starts_with("/dev/shm/")
        && !p.starts_with("/dev/pts/")
}

fn name_of(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or(path)
}

/// Keys, tokens and passwords.
pub(super) fn is_credential(path: &str) -> bool {
    let p = path.trim();
    let name = name_of(p);
    p.contains("/.ssh/")
        || p.starts_with(".ssh/")
        || p.ends_with("/.ssh")
        || p.contains(".aws/credentials")
        || p.contains(".aws/config")
        || p.contains("/.gnupg")
        || p.contains(".kube/config")
        || p.contains(".docker/config.json")
        || p.contains(".config/gcloud")
        || p.contains(".azure/")
        || matches!(
            name,
            ".netrc"
                | ".npmrc"
                | ".pypirc"
                | ".pgpass"
                | ".git-credentials"
                | "credentials"
                | "credentials.json"
                | "id_rsa"
                | "id_ed25519"
                | "id_ecdsa"
                | "id_dsa"
                | "authorized_keys"
                | "known_hosts"
                | ".env"
                | "secrets.yaml"
                | "secrets.yml"
                | "secrets.json"
                | "shadow"
                | "sudoers"
        )
        || name.starts_with(".env.") && !name.ends_with(".example") && !name.ends_with(".sample") && !name.ends_with(".template")
        || name.ends_with(".pem")
        || name.ends_with(".key")
        || name.ends_with(".p12")
        || name.ends_with(".pfx")
        || name.ends_with(".keystore")
}

/// Whether a file may hold secrets by its name or place, so that a hook does not read it to show an
/// edit against it (issue 44): every credential path [`is_credential`] knows, and more broadly by
/// name (case aside) — `.env*` (examples too), `id_rsa*`/`id_ed25519*`/`id_ecdsa*`/`id_dsa*`,
/// names holding `credential` or `secret`, keys and keystores (`*.pem`, `*.key`, `*.p12`, `*.pfx`,
/// `*.jks`, `*.keystore`, `*.kdbx`, `*.ppk`, `*.gpg`, `*.asc`), Terraform state and variables, and
/// the dotfiles tools keep tokens in (`.netrc`, `.npmrc`, `.pypirc`, `.pgpass`, `.htpasswd`, …).
pub fn looks_secret(path: &str) -> bool {
    let name = name_of(path.trim()).to_lowercase();
    is_credential(path)
        || name.starts_with(".env")
        || ["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"].iter().any(|k| name.starts_with(k))
        || name.contains("credential")
        || name.contains("secret")
        || [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".gpg", ".asc", ".tfstate", ".tfvars", ".tfstate.backup"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || matches!(
            name.as_str(),
            ".netrc"
                | "_netrc"
                | ".npmrc"
                | ".yarnrc.yml"
                | ".pypirc"
                | ".pgpass"
                | ".my.cnf"
                | ".htpasswd"
                | ".boto"
                | ".s3cfg"
                | ".dockercfg"
                | ".vault-token"
                | ".git-credentials"
                | "shadow"
                | "gshadow"
        )
}

/// The repository's own history.
pub(super) fn is_vcs_store(path: &str) -> bool {
    let p = trimmed(path);
    p == ".git" || p.ends_with("/.git")
}

/// Configuration a CI system runs with the repository's secrets.
fn is_ci(path: &str) -> bool {
    let p = path.trim();
    let name = name_of(p);
    p.contains(".github/workflows/")
        || p.contains(".github/actions/")
        || p.contains(".circleci/")
        || p.contains(".buildkite/")
        || p.contains(".gitlab/ci")
        || matches!(
            name,
            ".gitlab-ci.yml"
                | "Jenkinsfile"
                | "azure-pipelines.yml"
                | ".travis.yml"
                | "bitbucket-pipelines.yml"
                | "cloudbuild.yaml"
                | "cloudbuild.yml"
                | ".drone.yml"
                | "buildspec.yml"
        )
}

/// What runs on its own later: shell profiles, git hooks, scheduled jobs, autostart.
fn runs_later(path: &str) -> bool {
    let p = path.trim();
    let name = name_of(p);
    matches!(
        name,
        ".bashrc"
            | ".bash_profile"
            | ".bash_login"
            | ".profile"
            | ".zshrc"
            | ".zprofile"
            | ".zshenv"
            | ".zlogin"
            | "config.fish"
            | ".gitconfig"
            | ".vimrc"
            | ".inputrc"
            | ".xinitrc"
            | ".xprofile"
    ) || p.contains(".git/hooks/")
        || p.contains("/.husky/")
        || p.starts_with(".husky/")
        || p.starts_with("/etc/cron")
        || p.starts_with("/var/spool/cron")
        || p.contains(".config/autostart")
        || p.contains("systemd/")
        || p.contains("LaunchAgents")
        || p.contains("LaunchDaemons")
}

/// A file written (by a writing tool, `tee`, `cp`/`mv` onto it).
pub(super) fn judge_write(path: &str, scene: Scene<'_>, risk: &mut Risk) {
    if path.trim().is_empty() || matches!(path.trim(), "/dev/null" | "/dev/stdout" | "/dev/stderr") {
        return;
    }
    if is_device(path) {
        risk.add(Level::Critical, "writes a raw disk device");
        return;
    }
    if is_credential(path) {
        risk.add(Level::High, "writes credentials");
    }
    if is_ci(path) {
        risk.add(Level::High, "changes CI configuration (it runs with the repository's secrets)");
    }
    if runs_later(path) {
        risk.add(Level::High, "changes a shell profile, git hook or scheduled job (it runs on its own later)");
    }
    match place(path, scene) {
        Place::Root | Place::System => risk.add(Level::High, "writes a system file"),
        Place::Home | Place::Outside if !path.trim().starts_with("/tmp/") && !path.trim().starts_with("/var/tmp/") => {
            risk.add(Level::Medium, "writes outside the working directory")
        }
        _ => {}
    }
}
