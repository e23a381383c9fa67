//! Running hook processes for a dialect, each recorded the same way: one
//! at a time ([`run`]), or several at once by joining their runs
//! ([`run_among`] and [`join_all`]).

use std::future::poll_fn;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

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
    let Job {
        mut command,
        mut record,
    } = job;
    let result = if alone {
        cx.runner.run_alone(&command, cx.cancel).await
    } else {
        cx.runner.run_until(&command, cx.cancel).await
    };
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
    //
    // Each future gets its own waker, and a wake-up polls only the futures
    // that were woken: polling every running hook at each wake-up made a
    // dispatch of N hooks cost O(N²) polls. Futures woken together are
    // polled in their order, so simultaneous finishes keep the order they
    // had when every future was polled.
    let n = futures.len();
    let shared = Arc::new(Shared {
        state: Mutex::new(WakeState {
            // Every future starts woken: each is polled once to start.
            woken: (0..n).collect(),
            queued: vec![true; n],
            task: None,
        }),
    });
    let mut running: Vec<Option<(BoxFuture<'a, T>, Waker)>> = futures
        .into_iter()
        .enumerate()
        .map(|(index, future)| {
            let waker = Waker::from(Arc::new(SlotWaker {
                index,
                shared: Arc::clone(&shared),
            }));
            Some((future, waker))
        })
        .collect();
    let mut done: Vec<Option<(T, usize)>> = running.iter().map(|_| None).collect();
    let mut finished = 0;
    let mut batch: Vec<usize> = Vec::with_capacity(n);
    poll_fn(|task| {
        {
            let mut state = shared.lock();
            if !state
                .task
                .as_ref()
                .is_some_and(|w| w.will_wake(task.waker()))
            {
                state.task = Some(task.waker().clone());
            }
            std::mem::swap(&mut batch, &mut state.woken);
            for &i in &batch {
                state.queued[i] = false;
            }
        }
        // One batch per poll: a future woken while the batch runs (one out
        // of its cooperative budget wakes itself at once) has woken the
        // task already, which polls it next time.
        batch.sort_unstable();
        for &i in &batch {
            let Some((future, waker)) = &mut running[i] else {
                continue;
            };
            if let Poll::Ready(result) = future.as_mut().poll(&mut Context::from_waker(waker)) {
                done[i] = Some((result, finished));
                finished += 1;
                running[i] = None;
            }
        }
        batch.clear();
        if finished == n {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    done.into_iter().flatten().collect()
}

/// What the wakers of one [`join_all`] share.
struct Shared {
    state: Mutex<WakeState>,
}

/// The futures woken since the last poll, and the task to wake.
struct WakeState {
    /// Indices of the futures to poll, each at most once.
    woken: Vec<usize>,
    /// Whether each future is in `woken` already.
    queued: Vec<bool>,
    /// The waker of the task running [`join_all`].
    task: Option<Waker>,
}

impl Shared {
    /// The state; a panic elsewhere while it was held (a poisoned lock)
    /// leaves it consistent, so the guard is taken all the same.
    fn lock(&self) -> std::sync::MutexGuard<'_, WakeState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The waker of one future of a [`join_all`]: marks it woken and wakes
/// the task.
struct SlotWaker {
    index: usize,
    shared: Arc<Shared>,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let task = {
            let mut state = self.shared.lock();
            if let Some(queued) = state.queued.get_mut(self.index)
                && !*queued
            {
                *queued = true;
                state.woken.push(self.index);
            }
            state.task.clone()
        };
        if let Some(task) = task {
            task.wake();
        }
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
    use crate::pipeline::ObjectArguments;
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
            trust: None,
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
