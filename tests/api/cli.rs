//! The CLI works the queue on the data directory: it shows what it decides, asks, and binds the
//! decision to the fingerprint it showed.

use crate::helpers::*;
use std::process::{Command, Stdio};

#[tokio::test]
async fn cli_lists_the_queue_and_approves_with_yes_showing_the_fingerprint() {
    let t = spawn_app().await;
    t.generate("delete rec-\u{202E}gnp.exe").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let (dir, tmp, _) = t.stop().await;

    let listed = cli(&dir, &["queue"]);
    assert!(listed.status.success(), "{}", text_of(&listed));
    let out = text_of(&listed);
    assert!(out.contains(id) && out.contains("delete_record"), "{out}");
    assert!(out.contains("\\u{202E}") && !out.contains('\u{202E}'), "a bidi override is shown escaped: {out}");

    let approved = cli(&dir, &["approve", id, "--yes"]);
    assert!(approved.status.success(), "{}", text_of(&approved));
    let out = text_of(&approved);
    assert!(out.contains(item["fingerprint"].as_str().unwrap()), "the full fingerprint is shown: {out}");
    assert!(out.contains("deleted"), "the outcome is shown: {out}");

    let again = cli(&dir, &["approve", id, "--yes"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text_of(&again).contains("already_decided"), "{}", text_of(&again));
    let empty = text_of(&cli(&dir, &["queue"]));
    assert!(empty.contains("No call is waiting. Database: "), "it names the database it read: {empty}");
    assert!(on_postgres() || empty.contains(&dir.display().to_string()), "the SQLite file in the data directory: {empty}");
    drop(tmp);
}

#[tokio::test]
async fn cli_without_a_terminal_and_without_yes_decides_nothing() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (dir, tmp, counters) = t.stop().await;
    let refused = cli(&dir, &["decline", item["id"].as_str().unwrap(), "--reason", "no"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text_of(&refused).contains("--yes"), "{}", text_of(&refused));
    let t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    assert_eq!(t.pending().await.len(), 1);
    drop(tmp);
}

#[tokio::test]
async fn cli_resume_checks_the_data_against_the_schema() {
    let t = spawn_app().await;
    t.generate("ask which region?").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap().to_owned();
    let (dir, tmp, _) = t.stop().await;
    let bad = cli(&dir, &["resume", &id, "--data", r#"{"answer": 3}"#, "--yes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text_of(&bad).contains("invalid_resume_data") && text_of(&bad).contains("/answer"), "{}", text_of(&bad));
    let good = cli(&dir, &["resume", &id, "--data", r#"{"answer": "eu-west"}"#, "--yes"]);
    assert!(good.status.success(), "{}", text_of(&good));
    assert!(text_of(&good).contains("eu-west"));
    drop(tmp);
}

#[tokio::test]
async fn a_decision_made_by_the_cli_while_serve_runs_reaches_the_event_stream() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let r = t.http.get(format!("{}/api/events", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    read_until(&mut stream, &mut text, "event: ready").await;

    let dir = t.dir.clone();
    let id_owned = id.to_owned();
    let out = tokio::task::spawn_blocking(move || cli(&dir, &["approve", &id_owned, "--yes"])).await.unwrap();
    assert!(out.status.success(), "{}", text_of(&out));
    read_until(&mut stream, &mut text, &format!(r#"{{"type":"updated","id":"{id}"}}"#)).await;
    assert_eq!(t.item(id).await["state"], "delivered");
}

#[test]
fn agents_toml_in_the_data_dir_defines_the_local_agents_and_a_bad_one_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("agents.toml"),
        "[[agents]]\nid = \"ops\"\ntools = [\"lookup_record\"]\n[agents.approval]\ntools = { lookup_record = true }\n",
    )
    .unwrap();
    let ok = cli(tmp.path(), &["agents"]);
    assert!(ok.status.success(), "{}", text_of(&ok));
    let out = text_of(&ok);
    assert!(out.contains("ops") && out.contains("lookup_record") && out.contains("requires approval"), "{out}");

    std::fs::write(tmp.path().join("agents.toml"), "[[agents]]\nid = \"ops\"\ntools = [\n  \"lookup_recrod\"]\n").unwrap();
    let bad = cli(tmp.path(), &["agents"]);
    assert_eq!(bad.status.code(), Some(2));
    let out = text_of(&bad);
    assert!(out.contains("agents.toml:4:3: agents[0].tools[0]: unknown tool \"lookup_recrod\""), "{out}");

    let elsewhere = tmp.path().join("other.toml");
    std::fs::write(&elsewhere, "[[agents]]\nid = \"x\"\n").unwrap();
    let ok = cli(tmp.path(), &["agents", "--agents", elsewhere.to_str().unwrap()]);
    assert!(ok.status.success(), "--agents overrides the file in the data dir: {}", text_of(&ok));
    // Commands that run no agent do not read the file, so a broken one does not lock the queue away
    // (a write makes the database first: a read never does).
    let made = cli(tmp.path(), &["tokens", "add", "probe", "--role", "viewer"]);
    assert!(made.status.success(), "{}", text_of(&made));
    let listed = cli(tmp.path(), &["queue"]);
    assert!(listed.status.success(), "{}", text_of(&listed));
    let refused = cli(tmp.path(), &["approve", "q_none", "--yes"]);
    assert!(text_of(&refused).contains("agents.toml:4:3"), "deciding runs tools, so it needs valid agents: {}", text_of(&refused));
}

#[tokio::test]
async fn serve_lists_the_agents_of_agents_toml() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("agents.toml"), "[[agents]]\nid = \"ops\"\nname = \"Ops\"\ntools = [\"delete_record\"]\n").unwrap();
    let server = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let agents: serde_json::Value =
        reqwest::Client::new().get(format!("{}/api/agents", server.base)).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    drop(server);
    assert_eq!(agents.as_object().unwrap().keys().collect::<Vec<_>>(), ["ops"], "{agents}");
    assert_eq!(agents["ops"]["name"], "Ops");
    assert_eq!(agents["ops"]["tools"]["delete_record"]["requireApproval"], true);
    assert!(agents["ops"]["tools"]["ask_operator"].is_object(), "ask_operator is available to every agent");
}

#[tokio::test]
async fn c05_a_second_serve_on_the_same_data_directory_is_refused_and_the_first_keeps_serving() {
    // Both would recover at start, each taking the other's in-flight deliveries and runs for
    // interrupted ones and running them again: only one process may serve a data directory.
    let tmp = tempfile::tempdir().unwrap();
    let first = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let second = cli(tmp.path(), &["serve", "--port", "0", "--token", TOKEN]);
    assert!(!second.status.success(), "{}", text_of(&second));
    let said = text_of(&second);
    assert!(said.contains("already serving") && said.contains(&format!("pid {}", first.child.id())), "{said}");
    assert_eq!(first.get("/api/health").await["status"], "ok", "the first server is untouched");
    drop(first);
    // Its lock goes with the process (also on kill -9: ServeProcess kills its child).
    let third = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    assert_eq!(third.get("/api/health").await["status"], "ok");
}

#[tokio::test]
async fn tokens_add_prints_the_token_alone_on_the_last_line_and_list_never_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    test_database(dir).await;
    let made = cli(dir, &["tokens", "add", "ci-bot", "--role", "agent"]);
    assert!(made.status.success(), "{}", text_of(&made));
    let stdout = String::from_utf8_lossy(&made.stdout).to_string();
    let token = stdout.lines().last().unwrap().to_owned();
    assert!(token.starts_with("ac_") && token.len() == 67 && !token.contains(' '), "{stdout}");
    assert!(cli(dir, &["tokens", "add", "a-much-longer-credential-name", "--role", "operator"]).status.success());
    let listed = text_of(&cli(dir, &["tokens", "list"]));
    assert!(listed.contains("ci-bot") && listed.contains("agent") && !listed.contains(&token[3..]), "{listed}");
    // The columns line up whatever the names' lengths: each column starts where its heading does.
    let lines: Vec<&str> = listed.lines().collect();
    for heading in ["ROLE", "PERSON", "CREATED", "LAST USED", "CLAIMS"] {
        let at = lines[0].find(heading).unwrap();
        for row in &lines[1..] {
            assert!(row[..at].ends_with("  ") && !row[at..].starts_with(' '), "{heading} misaligned:\n{listed}");
        }
    }
    let json: serde_json::Value = serde_json::from_slice(&cli(dir, &["tokens", "list", "--json"]).stdout).unwrap();
    assert!(json.as_array().unwrap().iter().any(|c| c["name"] == "ci-bot"), "{json}");
    assert!(!json.to_string().contains(&token[3..]));
    assert_eq!(cli(dir, &["tokens", "add", "ci-bot", "--role", "agent"]).status.code(), Some(2), "a live name is not reused");
    assert_eq!(cli(dir, &["tokens", "add", "x", "--role", "root"]).status.code(), Some(2));

    let t = TestApp::builder().dir(dir).spawn().await;
    let (status, _) = t
        .call_as(&token, reqwest::Method::POST, "/api/agents/demo/generate", Some(serde_json::json!({ "messages": "delete rec-1" })))
        .await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let (status, _) = t.call_as(&token, reqwest::Method::GET, "/api/queue", None).await;
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN);
    // Revoked by the CLI while `serve` runs: refused at once.
    let revoked = cli(dir, &["tokens", "revoke", "ci-bot"]);
    assert!(revoked.status.success(), "{}", text_of(&revoked));
    let (status, _) = t.call_as(&token, reqwest::Method::GET, "/api/agents", None).await;
    assert_eq!(status, reqwest::StatusCode::UNAUTHORIZED);
    assert_eq!(cli(dir, &["tokens", "revoke", "ci-bot"]).status.code(), Some(3), "revoked already: not found (exit code 3)");
    drop(t);
}

#[tokio::test]
async fn the_data_directory_is_made_owner_only_and_the_database_lock_and_settings_signal_files_0600() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fresh");
    let served = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &dir, TOKEN);
    served.post("/api/agents/demo/generate", serde_json::json!({ "messages": "delete rec-1" })).await;
    // A change of the settings (here by the CLI beside the server) writes the settings signal file.
    assert!(cli(&dir, &["policy", "quorum", "delete_record", "2"]).status.success());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    for file in ["approval-console.db", "approval-console.db-wal", "approval-console.db-shm", "approval-console.db-settings", "serve.lock"]
    {
        assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
    }
}

#[tokio::test]
async fn serve_refuses_a_data_directory_or_an_agents_file_another_user_could_write() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shared");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let refused = cli(&dir, &["serve", "--port", "0"]);
    assert_eq!(refused.status.code(), Some(2));
    let said = text_of(&refused);
    assert!(said.contains("unsafe_permissions") && said.contains(&dir.display().to_string()), "{said}");
    assert!(!dir.join("approval-console.db").exists(), "nothing was created in it");

    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let agents = dir.join("agents.toml");
    std::fs::write(&agents, "[[agents]]\nid = \"a\"\nname = \"A\"\ninstructions = \"x\"\n[agents.model]\nprovider = \"demo\"\n").unwrap();
    std::fs::set_permissions(&agents, std::fs::Permissions::from_mode(0o666)).unwrap();
    for args in [&["serve", "--port", "0"][..], &["agents"][..]] {
        let refused = cli(&dir, args);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        let said = text_of(&refused);
        assert!(said.contains("agents.toml") && said.contains("another user"), "{args:?}: {said}");
    }
}

#[tokio::test]
async fn the_lock_file_is_never_opened_through_a_symlink() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let target = tmp.path().join("victim");
    std::os::unix::fs::symlink(&target, dir.join("serve.lock")).unwrap();
    let refused = cli(&dir, &["serve", "--port", "0"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text_of(&refused).contains("symbolic link"), "{}", text_of(&refused));
    assert!(!target.exists(), "nothing was written through the link");
}

#[tokio::test]
async fn a_missing_agents_file_named_on_the_command_line_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope.toml");
    for args in
        [&["serve", "--port", "0", "--agents", missing.to_str().unwrap()][..], &["agents", "--agents", missing.to_str().unwrap()][..]]
    {
        let out = cli(tmp.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text_of(&out).contains(&format!("--agents {}: no such file", missing.display())), "{}", text_of(&out));
    }
    // Without --agents, a missing agents.toml is the demo agent, as before.
    let demo = cli(tmp.path(), &["agents"]);
    assert!(demo.status.success() && text_of(&demo).contains("the demo agent runs"), "{}", text_of(&demo));
}

#[tokio::test]
async fn output_cut_short_by_a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", tmp.path().to_str().unwrap(), "openapi"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap(); // the reader is dropped: the pipe closes
    let out = child.wait_with_output().unwrap();
    assert_eq!(first.trim(), "{");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && out.status.code() != Some(101), "status {:?}: {err}", out.status);
}

#[tokio::test]
async fn every_option_and_argument_of_every_command_has_a_description() {
    let tmp = tempfile::tempdir().unwrap();
    let top = text_of(&cli(tmp.path(), &["--help"]));
    let mut commands: Vec<Vec<String>> = vec![vec![]];
    let mut undescribed = vec![];
    while let Some(path) = commands.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let help = text_of(&cli(tmp.path(), &args));
        let mut section = "";
        for line in help.lines() {
            if !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            // An entry: a command at two spaces, an option or argument starting with `-`, `<` or `[`;
            // deeper lines continue the description above.
            let entry = match section {
                "Commands:" => indent == 2,
                _ => indent <= 6 && trimmed.starts_with(['-', '<', '[']),
            };
            if !entry {
                continue;
            }
            let (name, description) = trimmed.split_once("  ").map(|(n, d)| (n, d.trim())).unwrap_or((trimmed, ""));
            match section {
                "Commands:" if name != "help" => {
                    let mut sub = path.clone();
                    sub.push(name.to_owned());
                    commands.push(sub);
                    if description.is_empty() {
                        undescribed.push(format!("{} {name}", path.join(" ")));
                    }
                }
                "Options:" | "Arguments:" if description.is_empty() => undescribed.push(format!("{}: {name}", path.join(" "))),
                _ => {}
            }
        }
    }
    assert!(top.contains("Exit codes:"), "{top}");
    assert!(undescribed.is_empty(), "without a description: {undescribed:#?}");
}

#[tokio::test]
async fn a_unique_start_of_an_id_is_enough_and_an_ambiguous_one_lists_the_candidates() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    t.generate("delete rec-2").await;
    let items = t.pending().await;
    let (a, b) = (items[0]["id"].as_str().unwrap().to_owned(), items[1]["id"].as_str().unwrap().to_owned());
    let (dir, tmp, _) = t.stop().await;
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let unique = &a[..common + 1];
    let shown = cli(&dir, &["show", unique]);
    assert!(shown.status.success(), "{}", text_of(&shown));
    assert!(text_of(&shown).contains(&a));
    let ambiguous = cli(&dir, &["show", &a[..common]]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert!(text_of(&ambiguous).contains(&a) && text_of(&ambiguous).contains(&b), "{}", text_of(&ambiguous));
    let none = cli(&dir, &["approve", "q_zzz", "--yes"]);
    assert_eq!(none.status.code(), Some(3), "not found: {}", text_of(&none));
    let declined = cli(&dir, &["decline", unique, "--reason", "no", "--yes"]);
    assert!(declined.status.success(), "{}", text_of(&declined));
    assert!(text_of(&declined).contains("state delivered"), "lower case, as the API spells it: {}", text_of(&declined));
    let all = text_of(&cli(&dir, &["queue", "--all"]));
    assert!(all.contains("declined by ") && all.contains("(cli), delivered"), "{all}");
    drop(tmp);
}

#[tokio::test]
async fn serve_token_file_takes_the_files_token_and_a_file_others_may_read_stops_the_start() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("session.token");
    let token = "tok-from-a-file-7d31a9c4e2f8b6051d7e3a9c4f2b8e60";
    std::fs::write(&file, format!("{token}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let served = ServeProcess::start_args(
        env!("CARGO_BIN_EXE_approval-console"),
        &tmp.path().join("data"),
        token,
        &["--token-file", file.to_str().unwrap()],
    );
    let http = reqwest::Client::new();
    let session = |bearer: &'static str| http.get(format!("{}/api/session", served.base)).bearer_auth(bearer).send();
    let ok = session(token).await.unwrap();
    assert_eq!(ok.status(), reqwest::StatusCode::OK, "the file's token, without its newline");
    assert_eq!(ok.json::<serde_json::Value>().await.unwrap()["role"], "admin");
    for other in [TOKEN, "tok-from-a-file-7d31a9c4e2f8b6051d7e3a9c4f2b8e60x", "tok-from-a-file-7d31a9c4e2f8b6051d7e3a9c4f2b8e6"] {
        assert_eq!(session(other).await.unwrap().status(), reqwest::StatusCode::UNAUTHORIZED, "{other:?}");
    }
    drop(served);

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let fresh = tmp.path().join("fresh");
    let refused = cli(&fresh, &["serve", "--port", "0", "--token-file", file.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2), "{}", text_of(&refused));
    let said = text_of(&refused);
    assert!(said.contains("unsafe_permissions") && said.contains("its mode is 0644"), "{said}");
    assert!(said.contains(&format!("chmod 600 {}", file.display())), "says what to run: {said}");
    assert!(!said.contains(token), "never the token: {said}");
    assert!(!fresh.exists(), "refused before the data directory is made");

    let by_env = Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", fresh.to_str().unwrap(), "serve", "--port", "0"])
        .env("APPROVAL_CONSOLE_TOKEN_FILE", &file)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(by_env.status.code(), Some(2), "{}", text_of(&by_env));
    assert!(text_of(&by_env).contains("its mode is 0644"), "APPROVAL_CONSOLE_TOKEN_FILE is read the same: {}", text_of(&by_env));

    let both = cli(&fresh, &["serve", "--port", "0", "--token", TOKEN, "--token-file", file.to_str().unwrap()]);
    assert_eq!(both.status.code(), Some(2));
    assert!(text_of(&both).contains("cannot be used with"), "{}", text_of(&both));
}

/// `engines add` checks the server first: a URL that does not answer, or answers as something else,
/// adds nothing and says why (issue 25: it used to wait 30 s in silence, then add it); `--no-check`
/// adds it anyway.
#[tokio::test]
async fn engines_add_refuses_a_server_that_does_not_answer_unless_no_check() {
    let dir = tempfile::tempdir().unwrap();
    // Accepts connections and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    // Answers every request with 404: a web server, not a Mastra one.
    let app = axum::Router::new().fallback(|| async { (axum::http::StatusCode::NOT_FOUND, "<html>no such page</html>") });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let web_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let d = dir.path().to_owned();
    let add = |args: Vec<String>| {
        let d = d.clone();
        tokio::task::spawn_blocking(move || cli(&d, &args.iter().map(String::as_str).collect::<Vec<_>>()))
    };
    let out = add(vec!["engines".into(), "add".into(), "quiet".into(), silent_url.clone()]).await.unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text_of(&out));
    assert!(text_of(&out).contains("did not answer within 10 s") && text_of(&out).contains("--no-check"), "{}", text_of(&out));
    let out = add(vec!["engines".into(), "add".into(), "web".into(), web_url.clone()]).await.unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text_of(&out));
    assert!(text_of(&out).contains("error [engine_error]") && text_of(&out).contains("not as a mastra server"), "{}", text_of(&out));
    let listed = cli(dir.path(), &["engines", "list"]);
    assert!(text_of(&listed).contains("No remote engines"), "nothing was added: {}", text_of(&listed));

    let out = add(vec!["engines".into(), "add".into(), "web".into(), web_url, "--no-check".into()]).await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out));
    assert!(text_of(&out).contains("added mastra engine web") && text_of(&out).contains("not synced yet"), "{}", text_of(&out));
    drop(silent);
}

/// A session token makes its holder the local admin: one given with fewer than 128 bits (by its
/// length and characters) or an obvious one stops `serve` however it is given — `--token`,
/// `APPROVAL_CONSOLE_TOKEN`, `--token-file` — saying how to make one, never printing it; a random
/// 64-hex-digit one serves.
#[tokio::test]
async fn serve_refuses_a_short_or_obvious_session_token_however_given_and_serves_a_random_one() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // `serve` with these arguments and variables must stop by itself, refusing `token`; one that
    // serves instead is killed at the deadline and fails the test.
    let refused = |args: &[&str], vars: &[(&str, &str)], token: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .args(["--data-dir", data.to_str().unwrap(), "serve", "--port", "0"])
            .args(args)
            .envs(serve_process::database_env(&data))
            .env_remove("APPROVAL_CONSOLE_TOKEN")
            .envs(vars.iter().copied())
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("serve started with the session token {token:?}: {}", text_of(&child.wait_with_output().unwrap()));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let said = text_of(&out);
        assert_eq!(out.status.code(), Some(2), "{token:?}: {said}");
        assert!(said.contains("too weak") && said.contains("openssl rand -hex 32"), "{token:?}: {said}");
        assert!(token.len() < 4 || !said.contains(token), "{token:?}: {said}");
    };
    for token in ["x", "0123456789abcdef", "console-admin-16", &"ab".repeat(20)] {
        refused(&["--token", token], &[], token);
    }
    refused(&[], &[("APPROVAL_CONSOLE_TOKEN", "my-session-token")], "my-session-token");
    let file = tmp.path().join("session.token");
    std::fs::write(&file, "0123456789abcdef\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    refused(&["--token-file", file.to_str().unwrap()], &[], "0123456789abcdef");

    let strong = approval_console::secrets::random_token();
    assert_eq!(strong.len(), 64);
    let served = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &data, &strong);
    let session = served.get("/api/session").await;
    assert_eq!(session["role"].as_str(), Some("admin"), "{session}");
}
