//! Any matcher and name: classification and the folded index agree with
//! matching one by one.
#![no_main]

use latch::matcher::{NameIndex, NameMatcher, RegexMode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str, bool)| {
    let (pattern, name, search) = input;
    let mode = if search {
        RegexMode::Search
    } else {
        RegexMode::WholeName
    };
    if let Ok(m) = NameMatcher::parse_with(pattern, mode) {
        let idx = NameIndex::build([(0, &m)]);
        assert_eq!(idx.select(name) == vec![0], m.matches(name));
    }
});
