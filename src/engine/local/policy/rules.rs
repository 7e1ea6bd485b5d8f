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
mod tests {
    use super::*;

    fn rules(v: Value) -> Rules {
        Rules::parse(&v).unwrap_or_else(|e| panic!("{v} should parse: {e}"))
    }

    fn refused(v: Value) -> String {
        match Rules::parse(&v) {
            Err(Error::InvalidRequest(message)) => message,
            other => panic!("{v} should be refused, got {other:?}"),
        }
    }

    /// Whether a one-condition rule over any tool matches `args`.
    fn holds(condition: Value, args: Value) -> bool {
        rules(json!({"when": [condition]})).first_match("any_tool", &args).is_some()
    }

    #[test]
    fn tool_patterns_match_the_whole_name_with_star_and_question_mark() {
        let p = |s: &str| ToolPattern::parse(s).unwrap();
        assert!(p("send_*").matches("send_money"));
        assert!(p("send_*").matches("send_"));
        assert!(!p("send_*").matches("resend_money"));
        assert!(p("*_record").matches("delete_record"));
        assert!(!p("*_record").matches("delete_records"));
        assert!(p("delete_?").matches("delete_x"));
        assert!(!p("delete_?").matches("delete_xy"));
        assert!(!p("delete_?").matches("delete_"));
        assert!(p("*").matches(""));
        assert!(p("a*b*c").matches("a-b-b-c"));
        assert!(!p("a*b*c").matches("a-b-b-"));
        assert!(p("lookup_record").matches("lookup_record"));
        assert!(!p("Lookup_record").matches("lookup_record"), "case-sensitive");
        assert!(p("é?").matches("éü"), "characters, not bytes");
    }

    #[test]
    fn equals_compares_json_values_and_numbers_by_value() {
        assert!(holds(json!({"pointer": "/to", "equals": "alice"}), json!({"to": "alice"})));
        assert!(!holds(json!({"pointer": "/to", "equals": "alice"}), json!({"to": "bob"})));
        assert!(holds(json!({"pointer": "/n", "equals": 1}), json!({"n": 1.0})));
        assert!(holds(json!({"pointer": "/o", "equals": {"a": [1, 2]}}), json!({"o": {"a": [1.0, 2]}})));
        assert!(!holds(json!({"pointer": "/o", "equals": {"a": [1, 2]}}), json!({"o": {"a": [1, 2], "b": 0}})));
        assert!(holds(json!({"pointer": "/x", "equals": null}), json!({"x": null})));
        assert!(!holds(json!({"pointer": "/n", "equals": "1"}), json!({"n": 1})), "a string is not a number");
    }

    #[test]
    fn in_holds_when_the_value_equals_one_of_the_list() {
        let c = json!({"pointer": "/env", "in": ["prod", "staging", 3]});
        assert!(holds(c.clone(), json!({"env": "prod"})));
        assert!(holds(c.clone(), json!({"env": 3.0})));
        assert!(!holds(c.clone(), json!({"env": "dev"})));
        assert!(!holds(json!({"pointer": "/env", "in": []}), json!({"env": "prod"})));
    }

    #[test]
    fn matches_searches_strings_with_a_regex_and_ignores_other_types() {
        let c = json!({"pointer": "/id", "matches": "^vip-"});
        assert!(holds(c.clone(), json!({"id": "vip-1"})));
        assert!(!holds(c.clone(), json!({"id": "rec-vip-1"})));
        assert!(holds(json!({"pointer": "/id", "matches": "vip"}), json!({"id": "rec-vip-1"})), "unanchored");
        assert!(!holds(json!({"pointer": "/id", "matches": "1"}), json!({"id": 1})), "a number is not a string");
    }

    #[test]
    fn gt_and_lt_compare_numbers_only() {
        let gt = json!({"pointer": "/amount", "gt": 100});
        assert!(holds(gt.clone(), json!({"amount": 100.5})));
        assert!(holds(gt.clone(), json!({"amount": 101})));
        assert!(!holds(gt.clone(), json!({"amount": 100})));
        assert!(!holds(gt.clone(), json!({"amount": "1000"})), "a string does not compare");
        assert!(!holds(gt.clone(), json!({"amount": null})));
        let lt = json!({"pointer": "/amount", "lt": -1.5});
        assert!(holds(lt.clone(), json!({"amount": -2})));
        assert!(!holds(lt.clone(), json!({"amount": -1.5})));
        assert!(!holds(lt, json!({"amount": [0]})));
        // Large integers compare exactly, not through f64.
        assert!(holds(json!({"pointer": "/n", "gt": 9007199254740992_u64}), json!({"n": 9007199254740993_u64})));
        assert!(holds(json!({"pointer": "/n", "lt": 0}), json!({"n": i64::MIN})));
    }

    #[test]
    fn a_missing_pointer_does_not_match() {
        assert!(!holds(json!({"pointer": "/amount", "gt": 0}), json!({})));
        assert!(!holds(json!({"pointer": "/a/b", "equals": 1}), json!({"a": 1})));
        assert!(!holds(json!({"pointer": "/list/5", "equals": 1}), json!({"list": [1]})));
        assert!(!holds(json!({"pointer": "/x", "equals": null}), json!({})), "missing is not null");
    }

    #[test]
    fn pointers_follow_rfc_6901() {
        assert!(holds(json!({"pointer": "", "equals": {"a": 1}}), json!({"a": 1})), "\"\" is the whole arguments");
        assert!(holds(json!({"pointer": "/a~1b", "equals": 1}), json!({"a/b": 1})));
        assert!(holds(json!({"pointer": "/m~0n", "equals": 1}), json!({"m~n": 1})));
        assert!(holds(json!({"pointer": "/list/1/id", "equals": "b"}), json!({"list": [{"id": "a"}, {"id": "b"}]})));
        assert!(holds(json!({"pointer": "/", "equals": 1}), json!({"": 1})));
    }

    #[test]
    fn a_rule_needs_its_tool_pattern_and_all_conditions() {
        let r = rules(json!({"tool": "send_*", "when": [{"pointer": "/amount", "gt": 100}, {"pointer": "/currency", "equals": "EUR"}]}));
        assert_eq!(r.first_match("send_money", &json!({"amount": 500, "currency": "EUR"})), Some(0));
        assert_eq!(r.first_match("send_money", &json!({"amount": 500, "currency": "USD"})), None);
        assert_eq!(r.first_match("send_money", &json!({"amount": 5, "currency": "EUR"})), None);
        assert_eq!(r.first_match("get_money", &json!({"amount": 500, "currency": "EUR"})), None);
        // Without `when` the pattern alone decides; without `tool` every tool is meant.
        assert_eq!(rules(json!({"tool": "delete_*"})).first_match("delete_record", &json!({})), Some(0));
        assert_eq!(rules(json!({"when": [{"pointer": "/x", "equals": 1}]})).first_match("anything", &json!({"x": 1})), Some(0));
        // Any rule of a list; none in an empty list.
        let list = rules(json!([{"tool": "a"}, {"tool": "b"}]));
        assert_eq!(list.first_match("b", &json!({})), Some(1));
        assert_eq!(list.first_match("c", &json!({})), None);
        assert_eq!(rules(json!([])).first_match("a", &json!({})), None);
    }

    #[test]
    fn bad_patterns_are_refused_naming_rule_and_field() {
        let m = refused(json!([{"tool": "ok_*"}, {"tool": "send_[ab]"}]));
        assert!(m.contains("rule 1") && m.contains("\"tool\"") && m.contains("'['"), "{m}");
        let m = refused(json!({"tool": ""}));
        assert!(m.contains("rule 0") && m.contains("\"tool\"") && m.contains("empty"), "{m}");
        let m = refused(json!({"tool": 5}));
        assert!(m.contains("rule 0, field \"tool\""), "{m}");
        assert!(refused(json!({"tool": "x".repeat(300)})).contains("longer"));
    }

    #[test]
    fn bad_regexes_are_refused_naming_rule_and_field() {
        let m = refused(
            json!([{"tool": "a"}, {"tool": "b", "when": [{"pointer": "/a", "equals": 1}, {"pointer": "/id", "matches": "(unclosed"}]}]),
        );
        assert!(m.starts_with("rule 1, field \"when[1].matches\": invalid regular expression"), "{m}");
        let m = refused(json!({"when": [{"pointer": "/id", "matches": 5}]}));
        assert!(m.contains("\"when[0].matches\"") && m.contains("a number"), "{m}");
        // Too big to compile within the size limit.
        let m = refused(json!({"when": [{"pointer": "/id", "matches": "\\w{1000}\\w{1000}"}]}));
        assert!(m.contains("when[0].matches"), "{m}");
    }

    #[test]
    fn bad_pointers_are_refused_naming_rule_and_field() {
        let m = refused(json!({"when": [{"pointer": "amount", "gt": 1}]}));
        assert!(m.contains("rule 0, field \"when[0].pointer\"") && m.contains("start with \"/\""), "{m}");
        let m = refused(json!({"when": [{"pointer": "/a~2", "gt": 1}]}));
        assert!(m.contains("when[0].pointer") && m.contains('~'), "{m}");
        assert!(refused(json!({"when": [{"pointer": "/a~", "gt": 1}]})).contains("when[0].pointer"));
        assert!(refused(json!({"when": [{"gt": 1}]})).contains("when[0].pointer\": is missing"));
        assert!(refused(json!({"when": [{"pointer": 3, "gt": 1}]})).contains("when[0].pointer"));
    }

    #[test]
    fn malformed_rules_and_conditions_are_refused() {
        assert!(refused(json!({"tools": "x"})).contains("rule 0, field \"tools\": unknown field"));
        assert!(refused(json!({"when": {"pointer": "/a", "gt": 1}})).contains("field \"when\": must be an array"));
        assert!(refused(json!({"when": [{"pointer": "/a"}]})).contains("exactly one operator"));
        assert!(refused(json!({"when": [{"pointer": "/a", "gt": 1, "lt": 5}]})).contains("found 2"));
        assert!(refused(json!({"when": [{"pointer": "/a", "greater": 1}]})).contains("when[0].greater\": unknown field"));
        assert!(refused(json!({"when": [{"pointer": "/a", "gt": "1"}]})).contains("when[0].gt\": must be a number"));
        assert!(refused(json!({"when": [{"pointer": "/a", "in": "x"}]})).contains("when[0].in\": must be an array"));
        assert!(refused(json!({"when": ["/a > 1"]})).contains("when[0]"));
        assert!(refused(json!([true])).starts_with("rule 0: a rule must be an object"));
        assert!(refused(json!("send_*")).contains("a rule object or an array"));
    }

    #[test]
    fn rules_serialize_to_their_json_shape_and_parse_back_equal() {
        let source = json!([
            {"tool": "send_*", "when": [{"pointer": "/amount", "gt": 100}, {"pointer": "/to", "in": ["a", 1]}]},
            {"tool": "lookup_?", "when": [{"pointer": "/id", "matches": "^vip-"}, {"pointer": "/n", "lt": 2.5}, {"pointer": "", "equals": {"k": null}}]},
        ]);
        let r = rules(source.clone());
        let stored = serde_json::to_value(&r).unwrap();
        assert_eq!(stored, source);
        let back: Rules = serde_json::from_value(stored).unwrap();
        assert_eq!(back, r);
        // A single object is stored as a one-element array, defaults spelled out.
        assert_eq!(rules(json!({"when": []})).to_json(), json!([{"tool": "*", "when": []}]));
        assert!(serde_json::from_value::<Rules>(json!({"tool": "["})).is_err(), "a stored bad rule is refused too");
    }
}
