//! Resource quantities (§j.1): any string parses or is refused with one of Kubernetes' three
//! errors, never panics; a parsed value survives its own spelling and the scheduler's
//! conversions saturate instead of wrapping.
#![no_main]

use daemonscope_domain::resources::Quantity;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(q) = Quantity::parse(&text) {
        let again = Quantity::parse(&q.to_string()).expect("a quantity's own spelling parses");
        assert_eq!(again, q, "{text:?} printed as {q}");
        let (milli, value) = (q.milli_value(), q.value());
        if q.is_negative() {
            assert!(milli <= 0 && value <= 0, "{text:?}");
        } else {
            assert!(milli >= value && value >= 0, "{text:?}: {milli} {value}");
        }
        let _ = q.saturating_add(q).saturating_sub(q);
    }
});
