//! `labels.Parse`, the label-selector syntax of the `labelSelector` query parameter and of the
//! matrix's node filter: any text is a selector or a refusal, never a panic, and a selector
//! that parses answers `matches` for any label set (here the input's own `k=v` pairs).
#![no_main]

use daemonscope_domain::facts::Labels;
use daemonscope_domain::labels::LabelSelector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(selector) = LabelSelector::parse(text) else {
        return;
    };
    let labels: Labels = text
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let _ = selector.matches(&labels);
    // The empty selector, and only it, selects everything without a requirement.
    if selector.is_empty() {
        assert!(selector.matches(&Labels::new()));
    }
});
