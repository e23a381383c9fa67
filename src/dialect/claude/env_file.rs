//! `CLAUDE_ENV_FILE` (recorded: `n`, `q`, `r3_setup_init`, `r3_cwd_changed`,
//! `r3_file_changed_outputs`): a `SessionStart`, `Setup`, `CwdChanged` or
//! `FileChanged` hook may append `export NAME=value` lines to the file this
//! variable names; Claude Code then runs every later Bash tool call with
//! those variables (later hooks do not get them). latch gives each handler
//! in the session's private state directory, and after the hooks ran it
//! reads what the files export into the outcome's `shell_env`, for the
//! harness to apply to its shell tool.
//!
//! The files are shell text, so they are read the way a shell reads them:
//! each is sourced by `/bin/sh` (with a 5 s limit) in the environment and
//! working directory the hooks had — so `export PATH="/opt/x:$PATH"` keeps
//! the rest of `PATH`, as it would in Claude Code's Bash tool — and the
//! variables it leaves exported that a shell which sourced nothing does
//! not have, or has with another value, are the result.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::run::{
    Cancel, EnvPolicy, Exit, HookCommand, OutputLimits, OutputWait, Program, Runner, Termination,
};

/// How long sourcing one file may take.
const SOURCE_LIMIT: Duration = Duration::from_secs(5);

/// The file of the `index`th handler of an event, named as Claude Code
/// names it (recorded: `sessionstart-hook-0.sh`, `setup-hook-1.sh`,
/// `cwdchanged-hook-0.sh`, `filechanged-hook-0.sh`).
pub fn file(dir: &Path, event: &str, index: usize) -> PathBuf {
    dir.join(format!("{}-hook-{index}.sh", event.to_ascii_lowercase()))
}

/// The variables the files export, and a warning per file that could not
/// be read.
pub async fn exports(
    runner: &Runner,
    cancel: &Cancel,
    files: &[PathBuf],
    shell: &Shell,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut warnings = Vec::new();
    let present: Vec<&PathBuf> = files
        .iter()
        .filter(|f| std::fs::symlink_metadata(f).is_ok_and(|m| m.is_file() && m.len() > 0))
        .collect();
    if present.is_empty() {
        return (out, warnings);
    }
    let baseline = match source(runner, cancel, Path::new("/dev/null"), shell).await {
        Ok(v) => v,
        Err(e) => {
            warnings.push(format!("CLAUDE_ENV_FILE: {e}"));
            return (out, warnings);
        }
    };
    for f in present {
        match source(runner, cancel, f, shell).await {
            Ok(vars) => out.extend(vars.into_iter().filter(|(k, v)| baseline.get(k) != Some(v))),
            Err(e) => warnings.push(format!("CLAUDE_ENV_FILE {}: {e}", f.display())),
        }
    }
    (out, warnings)
}

/// Where the files are sourced: the variables the hooks got besides
/// latch's own environment, and their working directory.
#[derive(Debug)]
pub struct Shell {
    /// The settings files' `env`, `CLAUDE_PROJECT_DIR`, `CLAUDECODE`,
    /// `CLAUDE_CODE_SESSION_ID`.
    pub env: Vec<(OsString, OsString)>,
    /// The hooks' working directory.
    pub cwd: PathBuf,
}

/// The environment `/bin/sh` exports after sourcing `file`.
async fn source(
    runner: &Runner,
    cancel: &Cancel,
    file: &Path,
    shell: &Shell,
) -> Result<BTreeMap<String, String>, String> {
    let cmd = HookCommand {
        program: Program::Exec {
            program: PathBuf::from("/bin/sh"),
            args: vec![
                "-c".into(),
                ". \"$1\" >/dev/null 2>&1; env -0".into(),
                "sh".into(),
                file.to_string_lossy().into_owned(),
            ],
        },
        env: EnvPolicy::Inherit(shell.env.clone()),
        cwd: Some(shell.cwd.clone()),
        stdin: Vec::new(),
        timeout: SOURCE_LIMIT,
        limits: OutputLimits {
            stdout: 1 << 20,
            stderr: 1024,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    };
    let result = runner.run_until(&cmd, cancel).await;
    let failed = match &result.termination {
        Termination::Exited(Exit::Code(0)) => None,
        Termination::Exited(Exit::Code(code)) => Some(format!("the shell exited with {code}")),
        Termination::Exited(Exit::Signal(signal)) => {
            Some(format!("the shell was killed by signal {signal}"))
        }
        Termination::TimedOut { .. } => Some(format!(
            "it took longer than {} s and was stopped",
            SOURCE_LIMIT.as_secs()
        )),
        Termination::Cancelled { .. } | Termination::CancelledBeforeStart => {
            Some("the dispatch was cancelled".to_owned())
        }
        // This command has no first-line rule.
        Termination::Detached => Some("the shell went on in the background".to_owned()),
        Termination::SpawnFailed { message, .. } => {
            Some(format!("/bin/sh could not start: {message}"))
        }
    };
    if let Some(why) = failed {
        return Err(format!("sourcing it failed: {why}"));
    }
    if result.stdout.truncated {
        return Err("the environment after sourcing it is larger than 1 MiB".to_owned());
    }
    Ok(result
        .stdout
        .bytes
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let (k, v) = text.split_once('=')?;
            Some((k.to_owned(), v.to_owned()))
        })
        .collect())
}
