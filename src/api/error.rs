//! `{code, message, details?}`: the one error shape of the HTTP API.

use crate::domain::{Error, ErrorCode, ErrorDetails};
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// Which quota a `rate_limited` answer is about: its name, and its rate and burst or its cap.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quota {
    pub name: &'static str,
    pub per_sec: Option<f64>,
    pub burst: Option<u32>,
    pub max: Option<usize>,
}

/// The body of every error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Stable, machine-readable: branch on it, never on the message.
    pub code: ErrorCode,
    pub message: String,
    /// What the error adds, by code (see each shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<ErrorDetails>,
}

/// An error as answered over HTTP.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
}

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self { status, body: ErrorBody { code, message: message.into(), details: None } }
    }

    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, "missing or wrong bearer token (Authorization: Bearer <token>)")
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, message)
    }

    /// 429 `rate_limited`: ask again after `retry_after_secs` (also the `Retry-After` header);
    /// `details` gains `retryAfterSecs`.
    pub fn rate_limited(message: impl Into<String>, retry_after_secs: u64, quota: Quota) -> Self {
        let mut e = Self::new(StatusCode::TOO_MANY_REQUESTS, ErrorCode::RateLimited, message);
        e.body.details = Some(ErrorDetails::RateLimited {
            quota: quota.name.to_owned(),
            per_sec: quota.per_sec,
            burst: quota.burst,
            max: quota.max,
            retry_after_secs,
        });
        e
    }

    /// 413 `payload_too_large` for one part of a request (`what`), with `limit` and `size` in bytes
    /// in `details`.
    pub fn too_large(what: &str, limit: usize, size: usize) -> Self {
        let mut e =
            Self::new(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge, format!("{what}: {size} bytes, more than {limit}"));
        e.body.details = Some(ErrorDetails::PayloadTooLarge { field: what.to_owned(), limit, size });
        e
    }

    /// The `Retry-After` an answer carries: `details.retryAfterSecs` when there is one, else
    /// [`STORAGE_RETRY_AFTER_SECS`] for `storage_unavailable`.
    pub fn retry_after(&self) -> Option<u64> {
        let asked = match &self.body.details {
            Some(ErrorDetails::RateLimited { retry_after_secs, .. }) => Some(*retry_after_secs),
            _ => None,
        };
        asked.or((self.body.code == ErrorCode::StorageUnavailable).then_some(STORAGE_RETRY_AFTER_SECS))
    }

    /// This error answered with its body in the shape `shape` gives it: every shape carries the
    /// same status, `Retry-After` and [`StorageUnavailable`] mark.
    pub fn respond<B: Serialize>(self, shape: impl FnOnce(ErrorBody) -> B) -> Response {
        let retry_after = self.retry_after();
        let unavailable = self.body.code == ErrorCode::StorageUnavailable;
        let mut response = (self.status, Json(shape(self.body))).into_response();
        if let Some(secs) = retry_after {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        if unavailable {
            response.extensions_mut().insert(StorageUnavailable);
        }
        response
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::NotFound { .. } | Error::SnapshotNotFound { .. } => StatusCode::NOT_FOUND,
            Error::FingerprintMismatch { .. }
            | Error::AlreadyDecided { .. }
            | Error::DecisionNotAllowed { .. }
            | Error::ReceiptExpired { .. } => StatusCode::CONFLICT,
            Error::InvalidResumeData { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Error::InvalidArguments { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Error::InexactNumbers { .. } => StatusCode::BAD_REQUEST,
            Error::InvalidRequest(_) => StatusCode::BAD_REQUEST,
            Error::Engine(_) => StatusCode::BAD_GATEWAY,
            Error::Unreachable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Error::Secret { code: ErrorCode::InvalidRequest, .. } => StatusCode::BAD_REQUEST,
            Error::Secret { code: ErrorCode::SecretNotFound, .. } => StatusCode::NOT_FOUND,
            Error::Secret { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Error::StorageBusy | Error::StorageUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Error::AlreadyServing { .. } => StatusCode::CONFLICT,
            Error::HighRiskTool { .. } | Error::HighRiskNeedsConsole { .. } => StatusCode::CONFLICT,
            Error::AlreadyApproved { .. } | Error::QuorumTool { .. } => StatusCode::CONFLICT,
            Error::OwnRun { .. } => StatusCode::FORBIDDEN,
            Error::Forbidden { .. } | Error::NotAdmitted { .. } | Error::ClaimNotAllowed { .. } | Error::StepUpRequired { .. } => {
                StatusCode::FORBIDDEN
            }
            Error::RunExists { .. } | Error::IdempotencyKeyReused { .. } => StatusCode::CONFLICT,
            Error::MissingArguments | Error::WideningUnconfirmed { .. } => StatusCode::CONFLICT,
            Error::AmbiguousArguments { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Error::TokenRequired { .. } | Error::GrantTooBroad { .. } => StatusCode::BAD_REQUEST,
            Error::UnsafePermissions { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            Error::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!("{e}");
        }
        Self { status, body: ErrorBody { code: e.error_code(), message: e.to_string(), details: e.error_details() } }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return Self::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                format!("request body larger than {} bytes", super::BODY_LIMIT),
            );
        }
        let text = r.body_text();
        let message = if text.contains("recursion limit") { "JSON nested too deeply (more than 128 levels)".to_owned() } else { text };
        Self::invalid(message)
    }
}

/// Seconds a client waits before trying again after `storage_unavailable` (its `Retry-After`).
pub const STORAGE_RETRY_AFTER_SECS: u64 = 2;

/// Marks an answer `storage_unavailable`: a read (GET) that met it is tried again (see
/// [`super::retry_reads`]).
#[derive(Clone, Copy, Debug)]
pub struct StorageUnavailable;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.respond(|body| body)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
