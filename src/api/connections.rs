//! The server's own accept loop (instead of `axum::serve`, which has neither of these): HTTP/1.1
//! connections with a header-read timeout (a connection that sends no request within
//! [`Limits::header_read_timeout`], new or idle between requests, is closed), and a connection cap
//! that always keeps room for operators:
//! - [`Limits::connections`] connections for anyone, then [`Limits::operator_reserve`] more whose
//!   requests must be authenticated as an operator or admin ([`OnReserve`], checked by
//!   [`super::guard::guard`]);
//! - when both are full, the connection idle the longest (no request in flight: one that never
//!   sent a request, or a keep-alive one between requests) is closed to let the new one in, so idle
//!   sockets can never keep an operator out; only when every connection is busy is a new one closed
//!   at once (and busy requests are capped per credential: [`super::limits`]).
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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

/// Descriptors kept for everything but connections (the database, engines' clients, files).
const OTHER_FILES: u64 = 64;

/// In every request's extensions: whether its connection was let in on the operators' reserve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnReserve(pub bool);

struct Conn {
    id: u64,
    reserve: bool,
    /// Requests in flight, their answers' bodies included (a stream is busy until it ends).
    busy: AtomicUsize,
    /// When a request last started or ended, in ms since the pool's start.
    last: AtomicU64,
    close: Notify,
}

#[derive(Default)]
struct Rooms {
    conns: HashMap<u64, Arc<Conn>>,
    general: usize,
    reserve: usize,
    next: u64,
}

struct Pool {
    rooms: Mutex<Rooms>,
    general_cap: usize,
    reserve_cap: usize,
    epoch: Instant,
}

impl Pool {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// A place for a new connection: a free one, else the one of the connection idle the longest
    /// (told to close); `None` when every connection is busy.
    fn admit(&self) -> Option<Arc<Conn>> {
        let mut rooms = self.rooms.lock().expect("connections lock");
        let reserve = if rooms.general < self.general_cap {
            false
        } else if rooms.reserve < self.reserve_cap {
            true
        } else {
            let victim = Self::take_idle(&mut rooms)?;
            victim.reserve
        };
        rooms.next += 1;
        let conn =
            Arc::new(Conn { id: rooms.next, reserve, busy: AtomicUsize::new(0), last: AtomicU64::new(self.now()), close: Notify::new() });
        if reserve {
            rooms.reserve += 1;
        } else {
            rooms.general += 1;
        }
        rooms.conns.insert(conn.id, conn.clone());
        Some(conn)
    }

    /// Tells the connection idle the longest to close, and frees its place.
    fn take_idle(rooms: &mut Rooms) -> Option<Arc<Conn>> {
        let victim =
            rooms.conns.values().filter(|c| c.busy.load(Ordering::SeqCst) == 0).min_by_key(|c| c.last.load(Ordering::SeqCst))?.clone();
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
            }
        }
    }

    fn release(&self, conn: &Conn) {
        Self::remove(&mut self.rooms.lock().expect("connections lock"), conn);
    }
}

/// A request in flight on `conn`, until its answer's body ends or is dropped.
struct Busy(Arc<Conn>, Arc<Pool>);

impl Busy {
    fn new(conn: Arc<Conn>, pool: Arc<Pool>) -> Self {
        conn.busy.fetch_add(1, Ordering::SeqCst);
        conn.last.store(pool.now(), Ordering::SeqCst);
        Self(conn, pool)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last.store(self.1.now(), Ordering::SeqCst);
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
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
                    let _ = Pool::take_idle(&mut pool.rooms.lock().expect("connections lock"));
                } else {
                    tracing::debug!("accept: {e}");
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Some(conn) = pool.admit() else {
            tracing::debug!("every connection is busy: a new one is closed");
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
            let busy = Busy::new(conn.clone(), pool.clone());
            let mut router = router.clone();
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(OnReserve(conn.reserve));
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

    fn pool(general: usize, reserve: usize) -> Pool {
        Pool { rooms: Mutex::default(), general_cap: general, reserve_cap: reserve, epoch: Instant::now() }
    }

    #[test]
    fn past_the_caps_the_longest_idle_connection_makes_room_and_busy_ones_are_kept() {
        let p = pool(2, 1);
        let a = p.admit().unwrap();
        let b = p.admit().unwrap();
        let r = p.admit().unwrap();
        assert_eq!((a.reserve, b.reserve, r.reserve), (false, false, true));
        a.busy.fetch_add(1, Ordering::SeqCst);
        b.last.store(5, Ordering::SeqCst);
        r.last.store(10, Ordering::SeqCst);
        // Full: b is idle the longest (a is busy).
        let c = p.admit().unwrap();
        assert!(!c.reserve);
        assert!(!p.rooms.lock().unwrap().conns.contains_key(&b.id));
        r.busy.fetch_add(1, Ordering::SeqCst);
        c.busy.fetch_add(1, Ordering::SeqCst);
        // Every connection busy: none is let in.
        assert!(p.admit().is_none());
        p.release(&a);
        assert!(!p.admit().unwrap().reserve);
    }

    #[test]
    fn caps_fit_the_open_files_limit() {
        let l = fit(Limits::default(), Some(256));
        assert_eq!((l.connections + l.operator_reserve, l.operator_reserve), (192, 24));
        let l = fit(Limits::default(), Some(100_000));
        assert_eq!((l.connections, l.operator_reserve), (Limits::default().connections, Limits::default().operator_reserve));
    }
}
