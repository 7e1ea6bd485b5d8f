//! Points the embedded web UI at `ui/dist` when it was built (`npm run build` in `ui/`), else at a
//! placeholder page that says how to build it, so the core builds and tests without Node.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let dist = root.join("ui/dist");
    println!("cargo:rerun-if-changed=ui/dist");
    println!("cargo:rerun-if-changed=migrations");
    let dir = if dist.join("index.html").is_file() {
        dist
    } else {
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("ui-placeholder");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(
            out.join("index.html"),
            "<!doctype html><meta charset=utf-8><title>Approval Console</title>\
             <p>The web UI was not built into this binary. Run <code>scripts/run</code>, or \
             <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code> and rebuild.</p>",
        )
        .unwrap();
        out
    };
    println!("cargo:rustc-env=APPROVAL_CONSOLE_UI_DIST={}", dir.display());
}
