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

/// The README is the first hour and ARCHITECTURE.md a ten-minute guide (issue 46): the reference
/// and the details live in pages under docs/, linked from them.
#[test]
fn the_readme_and_the_architecture_guide_stay_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (doc, most) in [("README.md", 400), ("ARCHITECTURE.md", 150)] {
        let lines = std::fs::read_to_string(root.join(doc)).unwrap().lines().count();
        assert!(lines <= most, "{doc} has {lines} lines, at most {most}: move the details to a page under docs/ and link it");
    }
}

/// The Markdown documents the links are checked in: the README, ARCHITECTURE.md and docs/**/*.md.
fn documents(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out
}

/// `text` without its fenced blocks and code spans: what Markdown reads as links and headings.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let spans: Vec<&str> = line.split('`').step_by(2).collect();
            out.push_str(&spans.join(" "));
            out.push('\n');
        }
    }
    out
}

/// The targets of the inline links and images of `text`'s prose (`[…](target)`).
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    prose.match_indices("](").filter_map(|(at, _)| prose[at + 2..].split_once(')').map(|(t, _)| t.trim().to_owned())).collect()
}

/// The anchors GitHub gives `text`'s headings: lower case, punctuation dropped, spaces as `-`
/// (a repeated heading's anchor takes `-1`, `-2`, …).
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in prose(text).lines() {
        let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')) else { continue };
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = out
            .iter()
            .filter(|a| **a == slug || a.strip_prefix(&slug).is_some_and(|r| r.starts_with('-') && r[1..].parse::<u32>().is_ok()))
            .count();
        out.push(if n == 0 { slug } else { format!("{slug}-{n}") });
    }
    out
}

#[test]
fn every_relative_link_in_the_readme_the_architecture_guide_and_the_docs_points_at_a_file_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = vec![];
    let mut checked = 0;
    for doc in documents(root) {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(root).unwrap().display().to_string();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
            let target = if file.is_empty() { doc.clone() } else { doc.parent().unwrap().join(file) };
            if !target.exists() {
                broken.push(format!("{name}: {link} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor.filter(|_| target.extension().is_some_and(|e| e == "md")) {
                if !anchors(&std::fs::read_to_string(&target).unwrap()).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {link} (no heading with that anchor)"));
                }
            }
        }
    }
    assert!(checked > 100, "{checked} links read");
    assert!(broken.is_empty(), "links that lead nowhere:\n{}", broken.join("\n"));
}
