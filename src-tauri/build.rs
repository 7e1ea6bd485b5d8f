// tauri.conf.json and the capabilities live at the repository root (the layout asks for it).
fn main() {
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    println!("cargo:rerun-if-changed=../capabilities");
    println!("cargo:rerun-if-changed=../ui/dist");
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .capabilities_path_pattern("../capabilities/**/*")
        // Only these commands exist for the window, each allowed by name in capabilities/.
        .app_manifest(tauri_build::AppManifest::new().commands(approval_console_desktop_commands::COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build");
}

mod approval_console_desktop_commands {
    include!("src/command_names.rs");
}
