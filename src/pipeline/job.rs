//! Running hook processes for a dialect, each recorded the same way: one
//! at a time ([`run`]), or several at once by joining their runs
//! ([`run_among`] and [`join_all`]).

use crate::outcome::HookRun;
use crate::run::{Exit, HookCommand, RunResult};

pub use crate::join::join_all;

use super::DispatchContext;

/// One hook process to run, and the record its run fills in.
#[derive(Debug)]
pub struct Job {
    /// The command, its input, environment, directory, timeout and limits.
    pub command: HookCommand,
    /// The run's record, with the hook, dialect, event and source set.
    pub record: HookRun,
}

/// A job that ran.
#[derive(Debug)]
pub struct Finished {
    /// What the process did.
    pub result: RunResult,
    /// The job's record, with the process facts copied in (see
    /// [`record_process`]); the dialect adds its verdict.
    pub record: HookRun,
    /// The user warning for processes the hook left behind, if any (see
    /// [`leftovers_warning`]).
    pub warning: Option<String>,
    /// The command's input, handed back so a caller that sends the same
    /// bytes to several hooks can reuse the buffer.
    pub stdin: Vec<u8>,
}

/// Runs one job until it ends or the dispatch is cancelled. Nothing else
/// of the dispatch runs meanwhile, so a runner that may lend the thread
/// does (see [`crate::run::Runner::lend_thread`]).
pub async fn run(cx: &DispatchContext<'_>, job: Job) -> Finished {
    run_job(cx, job, true).await
}

/// Like [`run`], for a job that runs beside others ([`join_all`]): it
/// never blocks the thread.
pub async fn run_among(cx: &DispatchContext<'_>, job: Job) -> Finished {
    run_job(cx, job, false).await
}

async fn run_job(cx: &DispatchContext<'_>, job: Job, alone: bool) -> Finished {
    let result = if alone {
        cx.runner
            .run_lending(&job.command, cx.cancel, cx.lending())
            .await
    } else {
        cx.runner.run_until(&job.command, cx.cancel).await
    };
    finished(job, result)
}

/// Runs the jobs at once, as the dispatch's only work until they all end,
/// and returns them in their order, each with the order in which it
/// finished (0 first). A runner that may lend the thread waits for them
/// all on it (see [`crate::run::Runner::run_batch`]).
pub async fn run_all(cx: &DispatchContext<'_>, jobs: Vec<Job>) -> Vec<(Finished, usize)> {
    let commands: Vec<&HookCommand> = jobs.iter().map(|job| &job.command).collect();
    let results = cx
        .runner
        .run_batch_lending(&commands, cx.cancel, cx.lending())
        .await;
    jobs.into_iter()
        .zip(results)
        .map(|(job, (result, order))| (finished(job, result), order))
        .collect()
}

/// A job's record completed with what its process did.
fn finished(job: Job, result: RunResult) -> Finished {
    let Job {
        mut command,
        mut record,
    } = job;
    record_process(&mut record, &result);
    let warning = leftovers_warning(&record.hook, &record.event, &result);
    Finished {
        result,
        record,
        warning,
        stdin: std::mem::take(&mut command.stdin),
    }
}

/// The user warning for a hook that exited but left processes holding its
/// output open (latch killed every descendant of the hook), if it did.
pub fn leftovers_warning(hook: &str, event: &str, result: &RunResult) -> Option<String> {
    result.killed_leftovers.then(|| {
        if result.leftovers_escaped {
            format!(
                "hook {hook} ({event}) exited but left processes holding its output open; latch killed every descendant of the hook it could find, but the output is still held by a process out of its reach"
            )
        } else {
            format!(
                "hook {hook} ({event}) exited but left processes holding its output open; latch killed them and every other descendant of the hook"
            )
        }
    })
}

/// Copies the process facts of a run (duration, exit code or signal,
/// truncation) into its record.
pub fn record_process(record: &mut HookRun, result: &RunResult) {
    record.took(result.duration);
    record.started = std::time::SystemTime::now().checked_sub(result.duration);
    match result.termination.exit() {
        Some(Exit::Code(c)) => record.exit_code = Some(c),
        Some(Exit::Signal(s)) => record.signal = Some(s),
        None => {}
    }
    record.stdout_truncated = result.stdout.truncated;
    record.stderr_truncated = result.stderr.truncated;
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::run::{Cancel, EnvPolicy, OutputLimits, OutputWait, Program, Runner};
    use crate::session::Session;

    fn job(name: &str, script: &str, dir: &std::path::Path) -> Job {
        Job {
            command: HookCommand {
                program: Program::Shell {
                    shell: PathBuf::from("/bin/sh"),
                    script: script.to_owned(),
                },
                env: EnvPolicy::Inherit(Vec::new()),
                cwd: Some(dir.to_path_buf()),
                stdin: b"{}".to_vec(),
                timeout: Duration::from_secs(20),
                limits: OutputLimits {
                    stdout: 1024,
                    stderr: 1024,
                },
                output_wait: OutputWait::Drain,
                detach: None,
            },
            record: HookRun::new(name, "test", "PreToolUse", None),
        }
    }

    #[test]
    fn parallel_jobs_run_together_and_say_when_they_finished() {
        // Joined on the reactor, and as one batch on a lent thread.
        for (how, lend_thread) in [("joined", false), ("lent", true)] {
            parallel_jobs(lend_thread, how);
        }
    }

    fn parallel_jobs(lend_thread: bool, how: &str) {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let runner = Runner {
            lend_thread,
            ..Runner::default()
        };
        let (session, cancel) = (Session::in_memory(None), Cancel::never());
        let cx = DispatchContext::bare(&runner, &session, &cancel);
        // The first job waits for a file the third creates: run one after
        // another, the first would time out; run together, all succeed.
        let jobs = vec![
            job(
                "waits",
                "while [ ! -f made ]; do sleep 0.01; done; echo waited",
                dir.path(),
            ),
            job("reads", "cat; exit 3", dir.path()),
            job("makes", "sleep 0.2; touch made", dir.path()),
        ];
        let joined = if lend_thread {
            runtime.block_on(run_all(&cx, jobs))
        } else {
            let runs: Vec<crate::pipeline::BoxFuture<'_, Finished>> = jobs
                .into_iter()
                .map(|job| {
                    Box::pin(run_among(&cx, job)) as crate::pipeline::BoxFuture<'_, Finished>
                })
                .collect();
            runtime.block_on(join_all(runs))
        };
        let order: Vec<usize> = joined.iter().map(|(_, o)| *o).collect();
        let done: Vec<Finished> = joined.into_iter().map(|(f, _)| f).collect();
        let names: Vec<&str> = done.iter().map(|f| f.record.hook.as_str()).collect();
        assert_eq!(
            names,
            ["waits", "reads", "makes"],
            "{how}: results keep the jobs' order"
        );
        assert_eq!(done[0].result.stdout.bytes, b"waited\n", "{how}");
        assert_eq!(
            done[1].result.stdout.bytes, b"{}",
            "{how}: each job gets its stdin"
        );
        assert_eq!(
            done[1].record.exit_code,
            Some(3),
            "{how}: process facts are recorded"
        );
        assert_eq!(order[1], 0, "{how}: the quick job finished first");
        let mut order = order;
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2], "{how}: each finished at its own place");
        assert_eq!(done[1].stdin, b"{}", "{how}: the input is handed back");
    }
}
