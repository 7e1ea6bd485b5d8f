//! The remote listener (`serve --listen ADDR:PORT`, issue 28): the same API and UI as on 127.0.0.1,
//! over TLS only, for the configured public name, to paired devices.
//!
//! Its rules ([`guard`], in place of the loopback one):
//! - `Host` must be the public name (and port); `Origin`, when sent, its `https://` origin, and a
//!   request that changes something must send it (CSRF);
//! - a browser is a paired device's session: the cookie `__Host-ac_session` (HttpOnly, Secure,
//!   SameSite=Strict), set by pairing or signing in with the passkey ([`routes`]); no bearer token
//!   is kept in the page;
//! - a bearer token is taken from agents only (a hook on another machine): the session token of
//!   `serve` and operator or admin tokens are refused here, and the refusal audited;
//! - the operators' reserve of connections (and an address past its share of them:
//!   [`super::connections`]) serves devices' sessions only, on every request whatever its path;
//! - decisions carry the device's passkey step-up (`X-Step-Up`, `X-Step-Up-Assertion`), checked in
//!   the core ([`crate::app::remote::step_up`]);
//! - every answer carries HSTS and the other security headers ([`headers`]).

use super::connections::Admission;
use super::error::ApiError;
use super::ApiState;
use crate::app::remote::devices::Session;
use crate::app::remote::step_up::StepUpRequest;
use crate::app::remote::Remote;
use crate::domain::audit::RemoteRefusal;
use crate::domain::{ErrorCode, Principal, Role, StepUpProof};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::net::SocketAddr;

/// The session cookie's name: `__Host-` makes browsers refuse it unless Secure, for this host only,
/// on path `/`.
pub const COOKIE: &str = "__Host-ac_session";

/// The peer of a connection (set by the accept loop).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

/// What the remote guard found beside the principal: where the request came from, and the
/// step-up it presents.
#[derive(Clone, Debug, Default)]
pub struct RemoteRequest {
    pub address: String,
    pub proof: Option<StepUpProof>,
}

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/remote/pair", post(pair))
        .route("/api/remote/pair/finish", post(pair_finish))
        .route("/api/remote/sign-in", post(sign_in))
        .route("/api/remote/sign-in/finish", post(sign_in_finish))
        .route("/api/remote/sign-out", post(sign_out))
        .route("/api/remote/step-up", post(step_up))
}

/// The value of the session cookie in `headers`, or "".
pub fn cookie(headers: &HeaderMap) -> &str {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map_or("", |(_, v)| v)
}

fn address(request_peer: Option<&Peer>) -> String {
    request_peer.map(|p| p.0.ip().to_string()).unwrap_or_default()
}

fn with_cookie(session: &Session) -> Response {
    let cookie = format!(
        "{COOKIE}={}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age={}",
        session.cookie,
        crate::app::remote::SESSION_TTL.num_seconds()
    );
    let mut response = (StatusCode::OK, Json(serde_json::json!({ "device": session.device }))).into_response();
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).expect("a hex cookie is a header value"));
    response
}

/// A ceremony's first answer: its id and the options for `navigator.credentials`.
#[derive(Serialize)]
struct Begun<T: Serialize> {
    ceremony: String,
    options: T,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairBody {
    code: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FinishBody {
    ceremony: String,
    credential: Value,
}

type Peered = Option<axum::Extension<Peer>>;

async fn pair(State(state): State<ApiState>, peer: Peered, Json(body): Json<PairBody>) -> Response {
    let address = address(peer.as_deref());
    match state.app.pair_begin(&body.code, &address).await {
        Ok((ceremony, options)) => Json(Begun { ceremony, options }).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn pair_finish(State(state): State<ApiState>, peer: Peered, Json(body): Json<FinishBody>) -> Response {
    let Ok(credential) = serde_json::from_value(body.credential) else {
        return ApiError::invalid("credential is not a WebAuthn registration (PublicKeyCredential.toJSON())").into_response();
    };
    match state.app.pair_finish(&body.ceremony, &credential, &address(peer.as_deref())).await {
        Ok(session) => with_cookie(&session),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn sign_in(State(state): State<ApiState>, peer: Peered) -> Response {
    match state.app.sign_in_begin(&address(peer.as_deref())).await {
        Ok((ceremony, options)) => Json(Begun { ceremony, options }).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn sign_in_finish(State(state): State<ApiState>, peer: Peered, Json(body): Json<FinishBody>) -> Response {
    let Ok(credential) = serde_json::from_value(body.credential) else {
        return ApiError::invalid("credential is not a WebAuthn assertion (PublicKeyCredential.toJSON())").into_response();
    };
    match state.app.sign_in_finish(&body.ceremony, &credential, &address(peer.as_deref())).await {
        Ok(session) => with_cookie(&session),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn sign_out(State(state): State<ApiState>, headers: HeaderMap) -> Response {
    if let Err(e) = state.app.sign_out(cookie(&headers)).await {
        return ApiError::from(e).into_response();
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let gone = format!("{COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0");
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&gone).expect("a header value"));
    response
}

async fn step_up(
    State(state): State<ApiState>,
    super::By(by): super::By<crate::domain::grade::Device>,
    Json(body): Json<StepUpRequest>,
) -> Response {
    match state.app.step_up_begin(body, &by).await {
        Ok((ceremony, options)) => Json(Begun { ceremony, options }).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

fn forbidden(message: impl Into<String>) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message).into_response()
}

/// The remote listener's guard (see the module), called by [`super::guard::guard`]: Host, Origin,
/// then a device's session or an agent's bearer token. Public routes (health, pairing, sign-in) and
/// the page's files need no credential, but where only operators' requests run (the reserve, an
/// address past its share: [`Admission`]) every request needs a device's session (agents' tokens
/// are refused there too).
pub(super) async fn check(state: &ApiState, remote: &Remote, mut request: Request, admission: Admission) -> Result<Request, Response> {
    let address = address(request.extensions().get::<Peer>());
    let refuse = |reason: &'static str| {
        let app = state.app.clone();
        let address = address.clone();
        async move {
            app.audit_refusal(RemoteRefusal { pairing: false, reason, address: &address, device: None, item_id: None, suppressed: 0 })
                .await;
        }
    };
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let expected = remote.config.host();
    if !host.eq_ignore_ascii_case(&expected) {
        refuse("wrong Host").await;
        return Err(forbidden(format!("Host {host:?} is not this listener's name ({expected})")));
    }
    let origin = headers.get(header::ORIGIN).map(|o| o.to_str().unwrap_or(""));
    // A browser's request that changes something sends its Origin; one that rides on the session
    // cookie without it is refused (CSRF). Agents' bearer requests come from no page.
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    match origin {
        Some(o) if o != remote.config.origin() => {
            refuse("foreign Origin").await;
            return Err(forbidden(format!("Origin {o:?} is not allowed")));
        }
        None if changes && !cookie(headers).is_empty() => {
            return Err(forbidden("a request that changes something must send its Origin"));
        }
        _ => {}
    }
    let path = request.uri().path().to_owned();
    let needed = path.starts_with("/api/") && !super::guard::public(&path);
    if !needed && !admission.operators_only() {
        return Ok(request);
    }
    let session = cookie(headers).to_owned();
    let bearer = super::guard::bearer(headers).to_owned();
    let principal: Option<Principal> = if !session.is_empty() {
        match state.app.device_session(&session).await {
            Ok(Some(p)) => Some(p),
            Ok(None) => {
                // A revoked device's, an expired or a forged cookie: refused, and told.
                refuse("an unknown, expired or revoked session").await;
                None
            }
            Err(e) => return Err(ApiError::from(e).into_response()),
        }
    } else if !bearer.is_empty() {
        if super::guard::same_secret(bearer.as_bytes(), state.token.as_bytes()) {
            refuse("the session token on the remote listener").await;
            return Err(forbidden("the session token works on 127.0.0.1 only: pair this device and sign in with its passkey"));
        }
        match state.app.authenticate(&bearer).await {
            Ok(Some(p)) if p.role == Role::Agent => Some(p),
            Ok(Some(_)) => {
                refuse("an operator's or admin's token on the remote listener").await;
                return Err(forbidden("on the remote listener a token serves agents only: operators pair a device and use its passkey"));
            }
            Ok(None) => None,
            Err(e) => return Err(ApiError::from(e).into_response()),
        }
    } else {
        None
    };
    // Operators only (the reserve, an address past its share) means devices' sessions here: an
    // agent's token or no credential is told to come back, and the connection closes
    // ([`super::guard::guard`]).
    if admission.operators_only() && !super::guard::operator(principal.as_ref()) {
        return Err(super::guard::operators_only(admission));
    }
    let Some(principal) = principal else {
        if !needed {
            return Ok(request);
        }
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "sign in with this device's passkey (or pair it first)",
        )
        .into_response());
    };
    let headers = request.headers();
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let proof = match (text("x-step-up"), text("x-step-up-assertion")) {
        (Some(ceremony), Some(encoded)) => {
            let decoded = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, encoded.trim_end_matches('='))
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            decoded.map(|assertion| StepUpProof { ceremony, assertion })
        }
        _ => None,
    };
    request.extensions_mut().insert(RemoteRequest { address, proof });
    request.extensions_mut().insert(principal);
    Ok(request)
}

/// Security headers on every answer of the remote listener.
pub async fn headers(request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    h.insert(
        "permissions-policy",
        HeaderValue::from_static(
            "camera=(), microphone=(), geolocation=(), publickey-credentials-get=(self), publickey-credentials-create=(self)",
        ),
    );
    if api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
