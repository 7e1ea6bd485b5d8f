//! Desktop notifications and the queue's live changes on the app's one surface: what the window,
//! the tray and the HTTP routes read, so none of them reaches into the notifier or the database.

use super::widening::Widening;
use super::App;
use crate::domain::Error;
use crate::domain::{grade, Cx};
use crate::notify::{NotificationSettings, NotifyStatus, OpenRequest};
use crate::store::feed::QueueEvent;
use crate::store::queue;
use tokio::sync::broadcast;

impl App {
    /// Whether this process shows desktop notifications and whether showing works.
    pub fn notification_status(&self, _by: &Cx<grade::Operator>) -> Result<NotifyStatus, Error> {
        Ok(self.notifications.status())
    }

    /// Whether notifications are paused (the tray's toggle; not stored).
    pub fn notifications_paused(&self) -> bool {
        self.notifications.paused()
    }

    pub fn set_notifications_paused(&self, paused: bool) {
        self.notifications.set_paused(paused);
    }

    /// Requests to show a call, made by a notification's "Open" action.
    pub fn open_requests(&self) -> broadcast::Receiver<OpenRequest> {
        self.notifications.open_requests()
    }

    pub async fn notification_settings(&self, _by: &Cx<grade::Operator>) -> Result<NotificationSettings, Error> {
        NotificationSettings::load(&self.db).await
    }

    /// Stores the notification settings (and with them the high-risk tools); admins only; a
    /// high-risk tool removed only when confirmed ([`Widening`]).
    pub async fn save_notification_settings(
        &self,
        settings: NotificationSettings,
        widening: Widening,
        by: &Cx<grade::Admin>,
    ) -> Result<NotificationSettings, Error> {
        settings.save(&self.db, &by.audit_name(), widening.of()).await?;
        Ok(settings)
    }

    /// The queue's changes from now on (new calls, decisions, deliveries), for a caller who may read
    /// the queue.
    pub fn subscribe(&self, _by: &Cx<grade::Watch>) -> broadcast::Receiver<QueueEvent> {
        self.events.subscribe()
    }

    /// How many calls wait for a decision (the tray's count).
    pub async fn pending_count(&self) -> Result<u64, Error> {
        Ok(u64::try_from(queue::pending_total(&self.db).await?).unwrap_or(0))
    }
}
