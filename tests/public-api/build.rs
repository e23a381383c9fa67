//! Collects the `# Example` code of every public module of latch (the
//! `//!` header of each file below) into one Markdown file, which
//! `src/lib.rs` runs as doc tests against the public API alone.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The files of latch's public modules: the `pub mod` lines of
/// `src/lib.rs`, `src/dialect/mod.rs` and each dialect's `mod.rs` (so a
/// new public module is checked without a change here).
fn public_modules(src: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut parents = vec![
        ("lib.rs".to_owned(), String::new()),
        ("dialect/mod.rs".to_owned(), "dialect/".to_owned()),
    ];
    println!("cargo::rerun-if-changed={}", src.join("dialect").display());
    let dialects = std::fs::read_dir(src.join("dialect"))
        .unwrap_or_else(|e| panic!("cannot list src/dialect: {e}"));
    for entry in dialects.flatten() {
        if entry.path().join("mod.rs").exists() {
            let name = entry.file_name().to_string_lossy().into_owned();
            parents.push((format!("dialect/{name}/mod.rs"), format!("dialect/{name}/")));
        }
    }
    parents.sort();
    for (parent, dir) in parents {
        let path = src.join(parent);
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for line in text.lines() {
            let Some(name) = line
                .strip_prefix("pub mod ")
                .and_then(|rest| rest.strip_suffix(';'))
            else {
                continue;
            };
            let flat = src.join(format!("{dir}{name}.rs"));
            files.push(if flat.exists() {
                flat
            } else {
                src.join(format!("{dir}{name}/mod.rs"))
            });
        }
    }
    assert!(
        files.len() >= 15,
        "the public modules were not found: {files:?}"
    );
    files
}

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
    let mut markdown = String::new();
    for path in public_modules(&src) {
        let file = path
            .strip_prefix(&src)
            .unwrap_or(&path)
            .display()
            .to_string();
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
