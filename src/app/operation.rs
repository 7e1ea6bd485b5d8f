//! Operations that are one request and one answer, each declared once ([`declare_operations!`]): its path
//! parameters, its input (query or body), its answer, its HTTP status and errors, and what it does
//! with the core. From that one declaration the HTTP API routes it (`api::operations`), documents it
//! (its OpenAPI path item, [`Operation::openapi`]), and the desktop window dispatches its command
//! ([`window`]); the role check of the catalog (`src/domain/catalog.rs`) runs here, in [`call`],
//! before the operation whatever the shell. What cannot be a request and an answer stays hand-written
//! in its shell: event streams, the Mastra-shaped routes, streamed exports, the window's own commands.

use super::App;
use crate::domain::authority::{admit, Admitted, Graded};
use crate::domain::{Actor, Cx, Error, Op};
use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use utoipa::openapi::path::{Operation as DocOperation, OperationBuilder, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Required, ResponseBuilder};

/// What an operation answered; `accepted`: the request was taken but did not complete what it asked
/// (an approval short of its quorum: HTTP 202).
pub struct Reply<T> {
    pub body: T,
    pub accepted: bool,
}

impl<T> From<T> for Reply<T> {
    fn from(body: T) -> Self {
        Self { body, accepted: false }
    }
}

/// No path parameters, or no input: whatever is sent is ignored.
#[derive(Debug, Default)]
pub struct Nothing;

impl<'de> Deserialize<'de> for Nothing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Nothing)
    }
}

/// `{id}` in a path.
#[derive(Debug, Deserialize)]
pub struct Id {
    pub id: String,
}

/// `{name}` in a path.
#[derive(Debug, Deserialize)]
pub struct Name {
    pub name: String,
}

/// Where an operation's input comes from over HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFrom {
    /// None: nothing is read.
    Nothing,
    /// The URL's query parameters.
    Query,
    /// The JSON body.
    Body,
}

/// One operation of the catalog as a request and an answer. Declared with [`declare_operations!`].
pub trait Operation: Send + Sync + 'static {
    /// Its line in the catalog: name, route, grade, listeners, whether the window has it.
    const OP: Op;
    /// Its grade as a type (the catalog's): what its context is.
    type Grade: Graded;
    /// Its path parameters, by name ([`Id`], [`Name`], [`Nothing`]).
    type Path: DeserializeOwned + Send;
    /// Its query parameters or JSON body ([`Operation::INPUT`]).
    type Input: DeserializeOwned + Send;
    type Output: Serialize + Send;
    const INPUT: InputFrom;
    /// The window's arguments hold the input under this key; `None`: its fields sit beside the path's.
    const WINDOW_KEY: Option<&'static str>;
    /// The HTTP status of a success: 200, 201 (created) or 204 (no content).
    const STATUS: u16;

    /// What it does, for a caller admitted to it ([`call`]).
    fn run(
        app: &App,
        path: Self::Path,
        input: Self::Input,
        by: &Cx<Self::Grade>,
    ) -> impl Future<Output = Result<Reply<Self::Output>, Error>> + Send;

    /// Its OpenAPI operation (`api::operations` puts it under its method and path), and the schemas
    /// it names (for the document's components).
    fn openapi() -> (DocOperation, Schemas);
}

/// Runs `O` for `by`, admitted first from the catalog ([`admit`]: its grade, on `by`'s listener).
pub async fn call<O: Operation>(app: &App, path: O::Path, input: O::Input, by: &Actor) -> Result<Reply<O::Output>, Error> {
    let admitted = admit(O::OP, by.clone())?;
    call_admitted::<O>(app, path, input, &admitted).await
}

/// Runs `O` for a caller its shell admitted already (the HTTP guard, before the body was read).
pub async fn call_admitted<O: Operation>(
    app: &App,
    path: O::Path,
    input: O::Input,
    admitted: &Admitted,
) -> Result<Reply<O::Output>, Error> {
    if admitted.op() != O::OP {
        return Err(Error::Storage(format!("{} was admitted, not {}", admitted.op().name(), O::OP.name())));
    }
    O::run(app, path, input, &admitted.cx::<O::Grade>()?).await
}

/// Runs `O` from the desktop window's arguments (a JSON object): the role, then the path parameters
/// by name, the input under [`Operation::WINDOW_KEY`] or beside them (a malformed argument is
/// `invalid_request`), then [`call`].
pub async fn call_window<O: Operation>(app: &App, args: Value, by: &Actor) -> Result<Value, Error> {
    // Admitted first: a caller who may not call it learns nothing of its arguments.
    let admitted = admit(O::OP, by.clone())?;
    let invalid = |e: serde_json::Error| Error::InvalidRequest(e.to_string());
    let mut args = match args {
        Value::Object(map) => map,
        Value::Null => serde_json::Map::new(),
        other => return Err(Error::InvalidRequest(format!("a command's arguments are an object, not {other}"))),
    };
    let path = O::OP.info().path.map(path_params).unwrap_or_default();
    let path_value = Value::Object(path.iter().filter_map(|p| Some((p.to_string(), args.get(*p)?.clone()))).collect());
    let path: O::Path = serde_json::from_value(path_value).map_err(invalid)?;
    let input = match O::WINDOW_KEY {
        Some(key) => args.remove(key).unwrap_or(Value::Null),
        None => {
            for p in O::OP.info().path.map(path_params).unwrap_or_default() {
                args.remove(p);
            }
            Value::Object(args)
        }
    };
    let input: O::Input = serde_json::from_value(input).map_err(invalid)?;
    let reply = call_admitted::<O>(app, path, input, &admitted).await?;
    // Answers are plain data (string keys, no failing Serialize impl): this cannot fail.
    Ok(serde_json::to_value(reply.body).expect("an answer serializes"))
}

/// The names of a route's parameters: `/api/queue/{id}/approve` → `["id"]`.
pub fn path_params(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')).collect()
}

/// Something told of every operation declared with [`declare_operations!`] ([`each`]).
pub trait Visitor {
    fn visit<O: Operation>(&mut self);
}

/// A window command's body: the arguments in, the answer out.
pub type WindowCommand = fn(App, Value, Actor) -> BoxFuture<'static, Result<Value, Error>>;

fn boxed_window<O: Operation>(app: App, args: Value, by: Actor) -> BoxFuture<'static, Result<Value, Error>> {
    Box::pin(async move { call_window::<O>(&app, args, &by).await })
}

/// The window command `name` of an operation declared here (`None`: no such command, or one its
/// shell writes itself).
pub fn window(name: &str) -> Option<WindowCommand> {
    struct Find<'a>(&'a str, Option<WindowCommand>);
    impl Visitor for Find<'_> {
        fn visit<O: Operation>(&mut self) {
            let info = O::OP.info();
            if info.window && info.name == self.0 {
                self.1 = Some(boxed_window::<O>);
            }
        }
    }
    let mut find = Find(name, None);
    each(&mut find);
    find.1
}

/// Tells `v` of every operation declared with [`declare_operations!`].
pub fn each(v: &mut impl Visitor) {
    super::ops::each(v);
}

mod manifest;
pub use manifest::{manifest, typescript, Manifest, ManifestEntry};

/// The schemas an operation's document names, each with its name, for the document's components.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// The schema of an answer or a body: a named type's reference (the type and every type it names go
/// to `found`, for the document's components), a list of them, anything, nothing.
#[doc(hidden)]
pub mod schema {
    use super::*;

    pub fn named<T: utoipa::ToSchema>(found: &mut Schemas) -> Option<RefOr<Schema>> {
        found.push((T::name().into_owned(), T::schema()));
        T::schemas(found);
        Some(RefOr::Ref(Ref::from_schema_name(T::name())))
    }

    pub fn list<T: utoipa::ToSchema>(found: &mut Schemas) -> Option<RefOr<Schema>> {
        let item = named::<T>(found)?;
        Some(RefOr::T(Schema::Array(ArrayBuilder::new().items(item).build())))
    }

    pub fn any(_: &mut Schemas) -> Option<RefOr<Schema>> {
        Some(RefOr::T(Schema::Object(ObjectBuilder::new().build())))
    }

    pub fn nothing(_: &mut Schemas) -> Option<RefOr<Schema>> {
        None
    }

    pub fn query<T: utoipa::IntoParams>() -> Vec<Parameter> {
        T::into_params(|| Some(ParameterIn::Query))
    }

    pub fn no_query() -> Vec<Parameter> {
        Vec::new()
    }
}

/// An operation's OpenAPI document: `description`, its path parameters (strings), query parameters,
/// JSON body, its success (`status`, what it means, the answer's schema), and its other answers —
/// each `(status, what it means)`: a 2xx one with the same answer (202), else an error; 401 and 403
/// are added (every route but health needs a credential and a role), and 400 where there is input.
#[allow(clippy::too_many_arguments)]
#[doc(hidden)]
pub fn document(
    op: Op,
    description: &str,
    query: Vec<Parameter>,
    body: Option<RefOr<Schema>>,
    status: u16,
    ok: &str,
    answer: Option<RefOr<Schema>>,
    errors: &[(u16, &str)],
) -> DocOperation {
    let info = op.info();
    let mut b = OperationBuilder::new().operation_id(Some(info.name));
    if !description.is_empty() {
        b = b.description(Some(description.trim()));
    }
    for name in info.path.map(path_params).unwrap_or_default() {
        b = b.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .schema(Some(ObjectBuilder::new().schema_type(Type::String))),
        );
    }
    let has_input = !query.is_empty() || body.is_some() || info.path.is_some_and(|p| p.contains('{'));
    for p in query {
        b = b.parameter(p);
    }
    if let Some(schema) = body {
        b = b.request_body(Some(
            RequestBodyBuilder::new()
                .content("application/json", ContentBuilder::new().schema(Some(schema)).build())
                .required(Some(Required::True))
                .build(),
        ));
    }
    let mut success = ResponseBuilder::new().description(ok);
    if let Some(schema) = answer.clone() {
        success = success.content("application/json", ContentBuilder::new().schema(Some(schema)).build());
    }
    b = b.response(status.to_string(), success.build());
    let mut all: Vec<(u16, &str)> = errors.to_vec();
    for (code, text) in
        [(400, "invalid_request"), (401, "unauthorized: no valid credential"), (403, "forbidden: the credential's role may not")]
    {
        if (code != 400 || has_input) && !all.iter().any(|(c, _)| *c == code) {
            all.push((code, text));
        }
    }
    all.sort_by_key(|(c, _)| *c);
    for (code, text) in all {
        if (200..300).contains(&code) {
            // Another success (202: accepted short of what it asked), with the same answer.
            let mut other = ResponseBuilder::new().description(text);
            if let Some(schema) = answer.clone() {
                other = other.content("application/json", ContentBuilder::new().schema(Some(schema)).build());
            }
            b = b.response(code.to_string(), other.build());
            continue;
        }
        let error = ContentBuilder::new().schema(Some(RefOr::Ref(Ref::from_schema_name("ErrorBody")))).build();
        b = b.response(code.to_string(), ResponseBuilder::new().description(text).content("application/json", error).build());
    }
    b.build()
}

/// Declares operations, each as a unit struct (in a module `op`) implementing [`Operation`], and `each`, which tells a
/// [`Visitor`] of them all. One entry:
///
/// ```text
/// /// What it does (its OpenAPI description).
/// Variant(path Id, body ApproveBody, window "key") -> QueueItem, 200 "what a success means";
///     errors [404 "not_found", 409 "fingerprint_mismatch"]
///     |app, path, input, by| { Ok(app.something(&path.id, input, by).await?.into()) }
/// ```
///
/// `Variant` is the catalog's: its route and role come from there. Input: `query T` (T: IntoParams),
/// `body T` (T: ToSchema) or `none`; `window "key"` when the window sends the input under a key.
/// Answer: `T` (ToSchema), `[T]`, `any` (JSON), `nothing` (no content).
#[macro_export]
#[doc(hidden)]
macro_rules! declare_operations {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident ($path:ident, $from:ident $($input:ty)? $(, window $key:literal)?) -> $answer:tt, $status:literal $ok:expr;
            errors [$($code:literal $text:literal),* $(,)?]
            |$app:ident, $p:pat_param, $i:pat_param, $by:ident| $body:block
    )*) => {
        /// The operations declared here, one unit type each (named as in the catalog).
        pub mod op {
            $(pub struct $variant;)*
        }

        $(
            impl $crate::app::operation::Operation for op::$variant {
                const OP: $crate::domain::Op = $crate::domain::Op::$variant;
                type Grade = <$crate::domain::ops::graded::$variant as $crate::domain::ops::Catalogued>::Grade;
                type Path = $crate::app::operation::$path;
                type Input = $crate::declare_operations!(@input $from $($input)?);
                type Output = $crate::declare_operations!(@answer $answer);
                const INPUT: $crate::app::operation::InputFrom = $crate::declare_operations!(@from $from);
                const WINDOW_KEY: Option<&'static str> = $crate::declare_operations!(@key $($key)?);
                const STATUS: u16 = $status;

                #[allow(unused_variables)]
                fn run(
                    $app: &$crate::app::App,
                    $p: Self::Path,
                    $i: Self::Input,
                    $by: &$crate::domain::Cx<Self::Grade>,
                ) -> impl ::std::future::Future<Output = Result<$crate::app::operation::Reply<Self::Output>, $crate::domain::Error>> + Send {
                    async move $body
                }

                fn openapi() -> (::utoipa::openapi::path::Operation, $crate::app::operation::Schemas) {
                    let mut found = Vec::new();
                    let body = $crate::declare_operations!(@body found $from $($input)?);
                    let answer = $crate::declare_operations!(@schema found $answer);
                    let doc = $crate::app::operation::document(
                        $crate::domain::Op::$variant,
                        concat!($($doc, "\n"),*),
                        $crate::declare_operations!(@query $from $($input)?),
                        body,
                        $status,
                        $ok,
                        answer,
                        &[$(($code, $text)),*],
                    );
                    (doc, found)
                }
            }
        )*

        /// Tells `v` of every operation declared here.
        pub fn each(v: &mut impl $crate::app::operation::Visitor) {
            $(v.visit::<op::$variant>();)*
        }
    };
    (@key) => { None };
    (@key $key:literal) => { Some($key) };
    (@input none) => { $crate::app::operation::Nothing };
    (@input $from:ident $input:ty) => { $input };
    (@from none) => { $crate::app::operation::InputFrom::Nothing };
    (@from query) => { $crate::app::operation::InputFrom::Query };
    (@from body) => { $crate::app::operation::InputFrom::Body };
    (@query query $input:ty) => { $crate::app::operation::schema::query::<$input>() };
    (@query $from:ident $($input:ty)?) => { $crate::app::operation::schema::no_query() };
    (@body $found:ident body $input:ty) => { $crate::app::operation::schema::named::<$input>(&mut $found) };
    (@body $found:ident $from:ident $($input:ty)?) => { None };
    (@answer nothing) => { () };
    (@answer any) => { ::serde_json::Value };
    (@answer [$t:ty]) => { Vec<$t> };
    (@answer $t:ty) => { $t };
    (@schema $found:ident nothing) => { $crate::app::operation::schema::nothing(&mut $found) };
    (@schema $found:ident any) => { $crate::app::operation::schema::any(&mut $found) };
    (@schema $found:ident [$t:ty]) => { $crate::app::operation::schema::list::<$t>(&mut $found) };
    (@schema $found:ident $t:ty) => { $crate::app::operation::schema::named::<$t>(&mut $found) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_names_each_operations_access_in_one_word_and_how_it_is_called() {
        let m = serde_json::to_value(manifest()).unwrap();
        let find = |name: &str| m["operations"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap().clone();
        assert_eq!(
            find("approve"),
            serde_json::json!({ "name": "approve", "method": "POST", "path": "/api/queue/{id}/approve", "access": "operator", "window": true,
                "declared": true, "input": "body", "windowKey": null, "device": "step-up" })
        );
        assert_eq!(find("queue_page")["windowKey"], "query");
        assert_eq!(find("events")["declared"], false);
        assert_eq!(serde_json::to_value(crate::domain::ops::Access::Public).unwrap(), "public");
        assert_eq!(serde_json::to_value(crate::domain::ops::Access::Any).unwrap(), "any");
    }

    #[test]
    fn the_manifest_says_what_a_paired_device_is_answered_as_the_authorization_table_does() {
        let m = serde_json::to_value(manifest()).unwrap();
        let device = |name: &str| m["operations"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap()["device"].clone();
        assert_eq!(device("queue_page"), "allowed");
        assert_eq!(device("decline"), "step-up");
        assert_eq!(device("step_up"), "allowed");
        for refused in
            ["claim_call", "snooze", "revoke_grant", "quorum_settings", "notification_status", "stats", "export_audit", "generate"]
        {
            assert_eq!(device(refused), "refused", "{refused}");
        }
        assert!(typescript().contains("  claim_call: { method: 'POST', path: '/api/queue/{id}/claim', access: 'operator',"));
        assert!(typescript().contains("input: null, windowKey: null, device: 'refused' },\n"));
    }

    #[test]
    fn a_path_names_its_parameters() {
        assert_eq!(path_params("/api/queue/{id}/approve"), ["id"]);
        assert!(path_params("/api/engines/test").is_empty());
    }

    #[test]
    fn every_declared_operation_has_a_route_or_a_window_command() {
        struct Check;
        impl Visitor for Check {
            fn visit<O: Operation>(&mut self) {
                let info = O::OP.info();
                assert!(info.path.is_some() || info.window, "{} is reachable from no shell", info.name);
                if O::INPUT == InputFrom::Query {
                    assert_eq!(info.method, Some("GET"), "{}: query parameters are a GET's", info.name);
                }
                if O::INPUT == InputFrom::Body {
                    assert_ne!(info.method, Some("GET"), "{}: a GET has no body", info.name);
                }
                assert!(O::WINDOW_KEY.is_none() || info.window, "{}: a window key without a window command", info.name);
            }
        }
        each(&mut Check);
    }
}
