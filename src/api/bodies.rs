//! Request bodies: read only where a route takes one, and only as much as that route may take.
//! Nothing of a body is read before [`super::guard::guard`] let its request through, so a body
//! costs a stranger as little as its headers:
//! - a path of the web UI's static files takes no body: a request with one (`Content-Length` > 0,
//!   or chunked) is answered 413 (405 for a method other than GET and HEAD) before a byte of it
//!   is read, and its connection closed;
//! - a public route (health, the receipts' keys, the remote listener's pairing and sign-in: no
//!   credential) reads [`super::PUBLIC_BODY_LIMIT`] at most within
//!   [`Limits::public_body_timeout`](super::Limits::public_body_timeout);
//! - every other route (a credential checked) reads [`super::BODY_LIMIT`] at most within
//!   [`Limits::body_read_timeout`](super::Limits::body_read_timeout), and a JSON body's values are
//!   counted ([`super::limits::over_values`]) before any is built.
//!
//! Beyond: 413 `payload_too_large` (refused by `Content-Length` before reading, else once the
//! limit is passed) or 408, and the connection closed (what is left of the body is never read).

use super::error::ApiError;
use super::limits::{is_json, over_values, Quotas};
use super::ApiState;
use crate::domain::{ErrorCode, ErrorDetails};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Body as _;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// What a path is, as far as its body goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// The web UI's files (every path outside `/api` but the public routes'): no body.
    Static,
    /// A public operation's route: no credential, a small body.
    Public,
    /// An `/api` route, reached with a credential only.
    Api,
}

impl PathKind {
    pub fn of(path: &str) -> Self {
        if super::guard::public(path) {
            Self::Public
        } else if path == "/api" || path.starts_with("/api/") {
            Self::Api
        } else {
            Self::Static
        }
    }
}

/// The methods the static files answer.
pub fn static_method(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
}

/// `response`, its connection closed once it is sent (what is left of the request is never read).
pub fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Every request's body, by its path's [`PathKind`] (see the module).
pub async fn bodies(State(state): State<ApiState>, request: Request, next: Next) -> Response {
    if request.body().size_hint().exact() == Some(0) {
        return next.run(request).await;
    }
    let path = request.uri().path();
    let limits = state.quotas.limits();
    let (limit, timeout) = match PathKind::of(path) {
        PathKind::Static if static_method(request.method()) => {
            return closing(
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge, "the web UI's files take no request body")
                    .into_response(),
            );
        }
        PathKind::Static => return closing(not_allowed(request.method())),
        PathKind::Public => (super::PUBLIC_BODY_LIMIT, limits.public_body_timeout),
        PathKind::Api => (super::BODY_LIMIT, limits.body_read_timeout),
    };
    let mastra = path.starts_with("/api/agents/");
    let refuse = |e: ApiError| closing(if mastra { super::mastra::answer(e) } else { e.into_response() });
    let too_large =
        || ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge, format!("request body larger than {limit} bytes"));
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return refuse(too_large());
    }
    let (parts, body) = request.into_parts();
    let bytes = match read(body, limit, timeout, state.quotas.clone()).await {
        Ok(bytes) => bytes,
        Err(Unread::TooLarge) => return refuse(too_large()),
        Err(Unread::Broken(e)) => return refuse(ApiError::invalid(format!("the request body could not be read: {e}"))),
        Err(Unread::Late) => {
            return refuse(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                ErrorCode::InvalidRequest,
                format!("the request body did not arrive within {} s", timeout.as_secs_f64()),
            ))
        }
    };
    let max_values = limits.max_json_values;
    if is_json(&parts.headers) {
        if let Some(values) = over_values(&bytes, max_values) {
            let mut e = ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                format!("the JSON body holds more than {max_values} values"),
            );
            e.body.details = Some(ErrorDetails::TooManyValues { field: "body".into(), max_values, values });
            return refuse(e);
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// 405 for a method the static files do not answer.
pub fn not_allowed(method: &Method) -> Response {
    let mut response = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::InvalidRequest,
        format!("the web UI's files answer GET and HEAD, not {method}"),
    )
    .into_response();
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    response
}

enum Unread {
    TooLarge,
    Late,
    Broken(axum::Error),
}

/// `body`, `limit` bytes at most, within `timeout`; every byte read is counted in `quotas`.
async fn read(body: Body, limit: usize, timeout: Duration, quotas: Arc<Quotas>) -> Result<Bytes, Unread> {
    let counted = Body::new(Counted { inner: body, quotas });
    match tokio::time::timeout(timeout, axum::body::to_bytes(counted, limit)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => {
            let over = std::error::Error::source(&e).is_some_and(|s| s.to_string().contains("length limit"))
                || e.to_string().contains("length limit");
            Err(if over { Unread::TooLarge } else { Unread::Broken(e) })
        }
        Err(_) => Err(Unread::Late),
    }
}

/// A request body that adds the bytes it yields to [`Quotas::body_bytes`].
struct Counted {
    inner: Body,
    quotas: Arc<Quotas>,
}

impl http_body::Body for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                self.quotas.body_bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_static_files_public_routes_or_the_api() {
        for (path, kind) in [
            ("/", PathKind::Static),
            ("/index.html", PathKind::Static),
            ("/assets/app.js", PathKind::Static),
            ("/apix", PathKind::Static),
            ("//api/queue", PathKind::Static),
            ("/api/health", PathKind::Public),
            ("/.well-known/jwks.json", PathKind::Public),
            ("/api/remote/pair", PathKind::Public),
            ("/api/remote/sign-in/finish", PathKind::Public),
            ("/api/queue", PathKind::Api),
            ("/api/remote/sign-out", PathKind::Api),
            ("/api", PathKind::Api),
            ("/api/no-such", PathKind::Api),
        ] {
            assert_eq!(PathKind::of(path), kind, "{path}");
        }
    }
}
