//! File work under the state directory that never follows a link and never
//! blocks on a special file.
//!
//! Everything below the state root is reached relative to a directory file
//! descriptor opened with `O_NOFOLLOW | O_DIRECTORY`, so a symbolic link
//! planted where a directory or file should be is an error naming the path,
//! never something latch writes through or changes the mode of. Files are
//! opened only if they are regular files (`O_NOFOLLOW | O_NONBLOCK`, checked
//! before and, with `fstat`, after opening), so a FIFO or a device at
//! `state.json` cannot block or feed latch.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// The largest `state.json` latch reads; a larger one is unusable.
pub const MAX_STATE_BYTES: u64 = 8 << 20;

/// The state file's name in a session directory.
pub const STATE_FILE: &str = "state.json";

/// A file type, for people.
fn type_name(t: FileType) -> &'static str {
    match t {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "a file of unknown type",
    }
}

/// The error for `path` being of type `found` where `wanted` should be.
fn wrong_type(path: &Path, found: FileType, wanted: &str) -> io::Error {
    let why = if found == FileType::Symlink {
        format!(
            "{} is a symbolic link; latch does not follow links in its state directory",
            path.display()
        )
    } else {
        format!("{} is {}, not {wanted}", path.display(), type_name(found))
    };
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// An I/O error naming the path.
pub fn at_path(path: &Path, what: &str, e: impl Into<io::Error>) -> io::Error {
    let e = e.into();
    io::Error::new(e.kind(), format!("cannot {what} {}: {e}", path.display()))
}

/// The type of `name` in `dir`, without following a link (`None` if missing).
fn type_at(dir: impl AsFd, name: &str) -> Result<Option<FileType>, Errno> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(FileType::from_raw_mode(st.st_mode))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens the state root `path`, creating it (0700, with its parents) if
/// it is missing. The root may be a directory the user chose (even
/// `$HOME`): an existing one is never changed.
pub fn create_root(path: &Path) -> io::Result<OwnedFd> {
    use std::os::unix::fs::DirBuilderExt;
    if !path.is_dir() {
        match std::fs::DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(path)
        {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(at_path(path, "create", e)),
        }
    }
    open_root(path)
}

/// Opens directory `path` (a link is followed: the state root is the
/// user's choice).
pub fn open_root(path: &Path) -> io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| at_path(path, "open the state directory", e))
}

/// Creates (mode 0700) or opens the directory `name` in `parent`, which
/// `path` names for messages, and makes it private: it must be a directory
/// (not a link to one) owned by the effective user; group and other
/// permissions are removed through the opened descriptor.
pub fn private_subdir(parent: impl AsFd, name: &str, path: &Path) -> io::Result<OwnedFd> {
    let parent = parent.as_fd();
    match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o700)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(at_path(path, "create", e)),
    }
    let flags =
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(parent, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(e @ (Errno::LOOP | Errno::NOTDIR)) => {
            return Err(match type_at(parent, name) {
                Ok(Some(t)) if t != FileType::Directory => wrong_type(path, t, "a directory"),
                _ => at_path(path, "open", e),
            });
        }
        Err(e) => return Err(at_path(path, "open", e)),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| at_path(path, "inspect", e))?;
    let t = FileType::from_raw_mode(st.st_mode);
    if t != FileType::Directory {
        return Err(wrong_type(path, t, "a directory"));
    }
    let me = rustix::process::geteuid().as_raw();
    if st.st_uid != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to user {}, not to you (user {me}); latch does not use it",
                path.display(),
                st.st_uid
            ),
        ));
    }
    if st.st_mode & 0o077 != 0 {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))
            .map_err(|e| at_path(path, "make private", e))?;
    }
    Ok(fd)
}

/// Opens `name` in `dir` only if it is a regular file (or, with
/// `OFlags::CREATE`, missing and then created 0600), never following a
/// link and never blocking on a FIFO. `path` names it for messages.
pub fn open_regular(dir: impl AsFd, name: &str, path: &Path, flags: OFlags) -> io::Result<File> {
    open_if_present(dir, name, path, flags)?.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} does not exist", path.display()),
        )
    })
}

/// [`open_regular`], with `None` for a file that does not exist (without
/// `OFlags::CREATE`): a state file most sessions never write costs no
/// error message on every event.
fn open_if_present(
    dir: impl AsFd,
    name: &str,
    path: &Path,
    flags: OFlags,
) -> io::Result<Option<File>> {
    let dir = dir.as_fd();
    match type_at(dir, name) {
        Ok(Some(FileType::RegularFile)) => {}
        Ok(Some(t)) => return Err(wrong_type(path, t, "a regular file")),
        Ok(None) if !flags.contains(OFlags::CREATE) => return Ok(None),
        Ok(None) => {}
        Err(e) => return Err(at_path(path, "inspect", e)),
    }
    let flags = flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o600)) {
        Ok(fd) => fd,
        Err(e @ (Errno::LOOP | Errno::NXIO | Errno::ISDIR)) => {
            return Err(match type_at(dir, name) {
                Ok(Some(t)) if t != FileType::RegularFile => wrong_type(path, t, "a regular file"),
                _ => at_path(path, "open", e),
            });
        }
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(at_path(path, "open", e)),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| at_path(path, "inspect", e))?;
    let t = FileType::from_raw_mode(st.st_mode);
    if t != FileType::RegularFile {
        return Err(wrong_type(path, t, "a regular file"));
    }
    Ok(Some(File::from(fd)))
}

/// Reads `state.json` of the session directory `dir` (named `path`): at
/// most [`MAX_STATE_BYTES`], `None` when it does not exist.
pub fn read_state_bytes(dir: impl AsFd, path: &Path) -> io::Result<Option<Vec<u8>>> {
    read_file_bytes(dir, path, STATE_FILE)
}

/// Reads the file `name` of the session directory `dir` (named `path`):
/// at most [`MAX_STATE_BYTES`], `None` when it does not exist.
pub fn read_file_bytes(dir: impl AsFd, path: &Path, name: &str) -> io::Result<Option<Vec<u8>>> {
    let file_path = path.join(name);
    let Some(file) = open_if_present(dir, name, &file_path, OFlags::RDONLY)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    file.take(MAX_STATE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| at_path(&file_path, "read", e))?;
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is larger than {} MiB; latch does not read it",
                file_path.display(),
                MAX_STATE_BYTES >> 20
            ),
        ));
    }
    Ok(Some(bytes))
}

/// Replaces `state.json` of the session directory `dir` (named `path`)
/// with `bytes`, durably: a temporary file created with `O_EXCL |
/// O_NOFOLLOW`, fsynced, renamed into place, then the directory fsynced.
/// The caller holds the session's exclusive lock, so every temporary file
/// it finds of this process or of a dead one is stale and removed first.
pub fn write_state_bytes(dir: impl AsFd, path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file_bytes(dir, path, STATE_FILE, bytes)
}

/// Replaces the file `name` of the session directory `dir` (named `path`)
/// with `bytes`, as [`write_state_bytes`] replaces `state.json`.
pub fn write_file_bytes(dir: impl AsFd, path: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let dir = dir.as_fd();
    remove_stale_temps(dir, path, name);
    let me = std::process::id();
    let tmp = format!("{name}.{me}.tmp");
    let tmp_path = path.join(&tmp);
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::EXCL
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, tmp.as_str(), flags, Mode::from_raw_mode(0o600))
        .map_err(|e| at_path(&tmp_path, "create", e))?;
    let mut file = File::from(fd);
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| at_path(&tmp_path, "write", e))
        .and_then(|()| {
            rustix::fs::renameat(dir, tmp.as_str(), dir, name)
                .map_err(|e| at_path(&path.join(name), "replace", e))
        });
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(dir, tmp.as_str(), AtFlags::empty());
        return Err(e);
    }
    // The rename is durable only once the directory entry is on disk.
    rustix::fs::fsync(dir).map_err(|e| at_path(path, "sync", e))
}

/// Removes `<name>.<pid>.tmp` entries left by this process or by a
/// writer that is no longer alive (the entry itself: a link is removed,
/// never followed). Best effort: a failure leaves the entry.
fn remove_stale_temps(dir: impl AsFd, path: &Path, name: &str) {
    let dir = dir.as_fd();
    let Ok(mut listing) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    let me = std::process::id();
    let prefix = format!("{name}.");
    let mut stale = Vec::new();
    while let Some(Ok(entry)) = listing.read() {
        let Ok(name) = entry.file_name().to_str() else {
            continue;
        };
        let Some(pid) = name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".tmp"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me || !pid_alive(pid) {
            stale.push(name.to_owned());
        }
    }
    for name in stale {
        if rustix::fs::unlinkat(dir, name.as_str(), AtFlags::empty()).is_ok() {
            tracing::debug!(file = %path.join(&name).display(), "removed a stale temporary state file");
        }
    }
}

/// Whether a process with this id exists (one of another user counts).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    let Some(pid) = rustix::process::Pid::from_raw(raw) else {
        return false;
    };
    !matches!(rustix::process::test_kill_process(pid), Err(Errno::SRCH))
}
