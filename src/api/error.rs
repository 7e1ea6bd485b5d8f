//! `{code, message, details?}`: the one error shape of the HTTP API.

use crate::domain::{Error, ErrorCode};
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::Value;

/// The body of every error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Stable, machine-readable: branch on it, never on the message.
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
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
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::NotFound { .. } | Error::SnapshotNotFound { .. } => StatusCode::NOT_FOUND,
            Error::FingerprintMismatch { .. } | Error::AlreadyDecided { .. } | Error::DecisionNotAllowed { .. } => StatusCode::CONFLICT,
            Error::InvalidResumeData { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Error::InvalidArguments { .. } => StatusCode::UNPROCESSABLE_ENTITY,
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
            Error::Forbidden { .. } => StatusCode::FORBIDDEN,
            Error::RunExists { .. } | Error::IdempotencyKeyReused { .. } => StatusCode::CONFLICT,
            Error::MissingArguments => StatusCode::CONFLICT,
            Error::AmbiguousArguments { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Error::TokenRequired { .. } => StatusCode::BAD_REQUEST,
            Error::UnsafePermissions { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            Error::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!("{e}");
        }
        Self { status, body: ErrorBody { code: e.error_code(), message: e.to_string(), details: e.details() } }
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
        let unavailable = self.body.code == ErrorCode::StorageUnavailable;
        let mut response = (self.status, Json(self.body)).into_response();
        if unavailable {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, STORAGE_RETRY_AFTER_SECS.into());
            response.extensions_mut().insert(StorageUnavailable);
        }
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
