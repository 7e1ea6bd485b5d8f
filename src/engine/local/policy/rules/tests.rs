//! Unit tests of `engine/local/policy/rules`.

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
