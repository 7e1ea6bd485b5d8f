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
//!   sockets can never keep an operator out; a new connection is given [`GRACE`] to send its first
//!   request before it can be chosen (so a fast flood of new connections cannot close an
//!   operator's before its request is read), and a new one that finds no place waits as long for
//!   one, then is closed (busy requests are capped per credential: [`super::limits`]);
//! - one address (an IPv6 address's /64: [`share`]) has a share of the general room,
//!   [`Limits::connections_per_peer`]: past it, its requests are refused in the same way unless
//!   they are an operator's, so it holds no more busy connections than its share; and once the
//!   room is full, its connections idle the longest give way to another address's new ones (and
//!   are the first to go when both rooms are full). A flood from one address leaves the rest of the
//!   room to the others.
//!
//! At start the soft `RLIMIT_NOFILE` is raised to the hard limit, and the caps are lowered to fit
//! it, so a few hundred sockets never exhaust the descriptors (which kept every new connection,
//! the operator's too, waiting in the listen backlog).

use super::limits::{HeldBody, Limits};
use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
pub use rooms::{share, Admission};
use rooms::{Busy, Conn, Pool, GRACE};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

mod rooms;

/// Descriptors kept for everything but connections (the database, engines' clients, files).
const OTHER_FILES: u64 = 64;

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

/// TLS on a listener (the remote one): the acceptor, and what to do with a plain-HTTP request that
/// arrives instead of a TLS handshake (answered 400 naming the https URL, then told here).
#[derive(Clone)]
pub struct TlsAccept {
    pub acceptor: tokio_rustls::TlsAcceptor,
    pub origin: String,
    pub on_plain: Arc<dyn Fn(std::net::SocketAddr) + Send + Sync>,
}

/// Accepts and serves connections until `shutdown` flips; then every connection finishes its
/// request in flight (event streams end themselves on the same signal) and closes.
pub async fn run(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: watch::Receiver<bool>,
    tls: Option<TlsAccept>,
) -> std::io::Result<()> {
    let pool = Arc::new(Pool::new(&limits));
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
                    pool.free_one();
                } else {
                    tracing::debug!("accept: {e}");
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Some(conn) = pool.admit_within(peer.ip(), GRACE).await else {
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
