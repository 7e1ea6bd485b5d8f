//! JSON comparisons shared by the engine's approval rules and the console's grants, so both judge
//! the same arguments the same way: numbers by value (integers exactly, `1` equals `1.0`), paths
//! normalized.

use serde_json::{Number, Value};
use std::cmp::Ordering;

/// JSON equality where numbers compare by value (`1` = `1.0`), also inside arrays and objects.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare_numbers(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w))),
        _ => a == b,
    }
}

/// Integers exactly (as i128), anything else as f64.
pub fn compare_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// Whether `path` lies under `prefix` as paths: `.` and empty segments ignored, and a `..` segment in
/// either never matches (it could climb out of the folder granted). An absolute prefix needs an
/// absolute path, and a relative one a relative path.
pub fn path_under(path: &str, prefix: &str) -> bool {
    fn segments(p: &str) -> Option<Vec<&str>> {
        let parts: Vec<&str> = p.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
        (!parts.contains(&"..")).then_some(parts)
    }
    if path.starts_with('/') != prefix.starts_with('/') {
        return false;
    }
    match (segments(path), segments(prefix)) {
        (Some(path), Some(prefix)) => path.len() >= prefix.len() && path[..prefix.len()] == prefix[..],
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_integers_exactly() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        let big = |n: u64| Number::from(n);
        assert_eq!(compare_numbers(&big(9_007_199_254_740_993), &big(9_007_199_254_740_992)), Some(Ordering::Greater), "beyond 2^53 too");
        assert!(!json_eq(&json!("1"), &json!(1)));
    }
}
