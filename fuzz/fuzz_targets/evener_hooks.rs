//! Any text as an evener hooks.json: parsing and loading never panic.
#![no_main]

use std::path::Path;

use latch::config::json;
use latch::dialect::evener::load::load_config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(node) = json::parse(text) {
        let _ = load_config(&node, Path::new("hooks.json"), "fuzz", Path::new("/plugin"));
    }
});
