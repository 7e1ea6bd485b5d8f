//! Property tests (issue 15), bounded here (proptest's 256 cases each); `bench/properties` runs them
//! longer (`PROPTEST_CASES`). The canonical form (S7) against a second RFC 8785 writer kept here
//! (`reference`: keys by UTF-16 code units, JSON.stringify's escapes; numbers it takes from the
//! canonical form of the number alone, which tests/fingerprint.rs checks against the RFC's Appendix B
//! table), the fingerprint's invariants, and no panic on anything a remote engine, a resume form or
//! an `agents.toml` can hold. (The `serde_jcs` crate was tried as the second writer and found to sort
//! keys by code point, not UTF-16: `"\u{FFFC}"` before `"\u{12F90}"`, against RFC 8785 §3.2.3.)

use approval_console::config::parse_agents;
use approval_console::domain::{canonical_json, EngineId, Fingerprint};
use approval_console::engine::mastra::{listing, schema};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::path::Path;

/// Any JSON value: integers a double holds exactly, finite doubles, any Unicode text, nested.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..=(1i64 << 53)).prop_map(|i| json!(i)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        "[a-z]{0,3}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner.clone()), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            prop::collection::vec(("[a-zA-Z_ä€😀]{0,4}", inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// RFC 8785 written out plainly, as the reference for the canonical form.
fn reference(v: &Value) -> String {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => canonical_json(v).unwrap(),
        Value::String(s) => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\u{8}' => out.push_str("\\b"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\u{c}' => out.push_str("\\f"),
                    '\r' => out.push_str("\\r"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        Value::Array(items) => format!("[{}]", items.iter().map(reference).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| k.encode_utf16().collect::<Vec<u16>>());
            let members: Vec<String> =
                keys.iter().map(|k| format!("{}:{}", reference(&Value::String((*k).clone())), reference(&m[*k]))).collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

/// The same value with every object's keys in the opposite order.
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().rev().map(|(k, v)| (k.clone(), reversed(v))).collect::<Map<_, _>>()),
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// Lines an `agents.toml` may hold, with random values where values go (never an MCP server:
/// parsing one would start it).
fn agents_toml() -> impl Strategy<Value = String> {
    let text = || any::<String>().prop_map(|s| toml::Value::String(s).to_string());
    let word = || "[a-z_*-]{0,8}".prop_map(|s| toml::Value::String(s).to_string());
    let line = prop_oneof![
        Just("[[agents]]".to_owned()),
        Just("[agents.approval]".to_owned()),
        Just("[agents.model]".to_owned()),
        Just("memory = true".to_owned()),
        Just("api = \"openai-compatible\"".to_owned()),
        Just("api = \"demo\"".to_owned()),
        word().prop_map(|w| format!("id = {w}")),
        text().prop_map(|s| format!("name = {s}")),
        text().prop_map(|s| format!("instructions = {s}")),
        prop::collection::vec(word(), 0..3).prop_map(|w| format!("tools = [{}]", w.join(", "))),
        prop::collection::vec(word(), 0..3).prop_map(|w| format!("sub_agents = [{}]", w.join(", "))),
        prop::collection::vec(word(), 0..3).prop_map(|w| format!("idempotent = [{}]", w.join(", "))),
        ("[a-z_]{1,8}", any::<bool>()).prop_map(|(k, b)| format!("tools = {{ {k} = {b} }}")),
        (word(), text(), text()).prop_map(|(t, p, m)| format!("rules = [{{ tool = {t}, when = [{{ pointer = {p}, matches = {m} }}] }}]")),
        (word(), text(), any::<i64>()).prop_map(|(t, p, n)| format!("rules = [{{ tool = {t}, when = [{{ pointer = {p}, gt = {n} }}] }}]")),
        text().prop_map(|s| format!("base_url = {s}")),
        text().prop_map(|s| format!("model = {s}")),
        word().prop_map(|w| format!("api_key_ref = {w}")),
        "\\PC{0,40}",
    ];
    prop::collection::vec(line, 0..16).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #[test]
    fn s07_the_canonical_form_agrees_with_rfc8785_written_out_plainly(v in json_value()) {
        prop_assert_eq!(canonical_json(&v).unwrap(), reference(&v));
    }

    #[test]
    fn s07_the_canonical_form_reads_back_to_itself(v in json_value()) {
        let canonical = canonical_json(&v).unwrap();
        let back: Value = serde_json::from_str(&canonical).unwrap();
        prop_assert_eq!(canonical_json(&back).unwrap(), canonical);
    }

    #[test]
    fn s07_a_fingerprint_ignores_key_order_and_spacing_and_names_its_tool(v in json_value(), tool in "[a-z_]{1,20}") {
        let respelled: Value = serde_json::from_str(&serde_json::to_string_pretty(&reversed(&v)).unwrap()).unwrap();
        let f = Fingerprint::of(&tool, &v).unwrap();
        prop_assert_eq!(&f, &Fingerprint::of(&tool, &respelled).unwrap());
        prop_assert_ne!(&f, &Fingerprint::of(&format!("{tool}_"), &v).unwrap());
        prop_assert!(Fingerprint::parse(f.as_str()).is_some());
    }

    #[test]
    fn s07_a_fingerprint_changes_when_an_argument_does(v in json_value(), extra in json_value()) {
        let mut changed = json!({ "args": v.clone() });
        changed["extra"] = extra;
        prop_assert_ne!(Fingerprint::of("t", &json!({ "args": v })).unwrap(), Fingerprint::of("t", &changed).unwrap());
    }

    #[test]
    fn whatever_a_mastra_server_answers_its_listing_is_read_without_a_panic(agents in json_value(), runs in json_value()) {
        let known = listing::agents(&agents);
        let runs = match runs { Value::Array(items) => items, other => vec![other] };
        let (listed, _) = listing::runs("agent", &runs);
        let _ = listing::surface(&EngineId::new("remote"), &known, &listed);
        let _ = schema::to_json_schema(&agents);
    }

    #[test]
    fn resume_data_is_checked_against_any_schema_without_a_panic(schema in json_value(), data in json_value()) {
        let _ = approval_console::domain::schema::validate(&schema, &data);
    }

    #[test]
    fn any_agents_toml_loads_or_says_where_it_is_wrong_without_a_panic(text in agents_toml()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let loaded = runtime.block_on(parse_agents(Path::new("agents.toml"), &text, |name| async move {
            Err::<approval_console::engine::local::model::ApiKey, String>(format!("no keyring entry {name:?} here"))
        }));
        if let Err(e) = loaded {
            prop_assert!(!e.message.is_empty() && !e.field.is_empty(), "{e}");
            if let Some(line) = e.line {
                prop_assert!(line.0 >= 1 && line.0 <= text.lines().count().max(1), "{e} at {line:?} in {} lines", text.lines().count());
            }
        }
    }
}
