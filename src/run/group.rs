//! The kill guard: nothing a hook started outlives latch's interest in it.

use rustix::process::Signal;

use super::tree::HookTree;

/// Owns the process tree of one hook (see [`HookTree`]). Dropping an armed
/// guard kills the whole tree, the hook's group and every descendant that
/// left it: that is what makes a dropped dispatch leave nothing behind.
pub(super) struct GroupGuard {
    tree: Option<HookTree>,
}

impl GroupGuard {
    /// A guard for the hook `pid` (none if the pid is unknown), whose start
    /// time was recorded at spawn when orphan adoption is on.
    pub(super) fn new(pid: Option<u32>, start: Option<u64>) -> Self {
        let tree = pid
            .and_then(|p| i32::try_from(p).ok())
            .filter(|&p| p > 0)
            .map(|p| HookTree::new(p, start));
        GroupGuard { tree }
    }

    /// Asks every process of the tree to stop (SIGTERM).
    pub(super) fn terminate(&mut self) {
        if let Some(tree) = &mut self.tree {
            tree.signal(Signal::TERM);
        }
    }

    /// Kills every process of the tree.
    pub(super) fn kill(&mut self) {
        if let Some(tree) = &mut self.tree {
            tree.kill();
        }
    }

    /// The hook itself was reaped (by tokio).
    pub(super) fn leader_reaped(&mut self) {
        if let Some(tree) = &mut self.tree {
            tree.leader_reaped();
        }
    }

    /// The run finished: dropping no longer kills. What the hook left
    /// behind that let go of its output (a deliberate daemon) lives on.
    pub(super) fn disarm(&mut self) {
        self.tree = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}
