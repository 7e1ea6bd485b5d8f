//! Secrets in a REAL OS keyring (SPEC C7): gnome-keyring's Secret Service in a throwaway D-Bus
//! session, the real binary in fresh processes, `secret-tool` (libsecret) as an independent reader.
//!
//!     scripts/with-keyring cargo test --test keyring
//!
//! Tests that need the keyring skip themselves, saying so on stderr, unless
//! `APPROVAL_CONSOLE_KEYRING_TESTS=1` (which `scripts/with-keyring` sets): a plain `cargo test` must
//! never touch the developer's own keyring nor fail for want of a D-Bus session. Every test uses its
//! own secret names, so they run in parallel on one keyring.

use approval_console::engine::local::model::ApiKey;
use approval_console::secrets::{self, SecretError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_approval-console");

/// True if the keyring tests may run; otherwise says on stderr (uncaptured, so it shows in
/// `cargo test` output) that `test` was skipped and how to run it.
fn keyring_tests_enabled(test: &str) -> bool {
    if std::env::var("APPROVAL_CONSOLE_KEYRING_TESTS").as_deref() == Ok("1") {
        return true;
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED keyring test {test}: needs a real Secret Service; run `scripts/with-keyring cargo test --test keyring`"
    );
    false
}

/// A secret name no other test (or earlier run) uses.
fn unique_name(label: &str) -> String {
    format!("test-{label}-{}", uuid::Uuid::now_v7().simple())
}

/// A recognisable value to search for in outputs and files.
fn unique_value() -> String {
    format!("sk-keyring-test-{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>())
}

/// Runs the real binary with `args`, writing `stdin` (if any) to its standard input. Trace logging is
/// on, so a secret that reached a log line would show in stderr.
fn binary(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("APPROVAL_CONSOLE_LOG", "trace")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start the binary");
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    child.wait_with_output().expect("run the binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the binary exited with `code` and that `secret` is nowhere in its stdout or stderr.
fn assert_exit(output: &Output, code: i32, secret: &str) {
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(code), "stdout: {out}\nstderr: {err}");
    assert!(!out.contains(secret) && !err.contains(secret), "the secret was printed:\nstdout: {out}\nstderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn secret_tool() -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|dir| Path::new(dir).join("secret-tool")).find(|p| p.is_file())
}

#[tokio::test]
async fn a_secret_set_in_process_is_seen_by_a_fresh_process_and_deleted_by_one() {
    if !keyring_tests_enabled("a_secret_set_in_process_is_seen_by_a_fresh_process_and_deleted_by_one") {
        return;
    }
    let (name, value) = (unique_name("lib-set"), unique_value());
    secrets::set(&name, &ApiKey::new(value.clone())).await.unwrap();

    let check = binary(&["secret", "check", &name], None, &[]);
    assert_exit(&check, 0, &value);
    assert_eq!(text(&check.stdout).trim(), format!("secret {name} is in the OS keyring ({} characters)", value.len()));

    assert_exit(&binary(&["secret", "delete", &name], None, &[]), 0, &value);
    let gone = secrets::get(&name).await.unwrap_err();
    assert!(matches!(&gone, SecretError::NotFound { name: n } if *n == name), "{gone:?}");
    let check = binary(&["secret", "check", &name], None, &[]);
    assert_exit(&check, 3, &value);
    assert!(text(&check.stderr).contains(&format!("no secret named {name} in the OS keyring")), "{}", text(&check.stderr));
}

// A multi-threaded runtime too: keyring's blocking calls must never run on a runtime thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_set_by_the_binary_from_stdin_is_read_back_in_process() {
    if !keyring_tests_enabled("a_secret_set_by_the_binary_from_stdin_is_read_back_in_process") {
        return;
    }
    let (name, value) = (unique_name("cli-set"), unique_value());
    let set = binary(&["secret", "set", &name], Some(&format!("{value}\n")), &[]);
    assert_exit(&set, 0, &value);
    assert_eq!(text(&set.stdout).trim(), format!("stored secret {name} in the OS keyring ({} characters)", value.len()));
    assert_eq!(secrets::get(&name).await.unwrap().expose(), value, "the line ending is not part of the secret");

    // Setting again replaces the value (one entry, not two that would make the name ambiguous);
    // a Windows line ending is stripped too.
    let newer = unique_value();
    assert_exit(&binary(&["secret", "set", &name], Some(&format!("{newer}\r\n")), &[]), 0, &newer);
    assert_eq!(secrets::get(&name).await.unwrap().expose(), newer);

    secrets::delete(&name).await.unwrap();
}

#[tokio::test]
async fn secret_tool_finds_the_entry_under_service_and_username_and_we_read_its_entries() {
    if !keyring_tests_enabled("secret_tool_finds_the_entry_under_service_and_username_and_we_read_its_entries") {
        return;
    }
    let Some(secret_tool) = secret_tool() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED secret-tool cross-check: secret-tool is missing (apt-get install libsecret-tools)");
        return;
    };
    // Ours, read by libsecret: keyring 3 stores `service` and `username` attributes (plus `target`).
    let (name, value) = (unique_name("secret-tool"), unique_value());
    secrets::set(&name, &ApiKey::new(value.clone())).await.unwrap();
    let lookup = Command::new(&secret_tool).args(["lookup", "service", secrets::SERVICE, "username", &name]).output().unwrap();
    assert!(lookup.status.success(), "{}", text(&lookup.stderr));
    assert_eq!(text(&lookup.stdout), value);
    secrets::delete(&name).await.unwrap();
    let lookup = Command::new(&secret_tool).args(["lookup", "service", secrets::SERVICE, "username", &name]).output().unwrap();
    assert!(!lookup.status.success() && lookup.stdout.is_empty(), "deleted, yet secret-tool still finds it");

    // Stored by libsecret (no `target` attribute): found by keyring's fallback search.
    let (name, value) = (unique_name("stored-by-secret-tool"), unique_value());
    let mut store = Command::new(&secret_tool)
        .args(["store", "--label=stored by secret-tool", "service", secrets::SERVICE, "username", &name])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    store.stdin.take().unwrap().write_all(value.as_bytes()).unwrap();
    assert!(store.wait().unwrap().success());
    assert_eq!(secrets::get(&name).await.unwrap().expose(), value);
    secrets::delete(&name).await.unwrap();
}

#[tokio::test]
async fn the_value_never_reaches_any_output_error_or_the_database() {
    if !keyring_tests_enabled("the_value_never_reaches_any_output_error_or_the_database") {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap();
    let (name, value) = (unique_name("leak"), unique_value());

    // Every secret command, with the data directory given and trace logging on.
    assert_exit(&binary(&["--data-dir", data_dir, "secret", "set", &name], Some(&format!("{value}\n")), &[]), 0, &value);
    assert_exit(&binary(&["--data-dir", data_dir, "secret", "check", &name], None, &[]), 0, &value);
    // A write makes the database (a read never does), then the queue is read from it.
    assert_exit(&binary(&["--data-dir", data_dir, "tokens", "add", "leak-check", "--role", "viewer"], None, &[]), 0, &value);
    let queue = binary(&["--data-dir", data_dir, "queue"], None, &[]);
    assert_exit(&queue, 0, &value);

    // The database the commands opened (db, WAL, shm): not one byte sequence of the value.
    let mut files = 0;
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            files += 1;
            let bytes = std::fs::read(&path).unwrap();
            assert!(!bytes.windows(value.len()).any(|w| w == value.as_bytes()), "the secret is in {}", path.display());
        }
    }
    assert!(files > 0, "the queue command created no database in {data_dir}");

    // Errors about this secret, Display and Debug alike.
    assert_exit(&binary(&["secret", "delete", &name], None, &[]), 0, &value);
    let errors = [
        secrets::get(&name).await.unwrap_err(),
        secrets::delete(&name).await.unwrap_err(),
        secrets::set(&name, &ApiKey::new("")).await.unwrap_err(),
    ];
    for e in &errors {
        let shown = format!("{e} {e:?}");
        assert!(!shown.contains(&value), "{shown}");
    }
    assert_exit(&binary(&["secret", "check", &name], None, &[]), 3, &value);
    assert_exit(&binary(&["secret", "delete", &name], None, &[]), 3, &value);
}

#[tokio::test]
async fn a_missing_secret_is_not_found_and_says_how_to_store_it() {
    if !keyring_tests_enabled("a_missing_secret_is_not_found_and_says_how_to_store_it") {
        return;
    }
    let name = unique_name("missing");
    let e = secrets::get(&name).await.unwrap_err();
    assert_eq!(e.to_string(), format!("no secret named {name} in the OS keyring: store it with `approval-console secret set {name}`"));
    assert_eq!(e.code(), "secret_not_found");
    assert!(matches!(secrets::delete(&name).await.unwrap_err(), SecretError::NotFound { .. }));
}

#[test]
fn a_locked_keyring_is_reported_as_locked_at_once() {
    if !keyring_tests_enabled("a_locked_keyring_is_reported_as_locked_at_once") {
        return;
    }
    // Its own session and keyring (a nested scripts/with-keyring): locking the shared one would fail
    // the tests running beside this one. No display, so gnome-keyring's unlock prompt cannot show
    // up anywhere and is dismissed.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/with-keyring");
    let lock_then_check = format!(
        "set -e; echo value-before-lock | '{BIN}' secret set locked-test >/dev/null; \
         dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
           org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null; \
         exec '{BIN}' secret check locked-test"
    );
    let output =
        Command::new(script).args(["bash", "-c", &lock_then_check]).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").output().unwrap();
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "unavailable: stdout: {}\nstderr: {err}", text(&output.stdout));
    assert!(err.contains("error [keyring_locked]: the OS keyring is locked or refused access"), "{err}");
    assert!(!err.contains("value-before-lock"), "{err}");
}

// Runs everywhere: no keyring needed to prove the binary fails cleanly without one.
#[test]
fn without_a_session_bus_the_binary_says_the_keyring_is_not_available() {
    let output = binary(&["secret", "check", "openai"], None, &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")]);
    assert_exit(&output, 4, &unique_value());
    let err = text(&output.stderr);
    assert!(
        err.contains("error [keyring_unavailable]: the OS keyring (Secret Service) is not available:")
            && err.contains("start a keyring (e.g. gnome-keyring) in your session"),
        "{err}"
    );
}

#[path = "../support/mastra_server.rs"]
mod mastra_server;

/// C7 for remote engines: a Mastra server's bearer token goes from the operator to the keyring, is
/// read back by fresh processes, and is nowhere else (database, outputs, trace logs).
#[tokio::test]
async fn a_remote_engines_token_lives_in_the_keyring_only() {
    if !keyring_tests_enabled("a_remote_engines_token_lives_in_the_keyring_only") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let right = unique_value();
    let wrong = unique_value();
    let mastra = mastra_server::MastraServer::start(&tmp.path().join("mastra"), Some(&right));
    mastra.generate("ops", "delete rec-key", Some(("t-key", "u-key"))).await;
    let data = tmp.path().join("console");
    let data_dir = data.to_str().unwrap();
    let name = unique_name("engine");

    // Added with a wrong token: stored, and the server refuses it.
    let added = binary(&["--data-dir", data_dir, "engines", "add", &name, &mastra.base, "--token"], Some(&format!("{wrong}\n")), &[]);
    assert_exit(&added, 0, &wrong);
    assert!(text(&added.stdout).contains("token in the OS keyring") && text(&added.stdout).contains("401"), "{}", text(&added.stdout));
    let list = binary(&["--data-dir", data_dir, "engines", "list", "--json"], None, &[]);
    assert_exit(&list, 0, &wrong);
    let listed: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!((listed[0]["hasToken"].as_bool(), listed[0]["health"]["state"].as_str()), (Some(true), Some("auth_failed")), "{listed}");

    // The right token replaces it; a fresh process reads it from the keyring and is let in.
    assert_exit(&binary(&["--data-dir", data_dir, "engines", "edit", &name, "--token"], Some(&format!("{right}\n")), &[]), 0, &right);
    let synced = binary(&["--data-dir", data_dir, "engines", "sync", &name], None, &[]);
    assert_exit(&synced, 0, &right);
    assert!(text(&synced.stdout).contains("1 added"), "{}", text(&synced.stdout));
    // The entry is named after the URL the token was given for (a URL changed elsewhere finds none).
    let entry = approval_console::store::engines::token_ref(&name, &mastra.base);
    assert_eq!(secrets::get(&entry).await.unwrap().expose(), right);
    assert!(matches!(secrets::get(&format!("engine.{name}.token")).await, Err(SecretError::NotFound { .. })), "no unbound entry");
    let queue = binary(&["--data-dir", data_dir, "queue", "--json"], None, &[]);
    assert_exit(&queue, 0, &right);

    // Neither token is in any file of the data directory.
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        for token in [&right, &wrong] {
            assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()), "a token is in {}", path.display());
        }
    }

    // Removing the engine removes its token from the keyring.
    assert_exit(&binary(&["--data-dir", data_dir, "engines", "remove", &name], None, &[]), 0, &right);
    assert!(matches!(secrets::get(&entry).await, Err(SecretError::NotFound { .. })));
}

#[tokio::test]
async fn the_desktop_apps_receipt_key_lives_in_the_keyring_and_is_read_back_from_it() {
    if !keyring_tests_enabled("the_desktop_apps_receipt_key_lives_in_the_keyring_and_is_read_back_from_it") {
        return;
    }
    use approval_console::app::App;
    use approval_console::domain::receipt::Signer;
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    app.keep_receipt_keys_in_keyring();
    let lock = app.recover().await.unwrap();
    let keys = app.receipt_keys().await.unwrap();
    assert_eq!(keys.keys.len(), 1);
    let kid = keys.keys[0].kid.clone();
    // The secret is the keyring's entry, never a file of the data directory.
    let kept = secrets::get(&format!("receipt-key:{kid}")).await.unwrap();
    assert_eq!(Signer::from_secret_text(kept.expose()).unwrap().kid(), kid);
    assert!(!tmp.path().join("receipt-keys").exists());
    for entry in std::fs::read_dir(tmp.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        assert!(!bytes.windows(kept.expose().len()).any(|w| w == kept.expose().as_bytes()), "the key's secret is in a file");
    }
    app.testing().close().await;
    drop(lock);
    drop(app);
    // Started again: the same key, read back from the keyring (no new one made).
    let again = App::open(tmp.path(), vec![]).await.unwrap();
    again.keep_receipt_keys_in_keyring();
    let _lock = again.recover().await.unwrap();
    let keys = again.receipt_keys().await.unwrap();
    assert_eq!(keys.keys.iter().map(|k| k.kid.as_str()).collect::<Vec<_>>(), [kid.as_str()]);
    secrets::delete(&format!("receipt-key:{kid}")).await.unwrap();
}

#[tokio::test]
async fn a_channels_secret_set_for_the_desktop_app_lives_in_its_own_keyring_entry_only() {
    if !keyring_tests_enabled("a_channels_secret_set_for_the_desktop_app_lives_in_its_own_keyring_entry_only") {
        return;
    }
    use approval_console::app::channel_secrets::SecretValue;
    use approval_console::app::App;
    use approval_console::domain::reach::SecretPlace;
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().to_str().unwrap();
    let (name, value) = (format!("ch-{}", uuid::Uuid::now_v7().simple()), unique_value());

    // The CLI with --keyring (as the desktop app keeps them): the entry channel.NAME, no file.
    let set = binary(&["--data-dir", data_dir, "channels", "secret", "set", &name, "--keyring"], Some(&format!("{value}\n")), &[]);
    assert_exit(&set, 0, &value);
    assert!(text(&set.stdout).contains("the OS keyring"), "{}", text(&set.stdout));
    assert_eq!(secrets::get(&format!("channel.{name}")).await.unwrap().expose(), value);
    assert!(!tmp.path().join("channel-secrets").join(&name).exists());
    // The desktop app finds it there: its channel may be saved, and is listed as kept in the keyring.
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    app.keep_channel_secrets_in_keyring();
    let by = app.local_admin::<approval_console::domain::grade::Local>("desktop");
    let settings = serde_json::from_value(
        serde_json::json!({ "channels": [{ "name": name, "kind": "webhook", "person": "ops", "target": "https://hooks.example/a" }] }),
    )
    .unwrap();
    app.save_reach_settings(settings, &by.narrow()).await.unwrap();
    let listed = app.channel_secrets(&by.narrow()).await.unwrap();
    assert_eq!(listed.iter().map(|s| (s.channel.as_str(), s.kept)).collect::<Vec<_>>(), [(name.as_str(), SecretPlace::Keyring)]);
    let cli_list = binary(&["--data-dir", data_dir, "channels", "secret", "list", "--keyring"], None, &[]);
    assert_exit(&cli_list, 0, &value);
    assert!(text(&cli_list.stdout).contains(&name) && text(&cli_list.stdout).contains("the OS keyring"), "{}", text(&cli_list.stdout));
    // Set again, in the desktop app's way (in process): replaced in the keyring.
    let newer = unique_value();
    let set = app.set_channel_secret(&name, SecretValue { value: newer.clone() }, &by).await.unwrap();
    assert_eq!(set.kept, SecretPlace::Keyring);
    assert_eq!(secrets::get(&format!("channel.{name}")).await.unwrap().expose(), newer, "replaced, one entry");
    for entry in walk(tmp.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        for v in [&value, &newer] {
            assert!(!bytes.windows(v.len()).any(|w| w == v.as_bytes()), "the secret is in {}", entry.display());
        }
    }
    let removed = app.remove_channel_secret(&name, &by).await.unwrap();
    assert_eq!(removed.removed_from, [SecretPlace::Keyring]);
    assert!(matches!(secrets::get(&format!("channel.{name}")).await, Err(SecretError::NotFound { .. })));
    app.testing().close().await;
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
