//! The spawn itself on x86-64 Linux: `clone3` with `CLONE_VM`,
//! `CLONE_VFORK` and `CLONE_CLEAR_SIGHAND`, then the same setup as
//! `posix_spawn`'s child, then `execve`.
//!
//! Why not `posix_spawn` everywhere: a `CLONE_VM` child shares latch's
//! memory, so no handler of latch's may run in it before `exec`. glibc's
//! child cannot know which signals have handlers, so it asks about and
//! resets each of the 64 signals: about 126 `rt_sigaction` calls, during
//! which latch is suspended (`CLONE_VFORK`). On the development VM that
//! was 60 of the 160 µs a spawn held latch, about 7 % of a one-hook
//! dispatch (`benches/README.md`, "The spawn without glibc's signal
//! loop"). `CLONE_CLEAR_SIGHAND` (Linux 5.5) has the kernel reset every
//! handler as it creates the child, so the child only does what the hook
//! needs. No crate offers this spawn; the few lines of assembly are the
//! stack switch: a child running on its own stack cannot return from a
//! function called before the system call, so the child's branch is taken
//! inside the same `asm!` block.
//!
//! A kernel or a seccomp filter that refuses the call (EINVAL before
//! Linux 5.5, ENOSYS before 5.3 or under filters that hide `clone3`,
//! EPERM under some filters) makes latch use `posix_spawn` from then on.

use std::ffi::{CStr, c_char, c_int};
use std::io;
use std::mem::{MaybeUninit, size_of};
use std::os::fd::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use super::SpawnArgs;

const CLONE_VM: u64 = 0x100;
const CLONE_VFORK: u64 = 0x4000;
/// Every handled signal at its default action in the child (Linux 5.5).
const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;

/// The child's stack: the setup and `execve` are a few system calls deep.
/// glibc gives its `posix_spawn` child 32 KiB as well.
const STACK_BYTES: usize = 32 * 1024;

/// The exit code of a child whose setup or `exec` failed, as glibc's.
const SPAWN_ERROR: c_int = 127;

/// Set once the kernel refused `clone3`: `posix_spawn` from then on.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// `struct clone_args` up to `tls`: the first version (64 bytes), which
/// every kernel with `clone3` takes.
#[repr(C)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
}

/// Everything the child needs, prepared by latch: the child only makes
/// system calls (it must not allocate or take a lock, since it shares
/// latch's memory while latch is suspended).
struct Plan {
    /// The paths to try, in order: the program itself when it names a
    /// path, else the program in each directory of latch's `PATH`.
    candidates: Vec<*const c_char>,
    argv: *const *mut c_char,
    envp: *const *mut c_char,
    /// The working directory, or null to keep latch's.
    cwd: *const c_char,
    /// What becomes the child's descriptors 0, 1 and 2 (each 3 or more).
    stdio: [c_int; 3],
    /// The child's `errno` when its setup or `exec` failed, else 0.
    error: AtomicI32,
}

/// Starts the process. `None` when `clone3` is unavailable here: the
/// caller then uses `posix_spawn`.
pub(super) fn spawn(
    args: &SpawnArgs<'_>,
    argv: &[*mut c_char],
    envp: &[*mut c_char],
) -> Option<io::Result<libc::pid_t>> {
    if REFUSED.load(Ordering::Relaxed) {
        return None;
    }
    let names = match candidates(args.program) {
        Ok(names) => names,
        Err(error) => return Some(Err(error)),
    };
    let plan = Plan {
        candidates: names.iter().map(|n| n.as_ptr()).collect(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        cwd: args.cwd.map_or(ptr::null(), CStr::as_ptr),
        stdio: [
            args.stdio[0].as_raw_fd(),
            args.stdio[1].as_raw_fd(),
            args.stdio[2].as_raw_fd(),
        ],
        error: AtomicI32::new(0),
    };
    // Uninitialised: the child writes what it uses. 16-byte elements keep
    // the top of the stack aligned as the ABI requires.
    let mut stack: Vec<MaybeUninit<u128>> = Vec::with_capacity(STACK_BYTES / 16);
    let clone_args = CloneArgs {
        flags: CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND,
        pidfd: 0,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: stack.as_mut_ptr() as u64,
        stack_size: (stack.capacity() * 16) as u64,
        tls: 0,
    };

    // Every signal blocked around the call, as glibc does: the child
    // starts with them blocked and unblocks them just before `exec`, once
    // SIGPIPE is back at its default action.
    let mut all = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: fills the whole set; every bit set is a valid set (the
    // kernel ignores SIGKILL and SIGSTOP in a mask).
    let all = unsafe {
        ptr::write_bytes(all.as_mut_ptr(), 0xff, 1);
        all.assume_init()
    };
    let mut old = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: a raw `rt_sigprocmask` (glibc's wrapper would leave its
    // internal signals unblocked), with both sets valid for the kernel's
    // 8-byte mask.
    let blocked = unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &all,
            old.as_mut_ptr(),
            8,
        )
    };
    if blocked != 0 {
        return Some(Err(io::Error::last_os_error()));
    }
    // SAFETY: `clone_args` describes a stack that outlives the child's
    // use of it (the call returns only once the child has exec'd or
    // exited), and `plan` is valid for as long.
    let pid = unsafe { clone3(&clone_args, &plan) };
    // SAFETY: restores the mask read above.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            old.as_ptr(),
            ptr::null_mut::<libc::sigset_t>(),
            8,
        );
    }
    drop(stack);

    if pid < 0 {
        let errno = i32::try_from(-pid).unwrap_or(libc::EINVAL);
        if matches!(errno, libc::ENOSYS | libc::EINVAL | libc::EPERM) {
            REFUSED.store(true, Ordering::Relaxed);
            return None;
        }
        return Some(Err(io::Error::from_raw_os_error(errno)));
    }
    let pid = libc::pid_t::try_from(pid).unwrap_or(0);
    match plan.error.load(Ordering::Acquire) {
        0 => Some(Ok(pid)),
        errno => {
            // The child exited with SPAWN_ERROR; reap it.
            // SAFETY: waits for our own child, status discarded.
            while unsafe { libc::waitpid(pid, ptr::null_mut(), 0) } < 0
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
            Some(Err(io::Error::from_raw_os_error(errno)))
        }
    }
}

/// The paths `execvp` would try for `program`: itself when it holds a
/// `/`, else `dir/program` for each directory of latch's `PATH` (the C
/// library's default `/bin:/usr/bin` without one; an empty entry is the
/// working directory).
fn candidates(program: &CStr) -> io::Result<Vec<std::ffi::CString>> {
    let name = program.to_bytes();
    if name.contains(&b'/') {
        return Ok(vec![program.to_owned()]);
    }
    if name.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    use std::os::unix::ffi::OsStrExt;
    let path = std::env::var_os("PATH");
    let path = path
        .as_deref()
        .map_or(&b"/bin:/usr/bin"[..], OsStrExt::as_bytes);
    path.split(|&b| b == b':')
        .map(|dir| {
            let mut full = Vec::with_capacity(dir.len() + 1 + name.len());
            if !dir.is_empty() {
                full.extend_from_slice(dir);
                full.push(b'/');
            }
            full.extend_from_slice(name);
            std::ffi::CString::new(full).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
        })
        .collect()
}

/// `clone3`, with the child's branch taken inside the block: on its own
/// stack, it calls [`child`], which never returns. Returns the child's
/// pid, or a negated `errno`.
///
/// # Safety
///
/// `args` must describe a writable stack of `stack_size` bytes, aligned
/// to 16 at its top, that nothing else uses until the call returns, and
/// `plan` must stay valid until then.
unsafe fn clone3(args: &CloneArgs, plan: &Plan) -> i64 {
    let result: i64;
    // SAFETY: the caller upholds the stack's and the plan's validity. The
    // parent's branch only sees `rax` (the result) and the registers the
    // `syscall` instruction clobbers (`rcx`, `r11`) change. The child's
    // branch starts on the new stack with the parent's other registers:
    // `r12` still holds `plan`; it clears the frame pointer (the end of
    // the backtrace), passes `plan` in `rdi` and calls `child`, whose
    // frame the 16-byte aligned top suits, and which never returns.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "xor ebp, ebp",
            "mov rdi, r12",
            "call {child}",
            "ud2",
            "2:",
            child = sym child,
            inlateout("rax") libc::SYS_clone3 => result,
            in("rdi") ptr::from_ref(args),
            in("rsi") size_of::<CloneArgs>(),
            in("r12") ptr::from_ref(plan),
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    result
}

/// The child, between `clone3` and `execve`: SIGPIPE back to its default
/// action (latch ignores it), its own process group, the pipes as its
/// stdio, the working directory, an empty signal mask, then `exec`. On a
/// failure it leaves its `errno` in the plan and exits with 127.
///
/// # Safety
///
/// Only for [`clone3`]'s child: `plan` is valid, and the parent is
/// suspended until this process execs or exits.
unsafe extern "C" fn child(plan: *const Plan) -> ! {
    // SAFETY: `plan` is valid (see above). Only async-signal-safe calls
    // follow, on memory the parent prepared; `errno` is the suspended
    // parent thread's, which it does not read after the spawn.
    unsafe {
        let plan = &*plan;
        let errno = || *libc::__errno_location();
        let error = 'setup: {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            if libc::sigaction(libc::SIGPIPE, &action, ptr::null_mut()) != 0 {
                break 'setup errno();
            }
            if libc::setpgid(0, 0) != 0 {
                break 'setup errno();
            }
            for (target, &fd) in plan.stdio.iter().enumerate() {
                if libc::dup2(fd, target as c_int) < 0 {
                    break 'setup errno();
                }
            }
            if !plan.cwd.is_null() && libc::chdir(plan.cwd) != 0 {
                break 'setup errno();
            }
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            if libc::sigprocmask(libc::SIG_SETMASK, &empty, ptr::null_mut()) != 0 {
                break 'setup errno();
            }
            // `execvp`'s search: EACCES is remembered while the search
            // goes on; a missing file or directory moves to the next
            // entry; any other error ends it.
            let mut denied = false;
            let mut last = libc::ENOENT;
            for &path in &plan.candidates {
                libc::execve(path, plan.argv.cast(), plan.envp.cast());
                last = errno();
                match last {
                    libc::EACCES => denied = true,
                    libc::ENOENT
                    | libc::ENOTDIR
                    | libc::ESTALE
                    | libc::ENODEV
                    | libc::ETIMEDOUT => {}
                    _ => break 'setup last,
                }
            }
            if denied { libc::EACCES } else { last }
        };
        plan.error.store(error, Ordering::Release);
        libc::_exit(SPAWN_ERROR)
    }
}
