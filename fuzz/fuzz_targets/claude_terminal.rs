//! Any text as a claude hook's `terminalSequence` or `sessionTitle`:
//! checking and cleaning never panic; a sequence that passes is made of
//! BELs and BEL-ended OSCs only and passes again unchanged; a title keeps
//! no control character and at most 200 characters.
#![no_main]

use latch::dialect::claude::{terminal, title};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(sequence) = terminal::normalize(text) {
        assert_eq!(terminal::normalize(&sequence), Ok(sequence.clone()));
        assert!(!sequence.contains("\u{1b}\\"), "{sequence:?}");
    }
    if let Some(t) = title::clean(text) {
        assert!(!t.chars().any(terminal::is_control), "{t:?}");
        assert!(t.chars().count() <= 200);
    }
});
