//! The web UI, built by Vite into `ui/dist` and embedded at compile time (see `build.rs`).

use super::error::ApiError;
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use include_dir::{include_dir, Dir};

static UI: Dir<'static> = include_dir!("$APPROVAL_CONSOLE_UI_DIST");

/// No inline scripts, no remote origins, no framing.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
                   object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A file of the UI (GET, HEAD; other methods 405, and a request body was refused before:
/// [`super::bodies`]); an unknown `/api` path 404.
pub async fn serve(method: Method, uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if path.starts_with("api/") || path == "api" {
        return ApiError::new(StatusCode::NOT_FOUND, crate::domain::ErrorCode::NotFound, format!("no route {}", uri.path()))
            .into_response();
    }
    if !super::bodies::static_method(&method) {
        return super::bodies::not_allowed(&method);
    }
    // Unknown paths get the app shell, so a reload on a client-side route works.
    let (file, path) = match UI.get_file(path) {
        Some(f) if !path.is_empty() => (f, path),
        _ => match UI.get_file("index.html") {
            Some(f) => (f, "index.html"),
            None => return (StatusCode::NOT_FOUND, "the web UI was not built into this binary").into_response(),
        },
    };
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let cache = if path.starts_with("assets/") { "public, max-age=31536000, immutable" } else { "no-cache" };
    let mut response = (StatusCode::OK, file.contents()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(mime.as_ref()).expect("mime is a header value"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}
