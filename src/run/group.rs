//! The process-group guard: a hook's group never outlives latch's interest in it.

use rustix::process::{Pid, Signal, kill_process_group};

/// Owns the process group of one hook (the hook is its leader, so the group
/// id is the hook's pid). Dropping an armed guard SIGKILLs the whole group:
/// that is what makes a cancelled dispatch leave nothing behind.
pub(super) struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    pub(super) fn new(pid: Option<u32>) -> Self {
        let pgid = pid
            .and_then(|p| i32::try_from(p).ok())
            .and_then(Pid::from_raw);
        GroupGuard { pgid }
    }

    /// Asks every process of the group to stop.
    pub(super) fn terminate(&self) {
        self.signal(Signal::TERM);
    }

    /// Kills every process of the group.
    pub(super) fn kill(&self) {
        self.signal(Signal::KILL);
    }

    /// The run finished normally: dropping no longer kills.
    pub(super) fn disarm(&mut self) {
        self.pgid = None;
    }

    fn signal(&self, sig: Signal) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is the good case; nothing
            // else can usefully be done about an error here.
            let _ = kill_process_group(pgid, sig);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}
