//! The audit log of the simulated API server: every request's verb, resource, user agent
//! and status code. Tests read it to prove which verbs a client used (the dashboard must
//! send only get, list and watch); scripts read it at `/debug/audit`.
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// How many entries the log keeps (the oldest are dropped first).
pub const AUDIT_CAPACITY: usize = 100_000;

/// One request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditEntry {
    /// Position in the log, from 1.
    pub seq: u64,
    /// get, list, watch, create, update, patch, delete, deletecollection; for non-resource
    /// paths the lower-case HTTP method.
    pub verb: String,
    /// Plural resource (`pods`), empty for non-resource paths (discovery, /version).
    pub resource: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    pub path: String,
    pub query: String,
    pub user_agent: String,
    pub code: u16,
}

#[derive(Debug, Default)]
struct Log {
    next_seq: u64,
    entries: VecDeque<AuditEntry>,
}

/// A shared, bounded audit log. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct AuditLog {
    inner: Arc<Mutex<Log>>,
}

impl AuditLog {
    /// An empty log.
    pub fn new() -> AuditLog {
        AuditLog::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Append an entry (its `seq` is assigned here).
    pub fn record(&self, mut entry: AuditEntry) {
        let mut log = self.lock();
        log.next_seq += 1;
        entry.seq = log.next_seq;
        log.entries.push_back(entry);
        while log.entries.len() > AUDIT_CAPACITY {
            log.entries.pop_front();
        }
    }

    /// Every retained entry, oldest first.
    pub fn entries(&self) -> Vec<AuditEntry> {
        self.lock().entries.iter().cloned().collect()
    }

    /// Entries whose user agent starts with `prefix` (`kubectl/`, `daemonscope`).
    pub fn by_user_agent(&self, prefix: &str) -> Vec<AuditEntry> {
        self.lock()
            .entries
            .iter()
            .filter(|e| e.user_agent.starts_with(prefix))
            .cloned()
            .collect()
    }

    /// The distinct verbs used on resources by clients whose user agent starts with `prefix`.
    pub fn verbs_of(&self, prefix: &str) -> std::collections::BTreeSet<String> {
        self.by_user_agent(prefix)
            .into_iter()
            .filter(|e| !e.resource.is_empty())
            .map(|e| e.verb)
            .collect()
    }
}
