//! Any text as a poolside settings file: loading never panics, and every
//! diagnostic position lies inside the text.
#![no_main]

use std::path::Path;

use latch::dialect::poolside::load::{Level, load_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let (_cfg, diags) = load_file(Path::new("settings.yaml"), Level::Project, text);
    let lines = text.lines().count().max(1) as u32 + 1;
    for d in diags {
        if let Some(p) = d.position {
            assert!(p.line >= 1 && p.line <= lines, "line {} of {lines}", p.line);
        }
    }
});
