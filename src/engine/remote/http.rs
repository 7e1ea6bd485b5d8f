//! What every remote engine's HTTP client shares: the client's limits, base URL checks, bounded
//! reads, and the classes of failure the console tells apart.

use futures::StreamExt;
use reqwest::Url;
use std::time::Duration;

/// Largest answer read from a server (a listing of many runs with big arguments included).
pub const MAX_BODY: usize = 64 * 1024 * 1024;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Limit for a plain request, and for the gap between two chunks of a stream.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a request failed, as far as the console must tell apart.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RemoteError {
    /// No answer: connection refused, timeout, reset; or a 5xx that is not one of the known answers.
    #[error("{0}")]
    Unreachable(String),
    /// 401 / 403.
    #[error("{0}")]
    Auth(String),
    /// An answer, but not one a supported server of the engine's kind gives (404 on a known route,
    /// malformed JSON, …).
    #[error("{0}")]
    Incompatible(String),
    /// The run is not suspended there (finished, or unknown): Mastra's 500 "could not find a suspended run".
    #[error("{0}")]
    RunNotSuspended(String),
    /// This call is not the one waiting: Mastra's 500 "… cannot resume tool call … because it is not
    /// suspended"; a LangGraph thread no longer interrupted there.
    #[error("{0}")]
    CallNotSuspended(String),
    /// The server is busy with the call's run (LangGraph: another run going on the thread): the
    /// request is worth sending again later; the server itself is fine.
    #[error("{0}")]
    Busy(String),
    /// Any other 4xx: the server refused the request as such.
    #[error("{0}")]
    Refused(String),
    /// The engine has a token, but none this console holds was given for the URL the request would
    /// go to: nothing was sent.
    #[error("{0}")]
    TokenRequired(String),
}

/// The HTTP client for one server: short connect timeout, no redirects (a token never follows one).
pub fn http_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("approval-console/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// Checks an engine's base URL: http or https, a host, no query, fragment or credentials.
pub fn parse_base_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{text:?}: only http and https URLs are supported"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{text:?} has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{text:?} contains credentials: give the token separately (it goes to the OS keyring)"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?} has a query or fragment; give the server's base URL, e.g. http://127.0.0.1:4111"));
    }
    Ok(url)
}

pub async fn read_limited(response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut bytes = response.bytes_stream();
    while let Some(piece) = bytes.next().await {
        let piece = piece.map_err(|e| describe(&e))?;
        if out.len() + piece.len() > MAX_BODY {
            return Err(format!("answer larger than {MAX_BODY} bytes"));
        }
        out.extend_from_slice(&piece);
    }
    Ok(out)
}

/// A reqwest error with its causes, without the URL's query (no tokens are ever in it, but keep it short).
pub fn describe(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "cannot connect".to_owned()
    } else {
        "request failed".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked() {
        assert!(parse_base_url("http://127.0.0.1:4111").is_ok());
        assert!(parse_base_url("https://mastra.example.com/").is_ok());
        assert!(parse_base_url("ftp://x").unwrap_err().contains("http"));
        assert!(parse_base_url("http://user:pw@x").unwrap_err().contains("credentials"));
        assert!(parse_base_url("http://x/?apiKey=1").unwrap_err().contains("query"));
        assert!(parse_base_url("nonsense").is_err());
    }
}
