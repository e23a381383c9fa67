//! Collects the `# Example` code of every public module of latch (the
//! `//!` header of each file below) into one Markdown file, which
//! `src/lib.rs` runs as doc tests against the public API alone.

use std::fmt::Write as _;
use std::path::Path;

/// The files of latch's public modules (docs/embedding.md lists them).
const PUBLIC_MODULES: &[&str] = &[
    "audit.rs",
    "background.rs",
    "cli/mod.rs",
    "diag.rs",
    "dialect/mod.rs",
    "dialect/claude/mod.rs",
    "dialect/evener/mod.rs",
    "dialect/peen/mod.rs",
    "dialect/poolside/mod.rs",
    "engine.rs",
    "event.rs",
    "explain.rs",
    "journal.rs",
    "outcome.rs",
    "run/mod.rs",
    "session.rs",
    "telemetry.rs",
    "trust/mod.rs",
    "vocabulary/mod.rs",
];

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
    let mut markdown = String::new();
    for file in PUBLIC_MODULES {
        let path = src.join(file);
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let header: Vec<&str> = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| {
                l.strip_prefix("//! ")
                    .unwrap_or(l.trim_start_matches("//!"))
            })
            .collect();
        let _ = writeln!(markdown, "## {file}\n");
        for line in header {
            let _ = writeln!(markdown, "{line}");
        }
        markdown.push('\n');
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("modules.md");
    std::fs::write(&out, markdown).expect("OUT_DIR is writable");
}
