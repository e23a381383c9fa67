//! Any bytes as an event, read the way `latch fire` reads one: parsing and
//! validating never panic, and a valid event written back out is still a
//! valid event.
#![no_main]

use latch::Event;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(event) = serde_json::from_slice::<Event>(bytes) else {
        return;
    };
    if event.validate().is_err() {
        return;
    }
    let again = serde_json::to_vec(&event).expect("a parsed event serializes");
    let back: Event = serde_json::from_slice(&again).expect("a written event parses");
    assert!(
        back.validate().is_ok(),
        "{}",
        String::from_utf8_lossy(&again)
    );
});
