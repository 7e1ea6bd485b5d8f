//! Every request: Host must be loopback (DNS rebinding), Origin, when sent, must be this server's own
//! (CSRF), and every `/api` route but health needs the bearer token.

use super::error::ApiError;
use super::ApiState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

fn loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) && !name.ends_with(':') => name,
        _ => host,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

fn allowed_origin(origin: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| origin == format!("http://{h}:{port}"))
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from timings.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub async fn guard(State(state): State<ApiState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !loopback_host(host) {
        return ApiError::new(StatusCode::FORBIDDEN, "forbidden", format!("Host {host:?} is not a loopback address")).into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !allowed_origin(origin, state.port()) {
            return ApiError::new(StatusCode::FORBIDDEN, "forbidden", format!("Origin {origin:?} is not allowed")).into_response();
        }
    }
    let path = request.uri().path();
    if path.starts_with("/api/") && path != "/api/health" {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same_secret(presented.as_bytes(), state.token.as_bytes()) {
            return ApiError::unauthorized().into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_pass() {
        for ok in ["127.0.0.1:8080", "localhost:1", "[::1]:99", "localhost", "127.0.0.1"] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in ["evil.example:8080", "127.0.0.1.evil.example", "10.0.0.1:80", "", "localhost.evil:1"] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn only_this_servers_origin_passes() {
        assert!(allowed_origin("http://127.0.0.1:4000", 4000));
        assert!(!allowed_origin("http://127.0.0.1:4001", 4000));
        assert!(!allowed_origin("https://evil.example", 4000));
        assert!(!allowed_origin("null", 4000));
    }
}
