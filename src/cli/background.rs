//! Background hooks for `latch fire`: each job runs in a detached latch
//! process (`latch background-hook`, hidden), which reads the job on stdin,
//! runs the hook with its timeout, and stores what the hook says in the
//! session's state for a later event.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::pipeline::{Background, BackgroundJob};
use crate::run::Runner;
use crate::session::Session;

use super::exit;

/// The most a job description may be (a payload is at most the event's 16
/// MiB, plus the command).
const MAX_JOB: u64 = 32 << 20;

/// What the detached process reads on stdin.
#[derive(Serialize, Deserialize)]
struct Sent {
    /// Where the answer goes; `None` for a job whose answer is not kept.
    state_root: Option<PathBuf>,
    job: BackgroundJob,
}

/// Starts each job in a detached `latch background-hook` process.
pub struct Detached {
    /// The state directory root of `latch fire`.
    pub state_root: Option<PathBuf>,
}

impl Background for Detached {
    fn start(&self, job: BackgroundJob) -> Result<(), String> {
        let state_root = self.state_root.clone();
        if job.deliver {
            if state_root.is_none() {
                return Err("no state directory to keep its answer in".to_owned());
            }
            if job.session_id.is_none() {
                return Err("the event has no session_id to deliver its answer to".to_owned());
            }
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find latch itself: {e}"))?;
        let text = serde_json::to_vec(&Sent { state_root, job }).map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .arg("background-hook")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group, so that a signal to the harness's group does
            // not reach it; `latch fire` never waits for it.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start latch background-hook: {e}"))?;
        let Some(mut stdin) = child.stdin.take() else {
            return Err("no pipe to latch background-hook".to_owned());
        };
        stdin
            .write_all(&text)
            .map_err(|e| format!("cannot hand the job over: {e}"))
    }
}

/// Runs `latch background-hook`: one job from stdin.
pub async fn run() -> u8 {
    let mut text = Vec::new();
    if std::io::stdin()
        .take(MAX_JOB)
        .read_to_end(&mut text)
        .is_err()
    {
        return exit::INTERNAL;
    }
    let Ok(sent) = serde_json::from_slice::<Sent>(&text) else {
        return exit::BAD_EVENT;
    };
    let _ = crate::run::become_subreaper();
    if !sent.job.deliver {
        Runner::default().run(&sent.job.command).await;
        return exit::OK;
    }
    let (Some(root), Some(id)) = (sent.state_root.as_deref(), sent.job.session_id.as_deref())
    else {
        return exit::BAD_EVENT;
    };
    let session = Session::open_or_unusable(root, id);
    let result = Runner::default().run(&sent.job.command).await;
    match crate::background::keep_answer(&sent.job, &result, &session).await {
        Ok(_) => exit::OK,
        Err(_) => exit::INTERNAL,
    }
}
