//! Limits at the boundary: what one credential may ask of the server, and what one request body may
//! cost it. Per credential (its principal's key): a token bucket on submitted calls and one on runs
//! (429 `rate_limited` with `Retry-After`), a cap on its concurrent long polls and on its concurrent
//! event streams (the same answer), and a size limit on a submitted call's arguments (413
//! `payload_too_large`). Per request ([`super::bodies`]): its body read within a deadline, only on
//! a route that takes one, and a JSON body holding at most [`Limits::max_json_values`] values,
//! counted here ([`over_values`]) before anything is built of it, so a 4 MiB `[0,0,…]` costs its
//! own bytes and not 2 million `Value`s.
//!
//! The connection cap and the header-read timeout are the accept loop's ([`super::connections`]).

use super::error::{ApiError, Quota};
use super::ApiState;
use crate::domain::{Principal, PrincipalKind};
use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The server's limits; [`Limits::default`] is what `serve` and the desktop app use.
#[derive(Clone, Debug)]
pub struct Limits {
    /// A connection must send a request's headers within this long, from its start or after its
    /// previous answer (an idle keep-alive connection is closed after it too).
    pub header_read_timeout: Duration,
    /// A request's body must arrive within this long once its headers did.
    pub body_read_timeout: Duration,
    /// …and a public route's body (no credential: health, pairing, sign-in), of
    /// [`super::PUBLIC_BODY_LIMIT`] at most, within this long ([`super::bodies`]).
    pub public_body_timeout: Duration,
    /// Connections open at once for anyone (lowered to fit `RLIMIT_NOFILE`).
    pub connections: usize,
    /// Places of those one address (an IPv6 /64) may hold, busy or not; past them its new
    /// connections take its own idle ones' places or the operators' reserve
    /// ([`super::connections`]). A quarter of [`Self::connections`], and kept so when `fit` lowers them.
    pub connections_per_peer: usize,
    /// Connections beyond [`Self::connections`] kept for operators: a request on one must be
    /// authenticated as an operator or admin (others are answered 429 and the connection closed).
    pub operator_reserve: usize,
    /// Submitted calls (`POST /api/calls`) a stored credential may make per second, sustained…
    pub calls_per_sec: f64,
    /// …and at once after a pause (the bucket's size).
    pub calls_burst: u32,
    /// Runs (`generate`, `stream`) a stored credential may start per second, sustained…
    pub runs_per_sec: f64,
    /// …and at once after a pause.
    pub runs_burst: u32,
    /// Most bytes (as compact JSON) of a submitted call's `args`, and of its `payload` and `resumeSchema` each.
    pub max_args_bytes: usize,
    /// Most JSON values (scalars, arrays and objects) in one request body.
    pub max_json_values: usize,
    /// Long polls (`GET /api/calls/{id}?waitSecs=` > 0) one credential may hold at once.
    pub waits_per_credential: usize,
    /// Event streams (`/api/events`, a run's or a decision's SSE answer) one credential may hold at once.
    pub streams_per_credential: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            public_body_timeout: Duration::from_secs(5),
            connections: 512,
            connections_per_peer: 128,
            operator_reserve: 64,
            calls_per_sec: 10.0,
            calls_burst: 30,
            runs_per_sec: 10.0,
            runs_burst: 30,
            max_args_bytes: 256 * 1024,
            max_json_values: 65_536,
            waits_per_credential: 32,
            streams_per_credential: 16,
        }
    }
}

/// What a request uses up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Use {
    Calls,
    Runs,
    Waits,
    Streams,
}

impl Use {
    fn name(self) -> &'static str {
        match self {
            Self::Calls => "calls",
            Self::Runs => "runs",
            Self::Waits => "long polls",
            Self::Streams => "event streams",
        }
    }
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The quotas' state: one bucket per (credential, calls|runs), one count per (credential, waits|streams).
pub struct Quotas {
    limits: Limits,
    buckets: Mutex<HashMap<(String, Use), Bucket>>,
    held: Mutex<HashMap<(String, Use), usize>>,
    /// Bytes of request bodies read so far, all requests together ([`super::bodies`]).
    pub(super) body_bytes: AtomicU64,
}

/// One long poll or stream counted against its credential until dropped.
struct Held {
    quotas: Arc<Quotas>,
    key: (String, Use),
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.quotas.held.lock().expect("quota lock");
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl Quotas {
    pub fn new(limits: Limits) -> Self {
        Self { limits, buckets: Mutex::default(), held: Mutex::default(), body_bytes: AtomicU64::new(0) }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Takes one token of `who`'s `what` bucket, or says in how many seconds one will be there.
    fn take(&self, who: &str, what: Use) -> Result<(), ApiError> {
        let (rate, burst) = match what {
            Use::Calls => (self.limits.calls_per_sec, self.limits.calls_burst),
            _ => (self.limits.runs_per_sec, self.limits.runs_burst),
        };
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("quota lock");
        let b = buckets.entry((who.to_owned(), what)).or_insert(Bucket { tokens: f64::from(burst), at: now });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(f64::from(burst));
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return Ok(());
        }
        let wait = if rate > 0.0 { ((1.0 - b.tokens) / rate).ceil().max(1.0) as u64 } else { 3600 };
        Err(ApiError::rate_limited(
            format!("{who} made more than {burst} {} at once or {rate} per second; ask again in {wait} s", what.name()),
            wait,
            Quota { name: what.name(), per_sec: Some(rate), burst: Some(burst), ..Quota::default() },
        ))
    }

    /// Counts one more `what` of `who`, or refuses beyond its cap.
    fn hold(self: &Arc<Self>, who: &str, what: Use) -> Result<Held, ApiError> {
        let cap = if what == Use::Waits { self.limits.waits_per_credential } else { self.limits.streams_per_credential };
        let key = (who.to_owned(), what);
        let mut held = self.held.lock().expect("quota lock");
        let n = held.entry(key.clone()).or_default();
        if *n >= cap {
            return Err(ApiError::rate_limited(
                format!("{who} holds {cap} {} already: end one, or ask again later", what.name()),
                1,
                Quota { name: what.name(), max: Some(cap), ..Quota::default() },
            ));
        }
        *n += 1;
        Ok(Held { quotas: self.clone(), key })
    }
}

/// The quotas a route uses: a route layer, after [`super::guard::authorize`] (so a refused request
/// uses nothing). Rates apply to stored credentials (the local admin, who holds the session
/// token, is the console's owner); caps on long polls and streams apply to everyone.
pub async fn quota(State(state): State<ApiState>, request: Request, next: Next) -> Response {
    let Some(principal) = request.extensions().get::<Principal>().cloned() else { return next.run(request).await };
    let route = request.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned()).unwrap_or_default();
    let long_poll = request
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .any(|p| p.strip_prefix("waitSecs=").is_some_and(|n| !n.trim_start_matches('0').is_empty()));
    let (rate, hold) = match (request.method(), route.as_str()) {
        (&Method::POST, "/api/calls") => (Some(Use::Calls), None),
        (&Method::POST, "/api/agents/{agent}/generate") => (Some(Use::Runs), None),
        (&Method::POST, "/api/agents/{agent}/stream") => (Some(Use::Runs), Some(Use::Streams)),
        (&Method::GET, "/api/calls/{id}") if long_poll => (None, Some(Use::Waits)),
        (
            &Method::GET | &Method::POST,
            "/api/events"
            | "/api/agents/{agent}/approve-tool-call"
            | "/api/agents/{agent}/decline-tool-call"
            | "/api/agents/{agent}/resume-stream",
        ) => (None, Some(Use::Streams)),
        _ => (None, None),
    };
    let mastra = route.starts_with("/api/agents/");
    let refuse = |e: ApiError| if mastra { super::mastra::answer(e) } else { e.into_response() };
    let who = principal.key();
    let held = match hold.map(|what| state.quotas.hold(&who, what)).transpose() {
        Ok(held) => held,
        Err(e) => return refuse(e),
    };
    if let Some(what) = rate.filter(|_| principal.kind != PrincipalKind::Local) {
        if let Err(e) = state.quotas.take(&who, what) {
            return refuse(e);
        }
    }
    let response = next.run(request).await;
    match held {
        // Held until the answer's body ends (a stream) or is dropped (the client went away).
        Some(held) => response.map(|body| Body::new(HeldBody { inner: body, _held: held })),
        None => response,
    }
}

/// A response body that keeps something (a count, a connection's busy mark) until it ends or is dropped.
pub(super) struct HeldBody<T> {
    pub inner: Body,
    pub _held: T,
}

impl<T: Send + Unpin + 'static> http_body::Body for HeldBody<T> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json") || m.trim().ends_with("+json"))
    })
}

/// How many values `bytes` holds when that is more than `max` (counting stops there); `None` when
/// within, or when it is no JSON at all (the handler's own parse says what is wrong with it).
pub fn over_values(bytes: &[u8], max: usize) -> Option<usize> {
    let mut n = 0usize;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let counted = Count { n: &mut n, max }.deserialize(&mut de);
    (counted.is_err() && n > max).then_some(n)
}

/// Counts the values of a JSON document as serde walks it, building none of them; fails past `max`.
struct Count<'a> {
    n: &'a mut usize,
    max: usize,
}

impl Count<'_> {
    fn bump<E: serde::de::Error>(&mut self) -> Result<(), E> {
        *self.n += 1;
        if *self.n > self.max {
            return Err(E::custom("too many values"));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! scalar {
    ($($f:ident($t:ty)),*) => {$(
        fn $f<E: serde::de::Error>(mut self, _: $t) -> Result<(), E> {
            self.bump()
        }
    )*};
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    scalar!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_unit<E: serde::de::Error>(mut self) -> Result<(), E> {
        self.bump()
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.bump()?;
        while seq.next_element_seed(Count { n: &mut *self.n, max: self.max })?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.bump()?;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(Count { n: &mut *self.n, max: self.max })?;
        }
        Ok(())
    }
}

/// Bytes of `value` as compact JSON, counted without writing them anywhere.
pub fn json_len(value: &serde_json::Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, value);
    c.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use serde_json::json;

    #[test]
    fn values_are_counted_past_the_limit_only() {
        assert_eq!(over_values(b"[0,0,0]", 4), None);
        assert_eq!(over_values(b"[0,0,0,0]", 4), Some(5));
        assert_eq!(over_values(br#"{"a":[1,{"b":"x"}],"c":null}"#, 6), None);
        assert_eq!(over_values(br#"{"a":[1,{"b":"x"}],"c":null}"#, 5), Some(6));
        // Not JSON: the handler says what is wrong.
        assert_eq!(over_values(b"[0,0,", 100), None);
        let zeros = format!("[{}0]", "0,".repeat(1_000_000));
        assert_eq!(over_values(zeros.as_bytes(), 200_000), Some(200_001));
    }

    #[test]
    fn a_bucket_gives_its_burst_then_its_rate_and_says_when() {
        let q = Quotas::new(Limits { calls_per_sec: 2.0, calls_burst: 3, ..Limits::default() });
        for _ in 0..3 {
            q.take("token:a", Use::Calls).unwrap();
        }
        let e = q.take("token:a", Use::Calls).unwrap_err();
        assert_eq!((e.status, e.retry_after()), (StatusCode::TOO_MANY_REQUESTS, Some(1)));
        // Another credential, and another quota of the same credential, are untouched.
        q.take("token:b", Use::Calls).unwrap();
        q.take("token:a", Use::Runs).unwrap();
    }

    #[test]
    fn holds_are_capped_and_given_back_when_dropped() {
        let q = Arc::new(Quotas::new(Limits { waits_per_credential: 2, ..Limits::default() }));
        let a = q.hold("token:a", Use::Waits).unwrap();
        let _b = q.hold("token:a", Use::Waits).unwrap();
        assert!(q.hold("token:a", Use::Waits).is_err());
        drop(a);
        q.hold("token:a", Use::Waits).unwrap();
    }

    #[test]
    fn json_len_is_the_compact_length() {
        let v = json!({ "a": [1, 2, "x"] });
        assert_eq!(json_len(&v), v.to_string().len());
    }
}
