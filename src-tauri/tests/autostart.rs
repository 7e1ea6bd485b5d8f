//! Start at login (issue 5 item 6): the commands write and remove the XDG autostart entry. A test
//! binary of its own, because it points HOME at a temporary directory for the whole process.

use approval_console::app::App;
use serde_json::json;
use tauri::test::mock_builder;
use tauri::WebviewWindowBuilder;

#[path = "support/ipc.rs"]
mod ipc;
use ipc::invoke;

#[test]
fn autostart_writes_and_removes_the_xdg_autostart_entry() {
    let home = tempfile::tempdir().unwrap();
    // The only test in this binary: no other thread reads the environment meanwhile.
    unsafe {
        std::env::set_var("HOME", home.path());
        std::env::remove_var("XDG_CONFIG_HOME");
    }
    let data = tempfile::tempdir().unwrap();
    let core = tauri::async_runtime::block_on(App::open(data.path(), vec![])).unwrap();
    let app =
        approval_console_desktop::build(mock_builder(), core, |_| Ok(())).build(tauri::generate_context!("../tauri.conf.json")).unwrap();
    let webview = WebviewWindowBuilder::new(&app, approval_console_desktop::MAIN_WINDOW, Default::default()).build().unwrap();
    let autostart_dir = home.path().join(".config/autostart");
    let entries = || std::fs::read_dir(&autostart_dir).map(|d| d.count()).unwrap_or(0);

    assert_eq!(invoke(&webview, "autostart", json!({})).unwrap(), json!(false));
    assert_eq!(invoke(&webview, "set_autostart", json!({ "enabled": true })).unwrap(), json!(true));
    assert_eq!(invoke(&webview, "autostart", json!({})).unwrap(), json!(true));
    assert_eq!(entries(), 1, "one autostart entry");
    let entry = std::fs::read_dir(&autostart_dir).unwrap().next().unwrap().unwrap().path();
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.contains("[Desktop Entry]") && text.contains("Exec="), "{text}");

    assert_eq!(invoke(&webview, "set_autostart", json!({ "enabled": false })).unwrap(), json!(false));
    assert_eq!(invoke(&webview, "autostart", json!({})).unwrap(), json!(false));
    assert_eq!(entries(), 0, "the entry is removed");
}
