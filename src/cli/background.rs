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
//! descriptors. The job follows to the end of the stream: one line of
//! JSON, then the byte strings it names by length (a payload, or what the
//! hook printed so far), raw.

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
use crate::run::{OutputLimits, Released, Runner};
use crate::session::Session;

use super::exit;

/// The most a job may be beside its payload: the command, and what a
/// hook printed before it went to the background (at most the 8 MiB of
/// stdout the claude dialect keeps).
const MAX_JOB_BESIDE_PAYLOAD: u64 = 12 << 20;

/// The most descriptors a job carries: pidfd, stdin, stdout, stderr.
const MAX_FDS: usize = 4;

/// What the detached process reads on stdin (its first line).
#[derive(Serialize, Deserialize)]
struct Sent {
    /// Where the answer goes; `None` for a job whose answer is not kept.
    state_root: Option<PathBuf>,
    work: Work,
    /// The lengths of the byte strings after the line: for `Run`, the
    /// payload; for `Follow`, what the hook printed so far, then the rest
    /// of its payload.
    parts: Vec<usize>,
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
    start: Option<u64>,
    /// Which descriptors came, in this order: pidfd, stdin, stdout,
    /// stderr.
    present: [bool; MAX_FDS],
    left: Duration,
    limits: OutputLimits,
}

/// Starts each job in a detached `latch background-hook` process.
pub struct BackgroundProcess {
    /// The state directory root of `latch fire`.
    pub state_root: Option<PathBuf>,
}

impl Background for BackgroundProcess {
    fn start(&self, mut job: BackgroundJob) -> Result<(), String> {
        if job.deliver {
            self.deliverable(job.session_id.as_deref())?;
        }
        let payload = std::mem::take(&mut job.command.stdin);
        let sent = Sent {
            state_root: self.state_root.clone(),
            parts: vec![payload.len()],
            work: Work::Run(job),
        };
        hand_over(&sent, &[&payload], &[])
    }

    /// Only with a state directory to keep the answers in.
    fn follows(&self) -> bool {
        self.state_root.is_some()
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
            parts: vec![released.stdout_so_far.len(), released.stdin_rest.len()],
            work: Work::Follow(Follow {
                answered: Answered {
                    dialect,
                    hook,
                    event,
                    session_id,
                },
                pid: released.pid,
                start: released.start,
                present: [0, 1, 2, 3].map(|i| fds[i].is_some()),
                left: released.left,
                limits: released.limits,
            }),
        };
        let borrowed: Vec<BorrowedFd<'_>> = fds.iter().flatten().map(AsFd::as_fd).collect();
        // This process's copies close when `fds` drops, after the hand-over.
        let handed = hand_over(
            &sent,
            &[&released.stdout_so_far, &released.stdin_rest],
            &borrowed,
        );
        // Nobody follows it: it dies now, with its group. With a pidfd it
        // was not reaped, and is still this process's child (released,
        // never reaped since), so its pid names no other process.
        if handed.is_err()
            && fds[0].is_some()
            && let Some(group) = rustix::process::Pid::from_raw(released.pid)
        {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        handed
    }
}

impl BackgroundProcess {
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

/// Starts `latch background-hook` and sends it `sent`, its `parts` and
/// `fds`.
fn hand_over(sent: &Sent, parts: &[&[u8]], fds: &[BorrowedFd<'_>]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find latch itself: {e}"))?;
    // JSON escapes every newline in its strings: the first one ends it.
    let mut text = serde_json::to_vec(sent).map_err(|e| e.to_string())?;
    text.push(b'\n');
    for part in parts {
        text.extend_from_slice(part);
    }
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
    let mut socket = std::fs::File::from(ours);
    socket
        .write_all(rest)
        .map_err(|e| format!("cannot hand the job over: {e}"))?;
    // The end of the job; then the new process says it has it.
    rustix::net::shutdown(&socket, rustix::net::Shutdown::Write)
        .map_err(|e| format!("cannot hand the job over: {e}"))?;
    let mut polled = [rustix::event::PollFd::new(
        &socket,
        rustix::event::PollFlags::IN,
    )];
    let wait = rustix::event::Timespec {
        tv_sec: ACK_WAIT_SECS,
        tv_nsec: 0,
    };
    let mut ack = [0u8; 1];
    let ready = loop {
        match rustix::event::poll(&mut polled, Some(&wait)) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other,
        }
    };
    match ready {
        Ok(n) if n > 0 && matches!(socket.read(&mut ack), Ok(1)) && ack == *ACK => Ok(()),
        _ => Err("latch background-hook did not take the job".to_owned()),
    }
}

/// What `latch background-hook` answers once it has its job.
const ACK: &[u8; 1] = b"k";

/// How long `latch fire` waits for that answer.
const ACK_WAIT_SECS: i64 = 10;

/// Reads the job, its byte strings and its descriptors from stdin.
fn receive() -> Option<(Sent, Vec<Vec<u8>>, Vec<OwnedFd>)> {
    let stdin = std::io::stdin();
    let mut first = [0u8; 1];
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut fds = Vec::new();
    let mut text = Vec::new();
    let got = loop {
        match rustix::net::recvmsg(
            stdin.as_fd(),
            &mut [IoSliceMut::new(&mut first)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other,
        }
    };
    match got {
        // Descriptors that did not all fit: the job cannot be followed.
        Ok(got) if got.flags.contains(rustix::net::ReturnFlags::CTRUNC) => return None,
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
    let max = super::event_input::max_event_bytes()
        .unwrap_or(16 << 20)
        .saturating_add(MAX_JOB_BESIDE_PAYLOAD);
    stdin.lock().take(max).read_to_end(&mut text).ok()?;
    let line = text.iter().position(|&b| b == b'\n')?;
    let sent: Sent = serde_json::from_slice(&text[..line]).ok()?;
    let mut rest = &text[line + 1..];
    let mut parts = Vec::with_capacity(sent.parts.len());
    for &len in &sent.parts {
        let (part, after) = rest.split_at_checked(len)?;
        parts.push(part.to_vec());
        rest = after;
    }
    rest.is_empty().then_some((sent, parts, fds))
}

/// Runs `latch background-hook`: one job from stdin.
pub async fn run() -> u8 {
    let Some((sent, parts, fds)) = receive() else {
        return exit::BAD_EVENT;
    };
    // `latch fire` waits for this before it lets the hook go.
    let _ = rustix::io::write(std::io::stdin().as_fd(), ACK);
    let _ = crate::run::become_subreaper();
    let mut parts = parts.into_iter();
    match sent.work {
        Work::Run(mut job) => {
            job.command.stdin = parts.next().unwrap_or_default();
            let result = Runner::default().run(&job.command).await;
            if !job.deliver {
                return exit::OK;
            }
            let answered = Answered::of(&job);
            let ended = crate::background::ended(&result);
            keep(sent.state_root, &answered, &result.stdout.bytes, ended).await
        }
        Work::Follow(follow) => {
            let mut fds = fds.into_iter();
            let mut next = |present: bool| present.then(|| fds.next()).flatten();
            let [pidfd, stdin, stdout, stderr] = follow.present.map(&mut next);
            let released = Released {
                pid: follow.pid,
                start: follow.start,
                pidfd,
                stdout_so_far: parts.next().unwrap_or_default(),
                stdin_rest: parts.next().unwrap_or_default(),
                stdin,
                stdout,
                stderr,
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
        (_, Ok(())) => exit::OK,
        (_, Err(_)) => exit::INTERNAL,
    }
}
