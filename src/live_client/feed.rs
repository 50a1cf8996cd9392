//! The EventSource connection to `/api/live` (browser only).
//!
//! Why hand-rolled on web-sys: EventSource already resumes with `Last-Event-ID` after a
//! network error; this module adds what it lacks: a reconnect with backoff when the browser
//! gives up (readyState CLOSED), and the "stale since" clock for the banner.

use super::{ConnState, LiveHub};
use crate::domain::view::LiveMessage;
use leptos::prelude::{GetUntracked, Set};
use std::cell::RefCell;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

/// Where the server publishes the feed.
pub const LIVE_URL: &str = "/api/live";

/// The open connection and the callbacks it needs kept alive.
struct Connection {
    source: EventSource,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
    _on_open: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static CURRENT: RefCell<Option<Connection>> = const { RefCell::new(None) };
}

/// Unix seconds now, from the browser clock.
fn now_seconds() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Opens the feed once per page load; later calls do nothing.
pub fn start(hub: LiveHub) {
    let running = CURRENT.with(|c| c.borrow().is_some());
    if !running {
        connect(hub, 0);
    }
}

fn mark_lost(hub: &LiveHub) {
    if !matches!(hub.conn.get_untracked(), ConnState::Lost { .. }) {
        hub.conn.set(ConnState::Lost {
            since: now_seconds(),
        });
    }
}

fn connect(hub: LiveHub, attempt: u32) {
    let source = match EventSource::new(LIVE_URL) {
        Ok(s) => s,
        Err(e) => {
            leptos::logging::warn!("cannot open {LIVE_URL}: {e:?}");
            mark_lost(&hub);
            retry(hub, attempt);
            return;
        }
    };
    if hub.conn.get_untracked() == ConnState::Idle {
        hub.conn.set(ConnState::Connecting);
    }

    let h = hub.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = ev.data().as_string() else {
            return;
        };
        match serde_json::from_str::<LiveMessage>(&text) {
            Ok(msg) => {
                if let Err(e) = h.apply(msg) {
                    leptos::logging::warn!("live feed: {e}");
                }
                if h.conn.get_untracked() != ConnState::Live {
                    h.conn.set(ConnState::Live);
                }
            }
            Err(e) => leptos::logging::warn!("live feed: message is not a LiveMessage: {e}"),
        }
    });

    let h = hub.clone();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_ev: web_sys::Event| {
        mark_lost(&h);
        let closed = CURRENT.with(|c| {
            c.borrow()
                .as_ref()
                .is_some_and(|conn| conn.source.ready_state() == EventSource::CLOSED)
        });
        if closed {
            // The browser gave up (e.g. an HTTP error status): reconnect ourselves.
            let h2 = h.clone();
            leptos::prelude::set_timeout(move || connect(h2, attempt + 1), backoff(attempt));
        }
    });

    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_ev: web_sys::Event| {});

    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));

    let old = CURRENT.with(|c| {
        c.borrow_mut().replace(Connection {
            source,
            _on_message: on_message,
            _on_error: on_error,
            _on_open: on_open,
        })
    });
    if let Some(old) = old {
        old.source.close();
    }
}

fn retry(hub: LiveHub, attempt: u32) {
    leptos::prelude::set_timeout(move || connect(hub, attempt + 1), backoff(attempt));
}

/// 1 s, 2 s, 4 s … capped at 15 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((1000u64 << attempt.min(4)).min(15_000))
}
