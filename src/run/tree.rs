//! A hook's process tree: every process the hook started, found by walking
//! `/proc`, and killed so that none escapes.
//!
//! A hook leads its own process group, but a descendant may leave it
//! (`setpgid`, `setsid`, as `timeout(1)` does) and its parent may die, so a
//! group kill is not enough. [`HookTree`] collects, from one snapshot of the
//! process table:
//! - the hook itself, while it is not reaped;
//! - every member of its process group;
//! - every process it saw before, if still the same process (pid and start
//!   time), whatever became of its parent;
//! - with orphan adoption on ([`super::become_subreaper`]), every child of
//!   latch that started after the hook, is not another hook, and does not
//!   belong to another running hook's group or session;
//!
//! and then, until nothing new turns up, the children of those, the members
//! of groups and sessions they lead. Killing first freezes the set with
//! SIGSTOP, walking again until it stops growing, so a fork loop cannot
//! outrun the walk; then SIGKILL goes to all of them at once, and the
//! orphans latch adopted are reaped (by pid, never `waitpid(-1)`, which
//! would steal tokio's children).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, waitpid};

use super::adopt;
use super::procfs::{self, ProcInfo};

/// At most this many freezing walks; a set still growing after them is
/// killed anyway (and what it spawned meanwhile is found by the sweeps
/// after the kill).
const FREEZE_ROUNDS: usize = 64;

/// After SIGKILL, walks again at most this many times for processes that
/// appeared between the last walk and the kill.
const KILL_SWEEPS: usize = 8;

/// How long to wait for killed orphans to become reapable.
const REAP_WAIT: Duration = Duration::from_millis(200);

/// The processes one hook started.
#[derive(Debug)]
pub(super) struct HookTree {
    /// The hook's pid, which is also its process group id.
    leader: i32,
    /// The hook's start time, when known (orphan adoption needs it).
    leader_start: Option<u64>,
    /// Whether the leader is reaped (its pid may then be reused).
    leader_reaped: bool,
    /// Every process seen in the tree: pid to start time.
    members: HashMap<i32, u64>,
}

impl HookTree {
    /// The tree of the hook `leader`, spawned with `leader_start` recorded
    /// (see [`adopt::record_leader`]).
    pub(super) fn new(leader: i32, leader_start: Option<u64>) -> Self {
        HookTree {
            leader,
            leader_start,
            leader_reaped: false,
            members: HashMap::new(),
        }
    }

    /// The leader was reaped: from now on its pid names nothing of ours.
    pub(super) fn leader_reaped(&mut self) {
        self.leader_reaped = true;
        if adopt::adopting() {
            adopt::forget_leader(self.leader, self.leader_start);
        }
        adopt::note_lingering(self.leader);
    }

    /// Sends `sig` to the hook's group, then to every process of the tree
    /// (also the ones that left the group, found first), without freezing
    /// (used for the polite SIGTERM). The group first, in one call: its members get the
    /// signal at once, so a shell cannot see its child die of it and run
    /// its next command before its own arrives (recorded:
    /// `r2_timeout_kill_tree`, where Claude Code's kill left no command
    /// run after the timeout).
    pub(super) fn signal(&mut self, sig: Signal) {
        // The tree is found before anything dies: a descendant that left
        // the group is found through its parent, which the group's signal
        // may kill.
        let table = adopt::leaders();
        let outside: Vec<i32> = procfs::snapshot()
            .map(|procs| {
                let set = self.collect(&procs, &table);
                // The group's members get the group's signal: once only,
                // so a `trap … TERM` runs once.
                procs
                    .iter()
                    .filter(|p| set.contains(&p.pid) && p.pgid != self.leader)
                    .map(|p| p.pid)
                    .collect()
            })
            .unwrap_or_default();
        self.signal_group(sig);
        for pid in outside {
            send(pid, sig);
        }
    }

    /// Kills every process of the tree: freeze, SIGKILL, reap the adopted.
    pub(super) fn kill(&mut self) {
        let table = adopt::leaders();
        let Some(mut procs) = procfs::snapshot() else {
            // No /proc: the process group is all that can be reached.
            self.signal_group(Signal::KILL);
            return;
        };
        let mut stopped: HashSet<i32> = HashSet::new();
        for _ in 0..FREEZE_ROUNDS {
            let set = self.collect(&procs, &table);
            let fresh: Vec<i32> = set.difference(&stopped).copied().collect();
            if fresh.is_empty() {
                break;
            }
            for pid in fresh {
                send(pid, Signal::STOP);
                stopped.insert(pid);
            }
            match procfs::snapshot() {
                Some(p) => procs = p,
                None => break,
            }
        }
        self.signal_group(Signal::KILL);
        let mut killed: HashSet<i32> = HashSet::new();
        for _ in 0..KILL_SWEEPS {
            let set = self.collect(&procs, &table);
            let fresh: Vec<i32> = set.difference(&killed).copied().collect();
            if fresh.is_empty() {
                break;
            }
            for pid in fresh {
                send(pid, Signal::KILL);
                killed.insert(pid);
            }
            match procfs::snapshot() {
                Some(p) => procs = p,
                None => break,
            }
        }
        // The kill is done; a leader spawned from now on cannot be taken
        // for a member, so other runners may go on spawning.
        drop(table);
        if adopt::adopting() {
            self.reap();
        }
    }

    /// The live processes of the tree in `procs` (remembering them).
    fn collect(&mut self, procs: &[ProcInfo], leaders: &[(i32, u64)]) -> HashSet<i32> {
        let me = i32::try_from(std::process::id()).unwrap_or(0);
        let adopting = adopt::adopting();
        let mut set: HashSet<i32> = HashSet::new();
        let other_leader = |p: &ProcInfo| p.pid != self.leader && adopt::is_leader(leaders, p);
        // The groups finished hooks left behind; an id that names a live
        // process was reused, and is no such group any more.
        let lingering: Vec<i32> = adopt::lingering()
            .iter()
            .copied()
            .filter(|&g| !procs.iter().any(|p| p.pid == g))
            .collect();
        // Another hook's own tree, running or left behind by a hook that
        // ended, which this tree must not touch.
        let foreign = |p: &ProcInfo| {
            leaders
                .iter()
                .map(|&(l, _)| l)
                .chain(lingering.iter().copied())
                .any(|l| l != self.leader && (p.pgid == l || p.sid == l))
        };
        for p in procs {
            if p.zombie || p.pid == me || other_leader(p) {
                continue;
            }
            let seed = (p.pid == self.leader && !self.leader_reaped)
                || p.pgid == self.leader
                || self.members.get(&p.pid) == Some(&p.start)
                || (adopting
                    && p.ppid == me
                    && self.leader_start.is_some_and(|s| p.start >= s)
                    && !foreign(p));
            if seed {
                set.insert(p.pid);
            }
        }
        // Close over children, and over groups and sessions led by members.
        loop {
            let before = set.len();
            for p in procs {
                if p.zombie || p.pid == me || other_leader(p) || set.contains(&p.pid) {
                    continue;
                }
                if set.contains(&p.ppid) || set.contains(&p.pgid) || set.contains(&p.sid) {
                    set.insert(p.pid);
                }
            }
            if set.len() == before {
                break;
            }
        }
        for p in procs {
            if set.contains(&p.pid) {
                self.members.insert(p.pid, p.start);
            }
        }
        set
    }

    /// Reaps the members that latch adopted and that died, waiting a short
    /// while for the kill to land. The hook itself is tokio's to reap.
    fn reap(&self) {
        let me = i32::try_from(std::process::id()).unwrap_or(0);
        let deadline = Instant::now() + REAP_WAIT;
        let mut pending: Vec<i32> = self
            .members
            .keys()
            .copied()
            .filter(|&p| p != self.leader)
            .collect();
        while !pending.is_empty() {
            pending.retain(|&pid| {
                let Some(info) = procfs::stat(pid) else {
                    return false;
                };
                if self.members.get(&pid) != Some(&info.start) {
                    return false;
                }
                if !info.zombie {
                    // Still dying, or its parent is about to die and
                    // hand it to latch.
                    return true;
                }
                if info.ppid == me {
                    reap_one(pid);
                    return false;
                }
                // A zombie of another parent: if that parent is a member, it
                // dies too and the zombie comes to latch.
                self.members.contains_key(&info.ppid)
            });
            if Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn signal_group(&self, sig: Signal) {
        if let Some(pgid) = Pid::from_raw(self.leader) {
            // ESRCH (the group is gone) is the good case.
            let _ = kill_process_group(pgid, sig);
        }
    }
}

/// See [`adopt::kill_leftovers`]: the members of `groups` (process groups
/// of reaped hooks), then, while adopting, every orphan child of this
/// process that is not a running hook, and what it started.
pub(super) fn kill_leftovers(groups: &[i32]) {
    for &group in groups.iter().filter(|&&g| adopt::still_lingering(g)) {
        let mut tree = HookTree::new(group, None);
        tree.leader_reaped = true;
        tree.kill();
    }
    if !adopt::adopting() {
        return;
    }
    // The snapshot is taken with the leader table held, so that a leader
    // reaped meanwhile is not taken for an orphan.
    let orphans: Vec<(i32, bool)> = {
        let table = adopt::leaders();
        let Some(procs) = procfs::snapshot() else {
            return;
        };
        orphans(&procs, &table).map(|p| (p.pid, p.zombie)).collect()
    };
    for (pid, zombie) in orphans {
        if !zombie {
            HookTree::new(pid, None).kill();
        }
        reap_one(pid);
    }
}

fn send(pid: i32, sig: Signal) {
    if let Some(p) = Pid::from_raw(pid) {
        // ESRCH: it died meanwhile, which is the point.
        let _ = kill_process(p, sig);
    }
}

/// Reaps every child of this process that ended and is not a hook leader
/// (see [`adopt::reap_orphans`]). `/proc` is read without the leader
/// table, which every spawn needs; each zombie found is reaped under it,
/// unless it is a leader by then (a pid reused by a new hook is recorded
/// before the hook can be a child here).
pub(super) fn reap_ended_orphans() {
    let Some(procs) = procfs::snapshot() else {
        return;
    };
    let ended: Vec<&ProcInfo> = orphans(&procs, &[]).filter(|p| p.zombie).collect();
    if ended.is_empty() {
        return;
    }
    let table = adopt::leaders();
    for p in ended.into_iter().filter(|p| !adopt::is_leader(&table, p)) {
        reap_one(p.pid);
    }
}

/// The children of this process in `procs` that are not hook leaders of
/// `table`: orphans it adopted.
fn orphans<'p>(
    procs: &'p [ProcInfo],
    table: &'p [(i32, u64)],
) -> impl Iterator<Item = &'p ProcInfo> {
    let me = i32::try_from(std::process::id()).unwrap_or(0);
    procs
        .iter()
        .filter(move |p| p.ppid == me && !adopt::is_leader(table, p))
}

fn reap_one(pid: i32) {
    if let Some(p) = Pid::from_raw(pid) {
        let _ = waitpid(Some(p), WaitOptions::NOHANG);
    }
}
