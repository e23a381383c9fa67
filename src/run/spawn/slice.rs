//! A short scheduler time slice for the threads that start hooks.
//!
//! A hook starts with `CLONE_VFORK`: the starting thread sleeps until the
//! child has called `exec`, and the kernel then wakes it, usually on the
//! CPU where the child now runs the hook's program. Under Linux's EEVDF
//! scheduler (6.6 and later) a woken thread takes that CPU back only if it
//! is eligible and its virtual deadline is earlier than the running
//! task's. With the default slice it often is not, so the thread waits
//! until the hook has used up its slice or ended before it starts the next
//! hook: four `true` hooks that could spread over two CPUs ran one after
//! another on one (`benches/README.md`, "A short slice for the threads
//! that start hooks"). Since Linux 6.12 a thread may ask for a shorter
//! slice (`sched_attr.sched_runtime`, 0.1 to 100 ms), which gives it
//! earlier deadlines, so it takes the CPU back at once, as the kernel
//! documents for latency-sensitive tasks. The hooks, and latch's other
//! threads, start with the slice they would get without it
//! (`SCHED_FLAG_RESET_ON_FORK`).
//!
//! Holding the short slice only while a batch of hooks starts did not
//! help (the same bench section): in a trace, the thread woken after the
//! first hook's `exec` still did not take the CPU back.
//!
//! Neither `libc` nor `rustix` has a function for `sched_setattr(2)`, so
//! the two system calls are made here by number.

use std::io;

/// `struct sched_attr` of `sched_setattr(2)` as of Linux 5.3
/// (`SCHED_ATTR_SIZE_VER1`, with the utilization clamps).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
    sched_util_min: u32,
    sched_util_max: u32,
}

/// The size of [`SchedAttr`]. A kernel older than 5.3 knows 48 bytes and
/// takes more when the rest is zero, as it is in what latch sets.
const SCHED_ATTR_SIZE_VER1: u32 = 56;
const _: () = assert!(std::mem::size_of::<SchedAttr>() == SCHED_ATTR_SIZE_VER1 as usize);

/// Children start with the default policy, priority, slice and
/// utilization clamps.
const SCHED_FLAG_RESET_ON_FORK: u64 = 0x01;

/// The shortest slice the kernel grants, in nanoseconds.
const SHORTEST_SLICE_NS: u64 = 100_000;

/// The largest utilization clamp: no clamp.
const UCLAMP_MAX: u32 = 1024;

/// The calling thread's scheduling attributes.
fn get() -> io::Result<SchedAttr> {
    let mut attr = SchedAttr::default();
    // SAFETY: `attr` is a writable `sched_attr` of the size passed; 0 is
    // the calling thread.
    let got = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            0 as libc::c_long,
            &mut attr as *mut SchedAttr,
            libc::c_long::from(SCHED_ATTR_SIZE_VER1),
            0 as libc::c_long,
        )
    };
    if got != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(attr)
}

/// Sets the calling thread's scheduling attributes (`size` is filled in).
fn set(mut attr: SchedAttr) -> io::Result<()> {
    attr.size = SCHED_ATTR_SIZE_VER1;
    // SAFETY: `attr` is a valid `sched_attr` of the size it states; 0 is
    // the calling thread.
    let set = unsafe {
        libc::syscall(
            libc::SYS_sched_setattr,
            0 as libc::c_long,
            &attr as *const SchedAttr,
            0 as libc::c_long,
        )
    };
    if set != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Takes the shortest time slice for the calling thread, with
/// `SCHED_FLAG_RESET_ON_FORK`. Leaves the thread as it is, with an error,
/// when the slice is not the thread's to shorten without changing what
/// its children inherit:
///
/// - a kernel older than 6.12, which reports no slice (and would keep the
///   flag alone, for good: an unprivileged thread cannot clear it);
/// - a policy other than the normal one (`SCHED_BATCH`, `SCHED_IDLE`,
///   real-time: the user's choice);
/// - a nice value below zero, or utilization clamps (`uclampset`): the
///   flag would not pass them on to the hooks;
/// - a kernel that refuses the call.
pub(crate) fn prefer_short_slice() -> io::Result<()> {
    let before = get()?;
    let clamped = before.sched_util_min != 0
        || (before.sched_util_max != 0 && before.sched_util_max != UCLAMP_MAX);
    if before.sched_runtime == 0
        || before.sched_policy != libc::SCHED_OTHER as u32
        || before.sched_nice < 0
        || clamped
    {
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    }
    // Built whole, so that nothing else `get` reports is set back.
    set(SchedAttr {
        sched_policy: libc::SCHED_OTHER as u32,
        sched_flags: SCHED_FLAG_RESET_ON_FORK,
        sched_nice: before.sched_nice,
        sched_runtime: SHORTEST_SLICE_NS,
        ..SchedAttr::default()
    })
}
