//! What an agent sends around a call it submits (`context`), and how little of it is kept (issue 44,
//! least data). Two parts of it can hold what nobody should keep: the file a coding agent's edit
//! changes, as its hook read it (`file.text`), and the end of its conversation (`transcript`).
//!
//! - The file's text is kept apart from the rest ([`seal`]): the context keeps the file's path, its
//!   `size` and `sha256` (computed here, from the text received: what the hook read), and the text
//!   goes to a column of its own, emptied once the call leaves the queue (`store::submissions`).
//! - The audit log gets [`audited`]: never the file's text, and the transcript as a count and a
//!   hash, not its words. Pure: no I/O.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// `context` with the file's text taken out, and that text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sealed {
    /// The context as stored and audited: `file` has `size` and `sha256` where its text came with it.
    pub context: Option<Value>,
    /// The file's text, kept only while the call waits.
    pub file_text: Option<String>,
}

/// `sha256:` and the hex SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Takes the file's text out of `context` and describes it by its size (bytes) and hash instead.
/// A `size` or `sha256` the agent sent is replaced by what its text gives, or dropped without a text
/// (nothing here could vouch for them); a `text` that is no string is dropped.
pub fn seal(context: Option<Value>) -> Sealed {
    let mut context = context;
    let mut file_text = None;
    if let Some(Value::Object(file)) = context.as_mut().and_then(|c| c.get_mut("file")) {
        file.remove("size");
        file.remove("sha256");
        if let Some(Value::String(text)) = file.remove("text") {
            file.insert("size".into(), json!(text.len()));
            file.insert("sha256".into(), json!(sha256(text.as_bytes())));
            file_text = Some(text);
        }
    }
    Sealed { context, file_text }
}

/// The file's text put back into a stored context, for the diff of a call that still waits.
pub fn with_file_text(context: &mut Value, text: String) {
    if let Some(Value::Object(file)) = context.get_mut("file") {
        file.insert("text".into(), Value::String(text));
    }
}

/// What the audit log records of `context`: all of it but the file's text (its path, size and hash
/// stay) and the transcript's words (`{messages, sha256}` instead: how many, and the hash of the
/// JSON sent). Whatever the caller sealed or not.
pub fn audited(context: &Value) -> Value {
    let mut out = context.clone();
    let Value::Object(map) = &mut out else { return out };
    if let Some(Value::Object(file)) = map.get_mut("file") {
        // A text that is no string is dropped without a hash.
        if let Some(Value::String(text)) = file.remove("text") {
            file.insert("size".into(), json!(text.len()));
            file.insert("sha256".into(), json!(sha256(text.as_bytes())));
        }
    }
    if let Some(transcript) = map.get_mut("transcript") {
        let mut kept = Map::new();
        if let Value::Array(messages) = &*transcript {
            kept.insert("messages".into(), json!(messages.len()));
        }
        kept.insert("sha256".into(), json!(sha256(transcript.to_string().as_bytes())));
        *transcript = Value::Object(kept);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AKIAIOSFODNN7EXAMPLE";

    #[test]
    fn sealing_takes_the_files_text_out_and_keeps_its_path_size_and_hash() {
        let text = format!("aws_access_key_id = {KEY}\n");
        let sent = json!({ "cwd": "/repo", "file": { "path": "cfg.ini", "exists": true, "text": text, "sha256": "sha256:forged" } });
        let sealed = seal(Some(sent));
        assert_eq!(sealed.file_text.as_deref(), Some(text.as_str()));
        let context = sealed.context.unwrap();
        assert_eq!(
            context,
            json!({ "cwd": "/repo", "file": { "path": "cfg.ini", "exists": true, "size": text.len(), "sha256": sha256(text.as_bytes()) } })
        );
        assert!(!context.to_string().contains(KEY));
        let mut back = context.clone();
        with_file_text(&mut back, text.clone());
        assert_eq!(back["file"]["text"], text.as_str());
        // Without a text, nothing vouches for a size or a hash the agent sent.
        let unread = seal(Some(json!({ "file": { "path": ".env", "unread": "credentials", "sha256": "sha256:x", "size": 3 } })));
        assert_eq!((unread.context.unwrap(), unread.file_text), (json!({ "file": { "path": ".env", "unread": "credentials" } }), None));
        assert_eq!(seal(None), Sealed::default());
    }

    #[test]
    fn the_audit_gets_no_files_text_and_no_transcripts_words() {
        let text = format!("secret = {KEY}\n");
        let transcript = json!([{ "role": "user", "text": format!("use {KEY}") }]);
        let context = json!({ "cwd": "/repo", "file": { "path": "a.py", "exists": true, "text": text }, "transcript": transcript });
        let audited = audited(&context);
        assert!(!audited.to_string().contains(KEY), "{audited}");
        assert_eq!(audited["cwd"], "/repo");
        assert_eq!(audited["file"], json!({ "path": "a.py", "exists": true, "size": text.len(), "sha256": sha256(text.as_bytes()) }));
        assert_eq!(audited["transcript"], json!({ "messages": 1, "sha256": sha256(transcript.to_string().as_bytes()) }));
        // A sealed context is audited as it is (its size and hash were computed from the text).
        let sealed = seal(Some(context)).context.unwrap();
        assert_eq!(super::audited(&sealed)["file"], audited["file"]);
    }
}
