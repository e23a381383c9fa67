//! Any text as YAML: `config::yaml::parse` (which builds plain documents
//! straight from the parser's events) gives exactly what serde-saphyr
//! gives, tree, positions and errors alike.
#![no_main]

use latch::config::yaml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let fast = yaml::parse(text);
    let slow = yaml::parse_with_serde_saphyr(text);
    // Compared as text so that a NaN equals itself.
    assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}");
});
