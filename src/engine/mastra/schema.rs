//! The schemas a Mastra server sends, turned into JSON Schema.
//!
//! Observed shapes (`@mastra/server` 1.67): a tool's `inputSchema` in `GET /api/agents` is a superjson
//! string (`{"json": <JSON Schema>, "meta": …}`); `resumeSchema` / `suspendSchema` come as raw Zod 4
//! internals (`{"def": {"type": "object", "shape": {…}}, "type": "object"}`); the `resumeSchema` of a
//! stream chunk or a nested suspend payload is a JSON Schema serialized as a string.

use serde_json::{json, Map, Value};

/// Deepest Zod structure converted; deeper parts become `{}` (anything).
const MAX_DEPTH: usize = 64;

/// Any schema value Mastra sends, as JSON Schema; `None` if there is none or it is not understood.
pub fn to_json_schema(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        // A JSON Schema serialized as a string, or a superjson document serialized as a string.
        Value::String(text) => serde_json::from_str::<Value>(text).ok().and_then(|v| match v {
            Value::String(_) => None,
            other => to_json_schema(&other),
        }),
        Value::Object(map) => {
            if let Some(inner) = map.get("json").filter(|_| map.len() <= 2 && (map.len() == 1 || map.contains_key("meta"))) {
                return to_json_schema(inner);
            }
            if map.contains_key("def") || map.contains_key("_def") {
                return Some(zod(value, 0));
            }
            if map.contains_key("type")
                || map.contains_key("properties")
                || map.contains_key("$schema")
                || map.contains_key("anyOf")
                || map.contains_key("enum")
            {
                return Some(value.clone());
            }
            None
        }
        _ => None,
    }
}

/// Zod 4 internals (`def.type` plus per-type fields) → JSON Schema. Unknown types give `{}`.
fn zod(node: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return json!({});
    }
    let def = node.get("def").or_else(|| node.get("_def")).unwrap_or(node);
    let kind = def.get("type").and_then(Value::as_str).unwrap_or("");
    let next = |v: &Value| zod(v, depth + 1);
    match kind {
        "string" => json!({ "type": "string" }),
        "number" => json!({ "type": "number" }),
        "int" => json!({ "type": "integer" }),
        "bigint" => json!({ "type": "integer" }),
        "boolean" => json!({ "type": "boolean" }),
        "null" => json!({ "type": "null" }),
        "date" => json!({ "type": "string", "format": "date-time" }),
        "literal" => match def.get("values").and_then(Value::as_array) {
            Some(values) if values.len() == 1 => json!({ "const": values[0] }),
            Some(values) => json!({ "enum": values }),
            None => json!({}),
        },
        "enum" => {
            let values: Vec<Value> = match def.get("entries") {
                Some(Value::Object(entries)) => entries.values().cloned().collect(),
                Some(Value::Array(entries)) => entries.clone(),
                _ => vec![],
            };
            json!({ "enum": values })
        }
        "array" => {
            let items = def.get("element").map(next).unwrap_or_else(|| json!({}));
            json!({ "type": "array", "items": items })
        }
        "object" => {
            let mut properties = Map::new();
            let mut required = Vec::new();
            if let Some(Value::Object(shape)) = def.get("shape") {
                for (name, field) in shape {
                    if !is_optional(field) {
                        required.push(Value::String(name.clone()));
                    }
                    properties.insert(name.clone(), next(field));
                }
            }
            let mut schema = json!({ "type": "object", "properties": properties });
            if !required.is_empty() {
                schema["required"] = Value::Array(required);
            }
            schema
        }
        "optional" | "default" | "prefault" | "readonly" | "catch" | "nonoptional" => {
            let mut inner = def.get("innerType").map(next).unwrap_or_else(|| json!({}));
            if kind == "default" {
                if let (Some(obj), Some(value)) = (inner.as_object_mut(), def.get("defaultValue")) {
                    obj.insert("default".into(), value.clone());
                }
            }
            inner
        }
        "nullable" => {
            let inner = def.get("innerType").map(next).unwrap_or_else(|| json!({}));
            json!({ "anyOf": [inner, { "type": "null" }] })
        }
        "union" => {
            let options: Vec<Value> =
                def.get("options").and_then(Value::as_array).map(|o| o.iter().map(next).collect()).unwrap_or_default();
            json!({ "anyOf": options })
        }
        "record" => {
            let values = def.get("valueType").map(next).unwrap_or_else(|| json!({}));
            json!({ "type": "object", "additionalProperties": values })
        }
        "pipe" => def.get("in").map(next).unwrap_or_else(|| json!({})),
        "lazy" | "any" | "unknown" | "custom" | "transform" => json!({}),
        _ => json!({}),
    }
}

/// A field the parent object does not require.
fn is_optional(field: &Value) -> bool {
    let def = field.get("def").or_else(|| field.get("_def")).unwrap_or(field);
    matches!(def.get("type").and_then(Value::as_str), Some("optional" | "default" | "prefault" | "catch"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superjson_input_schema_is_unwrapped() {
        let sent = json!({"json": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}});
        assert_eq!(to_json_schema(&sent).unwrap()["required"], json!(["id"]));
        let as_string = Value::String(sent.to_string());
        assert_eq!(to_json_schema(&as_string).unwrap()["properties"]["id"]["type"], "string");
    }

    #[test]
    fn zod_internals_become_json_schema() {
        // As GET /api/agents sends askOperator's resumeSchema (zod 4.6).
        let sent = json!({"def": {"type": "object", "shape": {
            "answer": {"def": {"type": "string"}, "type": "string"},
            "note": {"def": {"type": "optional", "innerType": {"def": {"type": "string"}}}},
            "level": {"def": {"type": "enum", "entries": {"low": "low", "high": "high"}}},
            "tags": {"def": {"type": "array", "element": {"def": {"type": "string"}}}},
            "count": {"def": {"type": "default", "defaultValue": 1, "innerType": {"def": {"type": "number"}}}}
        }}, "type": "object"});
        let schema = to_json_schema(&sent).unwrap();
        assert_eq!(schema["required"], json!(["answer", "level", "tags"]));
        assert_eq!(schema["properties"]["level"]["enum"], json!(["low", "high"]));
        assert_eq!(schema["properties"]["tags"]["items"]["type"], "string");
        assert_eq!(schema["properties"]["count"]["default"], 1);
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(validator.is_valid(&json!({"answer": "yes", "level": "low", "tags": []})));
        assert!(!validator.is_valid(&json!({"level": "low", "tags": []})), "answer is required");
    }

    #[test]
    fn json_schema_string_from_a_chunk_is_parsed() {
        let sent = Value::String(r#"{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}"#.into());
        assert_eq!(to_json_schema(&sent).unwrap()["required"], json!(["approved"]));
    }

    #[test]
    fn nonsense_gives_none_and_deep_zod_is_cut() {
        assert_eq!(to_json_schema(&json!(42)), None);
        assert_eq!(to_json_schema(&Value::String("not json".into())), None);
        let mut deep = json!({"def": {"type": "string"}});
        for _ in 0..200 {
            deep = json!({"def": {"type": "array", "element": deep}});
        }
        assert!(to_json_schema(&deep).is_some());
    }
}
