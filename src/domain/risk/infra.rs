//! Rules for infrastructure and cloud command lines: terraform, kubectl, docker, aws, gcloud, az….

use super::commands::{base, has, judge, operands};
use super::{Level, Risk, Scene};

/// A Go-style long option (`-auto-approve` or `--auto-approve`, perhaps `=value`).
fn go_flag(words: &[String], name: &str) -> bool {
    words.iter().any(|w| w.starts_with('-') && w.trim_start_matches('-').split('=').next() == Some(name))
}

pub(super) fn terraform(words: &[String], risk: &mut Risk) {
    let auto = go_flag(words, "auto-approve") || go_flag(words, "force") || go_flag(words, "terragrunt-non-interactive");
    let ops = operands(words);
    match ops.first().copied() {
        Some("apply") => {
            if go_flag(words, "destroy") {
                risk.add(if auto { Level::Critical } else { Level::High }, "destroys infrastructure");
            } else if auto && ops.len() < 2 {
                risk.add(Level::High, "applies infrastructure changes without a plan");
            } else {
                risk.add(Level::Medium, "applies infrastructure changes");
            }
        }
        Some("destroy") => risk.add(if auto { Level::Critical } else { Level::High }, "destroys infrastructure"),
        Some("run-all") if matches!(ops.get(1).copied(), Some("destroy" | "apply")) => {
            risk.add(if auto { Level::Critical } else { Level::High }, "applies or destroys every module's infrastructure")
        }
        Some("state") if matches!(ops.get(1).copied(), Some("rm" | "push")) => {
            risk.add(Level::High, "removes or overwrites the infrastructure's state")
        }
        Some("state") if matches!(ops.get(1).copied(), Some("mv" | "replace-provider")) => {
            risk.add(Level::Medium, "changes the infrastructure's state")
        }
        Some("import" | "taint" | "untaint" | "force-unlock") => risk.add(Level::Medium, "changes the infrastructure's state"),
        Some("workspace") if ops.get(1) == Some(&"delete") => risk.add(Level::High, "deletes a workspace and its state"),
        _ => {}
    }
}

pub(super) fn kubectl(words: &[String], risk: &mut Risk) {
    // The values of kubectl's options are no operands (`--context prod scale …`).
    let valued = [
        "--context",
        "-n",
        "--namespace",
        "--kubeconfig",
        "--cluster",
        "--user",
        "-l",
        "--selector",
        "-o",
        "--output",
        "-c",
        "--container",
        "-f",
        "--filename",
        "--as",
        "-s",
        "--server",
        "--token",
    ];
    let mut ops: Vec<&str> = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--" {
            break;
        }
        if valued.contains(&w) {
            i += 2;
            continue;
        }
        if !w.starts_with('-') {
            ops.push(w);
        }
        i += 1;
    }
    let everything = has(words, Some('A'), &["all", "all-namespaces"]) || ops.contains(&"all");
    match ops.first().copied() {
        Some("delete") => {
            let kind = ops.get(1).map(|k| k.split('/').next().unwrap_or(k).to_ascii_lowercase());
            let pods = kind.as_deref().is_some_and(|k| matches!(k, "pod" | "pods" | "po" | "job" | "jobs"));
            let broad = everything
                || kind.as_deref().is_some_and(|k| {
                    matches!(
                        k,
                        "namespace"
                            | "namespaces"
                            | "ns"
                            | "node"
                            | "nodes"
                            | "no"
                            | "pv"
                            | "persistentvolume"
                            | "persistentvolumes"
                            | "pvc"
                            | "crd"
                            | "crds"
                            | "customresourcedefinition"
                            | "clusterrole"
                            | "clusterrolebinding"
                    )
                });
            let level = if broad {
                Level::Critical
            } else if pods {
                Level::Medium
            } else {
                Level::High
            };
            risk.add(level, "deletes cluster resources");
        }
        Some("drain") => risk.add(Level::High, "evicts everything from a node"),
        Some("cordon" | "taint") => risk.add(Level::Medium, "changes where the cluster schedules work"),
        Some("scale") if words.iter().any(|w| w == "--replicas=0") || words.windows(2).any(|p| p[0] == "--replicas" && p[1] == "0") => {
            risk.add(Level::High, "scales a workload to zero")
        }
        Some("apply" | "replace" | "patch" | "scale" | "set" | "edit" | "create" | "rollout") => {
            let force = has(words, None, &["force", "prune"]);
            risk.add(if force { Level::High } else { Level::Medium }, "changes what runs in the cluster");
        }
        Some("exec") => {
            risk.add(Level::Medium, "runs a command inside a container");
            if let Some(i) = words.iter().position(|w| w == "--") {
                let inner = &words[i + 1..];
                if let Some(n) = inner.first().map(|w| base(w).to_owned()) {
                    judge(&n, inner, Scene::default(), risk, 1);
                }
            }
        }
        _ => {}
    }
}

pub(super) fn docker(words: &[String], risk: &mut Risk) {
    let ops = operands(words);
    match (ops.first().copied(), ops.get(1).copied()) {
        (Some("system"), Some("prune")) => {
            let wide = has(words, Some('a'), &["all", "volumes"]);
            risk.add(if wide { Level::High } else { Level::Medium }, "deletes containers, images or volumes");
        }
        (Some("volume"), Some("rm" | "prune" | "remove")) => risk.add(Level::High, "deletes container volumes (their data)"),
        (Some("rm" | "rmi"), _) | (Some("container" | "image"), Some("rm" | "prune"))
            if has(words, Some('f'), &["force"]) || has(words, Some('v'), &["volumes"]) =>
        {
            let every = words.iter().any(|w| w.contains("$(…)"));
            risk.add(if every { Level::High } else { Level::Medium }, "deletes containers or images");
        }
        (Some("run" | "create"), _) => {
            let privileged = has(words, None, &["privileged"])
                || words
                    .iter()
                    .any(|w| matches!(w.as_str(), "--pid=host" | "--net=host" | "--network=host" | "--userns=host" | "--ipc=host"))
                || words.windows(2).any(|p| (p[0] == "-v" || p[0] == "--volume" || p[0] == "--mount") && mounts_root(&p[1]))
                || words.iter().any(|w| w.strip_prefix("--volume=").or_else(|| w.strip_prefix("-v=")).is_some_and(mounts_root))
                || words.windows(2).any(|p| p[0] == "--cap-add" && matches!(p[1].as_str(), "ALL" | "SYS_ADMIN"));
            if privileged {
                risk.add(Level::High, "runs a container with the host's privileges");
            }
        }
        (Some("compose"), Some("down")) if has(words, Some('v'), &["volumes"]) => {
            risk.add(Level::High, "deletes container volumes (their data)")
        }
        (Some("push"), _) | (Some("image"), Some("push")) => risk.add(Level::Medium, "publishes an image"),
        _ => {}
    }
}

/// A volume spec that mounts the host's root, `/etc`, the docker socket or a home directory.
fn mounts_root(spec: &str) -> bool {
    let src = spec.split(':').next().unwrap_or(spec);
    let src = src.strip_prefix("type=bind,source=").or_else(|| src.strip_prefix("source=")).unwrap_or(src);
    matches!(
        src,
        "/" | "/etc" | "/root" | "/var/run/docker.sock" | "/run/docker.sock" | "/home" | "~" | "$HOME" | "/proc" | "/sys" | "/dev"
    )
}

pub(super) fn aws(words: &[String], risk: &mut Risk) {
    let ops = operands(words);
    let (service, action) = (ops.first().copied().unwrap_or(""), ops.get(1).copied().unwrap_or(""));
    match (service, action) {
        ("s3", "rb") => risk.add(Level::High, "deletes cloud resources"),
        ("s3", "rm") => {
            let level = if has(words, None, &["recursive"]) { Level::High } else { Level::Medium };
            risk.add(level, "deletes cloud storage objects");
        }
        ("s3", "sync") if has(words, None, &["delete"]) => risk.add(Level::Medium, "deletes cloud storage objects the source lacks"),
        (_, a)
            if a.starts_with("delete-")
                || a.starts_with("terminate-")
                || a.starts_with("deregister-")
                || a.starts_with("remove-")
                || a == "delete" =>
        {
            risk.add(Level::High, "deletes cloud resources")
        }
        ("iam", a)
            if a.starts_with("attach-")
                || a.starts_with("put-")
                || a.starts_with("create-access-key")
                || a.starts_with("update-assume-role") =>
        {
            let admin = words.iter().any(|w| w.contains("AdministratorAccess") || w.contains("IAMFullAccess"));
            risk.add(if admin { Level::High } else { Level::Medium }, "changes cloud permissions")
        }
        _ => {}
    }
}

pub(super) fn cloud(name: &str, words: &[String], risk: &mut Risk) {
    let ops = operands(words);
    let deletes = ops.iter().any(|o| matches!(*o, "delete" | "destroy" | "rb" | "remove" | "purge"))
        || (name == "gsutil" && ops.first().is_some_and(|o| *o == "rm" || *o == "rb"));
    if deletes {
        let whole = ops.iter().any(|o| matches!(*o, "group" | "project" | "projects" | "subscription" | "apps" | "app"));
        risk.add(if whole { Level::Critical } else { Level::High }, "deletes cloud resources");
    }
}
