//! The places of the accept loop ([`super`]): the general room and the operators' reserve, who
//! holds them (per connection, per address), which connection gives way to a new one, and the
//! requests in flight.

use super::Limits;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// In every request's extensions: how its connection stands; either one lets only an operator's
/// request run ([`super::guard::guard`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// Let in on the operators' reserve.
    pub reserve: bool,
    /// Its address holds more than its share of busy connections, this request's included.
    pub crowded: bool,
}

impl Admission {
    pub fn operators_only(self) -> bool {
        self.reserve || self.crowded
    }
}

pub(super) struct Conn {
    id: u64,
    pub(super) reserve: bool,
    /// Its peer's address as its share is counted ([`share`]).
    peer: IpAddr,
    /// Requests in flight, their answers' bodies included (a stream is busy until it ends).
    pub(super) busy: AtomicUsize,
    /// When a request last started or ended (or the connection was let in), in µs since the
    /// pool's start: fine enough to tell apart connections let in one after the other.
    last: AtomicU64,
    /// When it was let in (µs since the pool's start), and whether a request of it started since:
    /// a new connection is given [`GRACE`] to send its first one before it can be made to give way.
    admitted: u64,
    started: AtomicBool,
    pub(super) close: Notify,
}

/// How long a new connection that has sent no request yet is kept from giving way to another
/// (unless descriptors run out): time enough for its first request to arrive, so that new
/// connections coming fast (a flood's) cannot close an operator's before its request is read. A
/// new connection that finds no place waits for one as long (in the listen backlog, in order).
pub(super) const GRACE: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Rooms {
    conns: HashMap<u64, Arc<Conn>>,
    general: usize,
    reserve: usize,
    /// Places of the general room each address holds (no entry: none)…
    held: HashMap<IpAddr, usize>,
    /// …and requests in flight on them.
    busy: HashMap<IpAddr, usize>,
    next: u64,
}

pub(super) struct Pool {
    rooms: Mutex<Rooms>,
    general_cap: usize,
    reserve_cap: usize,
    /// One address's share of the general room ([`Limits::connections_per_peer`]).
    per_peer: usize,
    /// [`GRACE`], in µs.
    grace: u64,
    epoch: Instant,
}

/// The address `ip`'s share is counted by (an IPv6 address's /64): one rule with the remote
/// listener's limits on ceremonies and pairing tries.
pub use crate::domain::remote::share;

impl Pool {
    pub(super) fn new(limits: &Limits) -> Self {
        Self {
            rooms: Mutex::default(),
            general_cap: limits.connections.max(1),
            reserve_cap: limits.operator_reserve,
            per_peer: limits.connections_per_peer.max(1),
            grace: GRACE.as_micros() as u64,
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// A place for a new connection from `peer`: a free one, else the one of a connection idle the
    /// longest (told to close). An address that holds more than its share of the general room gives
    /// way first: to another address's new connection as soon as the general room is full (its new
    /// connections too, within their grace), to anyone's once the reserve is full too. `None` when
    /// every connection is busy or new.
    fn admit(&self, peer: IpAddr) -> Option<Arc<Conn>> {
        let peer = share(peer);
        let mut rooms = self.rooms.lock().expect("connections lock");
        let per_peer = self.per_peer;
        // The general room: a free place, else, when full, one of an address past its share (its new
        // connections too: their grace shelters no crowd from another address).
        let reserve = if rooms.general < self.general_cap
            || self.take_idle(&mut rooms, true, |c, held| !c.reserve && c.peer != peer && held(c.peer) > per_peer).is_some()
        {
            false
        } else if rooms.reserve < self.reserve_cap {
            true
        } else if let Some(victim) = self.take_idle(&mut rooms, false, |c, held| held(c.peer) > per_peer) {
            victim.reserve
        } else {
            self.take_idle(&mut rooms, false, |_, _| true)?.reserve
        };
        rooms.next += 1;
        let conn = Arc::new(Conn {
            id: rooms.next,
            reserve,
            peer,
            busy: AtomicUsize::new(0),
            last: AtomicU64::new(self.now()),
            admitted: self.now(),
            started: AtomicBool::new(false),
            close: Notify::new(),
        });
        if reserve {
            rooms.reserve += 1;
        } else {
            rooms.general += 1;
            *rooms.held.entry(peer).or_default() += 1;
        }
        rooms.conns.insert(conn.id, conn.clone());
        Some(conn)
    }

    /// Tells the connection idle the longest of those `which` picks (given it and how many places
    /// of the general room an address holds) to close, and frees its place; a new one within its
    /// [`GRACE`] only if `new_too`.
    fn take_idle(&self, rooms: &mut Rooms, new_too: bool, which: impl Fn(&Conn, &dyn Fn(IpAddr) -> usize) -> bool) -> Option<Arc<Conn>> {
        let held = |ip: IpAddr| rooms.held.get(&ip).copied().unwrap_or(0);
        let now = self.now();
        let new = |c: &Conn| !new_too && !c.started.load(Ordering::SeqCst) && now.saturating_sub(c.admitted) < self.grace;
        let victim = rooms
            .conns
            .values()
            .filter(|c| c.busy.load(Ordering::SeqCst) == 0 && !new(c) && which(c, &held))
            .min_by_key(|c| c.last.load(Ordering::SeqCst))?
            .clone();
        Self::remove(rooms, &victim);
        victim.close.notify_one();
        Some(victim)
    }

    fn remove(rooms: &mut Rooms, conn: &Conn) {
        if rooms.conns.remove(&conn.id).is_some() {
            if conn.reserve {
                rooms.reserve -= 1;
            } else {
                rooms.general -= 1;
                less(&mut rooms.held, conn.peer);
            }
        }
    }

    /// [`Self::admit`], waiting for a place up to `wait` (meanwhile new connections wait in the
    /// listen backlog): by then every connection let in before has sent its request or can give way.
    pub(super) async fn admit_within(&self, peer: IpAddr, wait: Duration) -> Option<Arc<Conn>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(conn) = self.admit(peer) {
                return Some(conn);
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Closes the connection idle the longest, a new one too (descriptors ran out).
    pub(super) fn free_one(&self) {
        let _ = self.take_idle(&mut self.rooms.lock().expect("connections lock"), true, |_, _| true);
    }

    pub(super) fn release(&self, conn: &Conn) {
        Self::remove(&mut self.rooms.lock().expect("connections lock"), conn);
    }
}

/// One less of `key` in `counts` (its entry gone at none).
fn less(counts: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(n) = counts.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(&key);
        }
    }
}

/// A request in flight on `conn`, until its answer's body ends or is dropped.
pub(super) struct Busy(Arc<Conn>, Arc<Pool>);

impl Busy {
    /// Counts the request (a general connection's against its address's share too) and says how
    /// its connection stands.
    pub(super) fn new(conn: Arc<Conn>, pool: Arc<Pool>) -> (Self, Admission) {
        let mut crowded = false;
        if !conn.reserve {
            let mut rooms = pool.rooms.lock().expect("connections lock");
            let n = rooms.busy.entry(conn.peer).or_default();
            *n += 1;
            crowded = *n > pool.per_peer;
        }
        conn.busy.fetch_add(1, Ordering::SeqCst);
        conn.started.store(true, Ordering::SeqCst);
        conn.last.store(pool.now(), Ordering::SeqCst);
        let admission = Admission { reserve: conn.reserve, crowded };
        (Self(conn, pool), admission)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last.store(self.1.now(), Ordering::SeqCst);
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
        if !self.0.reserve {
            less(&mut self.1.rooms.lock().expect("connections lock").busy, self.0.peer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn pool(general: usize, reserve: usize, per_peer: usize) -> Pool {
        // No grace for new connections: each test says when a connection was last busy.
        Pool { rooms: Mutex::default(), general_cap: general, reserve_cap: reserve, per_peer, grace: 0, epoch: Instant::now() }
    }

    #[test]
    fn past_the_caps_the_longest_idle_connection_makes_room_and_busy_ones_are_kept() {
        // One address with no share to reach.
        let p = pool(2, 1, 10);
        let a = p.admit(HERE).unwrap();
        let b = p.admit(HERE).unwrap();
        let r = p.admit(HERE).unwrap();
        assert_eq!((a.reserve, b.reserve, r.reserve), (false, false, true));
        a.busy.fetch_add(1, Ordering::SeqCst);
        b.last.store(5, Ordering::SeqCst);
        r.last.store(10, Ordering::SeqCst);
        // Full: b is idle the longest (a is busy).
        let c = p.admit(HERE).unwrap();
        assert!(!c.reserve);
        assert!(!p.rooms.lock().unwrap().conns.contains_key(&b.id));
        r.busy.fetch_add(1, Ordering::SeqCst);
        c.busy.fetch_add(1, Ordering::SeqCst);
        // Every connection busy: none is let in.
        assert!(p.admit(HERE).is_none());
        p.release(&a);
        assert!(!p.admit(HERE).unwrap().reserve);
    }

    #[test]
    fn an_address_past_its_share_runs_operators_only_and_gives_way_to_another_address() {
        let (flood, other): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let p = Arc::new(pool(3, 1, 1));
        let (a1, a2, a3) = (p.admit(flood).unwrap(), p.admit(flood).unwrap(), p.admit(flood).unwrap());
        assert!(!a1.reserve && !a2.reserve && !a3.reserve, "room to spare: the general room");
        // Its share (one) of busy connections: the next request runs for operators only.
        let (first, admission) = Busy::new(a1.clone(), p.clone());
        assert_eq!(admission, Admission { reserve: false, crowded: false });
        let (second, admission) = Busy::new(a2.clone(), p.clone());
        assert_eq!(admission, Admission { reserve: false, crowded: true });
        drop(second);
        drop(first);
        let (_again, admission) = Busy::new(a2.clone(), p.clone());
        assert!(!admission.crowded, "the first ended: its place in the share is back");
        a1.last.store(0, Ordering::SeqCst);
        a2.last.store(1, Ordering::SeqCst);
        a3.last.store(2, Ordering::SeqCst);
        // The room full, past its share: its connection idle the longest gives way to another
        // address, which is let into the general room (the reserve untouched)…
        let b1 = p.admit(other).unwrap();
        assert!(!b1.reserve);
        assert!(!p.rooms.lock().unwrap().conns.contains_key(&a1.id), "a1 (idle since 0) gave way");
        // …and another address's request is no crowd of the flood's.
        let (b, admission) = Busy::new(b1.clone(), p.clone());
        assert!(!admission.operators_only());
        drop(b);
        // The flood's own new connection takes no place of another's: the reserve, operators only.
        let a4 = p.admit(flood).unwrap();
        assert!(a4.reserve);
        assert_eq!(Busy::new(a4.clone(), p.clone()).1, Admission { reserve: true, crowded: false });
        // Both rooms full: the flood's connection idle the longest goes first, not another
        // address's idle longer.
        b1.last.store(0, Ordering::SeqCst);
        let a5 = p.admit(flood).unwrap();
        assert!(!a5.reserve);
        let kept = |c: &Conn| p.rooms.lock().unwrap().conns.contains_key(&c.id);
        assert_eq!((kept(&a3), kept(&b1), kept(&a4)), (false, true, true));
    }

    #[test]
    fn a_new_connection_is_given_time_to_send_its_first_request_before_it_gives_way() {
        let p = Arc::new(Pool { grace: 3_600_000_000, ..pool(1, 0, 10) });
        let a = p.admit(HERE).unwrap();
        assert!(p.admit(HERE).is_none(), "the one place is a new connection's, within its grace");
        // Its first request came (and ended): idle now, it gives way.
        drop(Busy::new(a.clone(), p.clone()));
        assert!(p.admit(HERE).is_some());
        assert!(!p.rooms.lock().unwrap().conns.contains_key(&a.id));
    }

    #[test]
    fn an_ipv6_address_shares_with_its_64_and_a_mapped_ipv4_one_is_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(share(ip("2001:db8::1")), share(ip("2001:db8::ffff:1234")));
        assert_ne!(share(ip("2001:db8::1")), share(ip("2001:db8:0:1::1")));
        assert_eq!(share(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_ne!(share(ip("10.0.0.1")), share(ip("10.0.0.2")));
    }
}
