//! The passkey ceremonies in flight (a registration, a sign-in, a step-up), kept in this process's
//! memory between their two requests, and what a flood of them may push out.
//!
//! Registrations and sign-ins are asked for by anyone (no credential yet): each is held for the
//! address it came from ([`Owner::Peer`]: an IPv4 address, an IPv6 address's /64), at most
//! [`PER_PEER`] for one address, and one address's next pushes out its own oldest, never another
//! address's. A step-up is asked for by a signed-in device and held for that device
//! ([`Owner::Device`], at most [`PER_DEVICE`]). When all of them together reach [`IN_ALL`], the
//! oldest of the anonymous ones goes first; a step-up only when no anonymous ceremony is left. So
//! no flood of sign-ins, from one address or from many, takes away a phone's pending step-up.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a ceremony may take between its two requests.
pub(super) const TTL: Duration = Duration::from_secs(300);
/// Anonymous ceremonies (registrations, sign-ins) kept for one address.
pub(super) const PER_PEER: usize = 16;
/// Step-ups kept for one device.
pub(super) const PER_DEVICE: usize = 16;
/// Ceremonies kept at once (each a few KB).
pub(super) const IN_ALL: usize = 1024;

/// Whom a ceremony is held for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// An anonymous caller at this address (its limit's key: [`crate::domain::remote::share`]).
    Peer(String),
    /// A paired device's session (a step-up), by the device's name.
    Device(String),
}

impl Owner {
    /// An anonymous caller at `address` (as the listener saw it), counted by its share.
    pub(crate) fn peer(address: &str) -> Self {
        Owner::Peer(super::tries::peer_key(address))
    }

    fn cap(&self) -> usize {
        match self {
            Owner::Peer(_) => PER_PEER,
            Owner::Device(_) => PER_DEVICE,
        }
    }
}

struct Held<C> {
    at: Instant,
    /// The order kept in (instants of two ceremonies kept in a row may be equal).
    seq: u64,
    owner: Owner,
    ceremony: C,
}

/// The ceremonies in flight (`C`: [`super::Ceremony`]), by their random ids.
pub(crate) struct Ceremonies<C> {
    all: Mutex<(HashMap<String, Held<C>>, u64)>,
}

impl<C> Default for Ceremonies<C> {
    fn default() -> Self {
        Self { all: Mutex::new((HashMap::new(), 0)) }
    }
}

impl<C> Ceremonies<C> {
    /// Keeps `ceremony` for `owner` until its second request; its id (random, 256 bits). Pushes out,
    /// if it must: the owner's own oldest past its cap, then, past [`IN_ALL`], the oldest anonymous
    /// ceremony of any address, and a step-up only when none is left.
    pub(crate) fn keep(&self, owner: Owner, ceremony: C) -> String {
        let id = crate::secrets::random_token();
        let mut guard = self.all.lock().expect("ceremonies lock");
        let (all, seq) = &mut *guard;
        all.retain(|_, held| held.at.elapsed() < TTL);
        if all.values().filter(|h| h.owner == owner).count() >= owner.cap() {
            if let Some(k) = oldest(all, |h| h.owner == owner) {
                all.remove(&k);
            }
        }
        while all.len() >= IN_ALL {
            let Some(k) = oldest(all, |h| matches!(h.owner, Owner::Peer(_))).or_else(|| oldest(all, |_| true)) else { break };
            all.remove(&k);
        }
        *seq += 1;
        all.insert(id.clone(), Held { at: Instant::now(), seq: *seq, owner, ceremony });
        id
    }

    /// Takes the ceremony `id` (once: a second take finds nothing), if it has not expired.
    pub(crate) fn take(&self, id: &str) -> Option<C> {
        let mut all = self.all.lock().expect("ceremonies lock");
        all.0.remove(id).filter(|held| held.at.elapsed() < TTL).map(|held| held.ceremony)
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.all.lock().unwrap().0.len()
    }
}

fn oldest<C>(all: &HashMap<String, Held<C>>, which: impl Fn(&Held<C>) -> bool) -> Option<String> {
    all.iter().filter(|(_, h)| which(h)).min_by_key(|(_, h)| h.seq).map(|(k, _)| k.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Kind {
        SignIn,
        StepUp,
    }

    #[test]
    fn one_addresss_flood_of_sign_ins_pushes_out_its_own_oldest_and_nothing_of_another_address() {
        let c = Ceremonies::default();
        let other = c.keep(Owner::peer("198.51.100.2"), Kind::SignIn);
        let phone = c.keep(Owner::Device("alice-phone".into()), Kind::StepUp);
        let own: Vec<String> = (0..1100).map(|_| c.keep(Owner::peer("203.0.113.9"), Kind::SignIn)).collect();
        assert_eq!(c.len(), PER_PEER + 2, "one address holds its share, no more");
        assert_eq!(c.take(&own[0]), None, "its own oldest went");
        assert_eq!(c.take(own.last().unwrap()), Some(Kind::SignIn), "its newest is kept");
        assert_eq!(c.take(&other), Some(Kind::SignIn), "another address's sign-in is kept");
        assert_eq!(c.take(&phone), Some(Kind::StepUp), "the phone's step-up is kept");
        assert_eq!(c.take(&phone), None, "taken once");
    }

    #[test]
    fn a_flood_from_many_addresses_pushes_out_sign_ins_before_any_devices_step_up() {
        let c = Ceremonies::default();
        let phone = c.keep(Owner::Device("alice-phone".into()), Kind::StepUp);
        let early = c.keep(Owner::peer("198.51.100.2"), Kind::SignIn);
        // 70 addresses, each its share: more than the cap in all.
        for a in 0..70 {
            for _ in 0..PER_PEER {
                c.keep(Owner::peer(&format!("10.1.0.{a}")), Kind::SignIn);
            }
        }
        assert_eq!(c.len(), IN_ALL);
        assert_eq!(c.take(&early), None, "the oldest anonymous ceremony went");
        assert_eq!(c.take(&phone), Some(Kind::StepUp), "the older step-up is kept");
    }

    #[test]
    fn a_devices_step_ups_push_out_only_its_own() {
        let c = Ceremonies::default();
        let bob = c.keep(Owner::Device("bob-phone".into()), Kind::StepUp);
        let first = c.keep(Owner::Device("alice-phone".into()), Kind::StepUp);
        for _ in 0..PER_DEVICE {
            c.keep(Owner::Device("alice-phone".into()), Kind::StepUp);
        }
        assert_eq!(c.take(&first), None);
        assert_eq!(c.take(&bob), Some(Kind::StepUp));
    }

    #[test]
    fn an_ipv6_hosts_addresses_are_one_peer() {
        assert_eq!(Owner::peer("2001:db8::1"), Owner::peer("2001:db8::2"));
        assert_ne!(Owner::peer("2001:db8::1"), Owner::peer("2001:db8:0:1::1"));
        assert_ne!(Owner::peer("10.0.0.1"), Owner::peer("10.0.0.2"));
    }
}
