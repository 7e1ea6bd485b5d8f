//! Declarative approval rules (the JSON shape is described in [`super`]): tool-name patterns and
//! conditions on the arguments, checked when parsed.

use crate::domain::json::{compare_numbers, json_eq};
use crate::domain::Error;
use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Number, Value};
use std::cmp::Ordering;
/// Longest accepted tool pattern, in characters.
const MAX_PATTERN_LEN: usize = 256;
/// Longest accepted regular expression, in characters.
const MAX_REGEX_LEN: usize = 1024;
/// Compiled-size limit of one regular expression: a request cannot make the server build a huge one.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A tool-name pattern: `*` is any run of characters, `?` one character, the rest literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPattern(String);

impl ToolPattern {
    /// Checks a pattern; the error says what is wrong with it.
    pub fn parse(pattern: &str) -> Result<Self, String> {
        if pattern.is_empty() {
            return Err("an empty pattern matches no tool; use \"*\" for every tool".into());
        }
        if pattern.chars().count() > MAX_PATTERN_LEN {
            return Err(format!("the pattern is longer than {MAX_PATTERN_LEN} characters"));
        }
        if let Some(c) = pattern.chars().find(|c| matches!(c, '[' | ']' | '{' | '}' | '\\')) {
            return Err(format!("{c:?} is not supported: a tool pattern knows only `*` (any characters) and `?` (one character)"));
        }
        Ok(Self(pattern.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the whole of `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        let pattern: Vec<char> = self.0.chars().collect();
        let name: Vec<char> = name.chars().collect();
        // Greedy match with backtracking to the last `*`: O(pattern × name) at worst.
        let (mut p, mut n) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            if p < pattern.len() && (pattern[p] == '?' || pattern[p] == name[n]) {
                p += 1;
                n += 1;
            } else if p < pattern.len() && pattern[p] == '*' {
                star = Some((p, n));
                p += 1;
            } else if let Some((sp, sn)) = star {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            } else {
                return false;
            }
        }
        pattern[p..].iter().all(|&c| c == '*')
    }
}

/// The operator of a [`Condition`].
#[derive(Clone, Debug)]
pub enum Op {
    Equals(Value),
    In(Vec<Value>),
    Matches(Regex),
    Gt(Number),
    Lt(Number),
}

impl PartialEq for Op {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Equals(a), Self::Equals(b)) => a == b,
            (Self::In(a), Self::In(b)) => a == b,
            (Self::Matches(a), Self::Matches(b)) => a.as_str() == b.as_str(),
            (Self::Gt(a), Self::Gt(b)) | (Self::Lt(a), Self::Lt(b)) => a == b,
            _ => false,
        }
    }
}

const OPS: [&str; 5] = ["equals", "in", "matches", "gt", "lt"];

impl Op {
    fn key(&self) -> &'static str {
        match self {
            Self::Equals(_) => "equals",
            Self::In(_) => "in",
            Self::Matches(_) => "matches",
            Self::Gt(_) => "gt",
            Self::Lt(_) => "lt",
        }
    }

    fn operand(&self) -> Value {
        match self {
            Self::Equals(v) => v.clone(),
            Self::In(list) => Value::Array(list.clone()),
            Self::Matches(re) => json!(re.as_str()),
            Self::Gt(n) | Self::Lt(n) => Value::Number(n.clone()),
        }
    }

    fn parse(key: &str, operand: &Value) -> Result<Self, String> {
        match (key, operand) {
            ("equals", v) => Ok(Self::Equals(v.clone())),
            ("in", Value::Array(list)) => Ok(Self::In(list.clone())),
            ("in", other) => Err(format!("must be an array of values, not {}", kind(other))),
            ("matches", Value::String(pattern)) => {
                if pattern.chars().count() > MAX_REGEX_LEN {
                    return Err(format!("the regular expression is longer than {MAX_REGEX_LEN} characters"));
                }
                RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map(Self::Matches)
                    .map_err(|e| format!("invalid regular expression: {e}"))
            }
            ("matches", other) => Err(format!("must be a regular expression (a string), not {}", kind(other))),
            ("gt", Value::Number(n)) => Ok(Self::Gt(n.clone())),
            ("lt", Value::Number(n)) => Ok(Self::Lt(n.clone())),
            ("gt" | "lt", other) => Err(format!("must be a number, not {}", kind(other))),
            _ => unreachable!("only keys of OPS are parsed"),
        }
    }

    fn holds(&self, value: &Value) -> bool {
        match self {
            Self::Equals(expected) => json_eq(value, expected),
            Self::In(list) => list.iter().any(|expected| json_eq(value, expected)),
            Self::Matches(re) => value.as_str().is_some_and(|s| re.is_match(s)),
            Self::Gt(bound) => matches!(value, Value::Number(n) if compare_numbers(n, bound) == Some(Ordering::Greater)),
            Self::Lt(bound) => matches!(value, Value::Number(n) if compare_numbers(n, bound) == Some(Ordering::Less)),
        }
    }
}

/// One condition of a rule: an operator applied to the value at `pointer` in the call's arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pointer: String,
    op: Op,
}

impl Condition {
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    pub fn op(&self) -> &Op {
        &self.op
    }

    /// Whether it holds for `args`. A missing value or a type the operator does not compare: no.
    pub fn holds(&self, args: &Value) -> bool {
        args.pointer(&self.pointer).is_some_and(|value| self.op.holds(value))
    }

    /// `(field, problem)` on error, the field relative to the rule (`when[1].matches`).
    fn parse(at: usize, value: &Value) -> Result<Self, (String, String)> {
        let field = |f: &str| if f.is_empty() { format!("when[{at}]") } else { format!("when[{at}].{f}") };
        let Value::Object(map) = value else {
            return Err((field(""), format!("a condition must be an object {{\"pointer\": …, <operator>: …}}, not {}", kind(value))));
        };
        let pointer = match map.get("pointer") {
            Some(Value::String(p)) => check_pointer(p).map_err(|e| (field("pointer"), e))?,
            Some(other) => return Err((field("pointer"), format!("must be a JSON Pointer string, not {}", kind(other)))),
            None => return Err((field("pointer"), "is missing (a JSON Pointer into the arguments, e.g. \"/amount\")".into())),
        };
        if let Some(unknown) = map.keys().find(|k| *k != "pointer" && !OPS.contains(&k.as_str())) {
            return Err((field(unknown), format!("unknown field; a condition has `pointer` and one of {}", OPS.join(", "))));
        }
        let ops: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| OPS.contains(&k.as_str())).collect();
        let [(key, operand)] = ops.as_slice() else {
            return Err((field(""), format!("needs exactly one operator of {}, found {}", OPS.join(", "), ops.len())));
        };
        let op = Op::parse(key, operand).map_err(|e| (field(key), e))?;
        Ok(Self { pointer, op })
    }

    fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("pointer".into(), json!(self.pointer));
        map.insert(self.op.key().into(), self.op.operand());
        Value::Object(map)
    }
}

/// One declarative rule: a tool pattern and conditions on the arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    tool: ToolPattern,
    when: Vec<Condition>,
}

impl Rule {
    pub fn tool(&self) -> &ToolPattern {
        &self.tool
    }

    pub fn when(&self) -> &[Condition] {
        &self.when
    }

    /// The tool pattern matches and every condition holds.
    pub fn matches(&self, tool_name: &str, args: &Value) -> bool {
        self.tool.matches(tool_name) && self.when.iter().all(|c| c.holds(args))
    }

    fn parse(value: &Value) -> Result<Self, (String, String)> {
        let Value::Object(map) = value else {
            return Err((String::new(), format!("a rule must be an object {{\"tool\": …, \"when\": […]}}, not {}", kind(value))));
        };
        if let Some(unknown) = map.keys().find(|k| !matches!(k.as_str(), "tool" | "when")) {
            return Err((unknown.clone(), "unknown field; a rule has `tool` and `when`".into()));
        }
        let tool = match map.get("tool") {
            None => ToolPattern("*".into()),
            Some(Value::String(p)) => ToolPattern::parse(p).map_err(|e| ("tool".to_owned(), e))?,
            Some(other) => return Err(("tool".into(), format!("must be a pattern string such as \"send_*\", not {}", kind(other)))),
        };
        let when = match map.get("when") {
            None => vec![],
            Some(Value::Array(list)) => list.iter().enumerate().map(|(i, c)| Condition::parse(i, c)).collect::<Result<_, _>>()?,
            Some(other) => return Err(("when".into(), format!("must be an array of conditions, not {}", kind(other)))),
        };
        Ok(Self { tool, when })
    }

    fn to_json(&self) -> Value {
        json!({"tool": self.tool.as_str(), "when": self.when.iter().map(Condition::to_json).collect::<Vec<_>>()})
    }
}

/// Declarative approval rules (S3, S4): a call needs approval when any rule matches it. Data: they
/// serialize to the JSON shape of the module docs (always as an array) and parse back to equal rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rules(Vec<Rule>);

impl Rules {
    /// Parses one rule object or an array of rules. Refuses unknown fields, bad patterns, regular
    /// expressions, pointers and operands with [`Error::InvalidRequest`] naming the rule and field:
    /// `rule 1, field "when[0].matches": invalid regular expression: …`.
    pub fn parse(value: &Value) -> Result<Self, Error> {
        let list = match value {
            Value::Array(list) => list.as_slice(),
            Value::Object(_) => std::slice::from_ref(value),
            other => return Err(Error::InvalidRequest(format!("rules must be a rule object or an array of rules, not {}", kind(other)))),
        };
        list.iter()
            .enumerate()
            .map(|(i, rule)| {
                Rule::parse(rule).map_err(|(field, problem)| {
                    Error::InvalidRequest(if field.is_empty() {
                        format!("rule {i}: {problem}")
                    } else {
                        format!("rule {i}, field {field:?}: {problem}")
                    })
                })
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }

    pub fn rules(&self) -> &[Rule] {
        &self.0
    }

    /// The index of the first rule matching the call, if any.
    pub fn first_match(&self, tool_name: &str, args: &Value) -> Option<usize> {
        self.0.iter().position(|r| r.matches(tool_name, args))
    }

    /// The rules in their JSON shape (an array).
    pub fn to_json(&self) -> Value {
        Value::Array(self.0.iter().map(Rule::to_json).collect())
    }
}

impl Serialize for Rules {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Rules::parse(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// RFC 6901 syntax: empty, or `/`-separated tokens where `~` is only `~0` or `~1`.
pub(super) fn check_pointer(pointer: &str) -> Result<String, String> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "{pointer:?} is not a JSON Pointer: it must be \"\" (the whole arguments) or start with \"/\", e.g. \"/amount\""
        ));
    }
    let mut chars = pointer.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err(format!("{pointer:?} is not a JSON Pointer: `~` must be followed by 0 (for `~`) or 1 (for `/`)"));
        }
    }
    Ok(pointer.to_owned())
}

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
