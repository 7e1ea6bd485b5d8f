use super::*;
use serde_json::json;

const PAY: &str =
    "import os\n\ndef transfer(amount):\n    limit = 100\n    if amount > limit:\n        raise ValueError\n    return send(amount)\n";

fn disk(path: &str, text: &str) -> Disk {
    Disk { path: path.into(), text: Some(text.into()), exists: true, ..Default::default() }
}

#[test]
fn an_edit_against_the_file_on_disk_has_the_files_line_numbers_and_a_summary() {
    let args = json!({ "file_path": "/repo/src/pay.py", "old_string": "    limit = 100\n    if amount > limit:", "new_string": "    limit = 10_000\n    if amount >= limit:" });
    let c = of_call(CallSource::ClaudeCode, "Edit", &args, Some(&disk("/repo/src/pay.py", PAY)), Some("/repo")).unwrap();
    assert_eq!(c.summary, "edits 2 lines in src/pay.py");
    let f = &c.files[0];
    assert!(f.against_disk && f.note.is_none(), "{f:?}");
    assert!(f.diff.starts_with("@@ -1,7 +1,7 @@\n import os\n"), "{}", f.diff);
    assert!(f.diff.contains("-    limit = 100\n-    if amount > limit:\n+    limit = 10_000\n+    if amount >= limit:\n"), "{}", f.diff);
    assert_eq!((f.added, f.removed), (2, 2));
}

#[test]
fn an_edit_without_the_file_or_whose_old_string_is_not_there_shows_its_own_text_and_says_why() {
    let args = json!({ "file_path": "src/pay.py", "old_string": "a\nb\n", "new_string": "a\nc\n" });
    let c = of_call(CallSource::ClaudeCode, "Edit", &args, None, None).unwrap();
    let f = &c.files[0];
    assert_eq!((f.against_disk, f.diff.as_str()), (false, "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"));
    assert_eq!(c.summary, "edits 1 line in src/pay.py");
    let c = of_call(CallSource::ClaudeCode, "Edit", &args, Some(&disk("src/pay.py", PAY)), None).unwrap();
    assert_eq!(c.files[0].note.as_deref(), Some("old_string is not in the file as read: the edit would fail"));
    let twice = disk("src/pay.py", "a\nb\na\nb\n");
    let c = of_call(CallSource::ClaudeCode, "Edit", &args, Some(&twice), None).unwrap();
    assert!(c.files[0].note.as_deref().unwrap().contains("2 times"), "{c:?}");
    let all = json!({ "file_path": "src/pay.py", "old_string": "b", "new_string": "c", "replace_all": true });
    let c = of_call(CallSource::ClaudeCode, "Edit", &all, Some(&twice), None).unwrap();
    assert_eq!((c.files[0].added, c.files[0].removed, c.files[0].against_disk), (2, 2, true));
}

#[test]
fn gemini_clis_replace_and_write_file_read_as_an_edit_and_a_write_but_only_from_gemini_cli() {
    let replace = json!({ "file_path": "/repo/src/pay.py", "instruction": "raise the limit", "old_string": "limit = 100", "new_string": "limit = 500" });
    let c = of_call(CallSource::Gemini, "replace", &replace, Some(&disk("/repo/src/pay.py", PAY)), Some("/repo")).unwrap();
    assert_eq!((c.summary.as_str(), c.files[0].against_disk), ("edits 1 line in src/pay.py", true));
    assert!(c.files[0].diff.contains("-    limit = 100\n+    limit = 500\n"), "{}", c.files[0].diff);
    // `allow_multiple` is Gemini's `replace_all`: without it two occurrences fail, with it both change.
    let twice = disk("src/pay.py", "a\nb\na\nb\n");
    let one = json!({ "file_path": "src/pay.py", "old_string": "b", "new_string": "c" });
    let c = of_call(CallSource::Gemini, "replace", &one, Some(&twice), None).unwrap();
    assert!(c.files[0].note.as_deref().unwrap().contains("2 times"), "{c:?}");
    let all = json!({ "file_path": "src/pay.py", "old_string": "b", "new_string": "c", "allow_multiple": true });
    assert_eq!(of_call(CallSource::Gemini, "replace", &all, Some(&twice), None).unwrap().files[0].added, 2);
    let write = json!({ "file_path": "/repo/notes.md", "content": "one\ntwo\n" });
    let absent = Disk { path: "/repo/notes.md".into(), ..Default::default() };
    let c = of_call(CallSource::Gemini, "write_file", &write, Some(&absent), Some("/repo")).unwrap();
    assert_eq!((c.files[0].action, c.summary.as_str()), (FileAction::Create, "creates notes.md (2 lines)"));
    // The same names from another source are not read as Gemini's tools.
    for source in [CallSource::ClaudeCode, CallSource::Mcp, CallSource::Http] {
        assert_eq!(of_call(source, "replace", &replace, None, None), None, "{source:?}");
        assert_eq!(of_call(source, "write_file", &write, None, None), None, "{source:?}");
    }
    assert!(writes_named_file(CallSource::Gemini, "replace") && !writes_named_file(CallSource::Http, "write_file"));
}

#[test]
fn multi_edits_apply_in_order_and_writes_compare_with_the_file_or_create_it() {
    let args = json!({ "file_path": "/repo/src/pay.py", "edits": [
        { "old_string": "limit = 100", "new_string": "limit = 500" },
        { "old_string": "limit = 500", "new_string": "limit = 900" },
    ]});
    let c = of_call(CallSource::ClaudeCode, "MultiEdit", &args, Some(&disk("/repo/src/pay.py", PAY)), Some("/repo")).unwrap();
    assert!(c.files[0].diff.contains("-    limit = 100\n+    limit = 900\n"), "{}", c.files[0].diff);

    let write = json!({ "file_path": "/repo/notes.md", "content": "one\ntwo\n" });
    let absent = Disk { path: "/repo/notes.md".into(), ..Default::default() };
    let c = of_call(CallSource::ClaudeCode, "Write", &write, Some(&absent), Some("/repo")).unwrap();
    assert_eq!((c.files[0].action, c.summary.as_str()), (FileAction::Create, "creates notes.md (2 lines)"));
    let c = of_call(CallSource::ClaudeCode, "Write", &write, Some(&disk("/repo/notes.md", "one\n")), Some("/repo")).unwrap();
    assert_eq!((c.files[0].action, c.summary.as_str()), (FileAction::Write, "adds 1 line to notes.md"));
    let c = of_call(CallSource::ClaudeCode, "Write", &write, None, Some("/repo")).unwrap();
    assert_eq!(c.summary, "writes notes.md (2 lines, not compared with the file)");
    assert!(c.files[0].note.is_some());
}

#[test]
fn a_codex_patch_of_several_files_is_summed_up_and_other_calls_change_nothing() {
    let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Update File: b.py\n@@\n+z\n*** End Patch";
    let c = of_call(CallSource::ClaudeCode, "shell", &json!({ "command": ["apply_patch", patch] }), None, None).unwrap();
    assert_eq!(c.summary, "edits 2 files (+2 −1)");
    assert_eq!(of_call(CallSource::ClaudeCode, "Bash", &json!({ "command": "ls" }), None, None), None);
    assert_eq!(
        of_call(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "x" }), None, None),
        None,
        "an Edit without its strings is no edit"
    );
}

#[test]
fn a_huge_diff_is_cut_on_a_line_and_says_so() {
    let big: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let c = of_call(CallSource::ClaudeCode, "Write", &json!({ "file_path": "big.txt", "content": big }), None, None).unwrap();
    let f = &c.files[0];
    assert!(f.cut && f.diff.len() <= MAX_DIFF && f.diff.ends_with('\n'), "{}", f.diff.len());
    assert_eq!(f.added, 20_000, "the counts are the whole change's");
}

#[test]
fn a_path_outside_the_working_directory_stays_whole() {
    let args = json!({ "file_path": "/etc/hosts", "content": "x\n" });
    assert_eq!(of_call(CallSource::ClaudeCode, "Write", &args, None, Some("/repo")).unwrap().files[0].path, "/etc/hosts");
    let args = json!({ "file_path": "/repository/x", "content": "x\n" });
    assert_eq!(of_call(CallSource::ClaudeCode, "Write", &args, None, Some("/repo")).unwrap().files[0].path, "/repository/x");
}

#[test]
fn a_file_the_hook_would_not_read_or_whose_text_is_no_longer_kept_says_so_in_its_diff() {
    let args = json!({ "file_path": ".env", "old_string": "A=1\n", "new_string": "A=2\n" });
    let refused = Disk { path: ".env".into(), unread: Some("its name looks like a secret's".into()), ..Default::default() };
    let f = &of_call(CallSource::ClaudeCode, "Edit", &args, Some(&refused), None).unwrap().files[0];
    assert_eq!(f.note.as_deref(), Some("the file was not read (its name looks like a secret's): shown from the call's own text"));
    assert!(!f.against_disk);
    let write = json!({ "file_path": ".env", "content": "A=2\n" });
    let w = &of_call(CallSource::ClaudeCode, "Write", &write, Some(&refused), None).unwrap().files[0];
    assert_eq!((w.action, w.note.as_deref().unwrap().contains("looks like a secret")), (FileAction::Write, true), "{w:?}");
    // Read and hashed while the call waited; its text let go once decided.
    let decided = Disk { path: ".env".into(), exists: true, size: Some(4), sha256: Some("sha256:ab".into()), ..Default::default() };
    let f = &of_call(CallSource::ClaudeCode, "Edit", &args, Some(&decided), None).unwrap().files[0];
    assert!(f.note.as_deref().unwrap().contains("no longer kept"), "{f:?}");
    assert_eq!(f.diff, "@@ -1 +1 @@\n-A=1\n+A=2\n");
}
