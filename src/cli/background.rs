//! Background hooks for `latch fire`: each runs in a detached latch process
//! (`latch background-hook`, hidden), which gets its work on stdin, waits
//! for the hook with its timeout, and stores what the hook says in the
//! session's state for a later event. The work is either
//! - a hook to start (an `async` handler), or
//! - a hook `latch fire` started that went on in the background (its first
//!   stdout line was `{"async":true}`): its pipes and a pidfd on it come
//!   along as descriptors (`SCM_RIGHTS`), so the new process can read what
//!   it prints next and stop it when its time is up.
//!
//! stdin is a Unix socket for that reason: the first message carries the
//! descriptors, and the job, JSON, follows to the end of the stream.

use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};
use serde::{Deserialize, Serialize};

use crate::background::{Answered, keep_answer};
use crate::pipeline::{Background, BackgroundJob, DetachedJob};
use crate::run::{OutputLimits, Released, Runner, Termination};
use crate::session::Session;

use super::exit;

/// The most a job description may be (a payload is at most the event's 16
/// MiB, plus the command; its bytes are numbers in JSON).
const MAX_JOB: u64 = 96 << 20;

/// The most descriptors a job carries: pidfd, stdin, stdout, stderr.
const MAX_FDS: usize = 4;

/// What the detached process reads on stdin.
#[derive(Serialize, Deserialize)]
struct Sent {
    /// Where the answer goes; `None` for a job whose answer is not kept.
    state_root: Option<PathBuf>,
    work: Work,
}

/// The work of one detached process.
#[derive(Serialize, Deserialize)]
enum Work {
    /// Start this hook and wait for it.
    Run(BackgroundJob),
    /// Follow the hook whose descriptors came with the message.
    Follow(Follow),
}

/// A hook that went on in the background, without its descriptors.
#[derive(Serialize, Deserialize)]
struct Follow {
    answered: Answered,
    pid: i32,
    /// Which descriptors came, in this order: pidfd, stdin, stdout,
    /// stderr.
    present: [bool; MAX_FDS],
    stdin_rest: Vec<u8>,
    stdout_so_far: Vec<u8>,
    left: Duration,
    limits: OutputLimits,
}

/// Starts each job in a detached `latch background-hook` process.
pub struct Detached {
    /// The state directory root of `latch fire`.
    pub state_root: Option<PathBuf>,
}

impl Background for Detached {
    fn start(&self, job: BackgroundJob) -> Result<(), String> {
        if job.deliver {
            self.deliverable(job.session_id.as_deref())?;
        }
        let sent = Sent {
            state_root: self.state_root.clone(),
            work: Work::Run(job),
        };
        hand_over(&sent, &[])
    }

    fn adopt(&self, job: DetachedJob) -> Result<(), String> {
        self.deliverable(job.session_id.as_deref())?;
        let DetachedJob {
            dialect,
            hook,
            event,
            session_id,
            process,
        } = job;
        let released = process.release();
        let fds = [
            released.pidfd,
            released.stdin,
            released.stdout,
            released.stderr,
        ];
        let sent = Sent {
            state_root: self.state_root.clone(),
            work: Work::Follow(Follow {
                answered: Answered {
                    dialect,
                    hook,
                    event,
                    session_id,
                },
                pid: released.pid,
                present: [0, 1, 2, 3].map(|i| fds[i].is_some()),
                stdin_rest: released.stdin_rest,
                stdout_so_far: released.stdout_so_far,
                left: released.left,
                limits: released.limits,
            }),
        };
        let borrowed: Vec<BorrowedFd<'_>> = fds.iter().flatten().map(AsFd::as_fd).collect();
        // This process's copies close when `fds` drops, after the hand-over.
        hand_over(&sent, &borrowed)
    }
}

impl Detached {
    /// Whether an answer for `session` can be kept.
    fn deliverable(&self, session: Option<&str>) -> Result<(), String> {
        if self.state_root.is_none() {
            return Err("no state directory to keep its answer in".to_owned());
        }
        if session.is_none() {
            return Err("the event has no session_id to deliver its answer to".to_owned());
        }
        Ok(())
    }
}

/// Starts `latch background-hook` and sends it `sent`, with `fds`.
fn hand_over(sent: &Sent, fds: &[BorrowedFd<'_>]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find latch itself: {e}"))?;
    let text = serde_json::to_vec(sent).map_err(|e| e.to_string())?;
    let (ours, theirs) = rustix::net::socketpair(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| format!("cannot make a socket for latch background-hook: {e}"))?;
    Command::new(exe)
        .arg("background-hook")
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group, so that a signal to the harness's group does
        // not reach it; `latch fire` never waits for it.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start latch background-hook: {e}"))?;
    // The descriptors ride on the first byte; the rest follows.
    let (first, rest) = text.split_at(1);
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err("too many descriptors to hand over".to_owned());
    }
    rustix::net::sendmsg(
        &ours,
        &[IoSlice::new(first)],
        &mut control,
        SendFlags::empty(),
    )
    .map_err(|e| format!("cannot hand the job over: {e}"))?;
    std::fs::File::from(ours)
        .write_all(rest)
        .map_err(|e| format!("cannot hand the job over: {e}"))
}

/// Reads the job and its descriptors from stdin.
fn receive() -> Option<(Sent, Vec<OwnedFd>)> {
    let stdin = std::io::stdin();
    let mut first = [0u8; 1];
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut fds = Vec::new();
    let mut text = Vec::new();
    match rustix::net::recvmsg(
        stdin.as_fd(),
        &mut [IoSliceMut::new(&mut first)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    ) {
        Ok(got) => {
            text.extend_from_slice(first.get(..got.bytes).unwrap_or_default());
            for message in control.drain() {
                if let RecvAncillaryMessage::ScmRights(received) = message {
                    fds.extend(received);
                }
            }
        }
        // Not a socket: the job alone, from a pipe or a file.
        Err(rustix::io::Errno::NOTSOCK) => {}
        Err(_) => return None,
    }
    stdin.lock().take(MAX_JOB).read_to_end(&mut text).ok()?;
    Some((serde_json::from_slice(&text).ok()?, fds))
}

/// Runs `latch background-hook`: one job from stdin.
pub async fn run() -> u8 {
    let Some((sent, fds)) = receive() else {
        return exit::BAD_EVENT;
    };
    let _ = crate::run::become_subreaper();
    match sent.work {
        Work::Run(job) => {
            let result = Runner::default().run(&job.command).await;
            if !job.deliver {
                return exit::OK;
            }
            let answered = Answered {
                dialect: job.dialect,
                hook: job.hook,
                event: job.event,
                session_id: job.session_id,
            };
            let ended = matches!(result.termination, Termination::Exited(_));
            keep(sent.state_root, &answered, &result.stdout.bytes, ended).await
        }
        Work::Follow(follow) => {
            let mut fds = fds.into_iter();
            let mut next = |present: bool| present.then(|| fds.next()).flatten();
            let [pidfd, stdin, stdout, stderr] = follow.present.map(&mut next);
            let released = Released {
                pid: follow.pid,
                pidfd,
                stdin,
                stdin_rest: follow.stdin_rest,
                stdout,
                stderr,
                stdout_so_far: follow.stdout_so_far,
                left: follow.left,
                limits: follow.limits,
            };
            let followed = crate::run::follow(released, Runner::default().grace).await;
            keep(
                sent.state_root,
                &follow.answered,
                &followed.stdout.bytes,
                !followed.timed_out,
            )
            .await
        }
    }
}

/// Keeps an answer in its session, under `state_root`.
async fn keep(state_root: Option<PathBuf>, answered: &Answered, stdout: &[u8], ended: bool) -> u8 {
    let (Some(root), Some(id)) = (state_root, answered.session_id.as_deref()) else {
        return exit::BAD_EVENT;
    };
    let session = Session::open_or_unusable(&root, id);
    match keep_answer(answered, stdout, ended, &session).await {
        Ok(_) => exit::OK,
        Err(_) => exit::INTERNAL,
    }
}
