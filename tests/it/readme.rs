//! The README's worked example is real output.

use serde_json::Value;

use crate::util::latch;

/// The first ```json block of the README.
fn readme_outcome() -> Value {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("```json\n").unwrap() + "```json\n".len();
    let end = start + readme[start..].find("```").unwrap();
    serde_json::from_str(&readme[start..end]).unwrap()
}

/// Drops what changes between machines and runs: durations and absolute paths.
fn normalize(mut v: Value) -> Value {
    for run in v["runs"].as_array_mut().unwrap() {
        run["duration_ms"] = Value::Null;
        let file = run["source"]["file"].as_str().unwrap();
        let tail = &file[file.find("examples/poolside").unwrap()..];
        run["source"]["file"] = Value::from(tail);
    }
    v
}

#[test]
fn the_readme_fire_example_matches_real_output() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/poolside");
    let state = tempfile::tempdir().unwrap();
    let out = latch()
        .current_dir(dir)
        .args([
            "fire",
            "--event",
            "events/shell-sudo.json",
            "--pretty",
            "--home",
        ])
        .arg(state.path())
        .arg("--state-dir")
        .arg(state.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(normalize(got), normalize(readme_outcome()));
}
