//! Background tasks that cannot die silently.
//!
//! Why: a panic inside a `tokio::spawn`ed loop ends that task and nothing else notices. In the
//! simulated cluster that once stopped taint eviction for good (`tolerationSeconds` near
//! `i64::MAX`, issue 15); in the dashboard a dead watcher would freeze a resource while the page
//! still looked live. Every long-running task of the sim and the dashboard is started through a
//! [`Supervisor`]: a panic is logged with its message, the task is started again after a
//! backoff (1 s doubling to 30 s, reset after a minute of running), and [`Supervisor::report`]
//! lets `/readyz` say which task is down and how often each has restarted.
// A dependency the library never names fails its build (rustc's lint; tests excluded, since
// dev-dependencies are not its to judge).
#![cfg_attr(not(test), deny(unused_crate_dependencies))]

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// The first wait before a panicked task is started again.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait between restarts of a task that keeps panicking.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A task that ran this long before panicking starts again after [`FIRST_BACKOFF`].
const STABLE_AFTER: Duration = Duration::from_secs(60);

/// How one supervised task is doing, as `/readyz` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHealth {
    /// Running now (false while waiting to restart after a panic, or after it finished).
    pub running: bool,
    /// It returned normally and will not be started again.
    pub finished: bool,
    /// How many times it panicked and was started again.
    pub restarts: u32,
    /// The message of its most recent panic.
    pub last_panic: Option<String>,
}

/// Starts tasks, restarts them when they panic, and reports on them. Cheap to clone: clones
/// share one report.
#[derive(Debug, Clone, Default)]
pub struct Supervisor {
    tasks: Arc<Mutex<BTreeMap<String, TaskHealth>>>,
}

/// Aborts the current run of a task when the supervising task is aborted or dropped, so
/// aborting a handle from [`Supervisor::spawn`] stops the work itself.
struct AbortOnDrop(Option<JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.abort();
        }
    }
}

impl Supervisor {
    /// A supervisor with no tasks yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, TaskHealth>> {
        // A panic while holding this lock can only come from this module's own bookkeeping;
        // the map stays consistent, so a poisoned lock is used as is.
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn update(&self, name: &str, change: impl FnOnce(&mut TaskHealth)) {
        if let Some(health) = self.lock().get_mut(name) {
            change(health);
        }
    }

    /// Runs `make()`'s future as a task named `name`, and again each time it panics. The
    /// returned handle ends when the task returns normally; aborting it stops the task. A
    /// second task under a name already in use replaces that name's report.
    pub fn spawn<F, Fut>(&self, name: impl Into<String>, mut make: F) -> JoinHandle<()>
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let name = name.into();
        self.lock().insert(
            name.clone(),
            TaskHealth {
                running: true,
                finished: false,
                restarts: 0,
                last_panic: None,
            },
        );
        let supervisor = self.clone();
        tokio::spawn(async move {
            let mut backoff = FIRST_BACKOFF;
            loop {
                let started = Instant::now();
                let mut current = AbortOnDrop(Some(tokio::spawn(make())));
                let Some(handle) = current.0.as_mut() else {
                    return;
                };
                let outcome = handle.await;
                current.0 = None;
                match outcome {
                    Ok(()) => {
                        supervisor.update(&name, |h| {
                            h.running = false;
                            h.finished = true;
                        });
                        return;
                    }
                    Err(err) if err.is_panic() => {
                        let message = panic_message(err.into_panic());
                        if started.elapsed() >= STABLE_AFTER {
                            backoff = FIRST_BACKOFF;
                        }
                        tracing::error!(
                            task = %name,
                            panic = %message,
                            restart_in_ms = backoff.as_millis() as u64,
                            "background task panicked; starting it again"
                        );
                        supervisor.update(&name, |h| {
                            h.running = false;
                            h.last_panic = Some(message);
                        });
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                        supervisor.update(&name, |h| {
                            h.running = true;
                            h.restarts = h.restarts.saturating_add(1);
                        });
                    }
                    // Cancelled from outside (runtime shutting down): nothing to restart.
                    Err(_) => {
                        supervisor.update(&name, |h| h.running = false);
                        return;
                    }
                }
            }
        })
    }

    /// Every task by name with its health, sorted by name.
    pub fn report(&self) -> Vec<(String, TaskHealth)> {
        self.lock()
            .iter()
            .map(|(name, health)| (name.clone(), health.clone()))
            .collect()
    }

    /// The tasks that are down now: panicked and waiting to start again.
    pub fn down(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, h)| !h.running && !h.finished)
            .map(|(name, _)| name.clone())
            .collect()
    }
}

/// The text of a panic payload (`panic!("...")` gives a `&str` or a `String`).
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(text) => (*text).to_string(),
            Err(_) => "a panic without a message".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test(start_paused = true)]
    async fn a_panicking_task_is_started_again_and_its_panic_is_reported() {
        let supervisor = Supervisor::new();
        let runs = Arc::new(AtomicU32::new(0));
        let counter = runs.clone();
        let handle = supervisor.spawn("evictor", move || {
            let counter = counter.clone();
            async move {
                let run = counter.fetch_add(1, Ordering::SeqCst);
                if run < 2 {
                    panic!("overflow when adding duration to instant (run {run})");
                }
                // The third run keeps going, as a healthy loop does.
                std::future::pending::<()>().await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(supervisor.down(), vec!["evictor".to_string()]);
        let (_, health) = &supervisor.report()[0];
        assert_eq!(
            health.last_panic.as_deref(),
            Some("overflow when adding duration to instant (run 0)")
        );
        // Backoff 1 s, then 2 s: after 4 s the third run is up and stays up.
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        assert!(supervisor.down().is_empty());
        let (name, health) = &supervisor.report()[0];
        assert_eq!(name, "evictor");
        assert_eq!(health.restarts, 2);
        assert!(health.running);
        assert_eq!(
            health.last_panic.as_deref(),
            Some("overflow when adding duration to instant (run 1)")
        );
        handle.abort();
    }

    #[tokio::test]
    async fn a_task_that_returns_is_finished_not_down() {
        let supervisor = Supervisor::new();
        supervisor
            .spawn("one-shot", || async {})
            .await
            .expect("the supervising task ends when its task returns");
        assert!(supervisor.down().is_empty());
        let (_, health) = &supervisor.report()[0];
        assert!(health.finished && !health.running);
        assert_eq!(health.restarts, 0);
    }

    #[tokio::test]
    async fn aborting_the_handle_stops_the_task_itself() {
        let supervisor = Supervisor::new();
        let ticks = Arc::new(AtomicU32::new(0));
        let counter = ticks.clone();
        let handle = supervisor.spawn("ticker", move || {
            let counter = counter.clone();
            async move {
                loop {
                    counter.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        });
        tokio::time::sleep(Duration::from_millis(30)).await;
        handle.abort();
        let _ = handle.await;
        tokio::time::sleep(Duration::from_millis(10)).await;
        let after_abort = ticks.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), after_abort);
    }

    #[test]
    fn panic_messages_are_read_from_both_payload_kinds() {
        assert_eq!(panic_message(Box::new("static text")), "static text");
        assert_eq!(panic_message(Box::new(String::from("owned"))), "owned");
        assert_eq!(panic_message(Box::new(42_u8)), "a panic without a message");
    }
}
