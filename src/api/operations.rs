//! The HTTP side of the operations declared in `app::ops` (one request, one answer): one generic
//! handler routes every one of them at its catalog route, and their OpenAPI path items come from the
//! same declarations. Nothing here is written per operation.

use super::error::ApiError;
use super::{ApiQuery, ApiState};
use crate::app::operation::{self, InputFrom, Operation, Visitor};
use crate::domain::authority::Admitted;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::{Json, Router};
use serde_json::{Map, Value};
use utoipa::openapi::path::HttpMethod;

/// Routes every declared operation at its catalog method and path.
pub fn routes() -> Router<ApiState> {
    struct Routes(Option<Router<ApiState>>);
    impl Visitor for Routes {
        fn visit<O: Operation>(&mut self) {
            let info = O::OP.info();
            let (Some(method), Some(path)) = (info.method, info.path) else { return };
            let method = Method::from_bytes(method.as_bytes()).expect("the catalog's methods are HTTP methods");
            let filter = MethodFilter::try_from(method).expect("the catalog's methods are routable");
            let router = self.0.take().unwrap_or_default();
            self.0 = Some(router.route(path, on(filter, handle::<O>)));
        }
    }
    let mut routes = Routes(Some(Router::new()));
    operation::each(&mut routes);
    routes.0.unwrap_or_default()
}

/// One operation over HTTP: its path parameters, its query or JSON body, then [`operation::call`]
/// for the caller the guard admitted to it ([`super::guard::authorize`]).
async fn handle<O: Operation>(State(state): State<ApiState>, caller: Admitted, params: RawPathParams, request: Request) -> Response {
    match answer::<O>(state, caller, params, request).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

async fn answer<O: Operation>(state: ApiState, caller: Admitted, params: RawPathParams, request: Request) -> Result<Response, ApiError> {
    let params: Map<String, Value> = params.iter().map(|(k, v)| (k.to_owned(), Value::String(v.to_owned()))).collect();
    let path: O::Path = serde_json::from_value(Value::Object(params)).map_err(|e| ApiError::invalid(e.to_string()))?;
    let input: O::Input = match O::INPUT {
        InputFrom::Query => {
            let (mut parts, _) = request.into_parts();
            let ApiQuery(q) = <ApiQuery<O::Input> as FromRequestParts<ApiState>>::from_request_parts(&mut parts, &state).await?;
            q
        }
        InputFrom::Body => Json::<O::Input>::from_request(request, &state).await?.0,
        InputFrom::Nothing => serde_json::from_value(Value::Null).map_err(|e| ApiError::invalid(e.to_string()))?,
    };
    let reply = operation::call_admitted::<O>(&state.app, path, input, &caller).await?;
    let status = if reply.accepted { StatusCode::ACCEPTED } else { StatusCode::from_u16(O::STATUS).unwrap_or(StatusCode::OK) };
    if status == StatusCode::NO_CONTENT {
        return Ok(status.into_response());
    }
    // Answers hold what operators see (arguments, audit entries, a new token): no cache keeps them.
    Ok((status, [(axum::http::header::CACHE_CONTROL, "no-store")], Json(reply.body)).into_response())
}

/// Adds every declared operation's path item to `doc`, and the schemas they name to its components.
pub fn document(doc: &mut utoipa::openapi::OpenApi) {
    struct Paths<'a>(&'a mut utoipa::openapi::OpenApi);
    impl Visitor for Paths<'_> {
        fn visit<O: Operation>(&mut self) {
            let info = O::OP.info();
            let (Some(method), Some(path)) = (info.method, info.path) else { return };
            let method = match method {
                "GET" => HttpMethod::Get,
                "POST" => HttpMethod::Post,
                "PUT" => HttpMethod::Put,
                "PATCH" => HttpMethod::Patch,
                "DELETE" => HttpMethod::Delete,
                other => unreachable!("the catalog has no {other} route"),
            };
            let (operation, schemas) = O::openapi();
            self.0.paths.add_path_operation(path, vec![method], operation);
            let components = self.0.components.get_or_insert_with(Default::default);
            for (name, schema) in schemas {
                components.schemas.entry(name).or_insert(schema);
            }
        }
    }
    operation::each(&mut Paths(doc));
}
