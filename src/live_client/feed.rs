//! The EventSource connection to the view the page on screen follows (browser only):
//! `/api/view?<matrix query>`, `/api/view/node/…` or `/api/view/ds/…`.
//!
//! Why hand-rolled on web-sys: EventSource already resumes with `Last-Event-ID` after a
//! network error; this module adds what it lacks: one connection per page load that moves
//! when the page does, a reconnect with backoff when the browser gives up (readyState
//! CLOSED), and the "stale since" clock for the banner.

use super::{ConnState, Feed, LiveHub};
use leptos::prelude::{GetUntracked, Set};
use std::cell::RefCell;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

/// The open connection and the callbacks it needs kept alive.
struct Connection {
    feed: Feed,
    source: EventSource,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static CURRENT: RefCell<Option<Connection>> = const { RefCell::new(None) };
}

/// Unix seconds now, from the browser clock.
fn now_seconds() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Follows `feed`: keeps the open connection when it already is that feed, else closes it
/// and opens `feed`.
pub fn follow(hub: LiveHub, feed: Feed) {
    let same = CURRENT.with(|c| c.borrow().as_ref().is_some_and(|conn| conn.feed == feed));
    if !same {
        connect(hub, feed, 0);
    }
}

fn mark_lost(hub: &LiveHub) {
    if !matches!(hub.conn.get_untracked(), ConnState::Lost { .. }) {
        hub.conn.set(ConnState::Lost {
            since: now_seconds(),
        });
    }
}

fn connect(hub: LiveHub, feed: Feed, attempt: u32) {
    let url = feed.url().to_string();
    let source = match EventSource::new(&url) {
        Ok(s) => s,
        Err(e) => {
            leptos::logging::warn!("cannot open {url}: {e:?}");
            mark_lost(&hub);
            retry(hub, feed, attempt);
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
        match h.apply_view(&text) {
            Ok(()) => {
                if h.conn.get_untracked() != ConnState::Live {
                    h.conn.set(ConnState::Live);
                }
            }
            Err(e) => leptos::logging::warn!("live feed: {e}"),
        }
    });

    let h = hub.clone();
    let reconnect_feed = feed.clone();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_ev: web_sys::Event| {
        mark_lost(&h);
        let closed = CURRENT.with(|c| {
            c.borrow()
                .as_ref()
                .is_some_and(|conn| conn.source.ready_state() == EventSource::CLOSED)
        });
        if closed {
            // The browser gave up (e.g. an HTTP error status): reconnect ourselves, unless
            // the page moved to another feed meanwhile.
            let h2 = h.clone();
            let again = reconnect_feed.clone();
            leptos::prelude::set_timeout(
                move || {
                    let still = CURRENT
                        .with(|c| c.borrow().as_ref().is_some_and(|conn| conn.feed == again));
                    if still {
                        connect(h2, again, attempt + 1);
                    }
                },
                backoff(attempt),
            );
        }
    });

    source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));

    let old = CURRENT.with(|c| {
        c.borrow_mut().replace(Connection {
            feed,
            source,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
    if let Some(old) = old {
        old.source.close();
    }
}

fn retry(hub: LiveHub, feed: Feed, attempt: u32) {
    leptos::prelude::set_timeout(move || connect(hub, feed, attempt + 1), backoff(attempt));
}

/// 1 s, 2 s, 4 s … capped at 15 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((1000u64 << attempt.min(4)).min(15_000))
}
