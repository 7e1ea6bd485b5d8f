//! The authorization table (docs/security.md, printed by `approval-console manifest --authorization`
//! from `domain::authority::admission`) walked cell by cell against a running server: every operation
//! with a route × every kind of caller (no credential, agent, viewer, operator and admin tokens, the
//! local admin's session token, a paired device's session cookie) × both listeners (127.0.0.1 and the
//! remote listener over TLS). A route added to the catalog gets its row, and this test asks each of
//! its cells; an answer the table does not predict fails here.
//!
//! What a cell's answer looks like from outside: refused is 401 (no credential the listener hears)
//! or 403 `forbidden`; not served is 404 saying so; step-up is 403 `step_up_required` (a device's
//! decision without its passkey, refused by the decision kernel after the guard admitted it);
//! allowed is anything else the operation answers (its own 400s and 404s included: the bodies sent
//! here are empty on purpose, so that nothing is decided or changed by the walk).

use super::helpers::*;
use super::remote::{device_with_session, Remote};
use approval_console::domain::authority::{admission, Admission, Kind, Listener};
use approval_console::domain::{Op, Role};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// What a request of one cell got.
fn verdict(status: StatusCode, body: &Value) -> Admission {
    let code = body["code"].as_str().unwrap_or_default();
    let message = body["message"].as_str().unwrap_or_default();
    match (status, code) {
        (StatusCode::UNAUTHORIZED, _) | (StatusCode::FORBIDDEN, "forbidden") => Admission::Refused,
        (StatusCode::FORBIDDEN, "step_up_required") => Admission::StepUp,
        (StatusCode::NOT_FOUND, _) if message.contains("not served on this listener") => Admission::NotServed,
        _ => Admission::Allowed,
    }
}

/// One cell's request with the credential of `kind` (a device's cookie, a token, or none), its
/// answer's status and body (an event stream's body is not read: it stays open).
async fn ask(
    mut request: reqwest::RequestBuilder,
    kind: Kind,
    token: Option<&str>,
    body: Option<&Value>,
    stream: bool,
) -> (StatusCode, Value) {
    match (kind, token) {
        (Kind::Device, _) => request = request.header("Cookie", "__Host-ac_session=walk-cookie"),
        (_, Some(token)) => request = request.bearer_auth(token),
        _ => {}
    }
    if let Some(b) = body {
        request = request.json(b);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let answer = if status == StatusCode::OK && stream { Value::Null } else { response.json().await.unwrap_or(Value::Null) };
    (status, answer)
}

#[tokio::test]
async fn every_cell_of_the_authorization_table_holds_against_a_running_server_on_both_listeners() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let tokens = [
        (Kind::AgentToken, t.token("walk-agent", Role::Agent).await),
        (Kind::ViewerToken, t.token("walk-viewer", Role::Viewer).await),
        (Kind::OperatorToken, t.token("walk-operator", Role::Operator).await),
        (Kind::AdminToken, t.token("walk-admin", Role::Admin).await),
        (Kind::LocalAdmin, TOKEN.to_owned()),
    ];
    device_with_session(&t, "walk-phone", "walk-cookie").await;
    // A real waiting call for the deciding routes (the kernel reads it before it asks a device for
    // its step-up); a made-up id elsewhere, so that no other route changes a call.
    t.generate("delete rec-walk").await;
    let item = t.pending().await.remove(0);
    let (real, fingerprint) = (item["id"].as_str().unwrap().to_owned(), item["fingerprint"].clone());

    // The device's sign-out ends its session: asked last.
    let mut ops: Vec<Op> = Op::ALL.iter().copied().filter(|op| op.info().path.is_some()).collect();
    ops.sort_by_key(|op| *op == Op::SignOut);
    let mut wrong = vec![];
    let mut asked = 0;
    for op in ops {
        let info = op.info();
        let deciding = info.grade == approval_console::domain::authority::Grade::Decide;
        let id = if deciding { real.as_str() } else { "q_walk" };
        let path = info.path.unwrap().replace("{id}", id).replace("{name}", "walk-nothing").replace("{agent}", "demo");
        let method = Method::from_bytes(info.method.unwrap().as_bytes()).unwrap();
        for listener in Listener::HTTP {
            for kind in Kind::ALL {
                let expected = admission(op, kind, listener);
                // A device's decision carries the fingerprint shown (else its body is refused before
                // the kernel is asked); every other request an empty body.
                let body = match (method.clone(), deciding && kind == Kind::Device) {
                    (Method::GET | Method::DELETE, _) => None,
                    (_, true) => Some(match op {
                        Op::ApproveEdited => json!({ "fingerprint": fingerprint, "args": { "id": "rec-walk" } }),
                        Op::Resume => json!({ "fingerprint": fingerprint, "data": {} }),
                        Op::Resolve => json!({ "fingerprint": fingerprint, "resolution": "did_not_run" }),
                        _ => json!({ "fingerprint": fingerprint }),
                    }),
                    (_, false) => Some(json!({})),
                };
                let request = match listener {
                    Listener::Loopback => t.http.request(method.clone(), format!("{}{path}", t.base)),
                    _ => r.http.request(method.clone(), r.url(&path)).header("Origin", &r.origin),
                };
                let credential = tokens.iter().find(|(k, _)| *k == kind).map(|(_, token)| token.as_str());
                let (status, answer) = ask(request, kind, credential, body.as_ref(), op == Op::Events).await;
                asked += 1;
                assert!(
                    !status.is_server_error(),
                    "{} {path} as {} on {listener:?}: {status} {answer}",
                    info.method.unwrap(),
                    kind.as_str()
                );
                let got = verdict(status, &answer);
                if got != expected {
                    wrong.push(format!(
                        "{} {path} as {} on {listener:?}: the table says {}, the server answered {status} {answer}",
                        info.method.unwrap(),
                        kind.as_str(),
                        expected.as_str()
                    ));
                }
            }
        }
    }
    assert!(asked > 1000, "{asked} cells asked");
    assert!(wrong.is_empty(), "{} cells disagree with the table:\n{}", wrong.len(), wrong.join("\n"));
    // Nothing was decided by the walk: the deciding routes' bodies were empty or lacked a step-up.
    assert_eq!(t.item(&real).await["state"], "pending");
}

/// The window's commands (this process's own shell) are the local admin's: each is admitted for it
/// — whatever its grade but a paired device's own — and refused to a token of a role below its grade.
#[tokio::test]
async fn every_window_command_admits_the_local_admin_and_refuses_a_role_below_its_grade() {
    use approval_console::domain::authority::admit;
    use approval_console::domain::{Actor, Error, Principal};
    let t = spawn_app().await;
    for op in Op::ALL.iter().filter(|op| op.info().window) {
        let local = admit(*op, t.app.local_actor("desktop"));
        let expected = admission(*op, Kind::LocalAdmin, Listener::InProcess);
        assert_eq!(local.is_ok(), expected == Admission::Allowed, "{}: {local:?}", op.name());
        let agent = admit(*op, Actor::new(Principal::token("bot", Role::Agent), "desktop"));
        if admission(*op, Kind::AgentToken, Listener::InProcess) == Admission::Refused {
            assert!(matches!(agent, Err(Error::Forbidden { .. } | Error::NotAdmitted { .. })), "{}: {agent:?}", op.name());
        }
    }
}

/// docs/security.md holds the table as the catalog makes it: a change of a grade or a listener that
/// is not in the threat model fails here (print it with `approval-console manifest --authorization`).
#[test]
fn the_threat_models_authorization_table_is_the_catalogs() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/security.md")).unwrap();
    let start = "<!-- authorization table: approval-console manifest --authorization -->\n";
    let from = doc.find(start).expect("docs/security.md has the authorization table's start marker") + start.len();
    let to = doc[from..].find("<!-- end of the authorization table -->").expect("and its end marker") + from;
    assert_eq!(
        &doc[from..to],
        approval_console::domain::authority::table(),
        "run `approval-console manifest --authorization` into docs/security.md"
    );
}
