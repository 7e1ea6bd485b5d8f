//! S7's canonical form is RFC 8785: checked against the RFC's published test vectors (tests/data/jcs).

use approval_console::domain::{canonical_json, Fingerprint};
use serde_json::{json, Value};
use std::path::PathBuf;

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/jcs").join(path)
}

#[test]
fn s07_canonical_form_matches_every_rfc8785_vector() {
    for name in ["arrays", "french", "structures", "unicode", "values", "weird"] {
        let input: Value = serde_json::from_slice(&std::fs::read(data(&format!("input/{name}.json"))).unwrap()).unwrap();
        let expected = std::fs::read(data(&format!("output/{name}.json"))).unwrap();
        let expected = expected.strip_suffix(b"\n").unwrap_or(&expected);
        assert_eq!(canonical_json(&input).unwrap().as_bytes(), expected, "vector {name}");
    }
}

#[test]
fn s07_numbers_serialize_as_rfc8785_appendix_b() {
    let table = std::fs::read_to_string(data("numbers.txt")).unwrap();
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.trim().is_empty()) {
        let (bits, expected) = line.split_once(',').unwrap();
        let number = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        let value = json!(number);
        assert_eq!(canonical_json(&value).unwrap(), expected, "IEEE-754 {bits}");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn s07_fingerprint_is_stable_across_spellings_of_the_same_arguments() {
    let a: Value = serde_json::from_str(r#"{"amount": 1e2, "to": "acct-\u0041", "memo": {"b": [1, 2.50], "a": null}}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"memo": {"a": null, "b": [1.0, 2.5]}, "to": "acct-A", "amount": 100}"#).unwrap();
    assert_eq!(Fingerprint::of("send_money", &a).unwrap(), Fingerprint::of("send_money", &b).unwrap());
}

/// Exact fingerprints (issue 44, `domain::fingerprint::exact`): of two argument texts the console
/// accepts, different numeric values never share a fingerprint — and every double has a text it
/// accepts. The texts are built here from (sign, digits, power of ten), so their values are known
/// without the rule's own arithmetic.
mod exact {
    use approval_console::domain::{exact_literal, Fingerprint};
    use proptest::prelude::*;
    use serde_json::Value;

    /// A number's text and its exact value as (negative, digits without leading or trailing zeros,
    /// power of ten); zero is (false, "", 0).
    #[derive(Clone, Debug)]
    struct Literal {
        text: String,
        value: (bool, String, i64),
    }

    fn literal(negative: bool, digits: &str, exponent: i64, spelling: u8) -> Literal {
        let significant = digits.trim_start_matches('0');
        let trimmed = significant.trim_end_matches('0');
        let value = if trimmed.is_empty() {
            (false, String::new(), 0)
        } else {
            (negative, trimmed.to_owned(), exponent + (significant.len() - trimmed.len()) as i64)
        };
        let sign = if negative { "-" } else { "" };
        let digits = if digits.is_empty() { "0" } else { digits };
        let text = match spelling % 3 {
            // digits × 10^exponent, three ways: with an exponent, with a point, and (when the value is
            // an integer) written out, with a trailing ".0" now and then.
            0 => format!("{sign}{digits}e{exponent}"),
            1 if exponent < 0 && (-exponent as usize) < digits.len() => {
                let point = digits.len() - (-exponent) as usize;
                format!("{sign}{}.{}", &digits[..point], &digits[point..])
            }
            _ if (0..40).contains(&exponent) => {
                format!("{sign}{digits}{}{}", "0".repeat(exponent as usize), if spelling > 100 { ".0" } else { "" })
            }
            _ => format!("{sign}{digits}E{exponent:+}"),
        };
        Literal { text, value }
    }

    /// A finite double as (negative, digits, power of ten): its integer when it is one, else its
    /// shortest digits (Rust's `{:e}`).
    fn parts(f: f64) -> (bool, String, i64) {
        if f.fract() == 0.0 {
            let text = format!("{:.0}", f.abs());
            return (f.is_sign_negative(), text, 0);
        }
        let text = format!("{:e}", f.abs());
        let (mantissa, exponent) = text.split_once('e').unwrap();
        let digits = mantissa.replace('.', "");
        let exponent = exponent.parse::<i64>().unwrap() - (digits.len() as i64 - 1);
        (f.is_sign_negative(), digits, exponent)
    }

    /// A double's own text, spelled one of the ways.
    fn own(f: f64, spelling: u8) -> Literal {
        let (negative, digits, exponent) = parts(f);
        literal(negative, &digits, exponent, spelling)
    }

    fn fingerprint(text: &str) -> Fingerprint {
        let args: Value = serde_json::from_str(&format!(r#"{{"n": {text}}}"#)).unwrap();
        Fingerprint::of("t", &args).unwrap()
    }

    /// Integers from 2^53 to 2^64 (both signs) and a neighbour a few hundred away; decimals of
    /// 15 to 20 digits and a neighbour in their last digits.
    fn pairs() -> impl Strategy<Value = (Literal, Literal)> {
        let integers =
            (53u32..64, 0u64..1 << 20, 1u64..300, any::<bool>(), any::<u8>(), any::<u8>()).prop_map(|(k, low, step, neg, s1, s2)| {
                let a = (1u128 << k) + u128::from(low);
                let b = a + u128::from(step);
                (literal(neg, &a.to_string(), 0, s1), literal(neg, &b.to_string(), 0, s2))
            });
        let decimals = ("[1-9][0-9]{14,19}", -330i64..300, 1u64..20, any::<bool>(), any::<u8>(), any::<u8>()).prop_map(
            |(digits, exponent, step, neg, s1, s2)| {
                let b = (digits.parse::<u128>().unwrap() + u128::from(step)).to_string();
                (literal(neg, &digits, exponent, s1), literal(neg, &b, exponent, s2))
            },
        );
        // A double's own text (its integer, or its shortest form) next to: a text a little off it,
        // a neighbouring double's own text, or its shortest form (for a large integer, another value
        // with the same double: 2^60 and 1152921504606847000).
        let doubles = (any::<f64>().prop_filter("finite", |f| f.is_finite()), 1u64..20, 0u8..3, any::<u8>(), any::<u8>()).prop_map(
            |(f, step, kind, s1, s2)| {
                let a = own(f, s1);
                let b = match kind {
                    0 => {
                        let (negative, digits, exponent) = parts(f);
                        // digits × 100 + step
                        let base = digits.trim_start_matches('0');
                        let digits = if base.is_empty() { step.to_string() } else { format!("{base}{step:02}") };
                        literal(negative, &digits, exponent - 2, s2)
                    }
                    1 => own(f64::from_bits(f.to_bits() ^ step), s2),
                    _ => {
                        let text = format!("{:e}", f.abs());
                        let (mantissa, exponent) = text.split_once('e').unwrap();
                        let digits = mantissa.replace('.', "");
                        let exponent = exponent.parse::<i64>().unwrap() - (digits.len() as i64 - 1);
                        literal(f.is_sign_negative(), &digits, exponent, s2)
                    }
                };
                (a, b)
            },
        );
        prop_oneof![integers, decimals, doubles]
    }

    proptest! {
        #[test]
        fn two_accepted_texts_with_different_values_never_share_a_fingerprint((a, b) in pairs()) {
            if a.value != b.value && exact_literal(&a.text) && exact_literal(&b.text) {
                prop_assert_ne!(fingerprint(&a.text), fingerprint(&b.text), "{} and {}", a.text, b.text);
            }
        }

        #[test]
        fn every_double_has_a_text_that_is_accepted_and_reads_back_as_it(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
            // An integer-valued double as its integer, any other as its shortest form.
            let text = if f.fract() == 0.0 { format!("{f:.0}") } else { ryu_js::Buffer::new().format_finite(f).to_owned() };
            prop_assert!(exact_literal(&text), "{}", text);
            prop_assert_eq!(text.parse::<f64>().unwrap(), f);
        }

        /// The lemma the rule's argument rests on: the shortest text of a double whose value is an
        /// integer is an integer (never a decimal an accepted integer could share a double with).
        #[test]
        fn the_shortest_form_of_an_integer_valued_double_is_an_integer(f in any::<f64>().prop_filter("an integer", |f| f.is_finite() && f.fract() == 0.0)) {
            let text = ryu_js::Buffer::new().format_finite(f).to_owned();
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
            let fraction = mantissa.split_once('.').map_or("", |(_, fraction)| fraction.trim_end_matches('0'));
            prop_assert!(fraction.len() as i64 <= exponent.parse::<i64>().unwrap(), "{}", text);
        }
    }

    /// The property is not empty: neighbours that share a fingerprint are generated, and refused.
    #[test]
    fn neighbours_sharing_a_fingerprint_are_refused() {
        for (a, b) in [("1152921504606846976", "1152921504606846977"), ("0.1", "0.10000000000000001"), ("1e23", "99999999999999991611392")]
        {
            assert_eq!(fingerprint(a), fingerprint(b), "{a} and {b}");
            assert!(exact_literal(a) != exact_literal(b) || !exact_literal(a), "{a} and {b}");
        }
        assert!(exact_literal("1152921504606846976") && !exact_literal("1152921504606846977"));
    }
}
