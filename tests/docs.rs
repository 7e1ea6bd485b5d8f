//! The documents name tests that exist: every `path::name` in docs/rules.md and docs/security.md
//! (Rust: a `fn name` in that file; JavaScript: a test called "name" in it) is there, so a test
//! renamed or moved cannot leave a rule with a proof that is not.

use std::path::Path;

fn references(doc: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    for chunk in doc.split('`').skip(1).step_by(2) {
        let Some((path, name)) = chunk.split_once("::") else { continue };
        if !(path.ends_with(".rs") || path.ends_with(".mjs") || path.ends_with(".ts")) || path.contains(' ') {
            continue;
        }
        out.push((path.to_owned(), name.trim_matches('"').to_owned()));
    }
    out
}

#[test]
fn every_test_the_rules_and_the_threat_model_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = vec![];
    let mut checked = 0;
    for doc in ["docs/rules.md", "docs/security.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (path, name) in references(&text) {
            checked += 1;
            let Ok(source) = std::fs::read_to_string(root.join(&path)) else {
                missing.push(format!("{doc}: {path} does not exist"));
                continue;
            };
            let found = if path.ends_with(".rs") {
                source.contains(&format!("fn {name}("))
            } else {
                source.contains(&format!("'{name}'")) || source.contains(&format!("\"{name}\"")) || source.contains(&format!("`{name}`"))
            };
            if !found {
                missing.push(format!("{doc}: {path}::{name}"));
            }
        }
    }
    assert!(checked > 100, "{checked} references read");
    assert!(missing.is_empty(), "named but not there:\n{}", missing.join("\n"));
}
