//! Reading the event of `latch fire` and `latch explain`: bounded, and only
//! from a regular file or stdin.
//!
//! The event comes from the harness, but a path on the command line may
//! name anything: a FIFO whose writer never closes, `/dev/zero`, a
//! directory. A file is opened with `O_NONBLOCK` (so opening a FIFO cannot
//! block) and checked with `fstat` on the opened descriptor (so nothing can
//! be swapped in between the check and the read); anything but a regular
//! file is refused. Both a file and stdin are read through `take`, so at
//! most the limit plus one byte is ever buffered, however much is offered.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest event latch reads by default: 16 MiB.
pub const DEFAULT_MAX_EVENT: u64 = 16 * 1024 * 1024;

/// The environment variable that changes the limit, in bytes.
pub const MAX_EVENT_VAR: &str = "LATCH_MAX_EVENT_BYTES";

/// The event size limit: `$LATCH_MAX_EVENT_BYTES` when set (a positive
/// number of bytes), else [`DEFAULT_MAX_EVENT`]. An unset or empty variable
/// means the default; anything else that is not a positive integer is an
/// error, so a typo never silently lifts or lowers the limit.
pub fn max_event_bytes() -> Result<u64, String> {
    match std::env::var(MAX_EVENT_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_MAX_EVENT),
        Ok(v) if v.is_empty() => Ok(DEFAULT_MAX_EVENT),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "{MAX_EVENT_VAR}={v:?} is not a positive number of bytes"
            )),
        },
        Err(std::env::VarError::NotUnicode(v)) => Err(format!(
            "{MAX_EVENT_VAR}={v:?} is not a positive number of bytes"
        )),
    }
}

/// Reads the event bytes from `path`, refusing anything but a regular file
/// of at most `max` bytes.
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let file = open_regular(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max {
        return Err(too_big(&shown.to_string(), max));
    }
    read_capped(file, max, len).map_err(|e| match e {
        Capped::TooBig => too_big(&shown.to_string(), max),
        Capped::Io(e) => format!("cannot read {shown}: {e}"),
    })
}

/// Reads the event bytes from stdin, at most `max` of them.
pub fn read_stdin(max: u64) -> Result<Vec<u8>, String> {
    read_capped(io::stdin().lock(), max, 0).map_err(|e| match e {
        Capped::TooBig => too_big("the event on stdin", max),
        Capped::Io(e) => format!("cannot read the event from stdin: {e}"),
    })
}

fn too_big(what: &str, max: u64) -> String {
    format!(
        "{what} is larger than the event size limit of {max} bytes{}; set {MAX_EVENT_VAR} to change the limit",
        mib(max)
    )
}

/// ` (16 MiB)` for a whole number of MiB, else nothing.
fn mib(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!(" ({} MiB)", bytes / MIB)
    } else {
        String::new()
    }
}

/// Opens `path` for reading without blocking and checks, on the opened
/// descriptor, that it is a regular file.
fn open_regular(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
    )?;
    let file = File::from(fd);
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(io::Error::other(format!(
        "it is {what}, not a regular file; give the event as a regular file or on stdin"
    )))
}

enum Capped {
    TooBig,
    Io(io::Error),
}

/// Reads to the end, keeping at most `max` bytes; one byte more is an error.
/// `hint` is the expected size (a file's length): one allocation of the
/// right size instead of doubling up to twice the event.
fn read_capped(reader: impl Read, max: u64, hint: u64) -> Result<Vec<u8>, Capped> {
    let mut bytes = Vec::with_capacity(usize::try_from(hint.min(max)).unwrap_or(0));
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    if bytes.len() as u64 > max {
        return Err(Capped::TooBig);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_up_to_the_limit_and_refuses_one_byte_more() {
        assert_eq!(read_capped(&b"abcd"[..], 4, 0).ok(), Some(b"abcd".to_vec()));
        assert!(matches!(
            read_capped(&b"abcde"[..], 4, 9),
            Err(Capped::TooBig)
        ));
        assert!(matches!(
            read_capped(io::repeat(0), 1000, 0),
            Err(Capped::TooBig)
        ));
    }

    #[test]
    fn names_the_limit_in_mib() {
        assert_eq!(mib(DEFAULT_MAX_EVENT), " (16 MiB)");
        assert_eq!(mib(1000), "");
    }
}
