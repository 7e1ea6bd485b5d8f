//! The gate's waiting calls: one **job** per distinct call (tool and the fingerprint of its
//! arguments) from the gate's one client. A job asks the console, runs the call upstream once it
//! is approved, and keeps the result until a client takes it. The same call made again while its
//! job runs — a client retrying after `input_required`, polling a task, or resending after its own
//! timeout — finds that job instead of queueing a second call; once its result is taken, the same
//! call again is a new call, asked about again.
//!
//! A job's console call is submitted under a key of its own (`mcp-gate:<process>:<n>`), so the
//! console holds one queue entry per job however often it is asked again.

use rmcp::model::CallToolResult;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How long a finished job's result waits for a client that went away before it is dropped.
const KEPT: Duration = Duration::from_secs(600);

/// One waiting call.
pub struct Job {
    /// Its id for the client: the task id, and the `requestState` of an `input_required` answer.
    pub id: String,
    /// The Idempotency-Key its console call is submitted under.
    pub console_key: String,
    call: (String, String),
    created: chrono::DateTime<chrono::Utc>,
    queued: watch::Sender<Option<String>>,
    done: watch::Sender<Option<CallToolResult>>,
    cancelled: watch::Sender<bool>,
    /// Clients waiting for it now; `usize::MAX` once it is a task (wanted until taken).
    waiters: watch::Sender<usize>,
    finished_at: Mutex<Option<Instant>>,
}

/// A client waiting for a job ([`Job::waiting`]); dropped when it stops waiting.
pub struct Waiting<'a>(&'a Job);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiters.send_modify(|n| {
            if *n != usize::MAX {
                *n = n.saturating_sub(1);
            }
        });
    }
}

impl Job {
    /// Notes a client waiting for it, until the guard is dropped.
    pub fn waiting(&self) -> Waiting<'_> {
        self.waiters.send_modify(|n| *n = n.saturating_add(1));
        Waiting(self)
    }

    /// Notes that a client will ask for it as a task: it is wanted until taken.
    pub fn as_task(&self) {
        self.waiters.send_replace(usize::MAX);
    }

    /// Completes when a client waits for it: an approved call runs only for a client still
    /// asking for it, never for one that went away (a 2026-07-28 client told to call again that
    /// did not), and `false` when none came back within `limit`.
    pub async fn wanted(&self, limit: Duration) -> bool {
        let mut waiters = self.waiters.subscribe();
        let came = tokio::time::timeout(limit, waiters.wait_for(|n| *n > 0)).await.is_ok();
        came
    }

    /// The console's id of its call, once queued.
    pub fn console_call(&self) -> Option<String> {
        self.queued.borrow().clone()
    }

    pub fn note_queued(&self, id: &str) {
        self.queued.send_replace(Some(id.to_owned()));
    }

    /// Its result, if it has one.
    pub fn result(&self) -> Option<CallToolResult> {
        self.done.borrow().clone()
    }

    /// Waits for its result.
    pub async fn finished(&self) -> CallToolResult {
        let mut done = self.done.subscribe();
        let result = done.wait_for(Option::is_some).await.expect("the job holds its sender");
        result.clone().expect("waited for a result")
    }

    pub fn finish(&self, result: CallToolResult) {
        *self.finished_at.lock().expect("job") = Some(Instant::now());
        self.done.send_replace(Some(result));
    }

    /// Asks it to stop waiting for the console (`tasks/cancel`): its call is withdrawn from the
    /// queue unless already decided. A call already approved still runs (cancellation is
    /// cooperative in MCP).
    pub fn cancel(&self) {
        self.cancelled.send_replace(true);
    }

    pub fn is_cancelled(&self) -> bool {
        *self.cancelled.borrow()
    }

    /// Completes once [`Job::cancel`] was called.
    pub async fn cancellation(&self) {
        let mut cancelled = self.cancelled.subscribe();
        let _ = cancelled.wait_for(|c| *c).await;
    }

    pub fn created(&self) -> String {
        self.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }
}

/// The jobs of one gate.
pub struct Jobs {
    /// Per process, so a call of another gate process (another client) is never found here.
    process: String,
    next: Mutex<u64>,
    by_call: Mutex<HashMap<(String, String), Arc<Job>>>,
    by_id: Mutex<HashMap<String, Arc<Job>>>,
}

impl Default for Jobs {
    fn default() -> Self {
        Self { process: uuid::Uuid::new_v4().simple().to_string(), next: Mutex::new(0), by_call: Mutex::default(), by_id: Mutex::default() }
    }
}

impl Jobs {
    /// The job of call `tool` with arguments of `fingerprint`: the one not taken yet, or a new one
    /// (`true`: the caller starts it).
    pub fn find_or_add(&self, tool: &str, fingerprint: &str) -> (Arc<Job>, bool) {
        self.sweep();
        let key = (tool.to_owned(), fingerprint.to_owned());
        let mut by_call = self.by_call.lock().expect("jobs");
        if let Some(job) = by_call.get(&key) {
            return (job.clone(), false);
        }
        let n = {
            let mut next = self.next.lock().expect("jobs");
            *next += 1;
            *next
        };
        let job = Arc::new(Job {
            id: uuid::Uuid::new_v4().simple().to_string(),
            console_key: format!("mcp-gate:{}:{n}", self.process),
            call: key.clone(),
            created: chrono::Utc::now(),
            queued: watch::Sender::new(None),
            done: watch::Sender::new(None),
            cancelled: watch::Sender::new(false),
            waiters: watch::Sender::new(0),
            finished_at: Mutex::new(None),
        });
        by_call.insert(key, job.clone());
        self.by_id.lock().expect("jobs").insert(job.id.clone(), job.clone());
        (job, true)
    }

    /// The job of call `tool` with arguments of `fingerprint` not taken yet, if there is one.
    pub fn find(&self, tool: &str, fingerprint: &str) -> Option<Arc<Job>> {
        self.by_call.lock().expect("jobs").get(&(tool.to_owned(), fingerprint.to_owned())).cloned()
    }

    /// The job with this id (a task's), while it is kept.
    pub fn by_id(&self, id: &str) -> Option<Arc<Job>> {
        self.sweep();
        self.by_id.lock().expect("jobs").get(id).cloned()
    }

    /// A client took the job's result (or gave the job up): the same call again is a new call.
    pub fn taken(&self, job: &Arc<Job>) {
        let mut by_call = self.by_call.lock().expect("jobs");
        if by_call.get(&job.call).is_some_and(|j| Arc::ptr_eq(j, job)) {
            by_call.remove(&job.call);
        }
    }

    /// Drops the jobs finished longer than [`KEPT`] ago.
    fn sweep(&self) {
        let old = |job: &Arc<Job>| job.finished_at.lock().expect("job").is_some_and(|at| at.elapsed() > KEPT);
        self.by_call.lock().expect("jobs").retain(|_, job| !old(job));
        self.by_id.lock().expect("jobs").retain(|_, job| !old(job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_call_finds_its_job_until_it_is_taken_then_it_is_a_new_call() {
        let jobs = Jobs::default();
        let (first, new) = jobs.find_or_add("write_file", "sha256:a");
        assert!(new);
        let (again, new) = jobs.find_or_add("write_file", "sha256:a");
        assert!(!new && Arc::ptr_eq(&first, &again), "a retry finds the waiting call");
        let (other, new) = jobs.find_or_add("write_file", "sha256:b");
        assert!(new && other.console_key != first.console_key, "other arguments: another call");
        let (tool, new) = jobs.find_or_add("delete_file", "sha256:a");
        assert!(new && !Arc::ptr_eq(&tool, &first), "another tool: another call");

        jobs.taken(&first);
        let (later, new) = jobs.find_or_add("write_file", "sha256:a");
        assert!(new && later.console_key != first.console_key, "taken: the same call again is asked about again");
        assert!(Arc::ptr_eq(&jobs.by_id(&first.id).unwrap(), &first), "a task's id still finds its job");
        jobs.taken(&first);
        assert!(Arc::ptr_eq(&jobs.find_or_add("write_file", "sha256:a").0, &later), "taking an old job leaves the new one");
    }

    #[tokio::test]
    async fn a_job_answers_every_waiter_with_its_one_result() {
        let jobs = Jobs::default();
        let (job, _) = jobs.find_or_add("t", "f");
        assert!(job.result().is_none());
        let waiter = tokio::spawn({
            let job = job.clone();
            async move { job.finished().await }
        });
        job.finish(CallToolResult::success(vec![]));
        assert_eq!(waiter.await.unwrap(), CallToolResult::success(vec![]));
        assert_eq!(job.finished().await, CallToolResult::success(vec![]));
        assert!(!job.is_cancelled());
        job.cancel();
        job.cancellation().await;
        assert!(job.is_cancelled());
    }

    #[tokio::test]
    async fn a_job_is_wanted_only_while_a_client_waits_for_it_or_once_it_is_a_task() {
        let jobs = Jobs::default();
        let (job, _) = jobs.find_or_add("t", "f");
        assert!(!job.wanted(Duration::from_millis(10)).await, "nobody waits");
        {
            let _a = job.waiting();
            let _b = job.waiting();
            assert!(job.wanted(Duration::from_millis(10)).await);
        }
        assert!(!job.wanted(Duration::from_millis(10)).await, "the client went away");
        let later = tokio::spawn({
            let job = job.clone();
            async move { job.wanted(Duration::from_secs(60)).await }
        });
        let guard = job.waiting();
        assert!(later.await.unwrap(), "a client that comes back is waited for");
        drop(guard);
        job.as_task();
        let _c = job.waiting();
        drop(_c);
        assert!(job.wanted(Duration::from_millis(10)).await, "a task is wanted until taken");
    }
}
