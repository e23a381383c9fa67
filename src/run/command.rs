//! What a dialect hands the runner: one hook process, described whole
//! (program, environment, directory, payload, timeout, output caps).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::FirstLineRule;

/// What to execute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Program {
    /// A script run by a shell: `<shell> -c <script>`. The script is the
    /// user's own configuration text; event data never goes into it.
    Shell {
        /// The shell, such as `/bin/sh` or `bash`.
        shell: PathBuf,
        /// The script passed after `-c`.
        script: String,
    },
    /// A program run directly with its arguments, no shell.
    Exec {
        /// The program (a path, or a name looked up on `PATH`).
        program: PathBuf,
        /// The arguments, passed verbatim.
        args: Vec<String>,
    },
}

/// Which environment the hook process gets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EnvPolicy {
    /// The harness's environment plus these variables.
    Inherit(Vec<(OsString, OsString)>),
    /// Exactly these variables and nothing else.
    Only(Vec<(OsString, OsString)>),
}

/// Byte caps for the captured output. Past a cap latch keeps reading but
/// stops storing, and records that the stream was truncated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputLimits {
    /// At most this many bytes of stdout are kept.
    pub stdout: usize,
    /// At most this many bytes of stderr are kept.
    pub stderr: usize,
}

/// A full description of one hook process (serializable, so that a
/// detached process can run it later).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HookCommand {
    /// What to execute.
    pub program: Program,
    /// The environment.
    pub env: EnvPolicy,
    /// The working directory; the harness's own when `None`.
    pub cwd: Option<PathBuf>,
    /// The bytes written to the hook's stdin (the event payload).
    pub stdin: Vec<u8>,
    /// How long the hook may run before it and its descendants are killed.
    pub timeout: Duration,
    /// Caps on captured output.
    pub limits: OutputLimits,
    /// How long to wait, once the hook exited, for its output to close.
    #[serde(default)]
    pub output_wait: OutputWait,
    /// When set, the hook may go on in the background: the rule reads its
    /// stdout as it arrives, and once it says [`FirstLine::Detach`](super::FirstLine::Detach) the
    /// run returns at once, [`Termination::Detached`](super::Termination::Detached), with the live
    /// process in [`RunResult::detached`](super::RunResult::detached). Not serialized: a detached
    /// process never detaches again.
    #[serde(skip)]
    pub detach: Option<FirstLineRule>,
}

/// How long the runner waits, once the hook exited, for its output pipes
/// to close: a process the hook started in the background may hold them.
/// When the wait ends with the pipes still open, every descendant of the
/// hook is killed and the run says so ([`RunResult::killed_leftovers`](super::RunResult::killed_leftovers)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OutputWait {
    /// The runner's drain window ([`Runner::drain`](super::Runner::drain), 1 s by default).
    #[default]
    Drain,
    /// Until the hook's timeout, counted from its start, as Claude Code
    /// waits for a hook's output to close (at least the drain window).
    UntilTimeout,
}
