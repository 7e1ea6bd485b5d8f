//! Wrong pairing codes, counted per address: an address that sent [`PER_ADDRESS`] wrong codes tries
//! no more for [`WINDOW`] from its first; every other address still pairs. Guessing is bounded by
//! the code itself too: each live pairing dies after [`super::PAIRING_WRONG_TRIES`] wrong codes
//! from anywhere (`store::devices::claim_pairing`), so no number of addresses guesses one.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong pairing codes allowed per address per [`WINDOW`].
pub(super) const PER_ADDRESS: u32 = 5;
pub(super) const WINDOW: Duration = Duration::from_secs(600);
/// Addresses remembered at once: past it, the one whose window began first is forgotten (a flood
/// of addresses buys each of them its own tries, no more, and the codes die of the wrong tries).
const ADDRESSES_KEPT: usize = 4096;

/// The key a peer's address is limited by ([`crate::domain::remote::share`]: an IPv6 address's
/// /64); a text that is no address is its own key.
pub(crate) fn peer_key(address: &str) -> String {
    address.parse::<IpAddr>().map(|ip| crate::domain::remote::share(ip).to_string()).unwrap_or_else(|_| address.to_owned())
}

/// The wrong tries of each address in its window: (when its window began, how many).
#[derive(Default)]
pub(crate) struct Tries {
    by_address: Mutex<HashMap<String, (Instant, u32)>>,
}

impl Tries {
    /// Whether `address` may try a pairing code now: `Err(seconds to wait)` once it sent
    /// [`PER_ADDRESS`] wrong codes in its window.
    pub(crate) fn may_try(&self, address: &str) -> Result<(), u64> {
        let mut all = self.by_address.lock().expect("tries lock");
        let key = peer_key(address);
        match all.get(&key) {
            Some((since, _)) if since.elapsed() >= WINDOW => {
                all.remove(&key);
                Ok(())
            }
            Some((since, n)) if *n >= PER_ADDRESS => Err((WINDOW - since.elapsed()).as_secs().max(1)),
            _ => Ok(()),
        }
    }

    /// Counts a wrong pairing code from `address`.
    pub(crate) fn tried(&self, address: &str) {
        let mut all = self.by_address.lock().expect("tries lock");
        let key = peer_key(address);
        if !all.contains_key(&key) && all.len() >= ADDRESSES_KEPT {
            all.retain(|_, (since, _)| since.elapsed() < WINDOW);
            if all.len() >= ADDRESSES_KEPT {
                if let Some(first) = all.iter().min_by_key(|(_, (since, _))| *since).map(|(k, _)| k.clone()) {
                    all.remove(&first);
                }
            }
        }
        let entry = all.entry(key).or_insert((Instant::now(), 0));
        if entry.0.elapsed() >= WINDOW {
            *entry = (Instant::now(), 0);
        }
        entry.1 += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_codes_lock_the_address_that_sent_them_and_no_other() {
        let tries = Tries::default();
        for _ in 0..PER_ADDRESS {
            assert!(tries.may_try("203.0.113.7").is_ok());
            tries.tried("203.0.113.7");
        }
        let wait = tries.may_try("203.0.113.7").expect_err("its sixth try waits");
        assert!(wait > 0 && wait <= WINDOW.as_secs(), "{wait}");
        // Seven addresses' five wrong codes each lock those seven; an eighth still tries.
        for a in 1..=7 {
            for _ in 0..PER_ADDRESS {
                tries.tried(&format!("198.51.100.{a}"));
            }
            assert!(tries.may_try(&format!("198.51.100.{a}")).is_err());
        }
        assert!(tries.may_try("198.51.100.8").is_ok(), "another address is never locked by them");
        // One host's IPv6 addresses are one address: its /64.
        for i in 0..PER_ADDRESS {
            tries.tried(&format!("2001:db8::{i}"));
        }
        assert!(tries.may_try("2001:db8::ffff").is_err());
        assert!(tries.may_try("2001:db8:0:1::1").is_ok());
    }
}
