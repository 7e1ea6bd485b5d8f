//! The server's own accept loop (instead of `axum::serve`, which has neither of these): HTTP/1.1
//! connections with a header-read timeout (a connection that sends no request within
//! [`Limits::header_read_timeout`], new or idle between requests, is closed), and a connection cap
//! that always keeps room for operators:
//! - [`Limits::connections`] connections for anyone, then [`Limits::operator_reserve`] more whose
//!   requests, every one of them whatever its path, must be authenticated as an operator or admin
//!   ([`Admission`], checked by [`super::guard::guard`]: anyone else is refused before a byte of a
//!   body is read, and the connection closed), so a connection on the reserve is busy only while
//!   an operator's request runs;
//! - when both are full, the connection idle the longest (no request in flight: one that never
//!   sent a request, or a keep-alive one between requests) is closed to let the new one in, so idle
//!   sockets can never keep an operator out; only when every connection is busy is a new one closed
//!   at once (and busy requests are capped per credential: [`super::limits`]);
//! - one address (an IPv6 address's /64: [`share`]) has a share of the general room,
//!   [`Limits::connections_per_peer`]: past it, its requests are refused in the same way unless
//!   they are an operator's, so it holds no more busy connections than its share; and once the
//!   room is full, its connections idle the longest give way to another address's new ones. A
//!   flood from one address leaves the rest of the room to the others.
//!
//! At start the soft `RLIMIT_NOFILE` is raised to the hard limit, and the caps are lowered to fit
//! it, so a few hundred sockets never exhaust the descriptors (which kept every new connection,
//! the operator's too, waiting in the listen backlog).

use super::limits::{HeldBody, Limits};
use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

/// Descriptors kept for everything but connections (the database, engines' clients, files).
const OTHER_FILES: u64 = 64;

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

struct Conn {
    id: u64,
    reserve: bool,
    /// Its peer's address as its share is counted ([`share`]).
    peer: IpAddr,
    /// Requests in flight, their answers' bodies included (a stream is busy until it ends).
    busy: AtomicUsize,
    /// When a request last started or ended (or the connection was let in), in µs since the
    /// pool's start: fine enough to tell apart connections let in one after the other.
    last: AtomicU64,
    close: Notify,
}

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

struct Pool {
    rooms: Mutex<Rooms>,
    general_cap: usize,
    reserve_cap: usize,
    /// One address's share of the general room ([`Limits::connections_per_peer`]).
    per_peer: usize,
    epoch: Instant,
}

/// The address `ip`'s share is counted by: an IPv4 address itself (an IPv4-mapped IPv6 one too),
/// an IPv6 address's /64 (what one subscriber is usually given, so that one host cannot count as
/// 2^64 peers).
pub fn share(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}

impl Pool {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// A place for a new connection from `peer`: a free one, else the one of a connection idle the
    /// longest (told to close): first, when the general room is full, one of another address that
    /// holds more than its share of it; `None` when every connection is busy.
    fn admit(&self, peer: IpAddr) -> Option<Arc<Conn>> {
        let peer = share(peer);
        let mut rooms = self.rooms.lock().expect("connections lock");
        let per_peer = self.per_peer;
        let reserve = if rooms.general < self.general_cap {
            false
        } else if Self::take_idle(&mut rooms, |c, held| !c.reserve && c.peer != peer && held(c.peer) > per_peer).is_some() {
            false
        } else if rooms.reserve < self.reserve_cap {
            true
        } else {
            Self::take_idle(&mut rooms, |_, _| true)?.reserve
        };
        rooms.next += 1;
        let conn = Arc::new(Conn {
            id: rooms.next,
            reserve,
            peer,
            busy: AtomicUsize::new(0),
            last: AtomicU64::new(self.now()),
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
    /// of the general room an address holds) to close, and frees its place.
    fn take_idle(rooms: &mut Rooms, which: impl Fn(&Conn, &dyn Fn(IpAddr) -> usize) -> bool) -> Option<Arc<Conn>> {
        let held = |ip: IpAddr| rooms.held.get(&ip).copied().unwrap_or(0);
        let victim = rooms
            .conns
            .values()
            .filter(|c| c.busy.load(Ordering::SeqCst) == 0 && which(c, &held))
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

    fn release(&self, conn: &Conn) {
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
struct Busy(Arc<Conn>, Arc<Pool>);

impl Busy {
    /// Counts the request (a general connection's against its address's share too) and says how
    /// its connection stands.
    fn new(conn: Arc<Conn>, pool: Arc<Pool>) -> (Self, Admission) {
        let mut crowded = false;
        if !conn.reserve {
            let mut rooms = pool.rooms.lock().expect("connections lock");
            let n = rooms.busy.entry(conn.peer).or_default();
            *n += 1;
            crowded = *n > pool.per_peer;
        }
        conn.busy.fetch_add(1, Ordering::SeqCst);
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

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (logged); the soft limit now, if known.
#[allow(clippy::unnecessary_cast)] // rlim_t is u64 on Linux, not everywhere
pub fn raise_open_files() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit and setrlimit only read and write the struct given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 {
            return None;
        }
        let before = rl.rlim_cur;
        if rl.rlim_cur >= rl.rlim_max {
            tracing::info!("open files limit (RLIMIT_NOFILE): {before}, the hard limit already");
            return Some(before as u64);
        }
        // macOS refuses more than OPEN_MAX even when the hard limit is unlimited.
        let want = if cfg!(target_os = "macos") { rl.rlim_max.min(10_240) } else { rl.rlim_max };
        let raised = libc::rlimit { rlim_cur: want, rlim_max: rl.rlim_max };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            tracing::info!("open files limit (RLIMIT_NOFILE) raised from {before} to {want}, the hard limit: room for connections");
            Some(want as u64)
        } else {
            tracing::warn!("open files limit (RLIMIT_NOFILE) {before} could not be raised to {want}: {}", std::io::Error::last_os_error());
            Some(before as u64)
        }
    }
    #[cfg(not(unix))]
    None
}

/// `limits` with its connection caps lowered to fit `open_files` descriptors, if they must be.
pub fn fit(mut limits: Limits, open_files: Option<u64>) -> Limits {
    let Some(open_files) = open_files else { return limits };
    let budget = open_files.saturating_sub(OTHER_FILES).max(16) as usize;
    if limits.connections + limits.operator_reserve > budget {
        let reserve = limits.operator_reserve.min((budget / 8).max(1));
        tracing::warn!(
            "{open_files} open files allowed: serving {} connections and {reserve} more for operators (instead of {} and {})",
            budget - reserve,
            limits.connections,
            limits.operator_reserve
        );
        limits.connections = budget - reserve;
        limits.operator_reserve = reserve;
        // One address's share stays the same part of the room.
        limits.connections_per_peer = limits.connections_per_peer.min((limits.connections / 4).max(1));
    }
    limits
}

/// Accepts and serves connections until `shutdown` flips; then every connection finishes its
/// request in flight (event streams end themselves on the same signal) and closes.
/// TLS on a listener (the remote one): the acceptor, and what to do with a plain-HTTP request that
/// arrives instead of a TLS handshake (answered 400 naming the https URL, then told here).
#[derive(Clone)]
pub struct TlsAccept {
    pub acceptor: tokio_rustls::TlsAcceptor,
    pub origin: String,
    pub on_plain: Arc<dyn Fn(std::net::SocketAddr) + Send + Sync>,
}

pub async fn run(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: watch::Receiver<bool>,
    tls: Option<TlsAccept>,
) -> std::io::Result<()> {
    let pool = Arc::new(Pool {
        rooms: Mutex::default(),
        general_cap: limits.connections.max(1),
        reserve_cap: limits.operator_reserve,
        per_peer: limits.connections_per_peer.max(1),
        epoch: Instant::now(),
    });
    // Every connection's task holds a receiver: all are gone once `closed` resolves.
    let (open_tx, open_rx) = watch::channel(());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = super::stopped(shutdown.clone()) => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors: free the idle connection's, then accept again.
                if matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE)) {
                    let _ = Pool::take_idle(&mut pool.rooms.lock().expect("connections lock"), |_, _| true);
                } else {
                    tracing::debug!("accept: {e}");
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Some(conn) = pool.admit(peer.ip()) else {
            tracing::debug!(%peer, "every connection is busy: a new one is closed");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let served = Served { conn, pool: pool.clone(), router: router.clone(), peer, header_read_timeout: limits.header_read_timeout };
        match &tls {
            None => drop(tokio::spawn(serve_one(stream, served, shutdown.clone(), open_rx.clone()))),
            Some(tls) => drop(tokio::spawn(handshake(stream, tls.clone(), served, shutdown.clone(), open_rx.clone()))),
        }
    }
    drop(open_rx);
    open_tx.closed().await;
    Ok(())
}

/// A connection admitted, and what serving it needs.
struct Served {
    conn: Arc<Conn>,
    pool: Arc<Pool>,
    router: Router,
    peer: std::net::SocketAddr,
    header_read_timeout: Duration,
}

/// The TLS handshake of a connection to the remote listener, within the header-read timeout; a
/// plain-HTTP request instead (its first byte is not a TLS record's 0x16) is answered 400 with the
/// https URL and reported, never served.
async fn handshake(stream: TcpStream, tls: TlsAccept, served: Served, shutdown: watch::Receiver<bool>, open: watch::Receiver<()>) {
    let timeout = served.header_read_timeout;
    let mut first = [0u8; 1];
    match tokio::time::timeout(timeout, stream.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] == 0x16 => {}
        Ok(Ok(1)) => {
            use tokio::io::AsyncWriteExt;
            let body = format!("This listener speaks HTTPS only: {}/\n", tls.origin);
            let answer = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let mut stream = stream;
            let _ = tokio::time::timeout(timeout, stream.write_all(answer.as_bytes())).await;
            let _ = stream.shutdown().await;
            (tls.on_plain)(served.peer);
            served.pool.release(&served.conn);
            return;
        }
        _ => {
            served.pool.release(&served.conn);
            return;
        }
    }
    match tokio::time::timeout(timeout, tls.acceptor.accept(stream)).await {
        Ok(Ok(stream)) => serve_one(stream, served, shutdown, open).await,
        Ok(Err(e)) => {
            tracing::debug!(peer = %served.peer, "TLS handshake failed: {e}");
            served.pool.release(&served.conn);
        }
        Err(_) => served.pool.release(&served.conn),
    }
}

async fn serve_one<S>(stream: S, served: Served, shutdown: watch::Receiver<bool>, _open: watch::Receiver<()>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let Served { conn, pool, router, peer, header_read_timeout } = served;
    let service = {
        let (conn, pool) = (conn.clone(), pool.clone());
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let (busy, admission) = Busy::new(conn.clone(), pool.clone());
            let mut router = router.clone();
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(admission);
            request.extensions_mut().insert(super::remote::Peer(peer));
            async move {
                let response = tower_service::Service::call(&mut router, request).await?;
                Ok::<_, Infallible>(response.map(|body| Body::new(HeldBody { inner: body, _held: busy })))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    let served = builder.serve_connection(TokioIo::new(stream), service).with_upgrades();
    tokio::pin!(served);
    let mut closing = false;
    loop {
        tokio::select! {
            _ = served.as_mut() => break,
            _ = conn.close.notified(), if !closing => {
                served.as_mut().graceful_shutdown();
                closing = true;
            }
            _ = super::stopped(shutdown.clone()), if !closing => {
                served.as_mut().graceful_shutdown();
                closing = true;
            }
            // Closing, with no request in flight (one sending its headers slowly): close it now.
            _ = tokio::time::sleep(Duration::from_secs(1)), if closing => {
                if conn.busy.load(Ordering::SeqCst) == 0 {
                    break;
                }
            }
        }
    }
    pool.release(&conn);
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn pool(general: usize, reserve: usize, per_peer: usize) -> Pool {
        Pool { rooms: Mutex::default(), general_cap: general, reserve_cap: reserve, per_peer, epoch: Instant::now() }
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
        let (_b, admission) = Busy::new(b1.clone(), p.clone());
        assert!(!admission.operators_only());
        // The flood's own new connection takes no place of another's: the reserve, operators only.
        let a4 = p.admit(flood).unwrap();
        assert!(a4.reserve);
        assert_eq!(Busy::new(a4, p.clone()).1, Admission { reserve: true, crowded: false });
    }

    #[test]
    fn an_ipv6_address_shares_with_its_64_and_a_mapped_ipv4_one_is_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(share(ip("2001:db8::1")), share(ip("2001:db8::ffff:1234")));
        assert_ne!(share(ip("2001:db8::1")), share(ip("2001:db8:0:1::1")));
        assert_eq!(share(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_ne!(share(ip("10.0.0.1")), share(ip("10.0.0.2")));
    }

    #[test]
    fn caps_fit_the_open_files_limit() {
        let l = fit(Limits::default(), Some(256));
        assert_eq!((l.connections + l.operator_reserve, l.operator_reserve), (192, 24));
        assert_eq!(l.connections_per_peer, l.connections / 4, "one address's share shrinks with the room");
        let l = fit(Limits::default(), Some(100_000));
        assert_eq!((l.connections, l.operator_reserve), (Limits::default().connections, Limits::default().operator_reserve));
        assert_eq!(l.connections_per_peer, Limits::default().connections_per_peer);
    }
}
