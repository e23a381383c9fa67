//! Starting a hook's process, and the pidfd's registration with tokio: the
//! only module allowed `unsafe`. On x86-64 Linux the process is started
//! with `clone3` ([`vfork`], which says why); elsewhere, and where the
//! kernel refuses that, with `posix_spawnp(3)`.
//!
//! Why not `std::process::Command`, which spawns the same way: once a
//! single variable is set on it, it copies latch's whole environment into a
//! new map and a new C array at every spawn (about a microsecond per
//! inherited variable), and every claude hook gets three variables. The
//! dispatch benchmark put that copy at 3–5 % of a one-hook dispatch
//! (`benches/README.md`). Here the caller hands over C strings it built
//! once (see [`super::child`]), and a spawn only collects their pointers.
//! No crate wraps `posix_spawn` with `addchdir_np`, which a hook's working
//! directory needs (`nix`'s `spawn` module lacks it).
//!
//! Either way, the child is set up as the standard library sets it up: its own process
//! group, an empty signal mask, SIGPIPE back to its default action (Rust
//! ignores it in latch), the three pipes as its stdio, and the working
//! directory. glibc and musl run `posix_spawn` with `CLONE_VFORK`, which is
//! safe in a multithreaded process and reports a failed `exec` (a missing
//! program, a missing directory) as the return value.

#![allow(unsafe_code)]

#[cfg(target_os = "linux")]
mod slice;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod vfork;

#[cfg(target_os = "linux")]
pub(super) use slice::prefer_short_slice;

/// Elsewhere a thread keeps its slice.
#[cfg(not(target_os = "linux"))]
pub(super) fn prefer_short_slice() -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

use std::ffi::{CStr, c_char};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::ptr;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// Registers a pidfd with the reactor, to await the process's exit.
///
/// The safe constructors of `AsyncFd` are deprecated (they cannot check the
/// descriptor's ownership); this one is safe because an `OwnedFd` returns
/// the same open descriptor for as long as it lives.
pub(super) fn register_pidfd(pidfd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: `OwnedFd` keeps its descriptor open, and `as_raw_fd` returns
    // that same descriptor, until it is dropped with the `AsyncFd`.
    unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) }.map_err(io::Error::from)
}

/// The boot clock (`CLOCK_BOOTTIME`) in clock ticks, the unit of a
/// process's start time in `/proc`. Through the C library, not rustix:
/// rustix finds the clock and the tick rate by parsing the vDSO image the
/// auxiliary vector names, which faults under valgrind, and latch must
/// run under callgrind to be profiled (`benches/README.md`).
pub(super) fn boot_ticks() -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid `timespec` for the call to fill.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) } != 0 {
        return None;
    }
    // SAFETY: `sysconf` only reads a configuration value.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    let nanos_per_tick = 1_000_000_000u64.checked_div(per_second)?;
    let nanos = u64::try_from(now.tv_sec)
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(u64::try_from(now.tv_nsec).ok()?)?;
    nanos.checked_div(nanos_per_tick)
}

/// What one spawn needs, all borrowed from the caller.
pub(super) struct SpawnArgs<'a> {
    /// A path, or a name looked up on latch's own `PATH`.
    pub program: &'a CStr,
    /// The arguments, starting with `argv[0]`.
    pub argv: &'a [&'a CStr],
    /// The whole environment, as `NAME=value` strings.
    pub envp: &'a [&'a CStr],
    /// The working directory; latch's own when `None`.
    pub cwd: Option<&'a CStr>,
    /// What becomes the child's descriptors 0, 1 and 2. Each must be 3 or
    /// more, so that no `dup2` overwrites another before it is copied.
    pub stdio: [BorrowedFd<'a>; 3],
}

/// Starts the process and returns its pid.
pub(super) fn spawn(args: &SpawnArgs<'_>) -> io::Result<libc::pid_t> {
    if args.stdio.iter().any(|fd| fd.as_raw_fd() < 3) {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let argv = null_terminated(args.argv);
    let envp = null_terminated(args.envp);
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    if let Some(spawned) = vfork::spawn(args, &argv, &envp) {
        return spawned;
    }
    posix_spawnp(args, &argv, &envp)
}

/// Starts the process with `posix_spawnp(3)`.
fn posix_spawnp(
    args: &SpawnArgs<'_>,
    argv: &[*mut c_char],
    envp: &[*mut c_char],
) -> io::Result<libc::pid_t> {
    let mut actions = FileActions::new()?;
    for (fd, target) in args.stdio.iter().zip(0..) {
        // SAFETY: `actions` was initialised; `dup2` actions only record the
        // two numbers.
        check(unsafe {
            libc::posix_spawn_file_actions_adddup2(&mut actions.0, fd.as_raw_fd(), target)
        })?;
    }
    if let Some(dir) = args.cwd {
        // SAFETY: `actions` was initialised; the path is copied by the call.
        check(unsafe { libc::posix_spawn_file_actions_addchdir_np(&mut actions.0, dir.as_ptr()) })?;
    }
    let attr = Attributes::for_hook()?;
    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is valid for the call: `program` and the strings
    // behind `argv` and `envp` are borrowed from `args`, both arrays end with
    // a null pointer, and `actions` and `attr` were initialised. The callee
    // does not write through `argv` or `envp` (POSIX declares them mutable
    // for historical reasons only).
    check(unsafe {
        libc::posix_spawnp(
            &mut pid,
            args.program.as_ptr(),
            &actions.0,
            &attr.0,
            argv.as_ptr(),
            envp.as_ptr(),
        )
    })?;
    Ok(pid)
}

/// The pointer array `exec` takes: each string, then a null pointer.
fn null_terminated(strings: &[&CStr]) -> Vec<*mut c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(ptr::null_mut()))
        .collect()
}

/// `posix_spawn*` return an error number instead of setting `errno`.
fn check(code: libc::c_int) -> io::Result<()> {
    match code {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

/// An initialised `posix_spawn_file_actions_t`, destroyed on drop.
struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: `init` initialises the object it is given.
        check(unsafe { libc::posix_spawn_file_actions_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialised just above.
        Ok(FileActions(unsafe { raw.assume_init() }))
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut self.0) };
    }
}

/// An initialised `posix_spawnattr_t`, destroyed on drop.
struct Attributes(libc::posix_spawnattr_t);

impl Attributes {
    /// A new process group led by the child, an empty signal mask and
    /// SIGPIPE at its default action.
    fn for_hook() -> io::Result<Attributes> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: `init` initialises the object it is given.
        check(unsafe { libc::posix_spawnattr_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialised just above.
        let mut attr = Attributes(unsafe { raw.assume_init() });
        let empty = signal_set(&[])?;
        let sigpipe = signal_set(&[libc::SIGPIPE])?;
        let flags = libc::POSIX_SPAWN_SETPGROUP
            | libc::POSIX_SPAWN_SETSIGMASK
            | libc::POSIX_SPAWN_SETSIGDEF;
        let flags = libc::c_short::try_from(flags)
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: `attr` was initialised; the setters copy their arguments.
        unsafe {
            check(libc::posix_spawnattr_setflags(&mut attr.0, flags))?;
            check(libc::posix_spawnattr_setpgroup(&mut attr.0, 0))?;
            check(libc::posix_spawnattr_setsigmask(&mut attr.0, &empty))?;
            check(libc::posix_spawnattr_setsigdefault(&mut attr.0, &sigpipe))?;
        }
        Ok(attr)
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialised in `for_hook`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

/// A signal set holding exactly `signals`.
fn signal_set(signals: &[libc::c_int]) -> io::Result<libc::sigset_t> {
    let mut set = MaybeUninit::uninit();
    // SAFETY: `sigemptyset` initialises the set; `sigaddset` only writes
    // into it, and fails (checked) on an invalid signal number.
    unsafe {
        if libc::sigemptyset(set.as_mut_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        for &signal in signals {
            if libc::sigaddset(set.as_mut_ptr(), signal) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(set.assume_init())
    }
}

#[cfg(test)]
mod tests;
