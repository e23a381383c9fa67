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
//! needs. No crate offers this spawn. The assembly is the stack switch (a
//! child running on its own stack cannot return from a function called
//! before the system call, so its branch is taken inside the same
//! `asm!` block) and the child's system calls: made directly, not through
//! the C library, so that no wrapper another library interposes
//! (`LD_PRELOAD` tracers, sanitizers) can allocate or lock in a child
//! that shares latch's memory, and so that the child leaves latch's
//! `errno` alone.
//!
//! A kernel or a seccomp filter that refuses the call (EINVAL before
//! Linux 5.5, ENOSYS before 5.3 or under filters that hide `clone3`,
//! EPERM under some filters) makes latch use `posix_spawn` from then on.
//! glibc 2.34 and later try `clone3` in `posix_spawn` too, and fall back
//! to `clone` only on ENOSYS: under a filter that answers EPERM, both
//! fail.

use std::cell::Cell;
use std::ffi::{CStr, CString, OsStr, c_char, c_int, c_long};
use std::io;
use std::mem::size_of;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use super::SpawnArgs;

const CLONE_VM: u64 = 0x100;
const CLONE_VFORK: u64 = 0x4000;
/// Every handled signal at its default action in the child (Linux 5.5).
const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;

/// The child's stack: the setup and `execve` are system calls made from
/// one small function. glibc gives its `posix_spawn` child 32 KiB too.
const STACK_BYTES: usize = 32 * 1024;
/// The inaccessible page below the stack: an overflow faults instead of
/// writing over latch's memory.
const GUARD_BYTES: usize = 4096;

/// The exit code of a child whose setup or `exec` failed, as glibc's.
const SPAWN_ERROR: usize = 127;

/// The kernel's signal mask size, in bytes, for `rt_sig*` calls.
const SIGSET_BYTES: usize = 8;

/// Set once the kernel refused `clone3`: `posix_spawn` from then on.
pub(super) static REFUSED: AtomicBool = AtomicBool::new(false);

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

/// The kernel's `struct sigaction` on x86-64 (not the C library's).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
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
    spawn_searching(args, argv, envp, std::env::var_os("PATH").as_deref())
}

/// [`spawn`], with the `PATH` a bare program name is looked up on (`None`:
/// the C library's default).
pub(super) fn spawn_searching(
    args: &SpawnArgs<'_>,
    argv: &[*mut c_char],
    envp: &[*mut c_char],
    path: Option<&OsStr>,
) -> Option<io::Result<libc::pid_t>> {
    if REFUSED.load(Ordering::Relaxed) {
        return None;
    }
    let names = match candidates(args.program, path) {
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
    let stack = match Stack::take() {
        Ok(stack) => stack,
        Err(error) => return Some(Err(error)),
    };
    let clone_args = CloneArgs {
        flags: CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND,
        pidfd: 0,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: stack.low as u64,
        stack_size: STACK_BYTES as u64,
        tls: 0,
    };

    // Every signal blocked around the call, as glibc does (its own
    // wrapper would leave its internal signals unblocked): the child
    // starts with them blocked and unblocks them just before `exec`, once
    // SIGPIPE is back at its default action.
    let all: u64 = !0;
    let mut old: u64 = 0;
    // SAFETY: both masks are valid for the kernel's 8-byte mask.
    let blocked = unsafe {
        syscall4(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK as usize,
            ptr::from_ref(&all) as usize,
            ptr::from_mut(&mut old) as usize,
            SIGSET_BYTES,
        )
    };
    if blocked < 0 {
        stack.put_back();
        return Some(Err(errno_of(blocked)));
    }
    // SAFETY: `stack` is a writable stack that nothing else uses until
    // the call returns (only once the child has exec'd or exited), its
    // top 16-byte aligned, and `plan` is valid for as long.
    let pid = unsafe { clone3(&clone_args, &plan) };
    // SAFETY: restores the mask read above.
    unsafe {
        syscall4(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK as usize,
            ptr::from_ref(&old) as usize,
            0,
            SIGSET_BYTES,
        );
    }
    stack.put_back();

    if pid < 0 {
        let error = errno_of(pid);
        if matches!(
            error.raw_os_error(),
            Some(libc::ENOSYS | libc::EINVAL | libc::EPERM)
        ) {
            REFUSED.store(true, Ordering::Relaxed);
            return None;
        }
        return Some(Err(error));
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return Some(Err(io::Error::other("clone3 returned an impossible pid")));
    };
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

/// A system call's negative result as an error.
fn errno_of(result: isize) -> io::Error {
    io::Error::from_raw_os_error(i32::try_from(-result).unwrap_or(libc::EINVAL))
}

/// The paths `execvp` would try for `program`: itself when it holds a
/// `/`, else `dir/program` for each directory of `path` (the C library's
/// default `/bin:/usr/bin` without one; an empty entry is the working
/// directory the child has once set up).
fn candidates(program: &CStr, path: Option<&OsStr>) -> io::Result<Vec<CString>> {
    let name = program.to_bytes();
    if name.contains(&b'/') {
        return Ok(vec![program.to_owned()]);
    }
    if name.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    let path = path.map_or(&b"/bin:/usr/bin"[..], OsStr::as_bytes);
    path.split(|&b| b == b':')
        .map(|dir| {
            let mut full = Vec::with_capacity(dir.len() + 1 + name.len());
            if !dir.is_empty() {
                full.extend_from_slice(dir);
                full.push(b'/');
            }
            full.extend_from_slice(name);
            CString::new(full).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
        })
        .collect()
}

/// A child stack: mapped once per thread with a guard page below it, and
/// reused by that thread's later spawns (which follow one another: the
/// thread is suspended while a child uses it).
struct Stack {
    /// The lowest usable address, above the guard page.
    low: usize,
}

thread_local! {
    static STACK: Cell<Option<Stack>> = const { Cell::new(None) };
}

impl Stack {
    /// This thread's stack, mapped if it has none.
    fn take() -> io::Result<Stack> {
        // A thread whose thread-locals are being destroyed gets a stack
        // of its own, unmapped after the spawn.
        if let Ok(Some(stack)) = STACK.try_with(Cell::take) {
            return Ok(stack);
        }
        // SAFETY: a fresh private anonymous mapping, no address given.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                GUARD_BYTES + STACK_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the lowest page of the mapping just made.
        if unsafe { libc::mprotect(base, GUARD_BYTES, libc::PROT_NONE) } != 0 {
            let error = io::Error::last_os_error();
            // SAFETY: the mapping made above, unused.
            unsafe { libc::munmap(base, GUARD_BYTES + STACK_BYTES) };
            return Err(error);
        }
        Ok(Stack {
            low: base as usize + GUARD_BYTES,
        })
    }

    /// Gives the stack back to this thread for its next spawn.
    fn put_back(self) {
        let mut spare = Some(self);
        let _ = STACK.try_with(|cell| cell.set(spare.take()));
        // Dropped (unmapped) here if the thread-local is gone.
        drop(spare);
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `take`, no longer used (a stack is
        // dropped when its thread ends, or replaced by none).
        unsafe {
            libc::munmap(
                (self.low - GUARD_BYTES) as *mut libc::c_void,
                GUARD_BYTES + STACK_BYTES,
            )
        };
    }
}

/// A system call with up to four arguments; a negative result is the
/// negated `errno`.
///
/// # Safety
///
/// As the system call `number` requires of its arguments.
#[inline(always)]
unsafe fn syscall4(number: c_long, a: usize, b: usize, c: usize, d: usize) -> isize {
    let result: isize;
    // SAFETY: the caller upholds the call's requirements; the `syscall`
    // instruction clobbers only `rcx` and `r11` besides `rax`.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") number as isize => result,
            in("rdi") a,
            in("rsi") b,
            in("rdx") c,
            in("r10") d,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    result
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
unsafe fn clone3(args: &CloneArgs, plan: &Plan) -> isize {
    let result: isize;
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
            inlateout("rax") libc::SYS_clone3 as isize => result,
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
/// failure it leaves its `errno` in the plan and exits with 127. Every
/// step is a direct system call (see the module's documentation).
///
/// # Safety
///
/// Only for [`clone3`]'s child: `plan` is valid, and the parent is
/// suspended until this process execs or exits.
unsafe extern "C" fn child(plan: *const Plan) -> ! {
    // SAFETY: `plan` is valid (see above); every pointer handed to the
    // kernel below is one the parent prepared for it.
    unsafe {
        let plan = &*plan;
        let default = KernelSigaction {
            handler: 0, // SIG_DFL
            flags: 0,
            restorer: 0,
            mask: 0,
        };
        let empty: u64 = 0;
        let setup = [
            (
                libc::SYS_rt_sigaction,
                [
                    libc::SIGPIPE as usize,
                    ptr::from_ref(&default) as usize,
                    0,
                    SIGSET_BYTES,
                ],
            ),
            (libc::SYS_setpgid, [0, 0, 0, 0]),
            (libc::SYS_dup2, [plan.stdio[0] as usize, 0, 0, 0]),
            (libc::SYS_dup2, [plan.stdio[1] as usize, 1, 0, 0]),
            (libc::SYS_dup2, [plan.stdio[2] as usize, 2, 0, 0]),
            (libc::SYS_chdir, [plan.cwd as usize, 0, 0, 0]),
            (
                libc::SYS_rt_sigprocmask,
                [
                    libc::SIG_SETMASK as usize,
                    ptr::from_ref(&empty) as usize,
                    0,
                    SIGSET_BYTES,
                ],
            ),
        ];
        let error = 'setup: {
            for (number, [a, b, c, d]) in setup {
                if number == libc::SYS_chdir && plan.cwd.is_null() {
                    continue;
                }
                let result = syscall4(number, a, b, c, d);
                if result < 0 {
                    break 'setup -result;
                }
            }
            // `execvp`'s search: EACCES is remembered while the search
            // goes on; a missing file or directory moves to the next
            // entry; any other error ends it.
            let mut denied = false;
            let mut last = libc::ENOENT as isize;
            for &path in &plan.candidates {
                let result = syscall4(
                    libc::SYS_execve,
                    path as usize,
                    plan.argv as usize,
                    plan.envp as usize,
                    0,
                );
                last = -result;
                match i32::try_from(last).unwrap_or(0) {
                    libc::EACCES => denied = true,
                    libc::ENOENT
                    | libc::ENOTDIR
                    | libc::ESTALE
                    | libc::ENODEV
                    | libc::ETIMEDOUT => {}
                    _ => break 'setup last,
                }
            }
            if denied { libc::EACCES as isize } else { last }
        };
        plan.error.store(
            i32::try_from(error).unwrap_or(libc::EINVAL),
            Ordering::Release,
        );
        // `exit_group` does not return.
        loop {
            syscall4(libc::SYS_exit_group, SPAWN_ERROR, 0, 0, 0);
        }
    }
}
