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
//! Holding the short slice only while a batch starts did not help (the
//! same bench section): the thread must have it when it wakes for a
//! request, not only from its first spawn on.
//!
//! No crate wraps `sched_setattr(2)` (neither `libc` nor `rustix` has a
//! function for it), so the two system calls are made here by number.

use std::io;

/// `struct sched_attr` of `sched_setattr(2)`, its first version (56 bytes).
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

/// The first version's size, which every kernel since 3.14 accepts.
const SCHED_ATTR_SIZE_VER1: u32 = 56;

/// Children start with the default policy, priority and slice.
const SCHED_FLAG_RESET_ON_FORK: u64 = 0x01;

/// The shortest slice the kernel grants, in nanoseconds.
const SHORTEST_SLICE_NS: u64 = 100_000;

/// The calling thread's scheduling attributes.
fn get() -> io::Result<SchedAttr> {
    let mut attr = SchedAttr::default();
    // SAFETY: `attr` is a writable `sched_attr` of the size passed; 0 is
    // the calling thread.
    let got = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            0,
            &mut attr as *mut SchedAttr,
            SCHED_ATTR_SIZE_VER1,
            0,
        )
    };
    if got != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(attr)
}

/// Sets the calling thread's scheduling attributes.
fn set(mut attr: SchedAttr) -> io::Result<()> {
    attr.size = SCHED_ATTR_SIZE_VER1;
    // SAFETY: `attr` is a valid `sched_attr` of the size it states; 0 is
    // the calling thread.
    let set = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
    if set != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Takes the shortest time slice for the calling thread, with
/// `SCHED_FLAG_RESET_ON_FORK`. Leaves the thread as it is (an error) when
/// the kernel refuses, when its policy is not the normal one
/// (`SCHED_BATCH`, `SCHED_IDLE`, real-time: the user's choice), or when
/// its nice value is below zero (resetting on fork would not pass it on
/// to the hooks). A kernel older than 6.12 keeps the slice it had.
pub(crate) fn prefer_short_slice() -> io::Result<()> {
    let before = get()?;
    if before.sched_policy != libc::SCHED_OTHER as u32 || before.sched_nice < 0 {
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    }
    set(SchedAttr {
        sched_flags: before.sched_flags | SCHED_FLAG_RESET_ON_FORK,
        sched_runtime: SHORTEST_SLICE_NS,
        ..before
    })
}
