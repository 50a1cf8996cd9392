//! The manifest loader behind `daemonscope explain --node FILE --daemonset FILE`: any bytes,
//! as JSON or YAML, must load or be refused with an error, never panic; what loads goes on
//! through the conversions and the placement rules the CLI applies next.
#![no_main]

use daemonscope_domain::scheduling::placement;
use daemonscope_edge::convert::{self, load};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let node = load::node_from_text(&text).ok().map(|n| convert::node_facts(&n));
    let daemonset = load::daemonset_from_text(&text)
        .ok()
        .and_then(|ds| convert::daemonset_facts(&ds).ok());
    if let (Some(node), Some(daemonset)) = (node, daemonset) {
        let _ = placement(&node, &daemonset.template);
    }
});
