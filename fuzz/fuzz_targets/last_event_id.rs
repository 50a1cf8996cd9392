//! The SSE `Last-Event-ID` header of `/api/live`: any bytes are a version or a refusal, and a
//! version reads back from its own decimal form (what the server sends as the event id).
#![no_main]

use daemonscope_domain::resume::parse_last_event_id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(version) = parse_last_event_id(data) {
        assert_eq!(parse_last_event_id(version.to_string().as_bytes()), Ok(version));
    }
});
