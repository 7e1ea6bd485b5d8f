//! How the tests wait for something to happen: they ask a probe every [`EVERY`] until it says it
//! happened, for at most the time the call gives, and then fail saying what never happened. No
//! hand-written polling loop, no fixed sleep for something to happen: a sleep left in a test is a
//! timing the test is about (a time limit to pass, or a window in which something must NOT happen).
//! Included with `#[path]`; each includer uses a part of it.
#![allow(dead_code)]

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

/// How often a probe is asked.
pub const EVERY: Duration = Duration::from_millis(50);

/// Asks `probe` until it answers `Some`, for up to `limit` (and once more at the end): its answer,
/// or `None` when the time ran out, for a caller that says itself what never happened.
pub async fn within<T, F, Fut>(limit: Duration, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(found) = probe().await {
            return Some(found);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// Asks `probe` until it answers `Ok`, for up to `limit`: its value; else fails with the last
/// `Err`, which says what never happened (and what there was instead).
pub async fn until<T, F, Fut>(limit: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let last = Mutex::new(String::new());
    let found = within(limit, || {
        let (answer, last) = (probe(), &last);
        async move { answer.await.map_err(|why| *last.lock().unwrap() = why).ok() }
    })
    .await;
    found.unwrap_or_else(|| panic!("not within {limit:?}: {}", last.lock().unwrap()))
}

/// Waits until `check` holds, for up to `limit`; else fails saying `what` never happened.
pub async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    if within(limit, || {
        let holds = check();
        async move { holds.await.then_some(()) }
    })
    .await
    .is_none()
    {
        panic!("timed out ({limit:?}) waiting: {what}");
    }
}
