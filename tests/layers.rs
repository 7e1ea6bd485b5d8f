//! The core's layers (ARCHITECTURE.md): `domain`, `secrets` ← `store` ← `engine` ← `config`, `console`
//! ← `notify` ← `app` ← `api`, `hook`, `connector`, `gate`, `logging` ← the CLI (`main`, `cli`). A module may use its own layer and the ones below it, never
//! one above: this test reads every source file and fails on an upward `crate::` path.

use std::path::{Path, PathBuf};

/// A module's layer, by its top-level name under `src/` (`main` is the CLI).
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "domain" | "secrets" => 0,
        "store" => 1,
        "engine" => 2,
        "config" | "console" => 3,
        "notify" => 4,
        "app" => 5,
        "api" | "hook" | "connector" | "gate" | "logging" => 6,
        "main" | "cli" => 7,
        _ => return None,
    })
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    files_ending(dir, &["rs"], out);
}

/// The files under `dir`, at any depth, whose extension is one of `extensions`.
fn files_ending(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_ending(&path, extensions, out);
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
            out.push(path);
        }
    }
}

/// The top-level modules a line of code names with `crate::…` (comments skipped).
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("crate::")
        .filter(|(i, _)| !code[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .map(|(i, m)| code[i + m.len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect()
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    sources(&src, &mut files);
    let mut upward = vec![];
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        if top == "lib" {
            continue;
        }
        let own = layer(&top).unwrap_or_else(|| panic!("src/{} is in no layer: add its module to tests/layers.rs", rel.display()));
        let text = std::fs::read_to_string(file).unwrap();
        let mut in_doc = false;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("///") || trimmed.starts_with("//!") || trimmed.starts_with("//") {
                continue;
            }
            // `/* … */` blocks are not used in this code base; a `#[doc = …]` would be, and is skipped.
            in_doc = in_doc || trimmed.starts_with("#[doc");
            if in_doc {
                in_doc = !trimmed.ends_with(']');
                continue;
            }
            for used in crate_paths(line) {
                checked += 1;
                if let Some(theirs) = layer(&used) {
                    if theirs > own {
                        upward.push(format!("src/{}:{}: {top} uses crate::{used}", rel.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "the walk read the sources ({checked} paths)");
    assert!(upward.is_empty(), "upward uses:\n{}", upward.join("\n"));
}

#[test]
fn the_checker_sees_a_path_in_code_and_not_in_a_comment() {
    assert_eq!(crate_paths("use crate::console::{Console, Events};"), vec!["console"]);
    assert_eq!(crate_paths("    let x = crate::api::random_token(); // crate::app"), vec!["api"]);
    assert!(crate_paths("// see crate::app").is_empty());
    assert!(crate_paths("let s = approval_crate::x;").is_empty());
}

/// `App`'s fields, which stay public for the tests only.
const APP_FIELDS: [&str; 7] = ["db", "events", "local", "console", "remotes", "notifications", "operator"];

/// The places a line of a shell reads one of [`App`]'s fields instead of calling a method.
fn field_uses(line: &str) -> Vec<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = vec![];
    for receiver in ["app.", "core."] {
        for (i, _) in code.match_indices(receiver) {
            if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[i + receiver.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let called = rest[name.len()..].starts_with('(');
            if let Some(field) = APP_FIELDS.iter().find(|f| **f == name) {
                if !called {
                    found.push(*field);
                }
            }
        }
    }
    found
}

/// The shells (HTTP routes, the CLI, the desktop window and tray) use the core through `App`'s
/// methods, which check the role and write the audit: never its database, events or engines.
#[test]
fn shells_use_app_methods_not_its_fields() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("src/main.rs")];
    for dir in ["src/api", "src/cli", "src-tauri/src"] {
        sources(&root.join(dir), &mut files);
    }
    let mut reached = vec![];
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for field in field_uses(line) {
                reached.push(format!("{}:{}: App::{field}", file.strip_prefix(root).unwrap().display(), n + 1));
            }
        }
    }
    assert!(files.len() > 15, "the walk read the shells ({} files)", files.len());
    assert!(reached.is_empty(), "shells reading App's fields (add a method on App instead):\n{}", reached.join("\n"));
}

#[test]
fn the_field_checker_tells_a_field_from_a_method() {
    assert_eq!(field_uses("let rx = state.app.events.subscribe();"), vec!["events"]);
    assert_eq!(field_uses("core.db.pool()"), vec!["db"]);
    assert!(field_uses("state.app.subscribe()").is_empty());
    assert!(field_uses("app.operator()").is_empty());
    assert!(field_uses("// app.db is private").is_empty());
    assert!(field_uses("myapp.db").is_empty());
}

/// Where some names may appear in code (comments aside): each is written in one place.
const ONE_PLACE: &[(&str, &[&str])] = &[
    // Every audit action is named by its details type alone (`domain::audit::Details`, the only
    // way to a `store::audit::Record`): `call.paused` by `store::queue::pause` with `CallPaused`.
    (
        "AuditAction::",
        &[
            "src/domain/audit.rs",
            "src/domain/audit/details.rs",
            "src/domain/audit/devices.rs",
            "src/domain/audit/reach.rs",
            "src/domain/audit/receipts.rs",
            "src/domain/audit/settings.rs",
        ],
    ),
    ("CallPaused::of(", &["src/store/queue.rs", "src/domain/audit.rs"]),
    // A committed write announces itself (`Db::committed`): nothing calls a change announcement.
    ("events.changed()", &[]),
    // A role is checked as the catalog gives it (`domain::authority::admit`), never written again beside it.
    (".require(Role::", &[]),
    (".may(Op::", &[]),
    // One function records decisions: the decision kernel (`console::decide`). The store's writers
    // of decisions and resolutions are called from it alone, and only it makes a grant's approval of
    // a submitted call; a decider named at will exists for the tests' hook alone.
    // The decision is planned (`domain::plan`) and carried out in the store's unit of work by the
    // kernel alone: its writes of decisions and approvals, and the submission a grant approves.
    ("uow.decide(", &["src/console/decide/record.rs"]),
    ("uow.add_approval(", &["src/console/decide/record.rs"]),
    ("uow.use_grant(", &["src/console/decide/record.rs"]),
    ("uow.submit(", &["src/console/decide/mod.rs"]),
    ("submissions::submit_in(", &["src/store/uow.rs"]),
    // The store's named fixtures are for tests and benchmarks: no module of the crate uses them.
    ("store::testing", &[]),
    ("record_run_again(", &["src/console/resolve.rs", "src/store/resolutions.rs"]),
    ("engine.settle(", &["src/console/resolve.rs"]),
    ("Decider::named(", &["src/app/testing.rs"]),
    (".check_who(", &["src/console/decide/mod.rs"]),
    (".check_approver(", &["src/console/decide/mod.rs", "src/console/resolve.rs"]),
    ("StepUps for ", &["src/app/remote/step_up.rs"]),
    // `App::testing()` is for tests and benchmarks: no shell or module of the crate reaches for it.
    (".testing()", &[]),
    // The window's handlers are registered from the catalog, in one place.
    ("generate_handler!", &["src-tauri/src/lib.rs"]),
];

#[test]
fn what_is_written_in_one_place_is_written_nowhere_else() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    sources(&root.join("src-tauri/src"), &mut files);
    let mut wrong = vec![];
    for file in &files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (name, allowed) in ONE_PLACE {
                if code.contains(name) && !allowed.contains(&rel.as_str()) {
                    wrong.push(format!("{rel}:{}: {name}", n + 1));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "written outside its one place:\n{}", wrong.join("\n"));
}

/// Where kinds of engines are told apart (`src/engine/kinds.rs`) and declared (`src/domain/call.rs`).
const REGISTRY: [&str; 2] = ["src/engine/kinds.rs", "src/domain/call.rs"];

/// Whether a line of code tells engine kinds apart: a match arm on a `CallSource`, a comparison
/// with one, a `matches!` on one, or the local engine's `local@` id parsed or written by hand.
fn tells_kinds_apart(line: &str) -> bool {
    // Compiled once: compiling them for each of the sources' lines took most of a minute.
    static ARM: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"CallSource::\w+\)?\s*(=>|\|)").unwrap());
    static COMPARE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[=!]=\s*(crate::domain::)?CallSource::|CallSource::\w+\s*[=!]=").unwrap());
    let code = line.split("//").next().unwrap_or("");
    let (arm, compare) = (&*ARM, &*COMPARE);
    arm.is_match(code)
        || compare.is_match(code)
        || (code.contains("matches!(") && code.contains("CallSource::"))
        || code.contains("\"local@")
}

/// Engine kinds are told apart in the registry only (`engine::kinds`): a match on a kind, a
/// comparison with one or a hand-parsed `local@…` id anywhere else fails here — a new kind is then
/// one registry entry, not a hunt for every place that assumed there were two.
#[test]
fn engine_kinds_are_told_apart_only_in_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    sources(&root.join("src-tauri/src"), &mut files);
    let mut wrong = vec![];
    for file in &files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if REGISTRY.contains(&rel.as_str()) {
            continue;
        }
        for (n, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
            if tells_kinds_apart(line) {
                wrong.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(wrong.is_empty(), "engine kinds told apart outside src/engine/kinds.rs:\n{}", wrong.join("\n"));
}

#[test]
fn the_kind_checker_tells_a_match_from_a_use() {
    assert!(tells_kinds_apart("        CallSource::Langgraph => sql.push_str(x),"));
    assert!(tells_kinds_apart("        Some(CallSource::Local) => {}"));
    assert!(tells_kinds_apart("    if t.kind == CallSource::Langgraph {"));
    assert!(tells_kinds_apart("    matches!(s, CallSource::Mcp | CallSource::Http)"));
    assert!(tells_kinds_apart(r#"    id.starts_with("local@")"#));
    assert!(!tells_kinds_apart("            Agent::ClaudeCode => CallSource::ClaudeCode,"));
    assert!(!tells_kinds_apart("            source: Some(CallSource::Mcp),"));
    assert!(!tells_kinds_apart("    // CallSource::Mastra => once, in a comment"));
}

/// The modules of the remote kinds the registry registers (`remote_kind(&crate::engine::<m>::…)` in
/// `src/engine/kinds.rs`), and `engine::remote` beneath them all: each as its directory or file.
fn remote_kind_modules(root: &Path) -> Vec<PathBuf> {
    static REGISTERED: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"remote_kind\(&crate::engine::(\w+)::").unwrap());
    let registry = std::fs::read_to_string(root.join("src/engine/kinds.rs")).unwrap();
    let mut names: Vec<String> = REGISTERED.captures_iter(&registry).map(|c| c[1].to_owned()).collect();
    names.push("remote".into());
    let engine = root.join("src/engine");
    names.iter().map(|m| if engine.join(m).is_dir() { engine.join(m) } else { engine.join(format!("{m}.rs")) }).collect()
}

/// The lines of a kind's file the rules below read: its code, up to its unit tests (`#[cfg(test)]`
/// at the start of a line: a test module, the end of a file by the house style), comments skipped.
fn product_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().take_while(|(_, l)| !l.starts_with("#[cfg(test)]")).map(|(n, l)| (n + 1, l.split("//").next().unwrap_or("")))
}

/// `file:line: what` for every line of the kinds' code (`modules`, [`product_lines`]) that `finds` says something of.
fn kind_code(root: &Path, modules: &[PathBuf], finds: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut found = vec![];
    for module in modules {
        let mut files = vec![];
        if module.is_dir() {
            sources(module, &mut files);
        } else {
            files.push(module.clone());
        }
        for file in files {
            let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            found.extend(product_lines(&text).filter_map(|(n, code)| finds(code).map(|what| format!("{rel}:{n}: {what}"))));
        }
    }
    found
}

/// What only the console's supervisor does for a remote kind (`console::supervisor`): spawning a
/// task, waiting on a timer (the poll loop, backoff), the engine-holder lease.
fn runs_by_itself(code: &str) -> Option<&'static str> {
    const SUPERVISORS: [(&str, &str); 7] = [
        ("tokio::spawn", "spawns a task"),
        ("spawn_local", "spawns a task"),
        ("thread::spawn", "spawns a thread"),
        ("time::sleep", "sleeps"),
        ("time::interval", "polls on a timer"),
        ("thread::sleep", "sleeps"),
        ("lease", "names the engine-holder lease"),
    ];
    SUPERVISORS.iter().find(|(name, _)| code.contains(name)).map(|(_, what)| *what)
}

/// Issue 46: a remote kind is an adapter (list, re-read, prepare, send, probe). The poll loop, the
/// lease, backoff and take-over are the console's supervisor's, once for every kind: a kind module
/// that spawns its own sync loop, sleeps between tries or names the lease fails here.
#[test]
fn a_remote_kind_spawns_no_loop_sleeps_nowhere_and_holds_no_lease() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = remote_kind_modules(root);
    assert!(modules.len() >= 3 && modules.iter().all(|m| m.exists()), "the registered kinds' modules: {modules:?}");
    let wrong = kind_code(root, &modules, |code| runs_by_itself(code).map(|what| format!("{what}: {}", code.trim())));
    assert!(
        wrong.is_empty(),
        "a remote kind does the supervisor's work (src/console/supervisor.rs does it for every kind):\n{}",
        wrong.join("\n")
    );
}

/// The registry names the kinds it registers; a kind never names the registry (issue 46: the two
/// imported each other). A kind declares itself (`RemoteKind`: its source, label, connect, probe).
#[test]
fn the_registry_names_its_kinds_and_no_kind_names_the_registry() {
    static REGISTRY_PATH: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b(engine|super)::kinds\b").unwrap());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = remote_kind_modules(root);
    assert!(modules.iter().any(|m| m.ends_with("mastra")) && modules.iter().any(|m| m.ends_with("langgraph")), "{modules:?}");
    let wrong = kind_code(root, &modules, |code| REGISTRY_PATH.is_match(code).then(|| code.trim().to_owned()));
    assert!(wrong.is_empty(), "a kind names the registry (src/engine/kinds.rs names the kinds, not the other way):\n{}", wrong.join("\n"));
}

#[test]
fn the_supervisor_checker_sees_spawns_timers_and_leases_in_code_only() {
    assert_eq!(runs_by_itself("        tokio::spawn(async move { this.run().await })"), Some("spawns a task"));
    assert_eq!(runs_by_itself("    _ = tokio::time::sleep(wait) => {}"), Some("sleeps"));
    assert_eq!(runs_by_itself("use tokio::time::interval;"), Some("polls on a timer"));
    assert_eq!(
        runs_by_itself("    let l = crate::store::lease::Lease::try_take(&db, name).await?;"),
        Some("names the engine-holder lease")
    );
    assert_eq!(runs_by_itself("    token: tokio::sync::Mutex<Option<ApiKey>>,"), None);
    let text = "fn a() {} // tokio::spawn in a comment\n#[cfg(test)]\nmod tests { fn b() { tokio::spawn(x); } }\n";
    assert!(product_lines(text).all(|(_, code)| runs_by_itself(code).is_none()), "comments and unit tests are not the kind's code");
}

/// Every route the API serves and every command the window registers is an operation of the catalog
/// (`src/domain/catalog.rs`): a route or a command declared anywhere else fails here. The operations
/// declared in the core (`app::ops`) are routed and dispatched by one generic handler each side; a
/// route with a path that is not written out is the generic one's alone.
#[test]
fn every_route_and_window_command_is_an_operation_of_the_catalog() {
    use approval_console::app::operation::{self, Operation, Visitor};
    use approval_console::domain::Op;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    let route = regex::Regex::new(r#"\.route\(\s*"([^"]+)",\s*((?:[^()]|\([^()]*\))*)\)"#).unwrap();
    let any_route = regex::Regex::new(r"\.route\(\s*([^\s,]+)").unwrap();
    let method = regex::Regex::new(r"\b(get|post|put|patch|delete)\(").unwrap();
    let (mut routes, mut outside) = (0, vec![]);
    for file in &files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        for r in route.captures_iter(&text) {
            for m in method.captures_iter(&r[2]) {
                routes += 1;
                let verb = m[1].to_uppercase();
                if Op::of_route(&verb, &r[1]).is_none() {
                    outside.push(format!("{rel}: {verb} {}", &r[1]));
                }
            }
        }
        for r in any_route.captures_iter(&text) {
            if !r[1].starts_with('"') && rel != "src/api/operations.rs" {
                outside.push(format!("{rel}: a route at {} (not written out)", &r[1]));
            }
        }
    }
    assert!(routes > 15, "the walk found the hand-written routes ({routes})");
    assert!(outside.is_empty(), "routes that are not operations of the catalog:\n{}", outside.join("\n"));

    // The window: the core's operations (dispatched by name) and the commands written in src-tauri.
    struct Declared(Vec<(&'static str, bool)>);
    impl Visitor for Declared {
        fn visit<O: Operation>(&mut self) {
            self.0.push((O::OP.name(), O::OP.info().window));
        }
    }
    let mut core = Declared(vec![]);
    operation::each(&mut core);
    assert!(core.0.len() > 30, "the core declares its operations ({})", core.0.len());
    let commands = std::fs::read_to_string(root.join("src-tauri/src/commands.rs")).unwrap();
    let command = regex::Regex::new(r"#\[tauri::command\]\s*pub\s+(?:async\s+)?fn\s+(\w+)").unwrap();
    let own: Vec<&str> = command.captures_iter(&commands).map(|c| c.get(1).unwrap().as_str()).collect();
    let mut declared: Vec<&str> = core.0.iter().filter(|(_, window)| *window).map(|(name, _)| *name).chain(own.iter().copied()).collect();
    let mut catalog: Vec<&str> = Op::window_commands().collect();
    declared.sort_unstable();
    catalog.sort_unstable();
    assert!(!own.is_empty() && own.iter().all(|name| operation::window(name).is_none()), "a window command is written once: {own:?}");
    assert_eq!(declared, catalog, "the window's commands are the catalog's window operations");
}

/// Authority has one door (issue 44): every route is admitted from the catalog by the HTTP guard
/// (`guard::authorize`, by its matched route, before a body is read), every declared operation by its
/// one wrapper (`operation::call`, the window's `call_window`), and nothing below the shells checks a
/// role: `App`'s methods take a context typed by grade (`Cx<…>`), which only an admission gives, never
/// a bare `Actor`; no code of the core compares roles or kinds of principal to decide what may be
/// done (what a context sees is `Cx::scope`, decided in `domain::authority`).
#[test]
fn every_operation_is_admitted_at_one_door_and_nothing_below_the_shells_checks_a_role() {
    use approval_console::domain::Op;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let guard = read("src/api/guard.rs");
    assert!(guard.contains("Op::of_route(") && guard.contains("authority::admit(op"), "the HTTP guard admits every route by the catalog");
    let wrapper = read("src/app/operation.rs");
    assert!(wrapper.contains("admit(O::OP, by.clone())?"), "the operations' wrapper admits first");
    // Operations without a route are the window's own, run as the local admin in this process.
    for op in Op::ALL.iter().filter(|op| op.info().method.is_none()) {
        assert!(op.info().window, "{}: an operation without a route is the window's", op.name());
    }
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    let actor_param = regex::Regex::new(r"by: &(crate::domain::)?Actor").unwrap();
    let role_check =
        regex::Regex::new(r"\.role\.includes\(|\.role [!=]= |[!=]= (crate::domain::)?Role::|\.kind [!=]= (crate::domain::)?PrincipalKind::|\.kind [!=]= Kind::").unwrap();
    // Where a bare actor is still taken: the wrapper (it admits), the test hook (it admits), the
    // step-up check (a device's proof, for the decision kernel).
    const ACTOR_TAKEN: &[&str] = &["src/app/operation.rs", "src/app/testing.rs", "src/app/remote/step_up.rs"];
    // Where roles and kinds are read: the rule itself, and the shells' authentication (which
    // credential a listener hears, a connection's reserve, an event stream's revocation check).
    const ROLES_READ: &[&str] =
        &["src/domain/authority/mod.rs", "src/domain/authority/cx.rs", "src/domain/principal.rs", "src/console/decide/who.rs"];
    let mut wrong = vec![];
    for file in &files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let in_core =
            ["src/app/", "src/console/", "src/notify/", "src/engine/", "src/store/", "src/domain/"].iter().any(|d| rel.starts_with(d));
        for (n, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if rel.starts_with("src/app/") && actor_param.is_match(code) && !ACTOR_TAKEN.contains(&rel.as_str()) {
                wrong.push(format!("{rel}:{}: an App method takes a bare Actor (take a Cx<grade>): {}", n + 1, line.trim()));
            }
            if in_core && role_check.is_match(code) && !ROLES_READ.contains(&rel.as_str()) {
                wrong.push(format!("{rel}:{}: a role or kind checked outside domain::authority: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(files.len() > 150, "the walk read the sources ({})", files.len());
    assert!(wrong.is_empty(), "authority checked beside its door:\n{}", wrong.join("\n"));
}

/// The most lines a source file may have (the project's rule): a longer one is split into modules.
const MAX_LINES: usize = 500;

/// No source file is longer than [`MAX_LINES`]: Rust under `src/` and `src-tauri/src/`; TypeScript
/// and Svelte under `ui/src/`, tests included, generated files (`*.gen.ts`) aside.
#[test]
fn no_source_file_is_over_500_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    sources(&root.join("src-tauri/src"), &mut files);
    files_ending(&root.join("ui/src"), &["ts", "svelte"], &mut files);
    files.retain(|f| !f.to_string_lossy().ends_with(".gen.ts"));
    let mut long = vec![];
    for file in &files {
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if lines > MAX_LINES {
            long.push(format!("{}: {lines} lines", file.strip_prefix(root).unwrap().display()));
        }
    }
    assert!(files.len() > 200, "the walk read the sources ({} files)", files.len());
    long.sort();
    assert!(long.is_empty(), "files over {MAX_LINES} lines (split them into modules):\n{}", long.join("\n"));
}

/// Whether a line of code names the store's connections or transactions (`Db::pool`,
/// `Db::begin_write`), comments aside.
fn opens_a_connection(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.contains("pool()") || code.contains("::pool(") || code.contains("begin_write(")
}

/// Every line under `dirs` (files whose path from the repository root `skip` says to leave out
/// aside) for which `hit` holds, as `path:line: text`; and how many files were read.
fn lines_where(dirs: &[&str], skip: impl Fn(&str) -> bool, hit: impl Fn(&str) -> bool) -> (usize, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    for dir in dirs {
        sources(&root.join(dir), &mut files);
    }
    let mut wrong = vec![];
    for file in &files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if skip(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if hit(line) {
                wrong.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    (files.len(), wrong)
}

/// Whether a file is the store's own.
fn in_the_store(rel: &str) -> bool {
    rel.starts_with("src/store/") || rel == "src/store.rs"
}

/// The store is the boundary: code above it asks for operations (`outbox::claim`, `runs::suspend`,
/// a unit of work `Db::write` …), never for a connection or a transaction (`Db::pool`,
/// `Db::begin_write`, the store's own), so what one operation writes is one transaction the store
/// owns. Also in the desktop shell, and in the tests and benchmarks, which have the store's named
/// fixtures (`store::testing`) instead.
#[test]
fn code_above_the_store_opens_no_connections() {
    let dirs = ["src", "src-tauri/src", "src-tauri/tests", "tests", "benches"];
    let (read, wrong) = lines_where(&dirs, |rel| in_the_store(rel) || rel == "tests/layers.rs", opens_a_connection);
    assert!(read > 250, "the walk read the sources, tests and benchmarks ({read} files)");
    assert!(
        wrong.is_empty(),
        "ask the store for an operation (or a test for a fixture of store::testing) instead of a connection:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_connection_checker_sees_a_pool_and_a_transaction_in_code_only() {
    assert!(opens_a_connection("let mut tx = db.begin_write().await?;"));
    assert!(opens_a_connection("sqlx::query(q).execute(t.app.testing().db().pool())"));
    assert!(opens_a_connection("let pool = Db::pool(&db);"));
    assert!(!opens_a_connection("// db.pool() is the store's own"));
    assert!(!opens_a_connection("store::testing::crash_while_delivering(db, None)"));
}

/// Whether the text of a file (comments aside) names the decision planner (`domain::plan`), by
/// its path or in a `use crate::domain::{…}` group.
fn names_the_planner(text: &str) -> bool {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ");
    if code.contains("domain::plan") {
        return true;
    }
    code.match_indices("domain::{").any(|(i, m)| {
        let group = &code[i + m.len()..];
        let group = &group[..group.find('}').unwrap_or(group.len())];
        group.split([',', ' ', '\n']).any(|name| name == "plan" || name.starts_with("plan::"))
    })
}

/// The store executes, it does not decide (issue 46): the decision planner's rules (quorum, one
/// person once, who asked, risk, the receipt's terms) are `domain::plan`'s, applied by the
/// decision kernel above the store; no file of the store names them.
#[test]
fn the_store_never_imports_the_decision_planner() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src/store"), &mut files);
    assert!(files.len() > 30, "the walk read the store ({} files)", files.len());
    let wrong: Vec<String> = files
        .iter()
        .filter(|f| names_the_planner(&std::fs::read_to_string(f).unwrap()))
        .map(|f| f.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(wrong.is_empty(), "the store names the decision planner (the kernel plans, the store executes):\n{}", wrong.join("\n"));
}

#[test]
fn the_planner_checker_sees_a_path_and_a_use_group() {
    assert!(names_the_planner("use crate::domain::plan::{self, Plan};"));
    assert!(names_the_planner("use crate::domain::{Approval, plan, Error};"));
    assert!(names_the_planner("let p = crate::domain::plan::plan(&input);"));
    assert!(!names_the_planner("use crate::domain::{Approval, Error}; // domain::plan decides"));
    assert!(!names_the_planner("let planned = store::uow::Uow::decide;"));
}

/// Whether a line of code asks the database whether it is shared (`Db::shared`, a boolean; team
/// mode is the value `Db::topology`).
fn asks_shared(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.contains("db.shared()") || code.contains("db().shared()") || code.contains("Db::shared(")
}

/// Team mode is a value (`store::Topology::Solo | Team`, read once as the database opens), matched
/// above the store: no code above the store asks the database a boolean `shared()`.
#[test]
fn team_mode_is_a_value_not_a_question_asked_above_the_store() {
    let (read, wrong) = lines_where(&["src", "src-tauri/src"], |rel| rel.starts_with("src/store/"), asks_shared);
    assert!(read > 150, "the walk read the sources ({read})");
    assert!(wrong.is_empty(), "team mode asked as a boolean above the store (match on Db::topology):\n{}", wrong.join("\n"));
}

#[test]
fn the_team_checker_sees_a_question_in_code_only() {
    assert!(asks_shared("if self.db.shared() {"));
    assert!(asks_shared("let team = app.console.db().shared();"));
    assert!(!asks_shared("// self.db.shared() was a boolean"));
    assert!(!asks_shared("if self.db.topology() == Topology::Team {"));
}

/// Team mode is a capability of the store (`Db::topology`): no code above the store tells the
/// databases apart by their dialect.
#[test]
fn only_the_store_tells_the_databases_apart() {
    let (read, wrong) = lines_where(&["src", "src-tauri/src"], in_the_store, |line| {
        let code = line.split("//").next().unwrap_or("");
        code.contains("Dialect::") || code.contains(".dialect()")
    });
    assert!(read > 100, "the walk found the sources ({read})");
    assert!(wrong.is_empty(), "the dialect asked above the store (match on Db::topology):\n{}", wrong.join("\n"));
}

/// Whether a line of code reaches the store: a `store::` path or the database handle.
fn reaches_the_store(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.contains("store::") || code.contains(".db.") || code.contains("self.db") || code.contains(".db()")
}

/// One orchestrator (issue 46): the queue's operations — its reads, every decision and resolution an
/// operator makes — are the console's from the typed context down to the store
/// (`console::view`, `console::decide`). `App`'s queue module turns the shell's query into the
/// console's terms and hands it over; it never reaches the store itself, so an approval no longer
/// goes app → console → back to app → store.
#[test]
fn the_queue_operations_go_app_to_console_to_store_and_never_back() {
    let (read, wrong) = lines_where(&["src/app/queue"], |_| false, reaches_the_store);
    let (_, wrong_top) = lines_where(&["src/app"], |rel| rel != "src/app/queue.rs", reaches_the_store);
    assert!(read >= 1, "the walk read app/queue ({read} files)");
    let wrong: Vec<String> = wrong.into_iter().chain(wrong_top).collect();
    assert!(wrong.is_empty(), "the queue's operations reach the store from App (ask the console):\n{}", wrong.join("\n"));
}

#[test]
fn the_store_reach_checker_sees_a_path_and_the_handle_in_code_only() {
    assert!(reaches_the_store("let page = crate::store::queue::page(&self.db, &f, None, 50).await?;"));
    assert!(reaches_the_store("if self.db.topology() == Topology::Team {"));
    assert!(!reaches_the_store("self.console.page(&filter, cursor, limit).await // was store::queue::page"));
}
