//! Unauthenticated traffic is cheap (issue 44): a body sent to the web UI's files is never read, a
//! public route reads 16 KiB at most within a few seconds, a connection on the operators' reserve
//! runs operators' requests only, and one address holds no more than its share of the busy
//! connections, so a flood of slow bodies from one address neither fills the memory nor keeps an
//! operator or another address out. Clients here speak raw HTTP/1.1 over TCP, from other loopback
//! addresses (127.0.0.2, …) when they play another peer.

use crate::helpers::*;
use approval_console::api::{self, Limits, Server};
use approval_console::domain::Role;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a client waits for an answer, or for the server to close a connection, before the
/// test fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A server over `t`'s app with `limits`; a connection that sends nothing stays open 120 s (so a
/// connection closed in a test was closed by the rule under test).
async fn serve(t: &TestApp, limits: Limits) -> Server {
    api::serve_with(t.app.clone(), 0, TOKEN, Limits { header_read_timeout: Duration::from_secs(120), ..limits }).await.expect("serve")
}

/// A TCP connection to `server` from the loopback address 127.0.0.`peer`.
async fn connect(server: SocketAddr, peer: u8) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((Ipv4Addr::new(127, 0, 0, peer), 0))).unwrap();
    socket.connect(server).await.unwrap()
}

/// Writes a request's head (`lines`: the request line, then headers, without the blank line;
/// `Host` added) and the first bytes of its body.
async fn send(stream: &mut TcpStream, server: SocketAddr, lines: &str, body: &[u8]) {
    let head = format!("{lines}\r\nHost: {server}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
}

/// What the server answered, read until it closes the connection.
struct Answer {
    status: u16,
    head: String,
    /// The whole answer, its body included.
    text: String,
    /// The server closed the connection after answering (else the test's patience ran out).
    closed: bool,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()))
    }
}

async fn answer(stream: &mut TcpStream) -> Answer {
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    let closed = tokio::time::timeout(PATIENCE, async {
        loop {
            match stream.read(&mut buf).await {
                // A close with unread bytes behind it is a reset: the answer came before it.
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .is_ok();
    let text = String::from_utf8_lossy(&got).into_owned();
    let head = text.split("\r\n\r\n").next().unwrap_or_default().to_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Answer { status, head, text, closed }
}

/// One request and its answer on a connection kept open: `None` when the server closed it instead.
async fn exchange(stream: &mut TcpStream, server: SocketAddr, lines: &str) -> Option<u16> {
    let head = format!("{lines}\r\nHost: {server}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.ok()?;
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    tokio::time::timeout(PATIENCE, async {
        loop {
            let text = String::from_utf8_lossy(&got).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("content-length")))
                    .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if body.len() >= length {
                    return head.split(' ').nth(1).and_then(|s| s.parse().ok());
                }
            }
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("an answer or a close within the test's patience")
}

/// A fresh connection from 127.0.0.`peer` for every request: the way in is what is tested.
fn client(peer: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(Ipv4Addr::new(127, 0, 0, peer)))
        .pool_max_idle_per_host(0)
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_body_sent_to_the_web_uis_files_is_refused_before_a_byte_of_it_is_read_and_the_connection_closed() {
    let t = spawn_app().await;
    let server = serve(&t, Limits::default()).await;
    let addr = server.addr;
    let mut bulk = vec![b'a'; 64 * 1024];
    for (lines, body, want) in [
        // As in the report: a 1 MB body announced, 64 KiB of it sent at once, the rest never.
        ("POST /index.html HTTP/1.1\r\nContent-Length: 1000000", &bulk[..], 405),
        ("GET / HTTP/1.1\r\nContent-Length: 1000000", &bulk[..1], 413),
        ("GET /assets/app.js HTTP/1.1\r\nTransfer-Encoding: chunked", b"ffff\r\nabc".as_slice(), 413),
        ("PUT /settings HTTP/1.1\r\nTransfer-Encoding: chunked", b"ffff\r\nabc".as_slice(), 405),
    ] {
        let mut stream = connect(addr, 1).await;
        send(&mut stream, addr, lines, body).await;
        let a = answer(&mut stream).await;
        assert_eq!(a.status, want, "{lines}: {}", a.head);
        assert_eq!(a.header("connection"), Some("close"), "{lines}: {}", a.head);
        assert!(a.closed, "{lines}: the server closed the connection");
        if want == 405 {
            assert_eq!(a.header("allow"), Some("GET, HEAD"), "{}", a.head);
        }
    }
    assert_eq!(server.body_bytes_read(), 0, "not a byte of those bodies was read");
    bulk.clear();
    // No body: a method the files do not answer is 405; GET still serves them.
    let mut stream = connect(addr, 1).await;
    assert_eq!(exchange(&mut stream, addr, "POST / HTTP/1.1\r\nContent-Length: 0").await, Some(405));
    assert_eq!(exchange(&mut stream, addr, "GET / HTTP/1.1").await, Some(200));
}

#[tokio::test]
async fn a_public_routes_body_is_read_up_to_16_kib_within_its_time_and_refused_beyond_it_unread() {
    let t = spawn_app().await;
    let server = serve(&t, Limits { public_body_timeout: Duration::from_secs(1), ..Limits::default() }).await;
    let addr = server.addr;
    let refused = |a: &Answer, want: u16, what: &str| {
        assert_eq!(a.status, want, "{what}: {}", a.head);
        assert_eq!(a.header("connection"), Some("close"), "{what}: {}", a.head);
        assert!(a.closed, "{what}: the server closed the connection");
    };
    // 17 KiB announced: refused from its Content-Length, nothing read.
    let mut stream = connect(addr, 1).await;
    send(&mut stream, addr, "POST /api/remote/pair HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 17408", b"{").await;
    refused(&answer(&mut stream).await, 413, "17 KiB announced");
    assert_eq!(server.body_bytes_read(), 0);
    // 17 KiB in one chunk, 16.5 KiB of it sent: refused once past 16 KiB, before the rest came.
    let mut stream = connect(addr, 1).await;
    let sent = vec![b'a'; 16 * 1024 + 512];
    send(&mut stream, addr, "POST /api/remote/pair HTTP/1.1\r\nTransfer-Encoding: chunked", &[b"4400\r\n".as_slice(), &sent].concat())
        .await;
    refused(&answer(&mut stream).await, 413, "a 17 KiB chunk");
    assert!(server.body_bytes_read() <= sent.len() as u64, "{} bytes read", server.body_bytes_read());
    // A body that does not come: 408 once the public routes' time is up.
    let mut stream = connect(addr, 1).await;
    send(&mut stream, addr, "POST /api/remote/sign-in/finish HTTP/1.1\r\nContent-Length: 100", b"{\"cer").await;
    refused(&answer(&mut stream).await, 408, "a slow body");

    // A small body is read and served (the pairing routes answer 404 on 127.0.0.1)…
    let base = format!("http://{addr}");
    let r = t.http.post(format!("{base}/api/remote/pair")).json(&serde_json::json!({ "code": "ABCDE-FGHIJ" })).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::NOT_FOUND);
    // …and a route behind a credential still takes its larger bodies.
    let bot = t.token("bot", Role::Agent).await;
    let call = serde_json::json!({ "tool": "write_file", "args": { "content": "a".repeat(20 * 1024) }, "agent": "billing-bot" });
    let r = t.http.post(format!("{base}/api/calls")).bearer_auth(&bot).json(&call).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED);
}

#[tokio::test]
async fn every_request_on_the_operators_reserve_needs_an_operators_credential_whatever_its_path() {
    let t = spawn_app().await;
    let server = serve(&t, Limits { connections: 1, operator_reserve: 2, ..Limits::default() }).await;
    let addr = server.addr;
    let bot = t.token("bot", Role::Agent).await;
    // The one place of the general room, held (idle, for 120 s): every new connection is on the reserve.
    let _held = connect(addr, 1).await;
    for (lines, body) in [
        ("GET /index.html HTTP/1.1", &b""[..]),
        ("GET /api/health HTTP/1.1", b""),
        ("POST /api/remote/pair HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100", b"{"),
        (&format!("GET /api/calls/x HTTP/1.1\r\nAuthorization: Bearer {bot}"), b""),
        ("GET /api/queue HTTP/1.1\r\nAuthorization: Bearer wrong-token", b""),
    ] {
        let mut stream = connect(addr, 1).await;
        send(&mut stream, addr, lines, body).await;
        let a = answer(&mut stream).await;
        assert_eq!(a.status, 429, "{lines}: {}", a.head);
        assert!(a.text.contains("kept for operators"), "{}", a.text);
        assert_eq!(a.header("connection"), Some("close"), "{lines}: {}", a.head);
        assert!(a.closed, "{lines}: the server closed the connection");
    }
    assert_eq!(server.body_bytes_read(), 0, "the public route's body was not read");
    // The operator's request is served there, and the next one on the same connection needs the
    // credential again.
    let mut stream = connect(addr, 1).await;
    assert_eq!(exchange(&mut stream, addr, &format!("GET /api/queue HTTP/1.1\r\nAuthorization: Bearer {TOKEN}")).await, Some(200));
    assert_eq!(exchange(&mut stream, addr, &format!("GET /index.html HTTP/1.1\r\nAuthorization: Bearer {TOKEN}")).await, Some(200));
    send(&mut stream, addr, "GET /index.html HTTP/1.1", b"").await;
    let a = answer(&mut stream).await;
    assert_eq!((a.status, a.closed), (429, true), "{}", a.head);
}

#[tokio::test]
async fn past_its_share_of_busy_connections_an_address_runs_operators_requests_only_and_another_is_served() {
    let t = spawn_app().await;
    let limits = Limits {
        connections: 8,
        operator_reserve: 2,
        connections_per_peer: 2,
        public_body_timeout: Duration::from_secs(120),
        ..Limits::default()
    };
    let server = serve(&t, limits).await;
    let addr = server.addr;
    let slow = "POST /api/remote/pair HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100";
    // Two slow bodies from 127.0.0.1, being read: its share of busy connections.
    let mut busy = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(addr, 1).await;
        send(&mut stream, addr, slow, b"{").await;
        busy.push(stream);
    }
    wait::eventually(PATIENCE, "both slow bodies are being read", || async { server.body_bytes_read() == 2 }).await;
    // Its next request is refused unread, and its connection closed.
    let mut stream = connect(addr, 1).await;
    send(&mut stream, addr, slow, b"{").await;
    let crowded = answer(&mut stream).await;
    assert_eq!(crowded.status, 429, "{}", crowded.text);
    assert!(crowded.text.contains("its share"), "{}", crowded.text);
    assert_eq!((crowded.header("connection"), crowded.closed), (Some("close"), true), "{}", crowded.head);
    assert_eq!(server.body_bytes_read(), 2, "the two busy bodies' first bytes alone were read");
    let base = format!("http://{addr}");
    // An agent from that address is told to come back; an operator is served.
    let bot = t.token("bot", Role::Agent).await;
    let r = client(1).get(format!("{base}/api/calls/x")).bearer_auth(&bot).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::TOO_MANY_REQUESTS);
    let r = client(1).get(format!("{base}/api/queue")).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    // Another address is served, its small public body read.
    let r = client(2).get(format!("{base}/api/health")).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    let r = client(2).post(format!("{base}/api/remote/pair")).json(&serde_json::json!({ "code": "ABCDE-FGHIJ" })).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::NOT_FOUND);
    // One of the two ends: the address is under its share again.
    drop(busy.pop());
    wait::eventually(PATIENCE, "127.0.0.1 is served again once one of its busy connections ended", || async {
        client(1).get(format!("{base}/api/health")).send().await.is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
    })
    .await;
}

#[tokio::test]
async fn once_the_room_is_full_an_address_past_its_share_gives_way_to_another_and_others_keep_theirs() {
    let t = spawn_app().await;
    let server = serve(&t, Limits { connections: 3, operator_reserve: 1, connections_per_peer: 1, ..Limits::default() }).await;
    let addr = server.addr;
    // 127.0.0.3 first (idle the longest), then 127.0.0.1 twice (past its share of one): the room is
    // full; 127.0.0.1's next connection is on the reserve.
    let mut third = connect(addr, 3).await;
    assert_eq!(exchange(&mut third, addr, "GET /api/health HTTP/1.1").await, Some(200), "let in, in the general room");
    let mut first = connect(addr, 1).await;
    assert_eq!(exchange(&mut first, addr, "GET /api/health HTTP/1.1").await, Some(200));
    let mut second = connect(addr, 1).await;
    assert_eq!(exchange(&mut second, addr, "GET /api/health HTTP/1.1").await, Some(200));
    let mut reserve = connect(addr, 1).await;
    assert_eq!(exchange(&mut reserve, addr, &format!("GET /api/queue HTTP/1.1\r\nAuthorization: Bearer {TOKEN}")).await, Some(200));
    // 127.0.0.2 comes: 127.0.0.1's connection idle the longest gives way, not 127.0.0.3's (idle
    // longer), nor the reserve's (an agent or a stranger is refused there).
    let r = client(2).get(format!("http://{addr}/api/health")).send().await.unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    let evicted = answer(&mut first).await;
    assert_eq!((evicted.closed, evicted.status), (true, 0), "127.0.0.1's first connection was closed: {}", evicted.text);
    assert_eq!(exchange(&mut third, addr, "GET /api/health HTTP/1.1").await, Some(200), "127.0.0.3 kept its place");
    assert_eq!(exchange(&mut second, addr, "GET /api/health HTTP/1.1").await, Some(200));
}

#[tokio::test]
async fn the_new_connections_of_an_address_past_its_share_give_way_to_another_address_at_once() {
    let t = spawn_app().await;
    let server = serve(&t, Limits { connections: 2, operator_reserve: 1, connections_per_peer: 1, ..Limits::default() }).await;
    let addr = server.addr;
    // The general room full of 127.0.0.1's new connections (no request yet, within their grace).
    let mut first = connect(addr, 1).await;
    let _second = connect(addr, 1).await;
    // 127.0.0.2 is let into the general room (on the reserve it would be refused) at once: the
    // grace of a new connection is no shelter for an address past its share.
    let r = client(2).get(format!("http://{addr}/api/health")).send().await;
    assert_eq!(r.as_ref().map(|r| r.status()).ok(), Some(reqwest::StatusCode::OK), "{r:?}");
    let closed = answer(&mut first).await;
    assert_eq!((closed.closed, closed.status), (true, 0), "127.0.0.1's first connection gave way: {}", closed.text);
}

#[tokio::test]
async fn a_new_connection_that_finds_no_place_waits_for_one_instead_of_being_closed() {
    let t = spawn_app().await;
    let server = serve(&t, Limits { connections: 1, operator_reserve: 0, ..Limits::default() }).await;
    let addr = server.addr;
    // The one place: a new connection that sends nothing, within its grace to send its request.
    let mut first = connect(addr, 1).await;
    // The next one waits for the place (the first gives way once its grace is over), and is served.
    let r = client(2).get(format!("http://{addr}/api/health")).send().await;
    assert_eq!(r.as_ref().map(|r| r.status()).ok(), Some(reqwest::StatusCode::OK), "{r:?}");
    let closed = answer(&mut first).await;
    assert_eq!((closed.closed, closed.status), (true, 0), "the first connection gave way: {}", closed.text);
}

/// One attacker: from 127.0.0.1, again and again, a request with a large body announced, `first`
/// bytes of it at once, then one byte every `tick` while the connection lasts; `bytes` counts what
/// it sent, `answers` the answers it got.
async fn attacker(
    addr: SocketAddr,
    lines: &'static str,
    first: usize,
    stop: Arc<AtomicBool>,
    bytes: Arc<AtomicU64>,
    answers: Arc<AtomicU64>,
) {
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    let head = format!("{lines}\r\nHost: {addr}\r\n\r\n");
    let first = vec![b'a'; first];
    while !stop.load(Ordering::SeqCst) {
        let mut stream = connect(addr, 1).await;
        if stream.write_all(head.as_bytes()).await.is_ok() && stream.write_all(&first).await.is_ok() {
            bytes.fetch_add(first.len() as u64, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            loop {
                tokio::select! {
                    read = stream.read(&mut buf) => match read {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            answers.fetch_add(1, Ordering::SeqCst);
                        }
                    },
                    _ = ticks.tick() => {
                        if stop.load(Ordering::SeqCst) || stream.write_all(b"a").await.is_err() {
                            break;
                        }
                        bytes.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }
        ticks.tick().await;
    }
}

#[tokio::test]
async fn an_operator_and_another_address_are_served_while_one_address_floods_slow_bodies_at_the_files_and_the_public_routes() {
    let t = spawn_app().await;
    // The report's attack (620 slow 1 MB bodies against 512 + 64 places), scaled down: 48 slow
    // bodies and 16 idle connections from one address against 12 + 4 places.
    let limits = Limits {
        connections: 12,
        operator_reserve: 4,
        connections_per_peer: 3,
        public_body_timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let server = serve(&t, limits).await;
    let addr = server.addr;
    let stop = Arc::new(AtomicBool::new(false));
    let (files, public) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (files_answers, public_answers) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut flood = Vec::new();
    for i in 0..48 {
        // The files' bodies start with 64 KiB at once: were any read, it would show.
        let (lines, first, bytes, answers) = if i % 2 == 0 {
            ("POST /index.html HTTP/1.1\r\nContent-Length: 1000000", 64 * 1024, files.clone(), files_answers.clone())
        } else {
            (
                "POST /api/remote/pair HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 16000",
                1,
                public.clone(),
                public_answers.clone(),
            )
        };
        flood.push(tokio::spawn(attacker(addr, lines, first, stop.clone(), bytes, answers)));
    }
    let mut idle = Vec::new();
    for _ in 0..16 {
        idle.push(connect(addr, 1).await);
    }
    wait::eventually(PATIENCE, "the flood is turned away at the files and at the public routes", || async {
        files_answers.load(Ordering::SeqCst) >= 20 && public_answers.load(Ordering::SeqCst) >= 20
    })
    .await;

    let base = format!("http://{addr}");
    for n in 0..20 {
        let r = client(1).get(format!("{base}/api/queue")).bearer_auth(TOKEN).send().await;
        assert_eq!(
            r.as_ref().map(|r| r.status()).ok(),
            Some(reqwest::StatusCode::OK),
            "the operator's request {n} from the flooding address: {r:?}"
        );
        let r = client(2).get(format!("{base}/api/health")).send().await;
        assert_eq!(r.as_ref().map(|r| r.status()).ok(), Some(reqwest::StatusCode::OK), "request {n} from another address: {r:?}");
    }
    stop.store(true, Ordering::SeqCst);
    for a in flood {
        a.await.unwrap();
    }
    // Memory: of the flood's bodies, only what was sent to the public routes was read.
    let read = server.body_bytes_read();
    assert!(files.load(Ordering::SeqCst) > 0, "bytes were sent to the files");
    assert!(read <= public.load(Ordering::SeqCst), "{read} bytes read, {} sent to the public routes", public.load(Ordering::SeqCst));
}
