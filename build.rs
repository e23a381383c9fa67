//! Records the git commit latch is built from, for `latch --version`:
//! `LATCH_COMMIT` is ` (commit <short hash>)` (with `-dirty` when the
//! tree has changes), or empty when the source is not a git checkout (a packaged
//! crate) or git is missing.

use std::path::Path;
use std::process::Command;

fn main() {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let commit = if Path::new(".git").exists() {
        git(&["rev-parse", "--short=12", "HEAD"])
            .map(|hash| {
                let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                    .is_some_and(|s| !s.is_empty());
                if dirty { format!("{hash}-dirty") } else { hash }
            })
            .unwrap_or_default()
    } else {
        String::new()
    };
    let shown = if commit.is_empty() {
        String::new()
    } else {
        format!(" (commit {commit})")
    };
    println!("cargo:rustc-env=LATCH_COMMIT={shown}");
    // A new commit or checkout changes HEAD or the branch it names.
    println!("cargo:rerun-if-changed=.git/HEAD");
    if let Some(head) = std::fs::read_to_string(".git/HEAD")
        .ok()
        .and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_owned()))
    {
        println!("cargo:rerun-if-changed=.git/{head}");
    }
    println!("cargo:rerun-if-changed=.git/packed-refs");
}
