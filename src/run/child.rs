//! One hook process: spawned with its pipes, waited for, reaped.
//!
//! This replaces `tokio::process` in the runner; the dispatch benchmark
//! showed both of its costs (`benches/README.md`): the environment copy of
//! `std::process::Command` (see [`super::spawn`]), and tokio's child
//! bookkeeping. Here:
//! - latch's own environment is turned into C strings once per process
//!   ([`inherited`]); a spawn only collects pointers to them, skipping the
//!   names the hook's variables replace;
//! - the hook's exit is awaited on a pidfd registered with the reactor
//!   (opened when first awaited: a lent thread's wait rarely needs one),
//!   and reaped with `waitpid` on its pid (never `waitpid(-1)`, which would
//!   steal other children's statuses);
//! - stdout and stderr are plain non-blocking pipes, put on the reactor by
//!   the runner when it needs them there; a payload that fits in a pipe's
//!   buffer is written whole as soon as the hook started ([`feed`]).
//!
//! A [`Child`] dropped before it was reaped is killed and reaped on a
//! short-lived thread, as tokio's `kill_on_drop` did.

use std::collections::HashMap;
use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, PidfdFlags, Signal, WaitOptions, pidfd_open, waitpid};
use tokio::io::unix::AsyncFd;

use super::spawn::{SpawnArgs, register_pidfd, spawn as start};
use super::{EnvPolicy, Exit, Program};

/// A spawned hook, until it is reaped.
pub(super) struct Child {
    pid: Pid,
    /// Readable once the process has exited. Opened when first needed
    /// (a hook waited for on a lent thread usually never needs one); `None`
    /// until then, and on kernels without pidfds (before Linux 5.3), where
    /// the exit is polled for.
    pidfd: Option<PidFd>,
    /// Whether opening a pidfd was tried (and failed if `pidfd` is `None`).
    pidfd_tried: bool,
    /// The exit status, once reaped.
    exit: Option<Exit>,
    /// The start time it was recorded with as a hook leader, if it was
    /// (see [`super::adopt`]).
    leader_start: Option<u64>,
}

/// The pidfd: plain until [`Child::wait`] first needs the reactor, which a
/// hook waited for on a lent thread never does (see [`super::lent`]).
enum PidFd {
    Plain(OwnedFd),
    Registered(AsyncFd<OwnedFd>),
}

/// latch's ends of the hook's stdio, non-blocking and not yet on the
/// reactor.
pub(super) struct Pipes {
    /// Where the payload goes; `None` once [`feed`] wrote all of it.
    pub stdin: Option<OwnedFd>,
    /// The hook's stdout.
    pub stdout: OwnedFd,
    /// The hook's stderr.
    pub stderr: OwnedFd,
}

/// How often the exit is polled for without a pidfd.
const POLL: Duration = Duration::from_millis(5);

/// The payloads [`feed`] writes whole at once: at most one page
/// (`PIPE_BUF`), which any pipe buffer holds.
const PREFILL_MAX: usize = 4096;

/// Starts the hook's process with its pipes; its stdin is still open and
/// blocking, for [`feed`]. Nothing is registered with the reactor yet:
/// [`Child::wait`] and the caller do that when they need it. Callable
/// from any thread.
pub(super) fn start_process(
    program: &Program,
    env: &EnvPolicy,
    cwd: Option<&Path>,
) -> io::Result<(Child, Pipes)> {
    let (argv0, args) = match program {
        Program::Shell { shell, script } => (shell, vec![c"-c".to_owned(), c_string(script)?]),
        Program::Exec { program, args } => (
            program,
            args.iter().map(c_string).collect::<io::Result<_>>()?,
        ),
    };
    let environment = Environment::new(env)?;
    let program = c_string(resolve(argv0, &environment, cwd)?.as_os_str())?;
    let argv0 = c_string(argv0.as_os_str())?;
    let argv: Vec<&CStr> = std::iter::once(argv0.as_c_str())
        .chain(args.iter().map(CString::as_c_str))
        .collect();
    let cwd = cwd.map(|d| c_string(d.as_os_str())).transpose()?;

    let (stdin_child, stdin_ours) = stdin_pipe()?;
    let (stdout_ours, stdout_child) = pipe()?;
    let (stderr_ours, stderr_child) = pipe()?;
    let pid = start(&SpawnArgs {
        program: &program,
        argv: &argv,
        envp: &environment.pointers(),
        cwd: cwd.as_deref(),
        stdio: [
            stdin_child.as_fd(),
            stdout_child.as_fd(),
            stderr_child.as_fd(),
        ],
    })?;
    let pid = Pid::from_raw(pid).ok_or_else(|| io::Error::other("the spawn returned pid 0"))?;
    let child = Child {
        pid,
        pidfd: None,
        pidfd_tried: false,
        exit: None,
        leader_start: None,
    };
    // From here on `child` owns the process: an error below kills and
    // reaps it (Drop).
    drop((stdin_child, stdout_child, stderr_child));
    let pipes = Pipes {
        stdin: Some(stdin_ours),
        stdout: stdout_ours,
        stderr: stderr_ours,
    };
    Ok((child, pipes))
}

/// Writes `payload` into the hook's stdin (latch's end, `ours`) and
/// closes it if it fits the pipe at once (`None`); else makes it
/// non-blocking and gives it back, for the caller to write the rest as the
/// hook reads. The payload goes in while the hook starts, not before.
pub(super) fn feed(ours: OwnedFd, payload: &[u8]) -> io::Result<Option<OwnedFd>> {
    if payload.len() <= PREFILL_MAX {
        let _ = std::io::Write::write_all(&mut std::fs::File::from(ours), payload);
        return Ok(None);
    }
    rustix::io::ioctl_fionbio(&ours, true)?;
    Ok(Some(ours))
}

impl Child {
    /// Notes the start time it was recorded with as a hook leader.
    pub(super) fn set_leader_start(&mut self, start: Option<u64>) {
        self.leader_start = start;
    }

    /// The process id.
    pub(super) fn id(&self) -> u32 {
        self.pid.as_raw_nonzero().get().unsigned_abs()
    }

    /// Waits for the process to exit and reaps it. Cancel-safe: dropping
    /// the future leaves the process running and unreaped.
    pub(super) async fn wait(&mut self) -> io::Result<Exit> {
        if let Some(exit) = self.exit {
            return Ok(exit);
        }
        self.open_pidfd();
        if let Some(PidFd::Plain(_)) = &self.pidfd
            && let Some(PidFd::Plain(fd)) = self.pidfd.take()
        {
            self.pidfd = Some(PidFd::Registered(register_pidfd(fd)?));
        }
        loop {
            if let Some(PidFd::Registered(pidfd)) = &self.pidfd {
                let mut ready = pidfd.readable().await?;
                if let Some(exit) = reap(self.pid)? {
                    self.exit = Some(exit);
                    return Ok(exit);
                }
                // Not exited after all (a spurious wake-up): wait for the
                // next readiness.
                ready.clear_ready();
            } else {
                if let Some(exit) = self.try_wait()? {
                    return Ok(exit);
                }
                tokio::time::sleep(POLL).await;
            }
        }
    }

    /// Lets the process go without killing it, for another process to
    /// follow: its pid, the start time it was recorded with as a leader
    /// (see [`super::adopt`]), and a pidfd on it unless it was reaped
    /// already or the kernel has no pidfds. It stays this process's child
    /// until this process exits, and is reaped by whoever inherits it.
    pub(super) fn release(mut self) -> (i32, Option<u64>, Option<OwnedFd>) {
        let (pid, start) = (self.pid.as_raw_nonzero().get(), self.leader_start);
        if self.exit.is_some() {
            return (pid, start, None);
        }
        self.open_pidfd();
        let pidfd = match self.pidfd.take() {
            Some(PidFd::Plain(fd)) => Some(fd),
            Some(PidFd::Registered(fd)) => Some(fd.into_inner()),
            None => None,
        };
        // Dropping it would kill it; it holds nothing else to free.
        std::mem::forget(self);
        (pid, start, pidfd)
    }

    /// Whether the process was reaped.
    pub(super) fn is_reaped(&self) -> bool {
        self.exit.is_some()
    }

    /// The pidfd, opened if it was not, for a caller that polls it itself;
    /// `None` if the kernel has none. Opening it later than the spawn is
    /// safe: until latch reaps the process, its pid cannot be reused.
    pub(super) fn open_pidfd(&mut self) -> Option<BorrowedFd<'_>> {
        if !self.pidfd_tried && self.exit.is_none() {
            self.pidfd_tried = true;
            self.pidfd = pidfd_open(self.pid, PidfdFlags::NONBLOCK)
                .ok()
                .map(PidFd::Plain);
        }
        self.pidfd()
    }

    /// The pidfd, if [`Child::open_pidfd`] opened one.
    pub(super) fn pidfd(&self) -> Option<BorrowedFd<'_>> {
        match self.pidfd.as_ref()? {
            PidFd::Plain(fd) => Some(fd.as_fd()),
            PidFd::Registered(fd) => Some(fd.get_ref().as_fd()),
        }
    }

    /// Reaps the process if it has exited, without blocking.
    pub(super) fn try_wait(&mut self) -> io::Result<Option<Exit>> {
        // Once reaped, the pid may already be another process's.
        if self.exit.is_some() {
            return Ok(self.exit);
        }
        let exit = reap(self.pid)?;
        if exit.is_some() {
            self.exit = exit;
        }
        Ok(exit)
    }
}

/// Reaps `pid` if it has exited, without blocking. `ECHILD` means the
/// child is already gone and reaped by someone else (a process that
/// ignores SIGCHLD has its children reaped by the kernel): its status is
/// lost, and it counts as reaped, so nothing signals its pid again.
fn reap(pid: Pid) -> io::Result<Option<Exit>> {
    let status = loop {
        match waitpid(Some(pid), WaitOptions::NOHANG) {
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::CHILD) => return Ok(Some(Exit::Code(-1))),
            other => break other?,
        }
    };
    Ok(status.map(|(_, status)| {
        match (status.exit_status(), status.terminating_signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            // A stopped or continued child is not reported without
            // WUNTRACED/WCONTINUED; treat anything else as unusual.
            (None, None) => Exit::Code(-1),
        }
    }))
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.exit.is_some() {
            return;
        }
        // Unreaped, the pid is still this process's zombie or child, so
        // the signal cannot reach a stranger.
        let _ = rustix::process::kill_process(self.pid, Signal::KILL);
        let (pid, start) = (self.pid, self.leader_start);
        if matches!(self.try_wait(), Ok(Some(_))) {
            super::adopt::forget_leader(pid.as_raw_nonzero().get(), start);
            return;
        }
        let _ = std::thread::Builder::new()
            .name("latch-reaper".into())
            .spawn(move || {
                while let Err(rustix::io::Errno::INTR) = waitpid(Some(pid), WaitOptions::empty()) {}
                super::adopt::forget_leader(pid.as_raw_nonzero().get(), start);
            });
    }
}

/// The hook's environment: pointers into C strings that live at least as
/// long as the spawn.
struct Environment {
    /// The inherited variables that apply (`None` for [`EnvPolicy::Only`]).
    inherited: Option<&'static Inherited>,
    /// The hook's own variables, `NAME=value`, the last of a name winning.
    own: Vec<CString>,
    /// Whether `own` sets `PATH`.
    sets_path: bool,
}

impl Environment {
    fn new(policy: &EnvPolicy) -> io::Result<Environment> {
        let (inherited, vars) = match policy {
            EnvPolicy::Inherit(vars) => (Some(inherited()), vars),
            EnvPolicy::Only(vars) => (None, vars),
        };
        let mut own: Vec<CString> = Vec::with_capacity(vars.len());
        // The last assignment of a name wins, as with `Command::env`.
        for (name, value) in vars.iter().rev() {
            if own.iter().any(|e| name_of(e.as_bytes()) == name.as_bytes()) {
                continue;
            }
            let mut entry = Vec::with_capacity(name.len() + value.len() + 1);
            entry.extend_from_slice(name.as_bytes());
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            own.push(c_string_bytes(entry)?);
        }
        let sets_path = own.iter().any(|e| name_of(e.as_bytes()) == b"PATH");
        Ok(Environment {
            inherited,
            own,
            sets_path,
        })
    }

    /// Every variable: the inherited ones the hook's own do not replace,
    /// then the hook's own. The inherited ones are copied as one slice of
    /// pointers, and only the names the hook sets are looked up: a spawn
    /// never reads each inherited variable's text, which sits scattered
    /// over the heap and is rarely in the caches when a hook starts.
    fn pointers(&self) -> Vec<&CStr> {
        let Some(inherited) = self.inherited else {
            return self.own.iter().map(CString::as_c_str).collect();
        };
        let mut all = Vec::with_capacity(inherited.all.len() + self.own.len());
        let replaced: Vec<usize> = self
            .own
            .iter()
            .filter_map(|o| inherited.by_name.get(name_of(o.as_bytes())))
            .flatten()
            .copied()
            .collect();
        if replaced.is_empty() {
            all.extend_from_slice(&inherited.all);
        } else {
            all.extend(
                (inherited.all.iter().enumerate())
                    .filter(|(i, _)| !replaced.contains(i))
                    .map(|(_, e)| *e),
            );
        }
        all.extend(self.own.iter().map(CString::as_c_str));
        all
    }

    /// The `PATH` the hook sees, when it differs from latch's own.
    fn changed_path(&self) -> Option<Option<&OsStr>> {
        if self.sets_path {
            let entry = self.own.iter().find(|e| name_of(e.as_bytes()) == b"PATH")?;
            return Some(Some(OsStr::from_bytes(&entry.as_bytes()[5..])));
        }
        match self.inherited {
            Some(_) => None,
            // `Only` without `PATH`: the hook has none.
            None => Some(None),
        }
    }
}

/// latch's own environment, read once (see [`inherited`]).
struct Inherited {
    /// The variables, owned for the life of the process, as the pointers
    /// to them are.
    _entries: &'static [CString],
    /// Each variable as a `NAME=value` C string, in the order the
    /// environment lists them.
    all: Vec<&'static CStr>,
    /// Where each name is in `all` (a name listed twice has two places).
    by_name: HashMap<&'static [u8], Vec<usize>>,
}

/// latch's own environment, read once: latch never changes its
/// environment (setting a variable needs `unsafe`, which the crate forbids
/// outside [`super::spawn`]). An embedder that changes its environment
/// after the first hook ran is not seen by later hooks.
fn inherited() -> &'static Inherited {
    static INHERITED: OnceLock<Inherited> = OnceLock::new();
    INHERITED.get_or_init(|| {
        // Kept for the life of the process, as the pointers to them are.
        let entries: &'static [CString] = Vec::leak(
            std::env::vars_os()
                .filter_map(|(name, value)| {
                    let mut entry = name.into_vec();
                    entry.push(b'=');
                    entry.extend_from_slice(value.as_bytes());
                    CString::new(entry).ok()
                })
                .collect(),
        );
        let mut by_name: HashMap<&'static [u8], Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_name.entry(name_of(e.as_bytes())).or_default().push(i);
        }
        Inherited {
            _entries: entries,
            all: entries.iter().map(CString::as_c_str).collect(),
            by_name,
        }
    })
}

/// The name part of `NAME=value`.
fn name_of(entry: &[u8]) -> &[u8] {
    let end = entry.iter().position(|&b| b == b'=').unwrap_or(entry.len());
    &entry[..end]
}

/// The program to start. A bare name is looked up on the hook's `PATH`
/// when that differs from latch's (the spawn would search latch's);
/// otherwise it is passed on for the spawn to look up.
fn resolve(program: &Path, environment: &Environment, cwd: Option<&Path>) -> io::Result<PathBuf> {
    let bare = !program.as_os_str().as_bytes().contains(&b'/');
    let Some(path) = environment.changed_path().filter(|_| bare) else {
        return Ok(program.to_path_buf());
    };
    // No `PATH` at all: the C library's default, as `execvp` uses.
    let path = path.unwrap_or_else(|| OsStr::new("/bin:/usr/bin"));
    // A relative entry is relative to where the hook starts, as `execvp`
    // would read it after the working directory is set.
    std::env::split_paths(path)
        .map(|dir| match cwd {
            Some(cwd) if dir.is_relative() => cwd.join(dir).join(program),
            _ => dir.join(program),
        })
        .find(|candidate| {
            candidate.is_file()
                && rustix::fs::access(candidate, rustix::fs::Access::EXEC_OK).is_ok()
        })
        // ENOENT, as `execvp` reports it: "No such file or directory".
        .ok_or_else(|| io::Error::from(rustix::io::Errno::NOENT))
}

/// A pipe for the hook's stdin: the child's end and latch's.
fn stdin_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (child_end, ours) = pipe_with(PipeFlags::CLOEXEC)?;
    Ok((above_stdio(child_end)?, ours))
}

/// An output pipe: latch's non-blocking read end, the child's write end.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (ours, child_end) = pipe_with(PipeFlags::CLOEXEC)?;
    rustix::io::ioctl_fionbio(&ours, true)?;
    Ok((ours, above_stdio(child_end)?))
}

/// The descriptor, moved to 3 or above if it is 0, 1 or 2, so that the
/// spawn's `dup2`s cannot clobber one another. That happens only in a
/// process started with its stdio closed whose runtime did not reopen it
/// (Rust's does, so `latch` itself never needs this; an embedder in another
/// language might).
fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    if fd.as_raw_fd() >= 3 {
        return Ok(fd);
    }
    Ok(rustix::io::fcntl_dupfd_cloexec(&fd, 3)?)
}

fn c_string(text: impl AsRef<OsStr>) -> io::Result<CString> {
    c_string_bytes(text.as_ref().as_bytes().to_vec())
}

fn c_string_bytes(bytes: Vec<u8>) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        )
    })
}
