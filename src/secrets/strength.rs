//! How strong a session token given by hand is (`serve --token`, `--token-file`,
//! `APPROVAL_CONSOLE_TOKEN`, the desktop app's `--token`): it makes its holder the local admin, so
//! it must carry at least [`MIN_BITS`] bits, as a random token does.
//!
//! Measured conservatively, from its length and the smallest common alphabet its characters fit
//! in — decimal digits (3.32 bits each), hexadecimal (4; a UUID's dashes are not counted),
//! base64 or base64url (6; `=` padding not counted), any other printable ASCII (6, less than the
//! 6.55 of 94 characters) — and refused when obvious: a shorter sequence repeated, or fewer than
//! [`MIN_DISTINCT`] different characters. So 32 hex digits, 22 base64url characters or 39 decimal
//! digits of a random 128-bit value pass (`openssl rand -hex 32`, `openssl rand -base64 24`,
//! `uuidgen` are all more), and `x`, a 16-character word or a 21-character phrase do not. The
//! measure is an upper bound on what a person picks: a long passphrase of words passes it while
//! holding less, which is why a random token is what the message asks for.

use crate::domain::Error;

/// The least a session token must carry, in bits.
pub const MIN_BITS: u32 = 128;

/// The fewest different characters a session token may have.
pub const MIN_DISTINCT: usize = 5;

/// The command the refusal names.
pub const MAKE_ONE: &str = "openssl rand -hex 32";

/// Refuses a session token with fewer than [`MIN_BITS`] bits by the measure above, or an obvious
/// one, saying how to make one; the token itself is never in the message.
pub fn check_session_token_strength(token: &str) -> Result<(), Error> {
    let refuse = |why: String| {
        Err(Error::InvalidRequest(format!(
            "the session token makes its holder the local admin, and it is too weak: {why}. A session token needs at least \
             {MIN_BITS} random bits: make one with `{MAKE_ONE}` (or give none: `serve` makes and keeps a random one)"
        )))
    };
    if let Some(c) = token.chars().find(|c| !c.is_ascii_graphic()) {
        let what = if c.is_whitespace() { "a space or line break" } else { "a character that is not printable ASCII" };
        return refuse(format!("it holds {what}, which an HTTP header cannot carry as it is"));
    }
    let (counted, alphabet, millibits) = measure(token);
    let bits = counted as u64 * millibits / 1000;
    if bits < u64::from(MIN_BITS) {
        return refuse(format!("{counted} characters of {alphabet} carry at most {bits} bits"));
    }
    let mut distinct: Vec<char> = token.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_DISTINCT {
        return refuse(format!("it uses only {} different characters", distinct.len()));
    }
    if let Some(period) = repeats(token.as_bytes()) {
        return refuse(format!("it repeats its first {period} characters"));
    }
    Ok(())
}

/// The characters that count, the alphabet they fit in, and the thousandths of a bit each carries.
fn measure(token: &str) -> (usize, &'static str, u64) {
    let b = token.as_bytes();
    if b.iter().all(u8::is_ascii_digit) {
        return (b.len(), "decimal digits", 3321);
    }
    let hex: Vec<u8> = b.iter().copied().filter(|c| *c != b'-').collect();
    if hex.iter().all(u8::is_ascii_hexdigit) {
        return (hex.len(), "hexadecimal", 4000);
    }
    let unpadded = token.trim_end_matches('=').as_bytes();
    if unpadded.iter().all(|c| c.is_ascii_alphanumeric() || b"+/-_".contains(c)) {
        return (unpadded.len(), "base64", 6000);
    }
    (b.len(), "printable ASCII", 6000)
}

/// The shortest period of `b` when `b` is that many first bytes repeated (the last repeat may be
/// cut short) at least twice over; `None` otherwise.
fn repeats(b: &[u8]) -> Option<usize> {
    (1..=b.len() / 2).find(|p| b.iter().zip(&b[*p..]).all(|(x, y)| x == y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(token: &str) -> String {
        let e = check_session_token_strength(token).expect_err(token).to_string();
        assert!(e.contains(MAKE_ONE), "{e}");
        assert!(token.len() < 4 || !e.contains(token), "the token is never in the message: {e}");
        e
    }

    #[test]
    fn a_random_128_bit_token_in_every_common_encoding_passes() {
        use base64::Engine as _;
        for _ in 0..200 {
            let bytes: [u8; 16] = rand::random();
            let hex = hex::encode(bytes);
            let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            let uuid = uuid::Uuid::from_bytes(bytes).hyphenated().to_string();
            let decimal = format!("{:039}", u128::from_le_bytes(bytes));
            for token in [&hex, &hex.to_uppercase(), &b64url, &b64, &uuid, &decimal] {
                assert!(check_session_token_strength(token).is_ok(), "{token}");
            }
        }
        assert!(check_session_token_strength(&crate::secrets::random_token()).is_ok(), "the console's own");
    }

    #[test]
    fn a_short_or_obvious_token_is_refused_saying_how_to_make_one() {
        assert!(refused("x").contains("1 characters of base64 carry at most 6 bits"));
        assert!(refused("0123456789abcdef").contains("16 characters of hexadecimal carry at most 64 bits"));
        assert!(refused("correct-horse-16").contains("at most 96 bits"));
        refused("test-token-0123456789");
        refused(&"a".repeat(64));
        assert!(refused(&"0123456789abcdef".repeat(2)).contains("repeats its first 16 characters"));
        assert!(refused(&"abcd".repeat(10)).contains("only 4 different characters"));
        assert!(refused("a token with spaces in it that is long enough").contains("a space"));
        assert!(refused(&format!("{}é", "k".repeat(40))).contains("not printable ASCII"));
    }
}
