//! Reading configuration text into located trees.
//!
//! Every dialect's file is parsed into a [`yaml::Node`] tree first, where
//! every value carries its line and column. Dialects then validate the tree
//! by hand, which lets them report *every* problem of a file at once, each at
//! its exact position, and keep the hooks that are fine.

pub mod duration;
pub mod files;
pub mod json;
pub mod yaml;
mod yaml_fast;

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// An environment variable naming a path; unset and empty are the same.
pub fn env_path(key: &str) -> Option<PathBuf> {
    std::env::var_os(key)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The largest configuration file latch reads.
pub const MAX_CONFIG_FILE: u64 = 8 * 1024 * 1024;

/// Reads a file a project or user controls, refusing anything but a
/// regular file of at most `max` bytes: a FIFO, a device such as
/// `/dev/zero` (or a link to one) or a huge file must not stall or
/// exhaust loading. A missing file keeps its `NotFound` kind.
///
/// Inside [`files::load_with`], a replaced file is not read at all, and
/// every file read is recorded.
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    files::looked_at(path);
    if let Some(replaced) = files::replaced(path) {
        return replaced;
    }
    let bytes = read_bounded_from_disk(path, max)?;
    files::record(path, &bytes);
    Ok(bytes)
}

fn read_bounded_from_disk(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let not_regular = || io::Error::other("it is not a regular file");
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => dangling(path).unwrap_or(e),
        _ => e,
    })?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    // Opened without blocking, and checked again once open: a FIFO swapped
    // in after the check above must not block the open or the read.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let too_big = |len: u64| io::Error::other(format!("it has {len} bytes, more than {max}"));
    if meta.len() > max {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    // The file may grow between the check and the read.
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// A symbolic link whose target does not exist, as an error that is not
/// `NotFound`: a loader passes a missing file by, but a configuration file
/// that is a broken link is a mistake to report.
fn dangling(path: &Path) -> Option<io::Error> {
    let link = std::fs::read_link(path).ok()?;
    Some(io::Error::other(format!(
        "it is a symbolic link to {}, which does not exist",
        link.display()
    )))
}

/// [`read_bounded`] as UTF-8 text; invalid UTF-8 is an `InvalidData` error
/// that says where (see [`utf8_place`]).
pub fn read_bounded_text(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("it is not valid UTF-8 at {}", utf8_place(&e)),
        )
    })
}

/// Where the first byte that is not UTF-8 is: `line 2, column 9 (byte
/// 33)`, the column in characters, as an editor counts.
pub fn utf8_place(e: &std::string::FromUtf8Error) -> String {
    let at = e.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
    let line = valid.matches('\n').count() + 1;
    let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column} (byte {at})")
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn the_place_of_invalid_utf8_counts_lines_and_characters() {
        let bytes = b"ab\n\xc3\xa9x\xff".to_vec();
        let e = String::from_utf8(bytes).expect_err("invalid");
        assert_eq!(super::utf8_place(&e), "line 2, column 3 (byte 6)");
        let e = String::from_utf8(vec![0xff]).expect_err("invalid");
        assert_eq!(super::utf8_place(&e), "line 1, column 1 (byte 0)");
    }
}
