//! Exact fingerprints (issue 44): the numbers of a JSON text that its fingerprint binds to their
//! value alone, judged on the text before anything rounds them.
//!
//! RFC 8785 writes every number as the IEEE double it denotes, so the fingerprint sees a number's
//! double, not its text: `1152921504606846977` (2^60 + 1) and `1152921504606846976` (2^60) share
//! one fingerprint, as do `0.10000000000000001` and `0.1`. A console that accepted both texts
//! would let an approval of one stand for the other. The rule below keeps exactly one text value
//! per double:
//!
//! - a literal whose value is an integer (`42`, `1.5e3`, `1152921504606846976.0`) is accepted iff
//!   that integer **is** a double's value (2^60 is, 2^60 + 1 is not);
//! - any other literal is accepted iff its value equals, as an exact decimal, the shortest text that
//!   reads back as its double — the digits ECMAScript's `Number.prototype.toString` (and so RFC 8785)
//!   writes (`0.1` is, `0.10000000000000001` is not);
//! - a literal beyond the doubles' range (`1e400`) is refused.
//!
//! **Why no two accepted literals of different values share a fingerprint.** Let `d(L)` be the
//! double nearest literal `L` (what serde_json, with `float_roundtrip`, and `u64 as f64` give, and
//! what JCS writes through `ryu-js`; Python's `float` and JavaScript's `JSON.parse` round the same
//! way). Two canonical texts are equal only if their numbers' doubles are (ECMAScript's form is one
//! text per double, `-0` and `0` aside, and both are the value 0). So it is enough that `d(L1) =
//! d(L2)` implies `v(L1) = v(L2)` for accepted `L1`, `L2`, where `v` is a literal's exact value:
//! - both integers: `v(Li) = d(Li)` (the first rule), so the values are equal;
//! - neither an integer: `v(Li)` is the shortest text of `d(Li)` (the second rule), one text per double;
//! - one of each: impossible, because the shortest text of a double whose value is an integer is an
//!   integer. Say `|d| ≥ 1` has `n` digits before the point (the 0 case is `"0"`). Its own integer
//!   reads back as `d` and has at most `n` significant digits. A shortest text `S` that were no
//!   integer has a digit after the point; and `|S| ≥ 10^(n-1)` (else the one-digit `10^(n-1)`, lying
//!   between `S` and `d`, reads back as `d` too and is shorter than `S`, which has at least two
//!   digits), so `S` has at least `n + 1` significant digits: longer than `d`'s integer, so not the
//!   shortest. (`tests/fingerprint.rs` checks this lemma and the whole property on generated numbers.)
//!
//! What a `Value` still holds cannot be judged this way: serde_json has already rounded a decimal
//! into a double (the `arbitrary_precision` feature would keep its text, for the whole process, so
//! it stays off). Text is therefore read here with serde_json itself, each number reached as a
//! [`RawValue`] with its JSON Pointer; a `Value` is judged by [`super::inexact_numbers`], which sees
//! its integers (kept exactly) and takes its doubles as the numbers they are.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// The deepest nesting read: serde_json's own limit for a `Value`, so deeper text is none anyway.
pub const MAX_DEPTH: usize = 128;

/// The most bytes one [`inexact_literals`] reads: a container's text is read again for each one
/// around it, so 4 MiB of blanks nested 128 deep would cost half a gigabyte. Within it: arguments
/// of 256 KiB (the submit limit's default) at any depth, 4 MiB up to 16 levels.
pub const MAX_WORK: usize = 64 << 20;

/// Whether the JSON number `literal` is one its fingerprint binds to its value alone (the module's
/// rule): an integer that is a double's value, or a decimal written as its double's shortest form.
/// Anything that is no JSON number is not.
pub fn exact_literal(literal: &str) -> bool {
    let Some(written) = Decimal::of(literal) else { return false };
    let Ok(double) = literal.parse::<f64>() else { return false };
    if !double.is_finite() {
        return false;
    }
    let canonical = if written.is_integer() {
        // Exact digits: a double whose value is an integer written out in full.
        format!("{double:.0}")
    } else {
        ryu_js::Buffer::new().format_finite(double).to_owned()
    };
    Decimal::of(&canonical).is_some_and(|c| c == written)
}

/// JSON Pointers to the numbers of the JSON text `text` that are not [`exact_literal`]s, in the
/// order they are written (a member named twice is judged each time). Errs when `text` is no JSON
/// or is nested deeper than [`MAX_DEPTH`].
///
/// Each container's text is read once for itself and once for each container around it: past
/// [`MAX_WORK`] bytes read in all, it errs too (the text is too deep and too large to judge).
pub fn inexact_literals(text: &str) -> Result<Vec<String>, serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(text)?;
    let mut walk = Walk { at: String::new(), found: Vec::new(), work: text.len() };
    walk.value(raw, 0)?;
    Ok(walk.found)
}

/// Why a JSON text was not read as exact arguments.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Numbers the fingerprint cannot bind, by JSON Pointer.
    #[error("numbers an IEEE double cannot carry exactly at {}", .0.join(", "))]
    Inexact(Vec<String>),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// `text` as a JSON value, judged first: every number in it an [`exact_literal`], else their
/// pointers ([`ReadError::Inexact`]).
pub fn read_exact(text: &str) -> Result<Value, ReadError> {
    let paths = inexact_literals(text)?;
    if !paths.is_empty() {
        return Err(ReadError::Inexact(paths));
    }
    Ok(serde_json::from_str(text)?)
}

/// Arguments as the JSON text that carried them (a member of a request body), kept until they are
/// [`read`](ArgsText::read) exactly. Deserializes from serde_json text as it was written; from a
/// `Value` (the desktop window's commands) as that value's own text.
#[derive(Debug, serde::Deserialize)]
#[serde(transparent)]
pub struct ArgsText(Box<RawValue>);

impl ArgsText {
    /// The arguments, judged by [`read_exact`].
    pub fn read(&self) -> Result<Value, ReadError> {
        read_exact(self.0.get())
    }
}

/// A walk through a JSON text: where it is, what it found, how much it read.
struct Walk {
    at: String,
    found: Vec<String>,
    work: usize,
}

impl Walk {
    fn value(&mut self, raw: &RawValue, depth: usize) -> Result<(), serde_json::Error> {
        let text = raw.get();
        let first = text.as_bytes().first();
        if matches!(first, Some(b'{' | b'[')) {
            if depth >= MAX_DEPTH {
                return Err(serde::de::Error::custom("recursion limit exceeded"));
            }
            self.work += text.len();
            if self.work > MAX_WORK {
                return Err(serde::de::Error::custom(format!(
                    "nested too deeply for its size: its numbers are judged on their text, and reading it took more than {MAX_WORK} bytes"
                )));
            }
        }
        match first {
            Some(b'{') => {
                let Members(members) = serde_json::from_str(text)?;
                for (name, value) in members {
                    self.enter(&name.replace('~', "~0").replace('/', "~1"), value, depth)?;
                }
            }
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(text)?;
                for (i, item) in items.into_iter().enumerate() {
                    self.enter(&i.to_string(), item, depth)?;
                }
            }
            Some(b'-' | b'0'..=b'9') if !exact_literal(text) => self.found.push(self.at.clone()),
            _ => {}
        }
        Ok(())
    }

    /// The member or item `token` (escaped) of the container at `depth`.
    fn enter(&mut self, token: &str, raw: &RawValue, depth: usize) -> Result<(), serde_json::Error> {
        let len = self.at.len();
        self.at.push('/');
        self.at.push_str(token);
        self.value(raw, depth + 1)?;
        self.at.truncate(len);
        Ok(())
    }
}

/// An object's members in the order written, each value as its text (duplicates kept).
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// A JSON number's exact value: `(-1)^negative × digits × 10^exponent`, `digits` without leading or
/// trailing zeros (empty for zero, which has no sign), so equal values are equal `Decimal`s.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// The value of a JSON number's text (also ECMAScript's `1e+21`), or `None` for other text.
    fn of(text: &str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || (int.len() > 1 && int.starts_with('0')) || (mantissa.contains('.') && !digits(frac)) {
            return None;
        }
        let mut exponent = match exponent {
            None => 0,
            Some(e) => {
                let magnitude = e.strip_prefix(['+', '-']).unwrap_or(e);
                if !digits(magnitude) {
                    return None;
                }
                // Beyond 10^15 a literal is out of the doubles' range or rounds to zero, either way
                // never equal to a double's own text: saturating keeps the arithmetic in range.
                let magnitude = magnitude.trim_start_matches('0');
                let magnitude: i64 = if magnitude.len() > 15 { 10i64.pow(15) } else { magnitude.parse().unwrap_or(0) };
                if e.starts_with('-') {
                    -magnitude
                } else {
                    magnitude
                }
            }
        };
        let all = format!("{int}{frac}");
        exponent -= frac.len() as i64;
        let significant = all.trim_start_matches('0');
        let trimmed = significant.trim_end_matches('0');
        if trimmed.is_empty() {
            return Some(Self { negative: false, digits: String::new(), exponent: 0 });
        }
        exponent += (significant.len() - trimmed.len()) as i64;
        Some(Self { negative, digits: trimmed.to_owned(), exponent })
    }

    fn is_integer(&self) -> bool {
        self.digits.is_empty() || self.exponent >= 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_exact_when_a_double_is_their_value_and_decimals_when_written_as_their_shortest_form() {
        for exact in [
            "0",
            "-0",
            "0.0",
            "-0e5",
            "42",
            "-7",
            "1.5e3",
            "1500.000",
            "100e-2",
            "9007199254740992",
            "9007199254740994",
            "1152921504606846976",
            "1152921504606846976.0",
            "1.152921504606846976e18",
            "-9223372036854775808",
            "18446744073709551616",
            "1e21",
            "1E+21",
            "1e22",
            "0.1",
            "-0.1",
            "1e-7",
            "0.30000000000000004",
            "5e-324",
            "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368",
        ] {
            assert!(exact_literal(exact), "{exact} is exact");
        }
        for inexact in [
            "9007199254740993",
            "1152921504606846977",
            "-9223372036854775807",
            "18446744073709551615",
            "0.10000000000000001",
            "0.1000000000000000055511151231257827",
            "1.0000000000000000001",
            // Integers written as their double's shortest form are not that double's value: a
            // JavaScript client's 2 ** 60 and 1e23 (send such integers as strings).
            "1152921504606847000",
            "1e23",
            "1e308",
            "1.7976931348623157e308",
            "1e400",
            "-1e400",
            "1e-400",
            "2e-324",
            "1e99999999999999999999",
            "1e-99999999999999999999",
        ] {
            assert!(!exact_literal(inexact), "{inexact} is not exact");
        }
        for not_a_number in ["", "-", "1.", ".5", "1e", "abc", "0x10", "1e+", "01", "-00.5", "+1", " 1", "NaN", "inf"] {
            assert!(!exact_literal(not_a_number), "{not_a_number:?}");
        }
    }

    #[test]
    fn each_inexact_number_is_named_by_its_pointer_in_the_order_written() {
        let text = r#" {"user_id": 1152921504606846977, "ok": [2, 0.1, {"a/b~": 0.10000000000000001}], "s": "1e400",
            "n": null, "big": 1e400, "dup": 1, "dup": 9007199254740993, "list": [ 1152921504606846976, -9007199254740993 ]} "#;
        assert_eq!(inexact_literals(text).unwrap(), vec!["/user_id", "/ok/2/a~1b~0", "/big", "/dup", "/list/1"]);
        assert_eq!(inexact_literals("9007199254740993").unwrap(), vec![""]);
        assert!(inexact_literals(r#"{"a": [1, 2.5, "x", true]}"#).unwrap().is_empty());
        assert!(inexact_literals("{").is_err());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(inexact_literals(&deep).is_err(), "deeper than a Value may be");
        let deepest = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(inexact_literals(&deepest).unwrap().is_empty());
        // Blanks nested deep are read once per level: past MAX_WORK the text is refused, not read on.
        let blanks = |depth: usize, n: usize| format!("{}[1{}]{}", "[".repeat(depth), " ".repeat(n), "]".repeat(depth));
        assert!(inexact_literals(&blanks(100, 1 << 20)).unwrap_err().to_string().contains("nested too deeply for its size"));
        assert!(inexact_literals(&blanks(10, 1 << 20)).unwrap().is_empty());
    }

    #[test]
    fn exact_text_reads_as_its_value_and_inexact_text_names_its_numbers() {
        assert_eq!(read_exact(r#"{"n": 1.5e3}"#).unwrap(), serde_json::json!({"n": 1500.0}));
        match read_exact(r#"{"n": 1e400}"#) {
            Err(ReadError::Inexact(paths)) => assert_eq!(paths, vec!["/n"]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(read_exact("[1,"), Err(ReadError::Json(_))));
        let text: ArgsText = serde_json::from_str(r#"{"x": 0.10000000000000001}"#).unwrap();
        assert!(matches!(text.read(), Err(ReadError::Inexact(p)) if p == vec!["/x"]));
        // From a Value (the window's commands): its own text, already a double's.
        let text: ArgsText = serde_json::from_value(serde_json::json!({"x": 0.1})).unwrap();
        assert_eq!(text.read().unwrap(), serde_json::json!({"x": 0.1}));
    }
}
