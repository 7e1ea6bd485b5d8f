//! Desktop notifications through the freedesktop notification service (notify-rust, over D-Bus).

use super::{Choice, Notice, Notifier};

/// The application name notifications carry.
pub const APP_NAME: &str = "Approval Console";

/// Shows notices on the session bus's notification service (dunst, GNOME Shell, KDE, …).
#[derive(Clone, Debug, Default)]
pub struct DesktopNotifier;

impl DesktopNotifier {
    /// A plain notification without actions (e.g. why the app cannot start), text escaped like any notice.
    pub fn tell(&self, summary: &str, body: &str) -> Result<(), String> {
        use crate::domain::text::notification_text;
        notify_rust::Notification::new()
            .appname(APP_NAME)
            .summary(&notification_text(summary))
            .body(&notification_text(body))
            .show()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

impl Notifier for DesktopNotifier {
    fn show(&self, notice: Notice, answer: Box<dyn FnOnce(Option<Choice>) + Send>) -> Result<(), String> {
        // notify-rust's zbus calls block (their own executor): a thread of their own, which then
        // waits for the operator's answer (or the notification closing) and hands it over.
        let (tx, rx) = std::sync::mpsc::channel::<Result<(), String>>();
        std::thread::Builder::new()
            .name("notification".into())
            .spawn(move || {
                let mut n = notify_rust::Notification::new();
                n.appname(APP_NAME).summary(&notice.summary).body(&notice.body);
                for choice in &notice.actions {
                    n.action(choice.key(), choice.label(crate::notify::Lang::current()));
                }
                match n.show() {
                    Ok(handle) => {
                        let _ = tx.send(Ok(()));
                        if notice.actions.is_empty() {
                            return answer(None);
                        }
                        let mut answer = Some(answer);
                        let offered = notice.actions.clone();
                        handle.wait_for_action(|action| {
                            // Any process of the session can emit `ActionInvoked` for this id: an
                            // action the notice did not offer (an "approve" on a high-risk or cut
                            // call) is never carried out; the call is opened in the window instead.
                            let choice = Choice::from_key(action).map(|c| {
                                if offered.contains(&c) {
                                    c
                                } else {
                                    tracing::warn!(action, "an action this notification did not offer: opening the call instead");
                                    Choice::Open
                                }
                            });
                            if let Some(answer) = answer.take() {
                                answer(choice);
                            }
                        });
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                    }
                }
            })
            .map_err(|e| format!("cannot start a notification thread: {e}"))?;
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .unwrap_or_else(|_| Err("the notification service did not answer within 10 s".into()))
    }
}
