//! The smallest Tauri app: one window with a static page. Only a baseline for `cargo bench --bench figures -- desktop`.
fn main() {
    tauri::Builder::default().run(tauri::generate_context!()).expect("running the baseline app");
}
