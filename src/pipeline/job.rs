//! Running hook processes for a dialect, each recorded the same way: one
//! at a time ([`run`]), or several at once by joining their runs
//! ([`join_all`]).

use std::future::poll_fn;
use std::task::Poll;

use crate::outcome::HookRun;
use crate::run::{Exit, HookCommand, RunResult};

use super::{BoxFuture, DispatchContext};

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

/// Runs one job until it ends or the dispatch is cancelled.
pub async fn run(cx: &DispatchContext<'_>, job: Job) -> Finished {
    let Job {
        mut command,
        mut record,
    } = job;
    let result = cx.runner.run_until(&command, cx.cancel).await;
    record_process(&mut record, &result);
    let warning = leftovers_warning(&record.hook, &record.event, &result);
    Finished {
        result,
        record,
        warning,
        stdin: std::mem::take(&mut command.stdin),
    }
}

/// Waits for every future, polling them all on the caller's task. The
/// results come back in the futures' order, each with the order in which
/// it finished (0 first).
pub async fn join_all<'a, T>(futures: Vec<BoxFuture<'a, T>>) -> Vec<(T, usize)> {
    // Hand-written rather than `tokio::spawn` or a `futures` join: the
    // futures borrow the dispatch context (no `'static` tasks), all of them
    // run on the caller's task, and the order they finish in is part of
    // the answer (Claude Code reports several hooks' texts in that order).
    let mut running: Vec<Option<BoxFuture<'a, T>>> = futures.into_iter().map(Some).collect();
    let mut done: Vec<Option<(T, usize)>> = running.iter().map(|_| None).collect();
    let mut finished = 0;
    poll_fn(|task| {
        for (slot, out) in running.iter_mut().zip(done.iter_mut()) {
            if let Some(future) = slot
                && let Poll::Ready(result) = future.as_mut().poll(task)
            {
                *out = Some((result, finished));
                finished += 1;
                *slot = None;
            }
        }
        if running.iter().all(Option::is_none) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    done.into_iter().flatten().collect()
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
    use crate::pipeline::ObjectArguments;
    use crate::run::{Cancel, EnvPolicy, OutputLimits, Program, Runner};
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
            },
            record: HookRun::new(name, "test", "PreToolUse", None),
        }
    }

    #[test]
    fn parallel_jobs_run_together_and_say_when_they_finished() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (runner, session, cancel) =
            (Runner::default(), Session::in_memory(None), Cancel::never());
        let cx = DispatchContext {
            runner: &runner,
            session: &session,
            validator: &ObjectArguments,
            event_id: "e1",
            cancel: &cancel,
            background: None,
            harness: None,
        };
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
        let runs: Vec<BoxFuture<'_, Finished>> = jobs
            .into_iter()
            .map(|job| Box::pin(run(&cx, job)) as BoxFuture<'_, Finished>)
            .collect();
        let joined = runtime.block_on(join_all(runs));
        let order: Vec<usize> = joined.iter().map(|(_, o)| *o).collect();
        let done: Vec<Finished> = joined.into_iter().map(|(f, _)| f).collect();
        let names: Vec<&str> = done.iter().map(|f| f.record.hook.as_str()).collect();
        assert_eq!(
            names,
            ["waits", "reads", "makes"],
            "results keep the jobs' order"
        );
        assert_eq!(done[0].result.stdout.bytes, b"waited\n");
        assert_eq!(
            done[1].result.stdout.bytes, b"{}",
            "each job gets its stdin"
        );
        assert_eq!(
            done[1].record.exit_code,
            Some(3),
            "process facts are recorded"
        );
        assert_eq!(order[1], 0, "the quick job finished first");
        let mut order = order;
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2], "each finished at its own place");
        assert_eq!(done[1].stdin, b"{}", "the input is handed back");
    }
}
