//! One message on one channel: what it says (plain text, HTML with every untrusted text escaped,
//! Slack's Block Kit, the webhook's JSON) and how it goes (reqwest, lettre). A link opens the call;
//! nothing here decides. A channel's secret comes from its own place (`secrets::channel`), read
//! when it sends, never kept or logged.

use crate::domain::reach::{Channel, ChannelKind, MailTls};
use crate::domain::text::{markup_escaped, visible};
use crate::secrets::ApiKey;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::time::Duration;

/// How long one send may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a call's arguments a message carries (when its channel says to).
const ARGS_MAX: usize = 4096;

/// What a message says of its call.
pub struct About {
    pub item_id: String,
    pub tool: String,
    pub agent: String,
    pub source: String,
    pub risk: String,
    pub reasons: Vec<String>,
    pub fingerprint: String,
    pub paused_at: chrono::DateTime<chrono::Utc>,
    pub args: serde_json::Value,
    /// The page that opens the call (`None`: no address known; the message says to open the console).
    pub link: Option<String>,
    pub rule: String,
    pub step: i64,
    /// A test message (Settings → "Send a test message"): about no call.
    pub test: bool,
}

impl About {
    /// A test message for a channel: it says so, names no call, and carries nothing of one.
    pub fn test() -> Self {
        About {
            item_id: String::new(),
            tool: String::new(),
            agent: String::new(),
            source: String::new(),
            risk: String::new(),
            reasons: vec!["Sent from Settings → Channels and escalation to check this channel: no call is waiting.".into()],
            fingerprint: String::new(),
            paused_at: chrono::Utc::now(),
            args: Value::Null,
            link: None,
            rule: String::new(),
            step: 0,
            test: true,
        }
    }

    fn title(&self) -> String {
        if self.test {
            return "Approval Console: a test message".into();
        }
        format!("Approval needed: {} wants to run {} ({} risk)", visible(&self.agent), visible(&self.tool), self.risk)
    }

    fn args_text(&self, channel: &Channel) -> Option<String> {
        channel.include_args.then(|| {
            let mut text = serde_json::to_string_pretty(&self.args).unwrap_or_default();
            if text.len() > ARGS_MAX {
                let mut cut = ARGS_MAX;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push_str("\n… (cut)");
            }
            visible(&text)
        })
    }

    /// Plain text: the title, why it is risky, the fingerprint, the link.
    pub fn text(&self, channel: &Channel) -> String {
        let mut out = self.title();
        if self.test {
            self.reasons.iter().for_each(|r| out.push_str(&format!("\n{r}")));
            return out;
        }
        out.push_str(&format!("\nSource: {}   Call: {}", self.source, self.item_id));
        for r in self.reasons.iter().take(3) {
            out.push_str(&format!("\n- {}", visible(r)));
        }
        out.push_str(&format!("\nFingerprint: {}", self.fingerprint));
        if let Some(args) = self.args_text(channel) {
            out.push_str(&format!("\nArguments:\n{args}"));
        }
        match &self.link {
            Some(link) => out.push_str(&format!("\nOpen it (deciding asks for your passkey): {link}")),
            None => out.push_str("\nOpen the console to decide."),
        }
        out
    }

    /// HTML for mail and Matrix: every text escaped.
    pub fn html(&self, channel: &Channel) -> String {
        let e = |t: &str| html_escape(&visible(t));
        if self.test {
            return format!("<p><strong>{}</strong></p><p>{}</p>", e(&self.title()), e(&self.reasons.join(" ")));
        }
        let mut out = format!(
            "<p><strong>{}</strong></p><p>Source: {} · Call: <code>{}</code></p>",
            e(&self.title()),
            e(&self.source),
            e(&self.item_id)
        );
        if !self.reasons.is_empty() {
            out.push_str("<ul>");
            for r in self.reasons.iter().take(3) {
                out.push_str(&format!("<li>{}</li>", e(r)));
            }
            out.push_str("</ul>");
        }
        out.push_str(&format!("<p>Fingerprint: <code>{}</code></p>", e(&self.fingerprint)));
        if let Some(args) = self.args_text(channel) {
            out.push_str(&format!("<pre>{}</pre>", html_escape(&args)));
        }
        if let Some(link) = &self.link {
            out.push_str(&format!("<p><a href=\"{0}\">Open the call</a> (deciding asks for your passkey)</p>", html_escape(link)));
        }
        out
    }

    /// The webhook's JSON.
    pub fn json(&self, channel: &Channel) -> Value {
        if self.test {
            return json!({ "type": "test", "summary": self.title(), "text": self.reasons.join(" "), "person": channel.person });
        }
        let mut v = json!({
            "type": "call.paused",
            "id": self.item_id,
            "tool": self.tool,
            "agent": self.agent,
            "source": self.source,
            "risk": { "level": self.risk, "reasons": self.reasons },
            "summary": self.title(),
            "fingerprint": self.fingerprint,
            "pausedAt": self.paused_at,
            "link": self.link,
            "rule": self.rule,
            "step": self.step,
            "person": channel.person,
        });
        if channel.include_args {
            v["args"] = self.args.clone();
        }
        v
    }

    /// Slack / Mattermost Block Kit: the summary, its reasons, an Open button.
    pub fn blocks(&self, channel: &Channel) -> Value {
        let e = |t: &str| slack_escape(&visible(t));
        if self.test {
            let text = format!("*{}*\n{}", e(&self.title()), e(&self.reasons.join(" ")));
            return json!({ "text": e(&self.title()), "blocks": [{ "type": "section", "text": { "type": "mrkdwn", "text": text } }] });
        }
        let mut text = format!("*{}*", e(&self.title()));
        for r in self.reasons.iter().take(3) {
            text.push_str(&format!("\n• {}", e(r)));
        }
        if let Some(args) = self.args_text(channel) {
            text.push_str(&format!("\n```{}```", slack_escape(&args)));
        }
        let mut blocks = vec![
            json!({ "type": "section", "text": { "type": "mrkdwn", "text": text } }),
            json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": format!("{} · `{}`", e(&self.source), e(&self.fingerprint)) }] }),
        ];
        if let Some(link) = &self.link {
            blocks.push(json!({ "type": "actions", "elements": [{ "type": "button", "text": { "type": "plain_text", "text": "Open" }, "url": link }] }));
        }
        json!({ "text": e(&self.title()), "blocks": blocks })
    }
}

/// [`markup_escaped`], and quotes too (the link goes into an attribute).
fn html_escape(t: &str) -> String {
    markup_escaped(t).replace('"', "&quot;").replace('\'', "&#39;")
}

/// Slack's mrkdwn escapes `&`, `<`, `>` as markup does: links and mentions cannot be forged by a call's text.
use crate::domain::text::markup_escaped as slack_escape;

/// `sha256=<hex>` of HMAC-SHA256 over `timestamp.body` under `secret`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

fn http() -> Result<reqwest::Client, String> {
    reqwest::Client::builder().timeout(TIMEOUT).redirect(reqwest::redirect::Policy::none()).build().map_err(|e| e.to_string())
}

async fn answered(r: Result<reqwest::Response, reqwest::Error>) -> Result<(), String> {
    // Never the URL in the error: a Slack webhook's URL is its secret.
    let r = r.map_err(|e| format!("not reached: {}", e.without_url()))?;
    if r.status().is_success() {
        Ok(())
    } else {
        Err(format!("answered HTTP {}", r.status().as_u16()))
    }
}

/// Sends `about` on `channel` (`txn`: the message's id, so a retry is the same Matrix event), with
/// the channel's own `secret` (`None`: none is set; a kind that needs one is not sent).
pub async fn send(channel: &Channel, about: &About, txn: &str, secret: Option<ApiKey>) -> Result<(), String> {
    if let (Some(what), None) = (channel.kind.secret_needed(), &secret) {
        return Err(format!(
            "no secret set for channel {0} (it needs {what}): the local admin sets it with `approval-console channels secret set {0}`",
            channel.name
        ));
    }
    let secret = secret.map(|s| s.expose().to_owned());
    match channel.kind {
        ChannelKind::Webhook => {
            let secret = secret.unwrap_or_default();
            let body = serde_json::to_vec(&about.json(channel)).expect("JSON serializes");
            let ts = chrono::Utc::now().timestamp();
            let r = http()?
                .post(&channel.target)
                .header("Content-Type", "application/json")
                .header("X-Approval-Console-Timestamp", ts.to_string())
                .header("X-Approval-Console-Signature", signature(&secret, ts, &body))
                .header("X-Approval-Console-Delivery", txn)
                .body(body)
                .send()
                .await;
            answered(r).await
        }
        ChannelKind::Slack => {
            let url = secret.unwrap_or_default();
            answered(http()?.post(url.trim()).json(&about.blocks(channel)).send().await).await
        }
        ChannelKind::Matrix => {
            let token = secret.unwrap_or_default();
            let server = channel.server.as_deref().unwrap_or_default().trim_end_matches('/');
            let room = url_segment(&channel.target);
            let url = format!("{server}/_matrix/client/v3/rooms/{room}/send/m.room.message/{}", url_segment(txn));
            let body = json!({ "msgtype": "m.text", "body": about.text(channel), "format": "org.matrix.custom.html", "formatted_body": about.html(channel) });
            answered(http()?.put(url).bearer_auth(token.trim()).json(&body).send().await).await
        }
        ChannelKind::Email => mail(channel, about, secret).await,
    }
}

fn url_segment(t: &str) -> String {
    t.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

async fn mail(channel: &Channel, about: &About, password: Option<String>) -> Result<(), String> {
    use lettre::message::{Mailbox, MultiPart};
    use lettre::transport::smtp::authentication::Credentials;
    use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
    use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
    let from_text = channel.from.as_deref().unwrap_or("approval-console@localhost");
    let from: Mailbox = from_text.parse().map_err(|e| format!("from {from_text:?}: {e}"))?;
    let to: Mailbox = channel.target.parse().map_err(|e| format!("to {:?}: {e}", channel.target))?;
    let subject = about.title().chars().take(150).collect::<String>();
    let message = lettre::Message::builder()
        .from(from)
        .to(to)
        .subject(subject)
        .multipart(MultiPart::alternative_plain_html(about.text(channel), about.html(channel)))
        .map_err(|e| e.to_string())?;
    let server = channel.server.as_deref().unwrap_or_default();
    let (host, port) = server.rsplit_once(':').ok_or("server is host:port")?;
    let port: u16 = port.parse().map_err(|_| format!("bad port in {server:?}"))?;
    let mut tls = TlsParameters::builder(host.to_owned());
    if let Some(ca) = &channel.ca_file {
        let pem = std::fs::read(ca).map_err(|e| format!("cannot read {ca}: {e}"))?;
        tls = tls.add_root_certificate(Certificate::from_pem(&pem).map_err(|e| format!("{ca}: {e}"))?);
    }
    let tls = tls.build_rustls().map_err(|e| e.to_string())?;
    let tls = match channel.tls {
        MailTls::Starttls => Tls::Required(tls),
        MailTls::Tls => Tls::Wrapper(tls),
        // Settings stored before this was checked on save may still say so: never in plain text
        // to another machine.
        MailTls::None if !crate::domain::reach::plain_smtp_allowed(server) => {
            return Err(format!("plain SMTP (tls none) goes only to a relay on this machine, not to {server:?}: use starttls or tls"))
        }
        MailTls::None => Tls::None,
    };
    let mut transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host).port(port).tls(tls).timeout(Some(TIMEOUT));
    if let Some(password) = password {
        let user = channel.username.clone().unwrap_or_else(|| from_text.to_owned());
        transport = transport.credentials(Credentials::new(user, password.trim().to_owned()));
    }
    transport.build().send(message).await.map(|_| ()).map_err(|e| format!("SMTP: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_covers_the_timestamp_and_the_body() {
        let s = signature("k", 1, b"{}");
        assert!(s.starts_with("sha256=") && s.len() == 7 + 64);
        assert_ne!(s, signature("k", 2, b"{}"));
        assert_ne!(s, signature("k", 1, b"{ }"));
        assert_ne!(s, signature("j", 1, b"{}"));
    }

    #[test]
    fn untrusted_text_is_escaped_in_html_and_mrkdwn() {
        let about = About {
            item_id: "q_1".into(),
            tool: "<script>alert(1)</script>".into(),
            agent: "<@U123> & co".into(),
            source: "http".into(),
            risk: "high".into(),
            reasons: vec!["<b>x</b>".into()],
            fingerprint: "sha256:00".into(),
            paused_at: chrono::Utc::now(),
            args: json!({ "cmd": "<img src=x onerror=alert(1)>" }),
            link: Some("https://c.example/#call=q_1".into()),
            rule: "default".into(),
            step: 0,
            test: false,
        };
        let channel: Channel =
            serde_json::from_value(json!({ "name": "m", "kind": "matrix", "person": "a", "includeArgs": true })).unwrap();
        let html = about.html(&channel);
        assert!(!html.contains("<script") && !html.contains("<img") && !html.contains("<b>"), "{html}");
        let blocks = about.blocks(&channel).to_string();
        assert!(!blocks.contains("<@U123>"), "no mention forged: {blocks}");
        let mut quiet: Channel = channel.clone();
        quiet.include_args = false;
        assert!(!about.text(&quiet).contains("onerror"), "arguments only when the channel says");
        assert!(about.json(&quiet).get("args").is_none());
    }

    fn about() -> About {
        About {
            item_id: "q_1".into(),
            tool: "delete_record".into(),
            agent: "demo".into(),
            source: "local".into(),
            risk: "high".into(),
            reasons: vec![],
            fingerprint: "sha256:00".into(),
            paused_at: chrono::Utc::now(),
            args: json!({}),
            link: None,
            rule: "default".into(),
            step: 0,
            test: false,
        }
    }

    #[tokio::test]
    async fn a_channel_that_needs_a_secret_and_has_none_is_not_sent() {
        let channel: Channel = serde_json::from_value(
            json!({ "name": "ops-room", "kind": "matrix", "person": "a", "target": "!r:x", "server": "http://127.0.0.1:9" }),
        )
        .unwrap();
        let e = send(&channel, &about(), "m1", None).await.unwrap_err();
        assert!(e.starts_with("no secret set for channel ops-room"), "{e}");
    }

    /// Settings stored before plain SMTP was checked on save may still ask for it: refused before
    /// any connection (192.0.2.1 is TEST-NET-1, where nothing answers).
    #[tokio::test]
    async fn plain_smtp_to_another_machine_is_refused_even_from_settings_stored_before() {
        let channel: Channel = serde_json::from_value(json!({
            "name": "m", "kind": "email", "person": "a", "target": "a@example.com", "server": "192.0.2.1:25", "tls": "none"
        }))
        .unwrap();
        let e = send(&channel, &about(), "m1", Some(ApiKey::new("pw"))).await.unwrap_err();
        assert!(e.starts_with("plain SMTP"), "{e}");
    }
}
