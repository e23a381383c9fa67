//! Reading configuration text into located trees.
//!
//! Every dialect's file is parsed into a [`yaml::Node`] tree first, where
//! every value carries its line and column. Dialects then validate the tree
//! by hand, which lets them report *every* problem of a file at once, each at
//! its exact position, and keep the hooks that are fine.

pub mod duration;
pub mod json;
pub mod yaml;

use std::path::{Component, Path, PathBuf};

/// Resolves `.` and `..` lexically (no file system access, no symlinks).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
