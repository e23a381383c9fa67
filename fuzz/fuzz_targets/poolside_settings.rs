//! Any text as a poolside settings file: loading never panics, and every
//! diagnostic position lies inside the text.
#![no_main]

use std::path::Path;

use latch::dialect::poolside::load::{Level, load_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let (_cfg, diags) = load_file(Path::new("settings.yaml"), Level::Project, text);
    // YAML breaks lines at \n, \r\n and a lone \r.
    let lines = 2 + text
        .replace("\r\n", "\n")
        .chars()
        .filter(|c| *c == '\n' || *c == '\r')
        .count() as u32;
    for d in diags {
        if let Some(p) = d.position {
            assert!(p.line >= 1 && p.line <= lines, "line {} of {lines}", p.line);
        }
    }
});
