//! The HTTP server of `serve`: the console API (`/api/queue`, `/api/events`, `/api/audit`, …), the
//! Mastra-shaped engine API of the local engine (`/api/agents/…`), and the embedded web UI.

mod agui;
mod bodies;
mod calls;
pub mod connections;
mod console;
mod error;
pub mod guard;
pub mod limits;
pub mod listen;
mod mastra;
mod operations;
pub mod remote;
pub mod tls;
mod ui;

pub use crate::app::queue::{DecisionView, QueueItem};
pub use console::openapi_document;
pub use error::{ApiError, ErrorBody};
pub use limits::Limits;

use crate::app::App;
use crate::domain::authority::{Admitted, Graded};
use crate::domain::Cx;
use axum::extract::{DefaultBodyLimit, FromRequestParts};
use axum::http::request::Parts;
use axum::Router;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Largest request body accepted (a generate request with big arguments included).
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// Largest request body of a public route (no credential: a pairing or sign-in ceremony's answer,
/// a few KiB): [`bodies`].
pub const PUBLIC_BODY_LIMIT: usize = 16 * 1024;

/// What every handler gets.
#[derive(Clone)]
pub struct ApiState {
    pub app: App,
    token: Arc<str>,
    addr: SocketAddr,
    /// Flips to true when the server stops, ending SSE streams.
    shutdown: watch::Receiver<bool>,
    /// Per-credential quotas and per-request limits ([`limits`]).
    quotas: Arc<limits::Quotas>,
    /// On the remote listener (`serve --listen`): its core; its own guard and routes apply.
    remote: Option<Arc<crate::app::remote::Remote>>,
}

impl ApiState {
    fn port(&self) -> u16 {
        self.addr.port()
    }
}

/// The whole router.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .merge(console::routes())
        .merge(calls::routes())
        .merge(operations::routes())
        .merge(mastra::routes())
        .merge(agui::routes())
        .merge(remote::routes())
        // Outermost runs first: the role, then the quotas it may use.
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), limits::quota))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), guard::authorize))
        .fallback(ui::serve)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(state.clone(), bodies::bodies))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::guard))
        .layer(axum::middleware::from_fn(retry_reads))
        .layer(axum::middleware::from_fn(remote_headers(state.remote.is_some())))
        .with_state(state)
}

/// The remote listener's security headers ([`remote::headers`]); nothing added on 127.0.0.1.
fn remote_headers(
    on: bool,
) -> impl Fn(
    axum::extract::Request,
    axum::middleware::Next,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = axum::response::Response> + Send>>
       + Clone
       + Send
       + Sync
       + 'static {
    move |request, next| {
        Box::pin(async move {
            if on {
                remote::headers(request, next).await
            } else {
                next.run(request).await
            }
        })
    }
}

/// Waits before each new try of a read that met `storage_unavailable`.
const READ_RETRIES: [std::time::Duration; 2] = [std::time::Duration::from_millis(200), std::time::Duration::from_millis(800)];

/// A read (GET, HEAD: it changes nothing, so trying it again is safe) that met
/// `storage_unavailable` — a database connection lost under it, PostgreSQL restarting — is tried
/// again, twice at most; the pool then connects afresh. Whatever still fails answers 503
/// `storage_unavailable` with `Retry-After`. Writes are never repeated here: a lost commit may
/// have happened, and only the caller can tell by reading.
async fn retry_reads(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    use axum::http::Method;
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let mut response = next.clone().run(axum::extract::Request::from_parts(parts.clone(), body)).await;
    for wait in READ_RETRIES {
        if response.extensions().get::<error::StorageUnavailable>().is_none() {
            break;
        }
        tokio::time::sleep(wait).await;
        response = next.clone().run(axum::extract::Request::from_parts(parts.clone(), axum::body::Body::empty())).await;
    }
    response
}

/// Query parameters, refused as `invalid_request` in the API's error shape (axum's own `Query`
/// answers plain text): an unknown `tab`, `kind`, `sort` or `state` names what it expected.
pub struct ApiQuery<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| ApiQuery(q.0))
            .map_err(|r| ApiError::invalid(r.body_text()))
    }
}

/// The typed context of the operation a request was admitted to ([`guard::authorize`], from the
/// catalog): `By<grade::Watch>` in a handler of a `Watch` operation. Asking for another grade than the
/// route's is a bug, answered 500.
pub struct By<G>(pub Cx<G>);

impl<G: Graded, S: Send + Sync> FromRequestParts<S> for By<G> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let admitted = parts.extensions.get::<Admitted>().ok_or_else(ApiError::unauthorized)?;
        Ok(By(admitted.cx::<G>()?))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Admitted {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts.extensions.get::<Admitted>().cloned().ok_or_else(ApiError::unauthorized)
    }
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    quotas: Arc<limits::Quotas>,
}

impl Server {
    /// Bytes of request bodies this server has read so far, all requests together.
    pub fn body_bytes_read(&self) -> u64 {
        self.quotas.body_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The UI's address, with the token in the fragment (never sent to a server, never in logs).
    pub fn ui_url(&self, token: &str) -> String {
        format!("http://{}/#token={token}", self.addr)
    }

    /// Stops accepting, ends event streams, waits for requests in flight.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }

    /// Runs until the process gets Ctrl-C or SIGTERM.
    pub async fn run_until_signal(self) {
        shutdown_signal().await;
        self.stop().await;
    }

    /// [`Server::run_until_signal`], stopping `other` (the remote listener) with it.
    pub async fn run_until_signal_with(self, other: Server) {
        shutdown_signal().await;
        tokio::join!(self.stop(), other.stop());
    }
}

/// Binds 127.0.0.1:`port` (0: any free port) and serves, with the default [`Limits`].
pub async fn serve(app: App, port: u16, token: &str) -> std::io::Result<Server> {
    serve_with(app, port, token, Limits::default()).await
}

/// [`serve`] with `limits` (their connection caps lowered to fit the open files limit, which is
/// raised to its hard limit first: see [`connections`]).
pub async fn serve_with(app: App, port: u16, token: &str, limits: Limits) -> std::io::Result<Server> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let addr = listener.local_addr()?;
    let limits = connections::fit(limits, connections::raise_open_files());
    let (stop, shutdown) = watch::channel(false);
    let quotas = Arc::new(limits::Quotas::new(limits.clone()));
    let state = ApiState { app, token: token.into(), addr, shutdown: shutdown.clone(), quotas: quotas.clone(), remote: None };
    let router = router(state);
    let task = tokio::spawn(connections::run(listener, router, limits, shutdown, None));
    Ok(Server { addr, stop, task, quotas })
}

/// The remote listener (`serve --listen`): serves the same API and UI over TLS only on `listener`
/// (bound by the caller, who needed its port for `app.enable_remote`), under [`remote`]'s rules.
pub async fn serve_remote(app: App, listener: TcpListener, tls: &tls::Tls, token: &str, limits: Limits) -> std::io::Result<Server> {
    let remote = app.remote().cloned().ok_or_else(|| std::io::Error::other("the remote listener's core is not on (App::enable_remote)"))?;
    let addr = listener.local_addr()?;
    let (stop, shutdown) = watch::channel(false);
    let quotas = Arc::new(limits::Quotas::new(limits.clone()));
    let state = ApiState {
        app: app.clone(),
        token: token.into(),
        addr,
        shutdown: shutdown.clone(),
        quotas: quotas.clone(),
        remote: Some(remote.clone()),
    };
    let router = router(state);
    let on_plain: Arc<dyn Fn(SocketAddr) + Send + Sync> = Arc::new(move |peer: SocketAddr| {
        let app = app.clone();
        tokio::spawn(async move {
            let address = peer.ip().to_string();
            let refusal = crate::domain::audit::RemoteRefusal {
                pairing: false,
                reason: "plain HTTP",
                address: &address,
                device: None,
                item_id: None,
                suppressed: 0,
            };
            app.audit_refusal(refusal).await;
        });
    });
    let accept =
        connections::TlsAccept { acceptor: tokio_rustls::TlsAcceptor::from(tls.config.clone()), origin: remote.config.origin(), on_plain };
    let task = tokio::spawn(connections::run(listener, router, limits, shutdown, Some(accept)));
    Ok(Server { addr, stop, task, quotas })
}

/// Resolves once the server is told to stop (or the sender is gone).
pub(crate) async fn stopped(mut rx: watch::Receiver<bool>) {
    while !*rx.borrow_and_update() {
        if rx.changed().await.is_err() {
            return;
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// A random session token: 32 bytes, hex.
pub use crate::secrets::random_token;
