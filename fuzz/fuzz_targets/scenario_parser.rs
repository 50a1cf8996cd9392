//! The scenario parser behind `daemonscope sim --scenario FILE`: any bytes must become a
//! scenario or a `ScenarioError` naming the document, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = daemonscope_sim::scenario::parse_str(&text, "fuzz.yaml");
});
