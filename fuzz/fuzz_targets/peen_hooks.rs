//! Any text as a peen `.agents/hooks.yaml`: loading never panics (globs,
//! regexes and JSON Pointers included), and every position it reports, of a
//! problem or of a loaded group or action, lies inside the text.
#![no_main]

use std::path::Path;

use latch::dialect::peen::load::load_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    // A workspace that does not exist: a `messageFile` is never found
    // (unless it names an absolute path, which is read bounded).
    let path = Path::new("/nonexistent-latch-fuzz/.agents/hooks.yaml");
    // YAML breaks lines at \n, \r\n and a lone \r.
    let lines = 2 + text
        .replace("\r\n", "\n")
        .chars()
        .filter(|c| *c == '\n' || *c == '\r')
        .count() as u32;
    let inside = |p: Option<latch::Position>| {
        if let Some(p) = p {
            assert!(p.line >= 1 && p.line <= lines, "line {} of {lines}", p.line);
            assert!(p.column >= 1, "column {}", p.column);
        }
    };
    match load_file(path, text) {
        Ok(file) => {
            for g in &file.groups {
                inside(g.source.position);
                for a in &g.actions {
                    inside(a.source.position);
                }
            }
        }
        Err(diags) => {
            assert!(!diags.is_empty(), "an invalid file says why");
            for d in diags {
                inside(d.position);
            }
        }
    }
});
