//! One async lock per key (a run, an engine's run): work on one key happens one at a time, work on
//! different keys goes on side by side. A key's lock is dropped from the table once nobody holds or
//! waits for it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// The locks, by key. Held across `.await`, so tokio's mutex; the table itself only briefly.
pub struct KeyedLocks<K> {
    locks: Mutex<HashMap<K, Arc<tokio::sync::Mutex<()>>>>,
}

impl<K> Default for KeyedLocks<K> {
    fn default() -> Self {
        Self { locks: Mutex::default() }
    }
}

impl<K: Eq + Hash + Clone> KeyedLocks<K> {
    /// Waits for `key`'s lock; it is held until the guard drops.
    pub async fn lock(&self, key: &K) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.locks.lock().expect("lock table poisoned");
            locks.retain(|_, l| Arc::strong_count(l) > 1);
            locks.entry(key.clone()).or_default().clone()
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn one_key_waits_for_its_holder_and_another_key_does_not() {
        let locks = Arc::new(KeyedLocks::<&'static str>::default());
        let held = locks.lock(&"run-1").await;
        let same = {
            let locks = locks.clone();
            tokio::spawn(async move { locks.lock(&"run-1").await })
        };
        assert!(tokio::time::timeout(Duration::from_secs(2), locks.lock(&"run-2")).await.is_ok(), "another key goes on");
        tokio::task::yield_now().await;
        assert!(!same.is_finished(), "the same key waits while it is held");
        drop(held);
        drop(tokio::time::timeout(Duration::from_secs(5), same).await.expect("taken once released").unwrap());
        // Nobody holds or waits for run-1 or run-2 now: the next lock drops them from the table.
        let _last = locks.lock(&"run-3").await;
        assert_eq!(locks.locks.lock().unwrap().keys().copied().collect::<Vec<_>>(), ["run-3"]);
    }
}
