//! Any text as a Go duration: the parser never panics or overflows, and a
//! parsed value written back in nanoseconds parses to the same value.
#![no_main]

use latch::config::duration::parse_go_duration;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(n) = parse_go_duration(text) {
        assert_eq!(parse_go_duration(&format!("{n}ns")), Ok(n));
    }
});
