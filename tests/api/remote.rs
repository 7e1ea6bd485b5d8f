//! The remote listener (`serve --listen`, issue 28), in-process over real TLS on 127.0.0.1: its
//! name, its credentials, pairing codes, device sessions, step-up and revocation. The passkey
//! ceremonies themselves run in a real browser with a virtual authenticator (tests/e2e/remote.test.mjs).

use super::helpers::*;
use super::passkey::SoftPasskey;
use crate::helpers::wait;
use approval_console::api;
use approval_console::app::remote::RemoteConfig;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) const NAME: &str = "console.example.com";

pub(crate) struct Remote {
    pub(crate) server: api::Server,
    pub(crate) origin: String,
    pub(crate) http: reqwest::Client,
    cert: reqwest::Certificate,
}

impl Remote {
    pub(crate) async fn start(t: &TestApp) -> Self {
        Self::start_with(t, api::Limits::default()).await
    }

    async fn start_with(t: &TestApp, limits: api::Limits) -> Self {
        let ip = "127.0.0.1".parse().unwrap();
        let tls = api::tls::load(&api::tls::Source::Made { dir: t.dir.join("tls") }, NAME, ip).unwrap();
        let listener = tokio::net::TcpListener::bind(std::net::SocketAddr::new(ip, 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        t.app.enable_remote(RemoteConfig { public_name: NAME.into(), port, pin: tls.pin.clone() }).unwrap();
        let server = api::serve_remote(t.app.clone(), listener, &tls, TOKEN, limits).await.unwrap();
        let cert = reqwest::Certificate::from_pem(&std::fs::read(&tls.cert_file).unwrap()).unwrap();
        let http = reqwest::Client::builder()
            .add_root_certificate(cert.clone())
            .resolve(NAME, server.addr)
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Remote { origin: format!("https://{NAME}:{port}"), server, http, cert }
    }

    /// A client that opens a new connection for every request.
    fn fresh(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .add_root_certificate(self.cert.clone())
            .resolve(NAME, self.server.addr)
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap()
    }

    /// A client whose connections come from `ip` (a loopback address, 127.0.0.x): the listener
    /// sees another peer for each.
    pub(crate) fn from(&self, ip: &str) -> reqwest::Client {
        reqwest::Client::builder()
            .add_root_certificate(self.cert.clone())
            .resolve(NAME, self.server.addr)
            .local_address(ip.parse::<std::net::IpAddr>().unwrap())
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap()
    }

    /// Pairs a phone from `client` with the pairing `started` (`POST /api/devices/pairings`'s
    /// answer): its software passkey and its session cookie.
    pub(crate) async fn pair(&self, client: &reqwest::Client, started: &Value) -> (SoftPasskey, String) {
        let code = started["code"].as_str().expect("a pairing's code");
        let (status, begun, _) =
            self.send(client.post(self.url("/api/remote/pair")).header("Origin", &self.origin).json(&json!({ "code": code }))).await;
        assert_eq!(status, StatusCode::OK, "{begun}");
        let (passkey, credential) = SoftPasskey::register(&begun["options"], &self.origin);
        let finish = json!({ "ceremony": begun["ceremony"], "credential": credential });
        let (status, done, headers) =
            self.send(client.post(self.url("/api/remote/pair/finish")).header("Origin", &self.origin).json(&finish)).await;
        assert_eq!(status, StatusCode::OK, "{done}");
        (passkey, session_cookie(&headers))
    }

    /// Asks for a step-up of `decision` on `item` with `cookie`, from `client`: the ceremony's id and
    /// its options.
    pub(crate) async fn begin_step_up(&self, client: &reqwest::Client, cookie: &str, item: &Value, decision: &str) -> (String, Value) {
        let body = json!({ "itemId": item["id"], "fingerprint": item["fingerprint"], "decision": decision });
        let (status, begun, _) = self.send(self.with(cookie, client.post(self.url("/api/remote/step-up"))).json(&body)).await;
        assert_eq!(status, StatusCode::OK, "{begun}");
        (begun["ceremony"].as_str().unwrap().to_owned(), begun["options"].clone())
    }

    /// Approves `item` from the phone with `cookie`: its passkey answers the step-up `ceremony`.
    pub(crate) async fn approve_with(
        &self,
        client: &reqwest::Client,
        cookie: &str,
        passkey: &mut SoftPasskey,
        (ceremony, options): (String, Value),
        item: &Value,
    ) -> (StatusCode, Value) {
        let assertion = passkey.assert(&options);
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, assertion.to_string());
        let request = self
            .with(cookie, client.post(self.url(&format!("/api/queue/{}/approve", item["id"].as_str().unwrap()))))
            .header("X-Step-Up", ceremony)
            .header("X-Step-Up-Assertion", encoded)
            .json(&json!({ "fingerprint": item["fingerprint"] }));
        let (status, body, _) = self.send(request).await;
        (status, body)
    }

    /// `request` as the phone's page sends it: its session cookie and this listener's Origin.
    pub(crate) fn with(&self, cookie: &str, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        request.header("Cookie", format!("__Host-ac_session={cookie}")).header("Origin", &self.origin)
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    pub(crate) async fn send(&self, r: reqwest::RequestBuilder) -> (StatusCode, Value, reqwest::header::HeaderMap) {
        let r = r.send().await.unwrap();
        let (status, headers) = (r.status(), r.headers().clone());
        (status, r.json().await.unwrap_or(Value::Null), headers)
    }
}

/// The session cookie a pairing or a sign-in set.
pub(crate) fn session_cookie(headers: &reqwest::header::HeaderMap) -> String {
    let set = headers.get("set-cookie").expect("a session cookie").to_str().unwrap();
    let value = set.strip_prefix("__Host-ac_session=").expect("the session cookie");
    value.split(';').next().unwrap().to_owned()
}

/// The `reason`s of the `remote.refused` / `device.pairing_failed` entries so far.
pub(crate) async fn refusals(t: &TestApp) -> Vec<String> {
    let (_, page) = t.get("/api/audit?limit=200").await;
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| matches!(e["action"].as_str(), Some("remote.refused" | "device.pairing_failed")))
        .map(|e| e["details"]["reason"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn the_remote_listener_speaks_tls_only_and_only_to_its_name() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let (status, body, headers) = r.send(r.http.get(r.url("/api/health"))).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("ok")));
    assert_eq!(headers["strict-transport-security"], "max-age=31536000");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["cache-control"], "no-store");

    // Plain HTTP on the TLS port: told where to go, never served, audited.
    let plain = reqwest::Client::new().get(format!("http://{}/api/queue", r.server.addr)).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::BAD_REQUEST);
    assert!(plain.text().await.unwrap().contains(&r.origin), "names the https URL");

    // Another name for the same address (DNS rebinding, a wrong link): refused.
    let by_ip = reqwest::Client::builder().danger_accept_invalid_certs(true).build().unwrap();
    let wrong = by_ip.get(format!("https://{}/api/health", r.server.addr)).send().await.unwrap();
    assert_eq!(wrong.status(), StatusCode::FORBIDDEN);
    // A page of another origin: refused.
    let (status, _, _) = r.send(r.http.get(r.url("/api/health")).header("Origin", "https://evil.example")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // The UI is served, with its CSP.
    let (status, _, headers) = r.send(r.http.get(r.url("/"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-security-policy"].to_str().unwrap().contains("frame-ancestors 'none'"));

    let reasons = wait::until(Duration::from_secs(10), || async {
        let r = refusals(&t).await;
        if r.len() >= 3 {
            Ok(r)
        } else {
            Err(format!("refusals audited so far: {r:?}"))
        }
    })
    .await;
    for want in ["plain HTTP", "wrong Host", "foreign Origin"] {
        assert!(reasons.iter().any(|r| r == want), "{want} audited: {reasons:?}");
    }
}

#[tokio::test]
async fn the_remote_listener_takes_device_sessions_and_agent_tokens_only() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let (status, _, _) = r.send(r.http.get(r.url("/api/queue"))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "no session");
    let (status, _, _) = r.send(r.http.get(r.url("/api/queue")).bearer_auth(TOKEN)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the local admin's session token stays on 127.0.0.1");
    let operator = t.token("ops-laptop", Role::Operator).await;
    let (status, _, _) = r.send(r.http.get(r.url("/api/queue")).bearer_auth(&operator)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an operator's token is no passkey");
    let (status, _, _) = r.send(r.http.get(r.url("/api/queue")).header("Cookie", "__Host-ac_session=forged")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "an unknown cookie");

    // An agent on another machine submits its call here, with its token.
    let agent = t.token("remote-bot", Role::Agent).await;
    let call = json!({ "tool": "delete_record", "args": { "id": "rec-7" }, "agent": "remote-bot" });
    let (status, body, _) = r.send(r.http.post(r.url("/api/calls")).bearer_auth(&agent).header("Idempotency-Key", "k-1").json(&call)).await;
    assert!(status.is_success(), "{status} {body}");
    assert_eq!(t.pending().await.len(), 1);
    let reasons = refusals(&t).await;
    assert!(reasons.iter().any(|r| r == "the session token on the remote listener"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "an operator's or admin's token on the remote listener"), "{reasons:?}");
}

#[tokio::test]
async fn a_pairing_code_works_once_is_rate_limited_and_every_failure_is_audited() {
    let t = spawn_app().await;
    // Off: no listener, no pairing.
    let (status, body) = t.post("/api/devices/pairings", json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let r = Remote::start(&t).await;
    let (status, started) = t.post("/api/devices/pairings", json!({ "name": "alice-phone" , "person": "alice" })).await;
    assert_eq!(status, StatusCode::CREATED, "{started}");
    let code = started["code"].as_str().unwrap().to_owned();
    assert!(started["url"].as_str().unwrap().starts_with(&format!("{}/#pair=", r.origin)));
    assert!(started["qrSvg"].as_str().unwrap().starts_with("<?xml") || started["qrSvg"].as_str().unwrap().contains("<svg"));
    // The pairing routes are the remote listener's alone.
    let (status, _) = t.post("/api/remote/pair", json!({ "code": code })).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let pair = |code: String| r.send(r.http.post(r.url("/api/remote/pair")).header("Origin", &r.origin).json(&json!({ "code": code })));
    let (status, _, _) = pair("WRONG-CODES".into()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Typed in lower case with a space: the same code.
    let (status, begun, _) = pair(code.to_lowercase().replace('-', " ")).await;
    assert_eq!(status, StatusCode::OK, "{begun}");
    assert!(begun["ceremony"].is_string());
    assert_eq!(begun["options"]["publicKey"]["rp"]["id"], NAME);
    let (status, again, _) = pair(code.clone()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "single use: {again}");
    // A finish that is no registration: refused, nothing paired.
    let (status, _, _) = r
        .send(
            r.http
                .post(r.url("/api/remote/pair/finish"))
                .header("Origin", &r.origin)
                .json(&json!({ "ceremony": begun["ceremony"], "credential": { "id": "x" } })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Guessing: five wrong codes from one address (two above), then every try is refused for a
    // while, the right code included.
    let (_, next) = t.post("/api/devices/pairings", json!({ "name": "alice-tablet", "person": "alice" })).await;
    for i in 0..3 {
        let (status, _, _) = pair(format!("GUESS-{i:05}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let (status, limited, _) = pair(next["code"].as_str().unwrap().to_owned()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(limited["message"].as_str().unwrap().contains("too many"), "{limited}");
    let (_, devices) = t.get("/api/devices").await;
    assert_eq!(devices, json!([]));
    let reasons = refusals(&t).await;
    assert_eq!(reasons.iter().filter(|r| *r == "wrong, used or expired code").count(), 5, "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "too many tries"));
}

#[tokio::test]
async fn a_phone_signs_in_with_its_discoverable_passkey_and_the_sign_in_options_name_no_device_and_no_credential() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let (_, started) = t.post("/api/devices/pairings", json!({ "name": "alice-phone", "person": "alice" })).await;
    let (mut passkey, _) = r.pair(&r.http, &started).await;
    let (_, devices) = t.get("/api/devices").await;
    assert_eq!(devices[0]["name"], "alice-phone", "{devices}");

    // Anyone may ask for the sign-in options: they name nothing that is paired.
    let (status, begun, _) = r.send(r.http.post(r.url("/api/remote/sign-in")).header("Origin", &r.origin)).await;
    assert_eq!(status, StatusCode::OK, "{begun}");
    let options = &begun["options"]["publicKey"];
    assert!(options["allowCredentials"].as_array().is_none_or(Vec::is_empty), "no credential listed: {options}");
    let text = begun.to_string();
    for secret in [passkey.credential_id(), "alice".into()] {
        assert!(!text.contains(&secret), "{secret} in {text}");
    }
    // The phone's passkey finds itself, and signs in.
    let finish = json!({ "ceremony": begun["ceremony"], "credential": passkey.assert(&begun["options"]) });
    let (status, done, headers) = r.send(r.http.post(r.url("/api/remote/sign-in/finish")).header("Origin", &r.origin).json(&finish)).await;
    assert_eq!((status, done["device"].as_str()), (StatusCode::OK, Some("alice-phone")), "{done}");
    let cookie = session_cookie(&headers);
    let (status, _, _) = r.send(r.with(&cookie, r.http.get(r.url("/api/queue")))).await;
    assert_eq!(status, StatusCode::OK);

    // Revoked: its passkey signs in no more, and that is audited.
    assert_eq!(t.call_as(TOKEN, reqwest::Method::DELETE, "/api/devices/alice-phone", None).await.0, StatusCode::OK);
    let (_, begun, _) = r.send(r.http.post(r.url("/api/remote/sign-in")).header("Origin", &r.origin)).await;
    let finish = json!({ "ceremony": begun["ceremony"], "credential": passkey.assert(&begun["options"]) });
    let (status, refused, _) = r.send(r.http.post(r.url("/api/remote/sign-in/finish")).header("Origin", &r.origin).json(&finish)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(refusals(&t).await.iter().any(|r| r == "sign-in: the passkey is of no paired device (revoked?)"));
}

/// A device with a session (as a finished pairing stores them), made directly: the passkey
/// ceremonies need a browser's authenticator (tests/e2e/remote.test.mjs).
pub(crate) async fn device_with_session(t: &TestApp, name: &str, cookie: &str) {
    use sha2::Digest;
    let hash = format!("sha256:{}", hex::encode(sha2::Sha256::digest(cookie.as_bytes())));
    approval_console::store::testing::device_with_session(t.app.testing().db(), name, &hash).await.unwrap();
}

#[tokio::test]
async fn a_device_session_decides_nothing_without_its_step_up_and_ends_when_the_device_is_revoked() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    device_with_session(&t, "alice-phone", "cookie-1").await;
    t.generate("delete a").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let with_cookie = |rb: reqwest::RequestBuilder| rb.header("Cookie", "__Host-ac_session=cookie-1").header("Origin", &r.origin);

    let (status, page, _) = r.send(with_cookie(r.http.get(r.url("/api/queue")))).await;
    assert_eq!(status, StatusCode::OK, "the device reads the queue: {page}");
    let (status, session, _) = r.send(with_cookie(r.http.get(r.url("/api/session")))).await;
    assert_eq!((status, session["kind"].as_str()), (StatusCode::OK, Some("device")), "{session}");

    let approve = json!({ "fingerprint": item["fingerprint"] });
    // No step-up; a step-up id that was never issued; a session without Origin.
    let (status, refused, _) = r.send(with_cookie(r.http.post(r.url(&format!("/api/queue/{id}/approve")))).json(&approve)).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::FORBIDDEN, Some("step_up_required")), "{refused}");
    let forged = with_cookie(r.http.post(r.url(&format!("/api/queue/{id}/approve"))))
        .header("X-Step-Up", "made-up")
        .header("X-Step-Up-Assertion", "e30")
        .json(&approve);
    let (status, refused, _) = r.send(forged).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::FORBIDDEN, Some("step_up_required")));
    let no_origin = r.http.post(r.url(&format!("/api/queue/{id}/decline"))).header("Cookie", "__Host-ac_session=cookie-1").json(&approve);
    assert_eq!(r.send(no_origin).await.0, StatusCode::FORBIDDEN);
    // Nor through the Mastra-shaped routes, which carry no step-up.
    let body = json!({ "runId": item["runId"], "toolCallId": item["toolCallId"] });
    let (status, _, _) = r.send(with_cookie(r.http.post(r.url("/api/agents/demo/approve-tool-call"))).json(&body)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(t.item(id).await["state"], "pending", "nothing was decided");
    let reasons = refusals(&t).await;
    assert!(reasons.iter().any(|r| r == "no passkey assertion came with the decision"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "the step-up is unknown, used already or expired"), "{reasons:?}");

    // Revoked on the console: the very next request of its session is refused.
    let (status, revoked) = t.call_as(TOKEN, reqwest::Method::DELETE, "/api/devices/alice-phone", None).await;
    assert_eq!((status, revoked["sessionsEnded"].as_u64()), (StatusCode::OK, Some(1)), "{revoked}");
    let (status, _, _) = r.send(with_cookie(r.http.get(r.url("/api/queue")))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (_, log) = t.get("/api/audit?limit=50").await;
    assert!(log["entries"].as_array().unwrap().iter().any(|e| e["action"] == "device.revoked"));
    assert!(refusals(&t).await.iter().any(|r| r == "an unknown, expired or revoked session"), "the revoked device's try is audited");
}

#[tokio::test]
async fn on_the_remote_listeners_reserve_only_a_device_session_is_served_and_the_pages_files_take_no_body() {
    let t = spawn_app().await;
    let limits =
        api::Limits { connections: 1, operator_reserve: 2, header_read_timeout: Duration::from_secs(120), ..api::Limits::default() };
    let r = Remote::start_with(&t, limits).await;
    device_with_session(&t, "alice-phone", "cookie-1").await;
    let agent = t.token("remote-bot", Role::Agent).await;
    let fresh = r.fresh();
    // A body for the page's files is refused, and its connection closed, as on 127.0.0.1.
    let (status, _, headers) = r.send(fresh.post(r.url("/index.html")).body("0123456789")).await;
    assert_eq!((status, headers.get("connection").and_then(|v| v.to_str().ok())), (StatusCode::METHOD_NOT_ALLOWED, Some("close")));
    assert_eq!(r.server.body_bytes_read(), 0);

    // The general room's one place held (a connection that never starts its TLS handshake): every
    // new connection is on the reserve, the devices'.
    let _held = tokio::net::TcpStream::connect(r.server.addr).await.unwrap();
    let call = json!({ "tool": "delete_record", "args": { "id": "rec-7" }, "agent": "remote-bot" });
    for (what, request) in [
        ("the page", fresh.get(r.url("/"))),
        ("health", fresh.get(r.url("/api/health"))),
        ("pairing", fresh.post(r.url("/api/remote/pair")).header("Origin", &r.origin).json(&json!({ "code": "ABCDE-FGHIJ" }))),
        ("an agent's token", fresh.post(r.url("/api/calls")).bearer_auth(&agent).header("Idempotency-Key", "k-1").json(&call)),
        ("an unknown session", fresh.get(r.url("/api/queue")).header("Cookie", "__Host-ac_session=forged")),
    ] {
        let (status, body, headers) = r.send(request).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{what}: {body}");
        assert_eq!(headers.get("connection").and_then(|v| v.to_str().ok()), Some("close"), "{what}");
    }
    assert_eq!(r.server.body_bytes_read(), 0, "no body was read there");
    assert!(t.pending().await.is_empty(), "the agent's call was not taken");
    let with_cookie = |rb: reqwest::RequestBuilder| rb.header("Cookie", "__Host-ac_session=cookie-1");
    let (status, page, _) = r.send(with_cookie(fresh.get(r.url("/api/queue")))).await;
    assert_eq!(status, StatusCode::OK, "the device is served: {page}");
    let (status, _, _) = r.send(with_cookie(fresh.get(r.url("/")))).await;
    assert_eq!(status, StatusCode::OK, "and its page's files");
}

#[tokio::test]
async fn a_policy_can_want_every_high_risk_approval_from_a_paired_device_with_its_passkey() {
    let t = spawn_app().await;
    let (status, body) = t.put("/api/settings/safety", json!({ "highRiskTools": ["delete_record"], "highRiskPasskey": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    t.generate("delete a").await;
    let item = t.pending().await.remove(0);
    // The local admin's page, the CLI's path: refused, nothing decided.
    let (status, refused) = t.approve(&item).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::FORBIDDEN, Some("step_up_required")), "{refused}");
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    // A decline needs no passkey; the policy file carries the rule, and saving the notification
    // settings (which hold the high-risk tools too) keeps it.
    let (_, notify) = t.get("/api/settings/notifications").await;
    assert_eq!(t.put("/api/settings/notifications", notify).await.0, StatusCode::OK);
    let (_, safety) = t.get("/api/settings/safety").await;
    assert_eq!(safety["highRiskPasskey"], true, "{safety}");
    let (_, policy) = t.get("/api/policy").await;
    assert!(policy.to_string().contains("high_risk_passkey = true"), "{policy}");
    let (status, _) = t.decline(&item, "not now").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn serve_starts_the_remote_listener_its_settings_ask_for() {
    let t = spawn_app().await;
    let (status, refused) = t.put("/api/settings/remote", json!({ "listen": "everywhere", "publicName": NAME })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let (status, saved) = t.put("/api/settings/remote", json!({ "listen": "127.0.0.1:0", "publicName": NAME })).await;
    assert_eq!((status, saved["running"].clone()), (StatusCode::OK, Value::Null), "{saved}");
    let (dir, _tmp, _) = t.stop().await;
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["serve", "--port", "0", "--token", "settings-token-1e7c3a9f5b2d8064e1c7a3f9b5d28046", "--data-dir"])
        .arg(&dir)
        .envs(helpers_database_env(&dir))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(serve.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(l) = lines.next_line().await.unwrap() {
            if l.starts_with("Remote listener:") {
                return l;
            }
        }
        panic!("serve ended without a remote listener");
    })
    .await
    .expect("serve printed its remote listener");
    assert!(line.contains(&format!("https://{NAME}:")), "{line}");
}

/// The database settings a `serve` process over `dir` needs (PostgreSQL in the team run).
fn helpers_database_env(dir: &std::path::Path) -> Vec<(&'static str, String)> {
    match std::fs::read_to_string(dir.join("test-database-url")) {
        Ok(url) => vec![("APPROVAL_CONSOLE_DATABASE_URL", url)],
        Err(_) => vec![],
    }
}
