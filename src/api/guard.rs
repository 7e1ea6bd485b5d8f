//! Every request: Host must be loopback (DNS rebinding), Origin, when sent, must be this server's own
//! (CSRF), and every `/api` route but health needs a credential ([`guard`]); then the route's role
//! ([`authorize`], from the operation catalog, `src/domain/catalog.rs`: a route missing from it is refused to everyone).

use super::bodies::closing;
use super::connections::Admission;
use super::error::ApiError;
use super::ApiState;
use crate::domain::authority::{self, Kind, Listener, Served};
use crate::domain::ops::Access;
use crate::domain::{Actor, Op, Principal, Role};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Body as _;
use tracing::Instrument;

/// Every HTTP route of the catalog (`src/domain/catalog.rs`) with its role: `Some(role)` a principal
/// whose role [`Role::includes`] it (an operator an agent's and a viewer's routes, an admin every
/// route; agent and viewer neither's of the other); `None` no role — public for `/api/health` alone
/// ([`guard`] lets no other `/api` request through without a valid credential), any credential
/// elsewhere. A route that is not in the catalog is refused to everyone ([`authorize`]), and a test
/// checks that every route of the router is in it.
pub fn roles() -> Vec<(Method, &'static str, Option<Role>)> {
    Op::ALL
        .iter()
        .filter_map(|op| {
            let info = op.info();
            Some((
                Method::from_bytes(info.method?.as_bytes()).expect("the catalog's methods are HTTP methods"),
                info.path?,
                info.access.role(),
            ))
        })
        .collect()
}

/// The role a route needs: `Some(None)` public or any credential, `Some(Some(role))`, or `None` for a
/// route not in the catalog.
pub fn required_role(method: &Method, route: &str) -> Option<Option<Role>> {
    Op::of_route(method.as_str(), route).map(|op| op.access().role())
}

/// A path served without a credential: a public operation's (`/api/health`).
pub(crate) fn public(path: &str) -> bool {
    Op::ALL.iter().any(|op| op.access() == Access::Public && op.info().path == Some(path))
}

/// `host` or `host:port` naming this machine: 127.0.0.1, localhost or [::1], with a port of 1–5
/// digits up to 65535 when one is given.
fn loopback_host(host: &str) -> bool {
    let (name, port) = match host.strip_prefix("[::1]") {
        Some(rest) => ("[::1]", rest),
        None => host.find(':').map_or((host, ""), |i| (&host[..i], &host[i..])),
    };
    let port_ok = match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(p) => {
            (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u32>().is_ok_and(|n| (1..=65535).contains(&n))
        }
    };
    port_ok && matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

fn allowed_origin(origin: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|h| origin == format!("http://{h}:{port}"))
}

/// Constant-time comparison, so the session token cannot be guessed byte by byte from timings.
pub(crate) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The bearer token of a request (`Authorization: Bearer …`), or "".
pub(crate) fn bearer(headers: &axum::http::HeaderMap) -> &str {
    headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")).unwrap_or("")
}

/// Host, Origin, then the credential: the session token (the local admin), else a stored token
/// (the remote listener: [`super::remote::check`]). The principal found goes into the request's
/// extensions for [`authorize`] and the handlers.
///
/// A connection let in on the operators' reserve, or whose address holds more than its share of
/// busy connections ([`super::connections`]), runs operators' requests only: every request then,
/// whatever its path (a static file's, a public route's too), must carry an operator's or admin's
/// credential, or it is answered 429 `rate_limited`. Every refusal here of such a request, or of
/// one with a body (never read), closes its connection.
pub async fn guard(State(state): State<ApiState>, request: Request, next: Next) -> Response {
    let admission = request.extensions().get::<Admission>().copied().unwrap_or_default();
    let with_body = request.body().size_hint().exact() != Some(0);
    let checked = match state.remote.clone() {
        // The remote listener has rules of its own (TLS, its public name, devices' sessions).
        Some(remote) => super::remote::check(&state, &remote, request, admission).await,
        None => check(&state, request, admission).await,
    };
    match checked {
        Ok(request) => next.run(request).await,
        Err(refused) if admission.operators_only() || with_body => closing(refused),
        Err(refused) => refused,
    }
}

/// The answer to a request that only an operator's may be, from someone else.
pub(super) fn operators_only(admission: Admission) -> Response {
    let message = if admission.reserve {
        "the server has as many connections as it serves; the rest are kept for operators"
    } else {
        "this address has its share of the server's connections busy; ask again once one is done"
    };
    ApiError::rate_limited(message, 1, super::error::Quota { name: "connections", ..Default::default() }).into_response()
}

/// Whether `principal` may run a request where only operators' run.
pub(super) fn operator(principal: Option<&Principal>) -> bool {
    principal.is_some_and(|p| p.role.includes(Role::Operator))
}

async fn check(state: &ApiState, mut request: Request, admission: Admission) -> Result<Request, Response> {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !loopback_host(host) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            crate::domain::ErrorCode::Forbidden,
            format!("Host {host:?} is not a loopback address"),
        )
        .into_response());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !allowed_origin(origin, state.port()) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                crate::domain::ErrorCode::Forbidden,
                format!("Origin {origin:?} is not allowed"),
            )
            .into_response());
        }
    }
    let path = request.uri().path();
    let needed = path.starts_with("/api/") && !public(path);
    if !needed && !admission.operators_only() {
        return Ok(request);
    }
    let presented = bearer(headers);
    let principal = if presented.is_empty() {
        None
    } else if same_secret(presented.as_bytes(), state.token.as_bytes()) {
        Some(Principal::local(state.app.operator()))
    } else {
        state.app.authenticate(presented).await.map_err(|e| ApiError::from(e).into_response())?
    };
    // Operators only (the reserve, an address past its share): anyone else is told to come back,
    // and the connection closes ([`guard`]).
    if admission.operators_only() && !operator(principal.as_ref()) {
        return Err(operators_only(admission));
    }
    match principal {
        Some(p) => {
            request.extensions_mut().insert(p);
        }
        None if needed => return Err(ApiError::unauthorized().into_response()),
        None => {}
    }
    Ok(request)
}

/// The route's admission from the catalog ([`crate::domain::authority::admit`]: its grade, the kind
/// of credential [`guard`] found, the listener this server is), before any body is read: 401 without
/// a credential, 403 `forbidden` when the grade does not admit it, 404 where this listener does not
/// serve it, and a route missing from the catalog refused to everyone. What it admits goes into the
/// request's extensions as [`Admitted`], the only way a handler gets its typed context
/// ([`super::By`]).
pub async fn authorize(State(state): State<ApiState>, mut request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned()).unwrap_or_default();
    let Some(op) = Op::of_route(request.method().as_str(), &route) else {
        tracing::error!(%route, method = %request.method(), "route missing from the operation catalog (src/domain/catalog.rs): refused");
        return ApiError::new(StatusCode::FORBIDDEN, crate::domain::ErrorCode::Forbidden, "this route has no role assigned; refused")
            .into_response();
    };
    let listener = if state.remote.is_some() { Listener::Remote } else { Listener::Loopback };
    let Some(principal) = request.extensions().get::<Principal>().cloned() else {
        // No credential: a public operation's, where this listener serves it.
        return match authority::admission(op, Kind::Anonymous, listener) {
            authority::Admission::Allowed => next.run(request).await,
            authority::Admission::NotServed => not_served(op),
            _ => ApiError::unauthorized().into_response(),
        };
    };
    let remote = request.extensions().get::<super::remote::RemoteRequest>().cloned();
    let mut actor = Actor::new(principal, if remote.is_some() { "remote" } else { "web" });
    actor.listener = listener;
    if let Some(r) = remote {
        actor.proof = r.proof;
        actor.address = Some(r.address);
    }
    let admitted = match authority::admit(op, actor) {
        Ok(admitted) => admitted,
        Err(crate::domain::Error::NotFound { .. }) => return not_served(op),
        Err(e) => return ApiError::from(e).into_response(),
    };
    // One span per request: the route and who asked (never a body, a token or an argument).
    let span = tracing::info_span!("api", method = %request.method(), route = %route, principal = %admitted.actor().principal.key());
    request.extensions_mut().insert(admitted);
    next.run(request).instrument(span).await
}

fn not_served(op: Op) -> Response {
    let message = match op.info().served {
        Served::Remote => "this route is not served on this listener: it is on the remote listener only (serve --listen)",
        _ => "this route is not served on this listener: it is on 127.0.0.1 only",
    };
    ApiError::new(StatusCode::NOT_FOUND, crate::domain::ErrorCode::NotFound, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_with_sane_ports_pass() {
        for ok in ["127.0.0.1:8080", "localhost:1", "[::1]:99", "localhost", "127.0.0.1", "[::1]", "localhost:65535"] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "10.0.0.1:80",
            "",
            "localhost.evil:1",
            "localhost:abc",
            "localhost:",
            "localhost:65536",
            "localhost:123456",
            "127.0.0.1:80:80",
            "[::1]:",
            "[::1]x",
            "[::1",
            "localhost:+80",
            "localhost: 80",
            "[::2]:80",
            "[::1]:8a",
        ] {
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

    #[test]
    fn a_secret_differing_anywhere_does_not_match() {
        let good = b"0123456789abcdef";
        assert!(same_secret(good, good));
        for i in 0..good.len() {
            let mut one = *good;
            one[i] ^= 0x01;
            assert!(!same_secret(&one, good), "byte {i} changed");
        }
        // Two changes whose differences cancel in a sum (+1 and -1) or in an xor of the bytes.
        let mut swapped = *good;
        swapped.swap(0, 1);
        assert!(!same_secret(&swapped, good));
        let mut cancel = *good;
        cancel[2] += 1;
        cancel[3] -= 1;
        assert!(!same_secret(&cancel, good));
        assert!(!same_secret(b"", good));
        assert!(!same_secret(&good[..15], good));
    }

    #[test]
    fn every_route_has_one_role() {
        let roles = roles();
        for (i, (m, r, _)) in roles.iter().enumerate() {
            assert!(roles[..i].iter().all(|(m2, r2, _)| !(m2 == m && r2 == r)), "{m} {r} listed twice");
        }
        assert_eq!(required_role(&Method::GET, "/api/health"), Some(None));
        assert_eq!(required_role(&Method::POST, "/api/queue/{id}/approve"), Some(Some(Role::Operator)));
        assert_eq!(required_role(&Method::POST, "/api/no-such"), None);
        // No role needed is public only where the guard asks for no credential.
        assert!(public("/api/health") && !public("/api/session") && !public("/api/queue"));
        // No role: health, the receipts' public keys, the session, and the remote listener's pairing and sign-in (a phone with
        // no session yet; 404 on 127.0.0.1) and sign-out.
        let open = [
            "/api/health",
            "/.well-known/jwks.json",
            "/api/remote/pair",
            "/api/remote/pair/finish",
            "/api/remote/sign-in",
            "/api/remote/sign-in/finish",
        ];
        for (m, r, role) in &roles {
            assert!(
                role.is_some() || open.contains(r) || (*m == Method::GET && *r == "/api/session") || *r == "/api/remote/sign-out",
                "{m} {r} needs no role"
            );
        }
    }
}
