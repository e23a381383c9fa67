//! Any text as a hook's shell script, read the way `latch convert` reads
//! one (bash-only constructs, variables read): never panics, never hangs,
//! and every variable it reports is a shell name.
#![no_main]

use latch::convert::shell::scan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|script: &str| {
    let used = scan(script);
    for name in &used.reads {
        let mut chars = name.chars();
        assert!(
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_'),
            "{name:?}"
        );
        assert!(
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{name:?}"
        );
        assert!(script.contains(name.as_str()));
    }
});
