//! Orphan adoption: the opt-in that lets latch find descendants whose
//! parent died.
//!
//! When a process dies, Linux re-parents its children to the nearest
//! ancestor marked as a *child subreaper*, else to init. After
//! [`become_subreaper`], a hook's descendant orphaned by a dying
//! intermediate parent (a double fork, `setsid` then exit) becomes a child of
//! this process, where the runner can still find, kill and reap it.
//!
//! The runner must then tell the hooks it spawned (which their runners
//! wait for) from the orphans it adopted (which nobody else will reap):
//! every hook leader is recorded in [`LEADERS`] from spawn until it is
//! reaped.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};

use super::procfs::{self, ProcInfo};

/// Set once this process became a subreaper through [`become_subreaper`].
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// The hook leaders spawned by any runner of this process that may not
/// have been reaped yet, as (pid, start time). Held while a leader is
/// spawned and while a descendant set is collected and killed, so a leader
/// spawned concurrently is never taken for an orphan.
static LEADERS: Mutex<Vec<(i32, u64)>> = Mutex::new(Vec::new());

/// The process groups of reaped hooks that still had members when their
/// leader was reaped (a hook's background job that let go of its pipes).
/// Another hook's kill must not take their members for its own orphans,
/// and [`kill_leftovers`] ends them. A group's id is not reused while the
/// group has members, and the entries of emptied groups are dropped as
/// new ones come.
static LINGERING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Makes this process a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`),
/// so that a hook's descendants orphaned by the death of their parent are
/// re-parented here instead of to init, and the runner kills them with the
/// hook on a timeout, a cancel, or a drain that expires.
///
/// This changes process-wide state, so the library never does it by
/// itself: the `latch` command calls it at startup. An embedder that calls
/// it accepts two consequences: every process re-parented to it that
/// started after a hook and is not a hook of its own counts as that hook's
/// descendant when the hook is killed (so it should not fork children of
/// its own while hooks run, or it may lose them), and the runner reaps the
/// zombies of such adopted orphans. Without it, the runner still kills every
/// descendant it can reach through parent links, process groups and
/// sessions, but an orphan that left the hook's group and whose parent died
/// before the kill goes to init and escapes.
///
/// # Errors
/// When the operating system refuses, or is not Linux.
pub fn become_subreaper() -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::process::set_child_subreaper(rustix::process::getpid().into())?;
        ADOPTING.store(true, Ordering::SeqCst);
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// Whether this process adopts orphans (see [`become_subreaper`]).
pub(super) fn adopting() -> bool {
    ADOPTING.load(Ordering::SeqCst)
}

/// The leader table, locked. A poisoned lock still holds a valid table.
pub(super) fn leaders() -> MutexGuard<'static, Vec<(i32, u64)>> {
    LEADERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most leaders kept before gone ones are looked for in `/proc`.
/// Leaders are forgotten when reaped, so the table holds the hooks running
/// now; the bound only matters if a reap was missed.
const MAX_LEADERS: usize = 4096;

/// Now, in the unit of [`ProcInfo::start`] (clock ticks since boot): a
/// process that starts after this call has a start time at least this.
/// Taken just before a spawn, it stands for the hook's own start time
/// without reading `/proc` (which cost a fifth of a `fire` through
/// `latch serve` with 16 hooks, each spawn reading every other leader's
/// `stat` as well). It may be one tick (10 ms) early, which the start
/// times in `/proc` cannot tell apart anyway.
pub(super) fn ticks_now() -> Option<u64> {
    super::spawn::boot_ticks()
}

/// Records a freshly spawned leader (with the table already locked),
/// started at `start` (see [`ticks_now`]). Only needed, and only done,
/// while adopting.
pub(super) fn record_leader(table: &mut Vec<(i32, u64)>, pid: i32, start: u64) {
    if table.len() >= PRUNE_AT.load(Ordering::Relaxed) {
        // Forget leaders that are gone (a missed reap), or whose pid was
        // reused. Thousands of hooks may run at once: the next look is
        // when the table has doubled, so that every spawn does not read
        // every leader's `stat` again (4,500 hooks of one event took
        // 27 s instead of 5).
        table.retain(|&(p, s)| procfs::stat(p).is_some_and(|i| i.start >= s));
        PRUNE_AT.store((table.len() * 2).max(MAX_LEADERS), Ordering::Relaxed);
    }
    table.push((pid, start));
}

/// The table size at which [`record_leader`] next looks for gone leaders.
static PRUNE_AT: AtomicUsize = AtomicUsize::new(MAX_LEADERS);

/// Forgets a leader once it was reaped: the entry recorded for it at
/// `start`, not another hook that may have got its pid since.
pub(super) fn forget_leader(pid: i32, start: Option<u64>) {
    leaders().retain(|&(p, s)| p != pid || start.is_some_and(|start| s != start));
}

/// The lingering groups (see [`LINGERING`]), locked.
pub(super) fn lingering() -> MutexGuard<'static, Vec<i32>> {
    LINGERING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Notes the group of the hook `leader`, just reaped, if something of it
/// still runs; forgets the groups that emptied meanwhile.
pub(super) fn note_lingering(leader: i32) {
    let mut groups = lingering();
    groups.retain(|&g| g != leader && still_lingering(g));
    if still_lingering(leader) && groups.len() < MAX_LEADERS {
        groups.push(leader);
    }
}

/// Whether the group `g` of a reaped hook still has members and is still
/// that hook's: its id names no live process (the kernel gives out no pid
/// that is a living group's id, so a process with pid `g` means the group
/// emptied and the id was reused).
pub(super) fn still_lingering(g: i32) -> bool {
    Pid::from_raw(g).is_some_and(|pid| {
        rustix::process::test_kill_process_group(pid).is_ok()
            && rustix::process::test_kill_process(pid).is_err()
    })
}

/// Kills what the hooks of this process left running after they ended,
/// for a server about to exit with no process left behind: every member
/// of a lingering group and, while adopting, every orphan re-parented here
/// (none of which is a running hook), each with all it started.
pub fn kill_leftovers() {
    let groups = std::mem::take(&mut *lingering());
    super::tree::kill_leftovers(&groups);
}

/// Reaps the orphans this process adopted (see [`become_subreaper`]) that
/// ended by themselves: a hook's background job that outlived the hook
/// and then exited is otherwise a zombie child until the process exits.
/// A long-lived host (`latch serve`) calls this now and then; a running
/// hook is never reaped here (its runner reaps it, for its exit status).
///
/// Only for a process whose children are all latch's: any other child of
/// it that ended would be reaped too, and its exit status lost.
pub fn reap_orphans() {
    if !adopting() {
        return;
    }
    // Most of the time no child has ended: one `waitid` that reaps
    // nothing (`NOWAIT`) tells, before `/proc` is read.
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    if !matches!(waitid(WaitId::All, options), Ok(Some(_))) {
        return;
    }
    super::tree::reap_ended_orphans();
}

/// Whether `p` is a hook leader of this process (its runner's to reap).
/// The pid alone tells: a leader leaves the table when it is reaped, and
/// until then its pid cannot name another process.
pub(super) fn is_leader(table: &[(i32, u64)], p: &ProcInfo) -> bool {
    table.iter().any(|&(pid, _)| pid == p.pid)
}
