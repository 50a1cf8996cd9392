//! A tick that advances every `period` while a component lives in the browser.
//!
//! Why: some page data changes without any live delta (a repeated Event, a label no rule
//! reads), so the sections showing it re-read on a slow timer. On the server it never
//! ticks: effects run only in the browser.

use leptos::prelude::*;
use std::time::Duration;

/// A counter that goes up every `period`; use it as a Resource source to re-read.
pub fn poll_tick(period: Duration) -> ReadSignal<u64> {
    let tick = RwSignal::new(0u64);
    Effect::new(move |_| {
        if let Ok(handle) = set_interval_with_handle(move || tick.update(|t| *t += 1), period) {
            on_cleanup(move || handle.clear());
        }
    });
    tick.read_only()
}
