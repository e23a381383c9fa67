//! Running the matching handlers of one event, all at once, and combining
//! their answers by Claude Code's rules.
//!
//! - Every matching handler runs in parallel and to completion (recorded:
//!   `i`); a handler identical to one already selected for this event runs
//!   once (`i2`), but a plugin's copy stays separate (`r2_plugin`).
//! - The strongest permission decision wins: deny, defer, ask, allow
//!   (`o`). Exit 2 counts as a deny.
//! - Texts for the model come in the order the handlers finished, as
//!   Claude Code writes them.
//! - Several `updatedInput`s: Claude Code keeps the one that finished last
//!   (`o2`, `o2b`); latch keeps the last in configuration order, so the
//!   answer does not depend on timing.

mod switch_and_skill;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::event::Event;
use crate::outcome::{
    Continuation, Decision, ElicitationAnswer, ErrorCategory, Halt, HookRun, Injection, Notice,
    NoticeKind, Outcome, PermissionUpdates, Placement, Reason, RunStatus,
};
use crate::pipeline::{self, BoxFuture, DispatchContext, Job};
use crate::run::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program};

use super::events::{ClaudeEvent, PayloadFacts, payload};
use super::http;
use super::judge::{HookJson, Verdict, judge};
use super::load::{Condition, Group, Handler, HandlerKind, LoadedFile, Matcher};
use super::mcp_output::Replacement;
use super::persist::Field;
use super::text::{self, Texts, additional_context, stop_feedback, success};
use super::{Claude, DIALECT};
use crate::permission_rule::ToolInput;

/// The session key of the counter of Stop blocks in the turn (what
/// `stop_hook_active` says).
pub const STOP_BLOCKS_KEY: &str = "claude.stop_blocks";

/// The session key of the counter of consecutive Stop blocks, and the name
/// of the flag that says the run is still open: a tool call lowers it, and
/// the next block counts from 1 again (recorded: `r8_stop_block_then_tool`,
/// `r8_stop_block_tool_once`).
const STOP_RUN_KEY: &str = "claude.stop_run";

/// Claude Code's default cap on consecutive Stop blocks.
pub const STOP_BLOCK_CAP: u32 = 8;

/// Default time limit of a command handler (Claude Code: 600 s).
pub const COMMAND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Default time limit of a handler on `UserPromptSubmit` (Claude Code's docs).
pub const PROMPT_EVENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Default time limit of a handler on `MessageDisplay` (Claude Code's docs).
pub const DISPLAY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Default time limit of a handler on `PreModelSwitch` and
/// `PostModelSwitch` (Claude Code 2.1.332's `lHi`).
pub const MODEL_SWITCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Stderr kept (stdout: [`super::judge::MAX_STDOUT`]).
const MAX_STDERR: usize = 1 << 20;

/// What every handler of one dispatch shares.
struct Place<'p> {
    /// `CLAUDE_PROJECT_DIR`.
    project: &'p Path,
    /// Where hooks run.
    workdir: &'p Path,
    /// The payload, with its final newline.
    stdin: &'p [u8],
    /// The most any handler may run (`SessionEnd`'s shared budget).
    timeout_cap: Option<std::time::Duration>,
    /// The event.
    ce: ClaudeEvent,
    /// Where `prompt` handlers send their requests.
    prompt: &'p crate::model::PromptConfig,
    /// The settings files' `env`, which every command hook gets.
    settings_env: &'p [(OsString, OsString)],
}

impl Place<'_> {
    /// A handler's time limit ([`handler_timeout`]) within the dispatch's
    /// cap.
    fn timeout(&self, handler: &Handler) -> std::time::Duration {
        let t = handler_timeout(self.ce, handler);
        self.timeout_cap.map_or(t, |cap| t.min(cap))
    }
}

/// A handler's time limit on `ce`, as Claude Code sets it: its `timeout`,
/// else the event's default (30 s on `UserPromptSubmit`, 10 s on
/// `MessageDisplay`, else 600 s), lowered for a `prompt` handler to 30 s
/// and for an `agent` handler to 60 s.
pub(super) fn handler_timeout(ce: ClaudeEvent, handler: &Handler) -> std::time::Duration {
    if let Some(t) = handler.timeout {
        return t;
    }
    let event = match ce {
        ClaudeEvent::UserPromptSubmit => PROMPT_EVENT_TIMEOUT,
        ClaudeEvent::MessageDisplay => DISPLAY_TIMEOUT,
        ClaudeEvent::PreModelSwitch | ClaudeEvent::PostModelSwitch => MODEL_SWITCH_TIMEOUT,
        _ => COMMAND_TIMEOUT,
    };
    match handler.kind {
        HandlerKind::Prompt { .. } => event.min(super::prompt::PROMPT_TIMEOUT),
        HandlerKind::Agent { .. } => event.min(super::harness::AGENT_TIMEOUT),
        _ => event,
    }
}

/// One handler selected for this event.
struct Selected<'a> {
    file: &'a LoadedFile,
    handler: &'a Handler,
    record: HookRun,
}

/// Runs the claude hooks for one event.
pub async fn dispatch(cfg: &Claude, event: &Event, cx: &DispatchContext<'_>) -> Outcome {
    let mut out = Outcome::proceed(event.event);
    let Some(ce) = ClaudeEvent::from_kind(event.event) else {
        return out;
    };
    let options = cfg.options();
    let tool = options
        .vocabulary
        .claude_name(event.tool_name().unwrap_or(""))
        .into_owned();
    let delivers = matches!(
        ce,
        ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure
    );
    // The files FileChanged hooks wait for, watched from the session's start.
    if ce == ClaudeEvent::SessionStart {
        let base = event
            .workdir(options.project.as_deref())
            .unwrap_or_default();
        out.watch_paths = cfg.file_watch_list(&base);
    }
    // A tool call ends the agent's run of consecutive Stop blocks (not
    // `stop_hook_active`): one system call on disk, when Stop hooks exist.
    if matches!(
        ce,
        ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure
    ) && (cfg.declares(ClaudeEvent::Stop) || cfg.declares(ClaudeEvent::SubagentStop))
    {
        let (_, run) = stop_keys_of(event.agent_id.as_deref());
        if let Err(e) = cx.session.set_flag(&run, false) {
            out.warnings.push(format!(
                "latch could not note the tool call for the Stop block cap: {e}"
            ));
        }
    }
    let mut gave_up = Vec::new();
    let groups = cfg.select(ce, event, &tool, &mut gave_up);
    // A matcher that gave up ran its hooks: the harness hears of it.
    out.warnings
        .extend(gave_up.into_iter().map(|g| format!("{}: {g}", ce.as_str())));
    // Nothing to run and nothing to deliver or count: answer at once.
    if groups.is_empty()
        && !delivers
        && !matches!(
            ce,
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop | ClaudeEvent::SubagentStop
        )
    {
        return out;
    }
    let workdir = cfg.run_dir(event);
    let map = event.tool_name().and_then(|t| options.vocabulary.get(t));
    let claude_input = claude_tool_input(options, event, &workdir);
    let claude_output = map.filter(|m| m.bash_output).and_then(|m| {
        let o = event.tool.as_ref()?.output.as_ref()?.to_value();
        o.is_string().then(|| m.output_to_claude(o))
    });
    let project = options.project.clone().unwrap_or_else(|| workdir.clone());
    // The title hooks read on UserPromptSubmit and SessionStart.
    let mut session_title = event.session_title.clone().filter(|t| !t.is_empty());
    let stop_hook_active = match ce {
        ClaudeEvent::Stop | ClaudeEvent::SubagentStop => {
            match cx
                .session
                .snapshot(cx.cancel)
                .await
                .and_then(|s| s.counter(&stop_keys(ce, event).0))
            {
                Ok(n) => n > 0,
                Err(e) => {
                    out.warnings
                        .push(format!("latch could not read the Stop block counter: {e}"));
                    false
                }
            }
        }
        ClaudeEvent::UserPromptSubmit => {
            // A real prompt ends any run of Stop blocks; the same look at
            // the state finds the title a hook gave the session.
            let reset = cx
                .session
                .update(cx.cancel, |s| {
                    s.set_counter(STOP_BLOCKS_KEY, 0);
                    s.set_counter(STOP_RUN_KEY, 0);
                    super::title::current(event, s)
                })
                .await
                .and_then(|title| cx.session.set_flag(STOP_RUN_KEY, false).map(|()| title));
            match reset {
                Ok(title) => session_title = title,
                Err(e) => out
                    .warnings
                    .push(format!("latch could not reset the Stop block counter: {e}")),
            }
            false
        }
        // Without the event's title, the one a hook gave the session.
        ClaudeEvent::SessionStart if session_title.is_none() => {
            match cx.session.snapshot(cx.cancel).await {
                Ok(s) => session_title = super::title::stored(&s),
                Err(e) => out
                    .warnings
                    .push(format!("latch could not read the session's title: {e}")),
            }
            false
        }
        _ => false,
    };

    if delivers {
        match super::background::take(cx.session, cx.cancel).await {
            Ok(answers) => {
                for (hook, texts) in answers {
                    for text in texts {
                        out.context.push(Injection {
                            hook: hook.clone(),
                            placement: Placement::AppendToToolResult,
                            text,
                        });
                    }
                }
            }
            Err(e) => out.warnings.push(format!(
                "latch could not read the answers of async hooks: {e}"
            )),
        }
    }
    let selected = select(
        cfg,
        groups,
        ce,
        event,
        &tool,
        claude_input.as_ref(),
        &project,
        &workdir,
        cx.trust,
        &mut out,
    );
    // A batch's calls, each as Claude Code names and shapes it.
    let batch: Vec<(String, Option<Value>)> = if ce == ClaudeEvent::PostToolBatch {
        event
            .tool_calls
            .iter()
            .map(|t| {
                let input = options
                    .vocabulary
                    .get(&t.name)
                    .filter(|m| m.changes_input())
                    .map(|m| m.to_claude(t.input.to_value(), &workdir));
                (options.vocabulary.claude_name(&t.name).into_owned(), input)
            })
            .collect()
    } else {
        Vec::new()
    };
    let facts = PayloadFacts {
        cwd: &workdir,
        tool: &tool,
        stop_hook_active,
        input: claude_input.as_ref(),
        output: claude_output.as_ref(),
        batch: &batch,
        session_title: session_title.as_deref(),
    };
    let mut stdin = crate::dialect::payload::to_bytes(&payload(ce, event, &facts));
    stdin.push(b'\n');

    let place = Place {
        project: &project,
        workdir: &workdir,
        stdin: &stdin,
        timeout_cap: (ce == ClaudeEvent::SessionEnd).then(|| session_end_budget(&selected)),
        ce,
        prompt: &options.prompt,
        settings_env: cfg.settings_env(),
    };
    // SessionStart, Setup, CwdChanged and FileChanged handlers each get a
    // CLAUDE_ENV_FILE in the session's private directory (none without a
    // session on disk).
    let env_dir = if ce.has_env_file() {
        cx.session.private_dir("claude-env").ok().flatten()
    } else {
        None
    };
    let mut env_files = Vec::new();
    // One run per runnable handler, all at once; the others are recorded.
    let mut runs: Vec<Run<'_>> = Vec::new();
    let mut in_background = false;
    let mut shown = Vec::new();
    let mut from_plugin = Vec::new();
    let mut names = Vec::new();
    for (i, s) in selected.into_iter().enumerate() {
        let env_file = env_dir
            .as_ref()
            .map(|d| super::env_file::file(d, ce.as_str(), i));
        if let Some(f) = &env_file {
            // A file left by an earlier start of the session does not count.
            let _ = std::fs::remove_file(f);
            env_files.push(f.clone());
        }
        // How an answer's block names the hook (Claude Code 2.1.332's
        // `qwo`, `_h`): its `statusMessage`, else its command as written,
        // on one line (a newline shown as `␤`, a tab as `␉`; Claude Code
        // also makes other control characters visible, latch does not).
        let name = s
            .handler
            .status_message
            .clone()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| s.handler.kind.shown())
            .replace('\n', "\u{2424}")
            .replace('\t', "\u{2409}");
        match work(s, event, &place, env_file, cx) {
            Prepared::Run(run) => {
                shown.push(run.shown);
                names.push(name);
                from_plugin.push(run.from_plugin);
                runs.push(run.run);
            }
            Prepared::Background(record) => {
                // A background hook may run on this thread's runtime: the
                // others must not keep it waiting.
                in_background = true;
                out.runs.push(record);
            }
            Prepared::Recorded(record) => out.runs.push(record),
            Prepared::Refused(mut record, message) => {
                out.warnings
                    .push(format!("{} hook error: {message}", label(ce, &tool)));
                record.fail(ErrorCategory::CommandError, message);
                out.runs.push(record);
            }
        }
    }
    let finished = run_all(runs, cx, !in_background, event.session_id.as_deref()).await;

    let mut fold = Fold {
        ce,
        tool: &tool,
        map,
        texts_id: event
            .tool
            .as_ref()
            .and_then(|t| t.call_id.clone())
            .filter(|id| !id.is_empty()),
        texts: options.texts,
        event,
        out,
        strongest: None,
        denials: Vec::new(),
        rewrite: None,
        feedback: Vec::new(),
        feedback_hooks: Vec::new(),
        later: Vec::new(),
        prompt_ended: false,
        title_before: session_title,
        title: None,
        initial_user_message: None,
        terminal_sequences: Vec::new(),
        model_contexts: Vec::new(),
        skill_failure: None,
        names,
        shell_command: if ce == ClaudeEvent::PreSkillShellCommand {
            switch_and_skill::shell_command(claude_input.as_ref(), event)
        } else {
            String::new()
        },
    };
    // Texts in the order the handlers finished.
    let mut order: Vec<usize> = (0..finished.len()).collect();
    order.sort_by_key(|&i| finished[i].1);
    let mut records: Vec<Option<HookRun>> = finished.iter().map(|_| None).collect();
    let mut finished: Vec<Option<Ran>> = finished.into_iter().map(|(r, _)| Some(r)).collect();
    for i in order {
        let Some(ran) = finished[i].take() else {
            continue;
        };
        let mut record = ran.record;
        fold.out.warnings.extend(ran.warnings);
        let verdict = match from_plugin[i].as_deref() {
            Some(line) => text::with_plugin_line(ran.verdict, line),
            None => ran.verdict,
        };
        fold.apply(i, &shown[i], verdict, &mut record, cx);
        records[i] = Some(record);
    }
    fold.out.runs.extend(records.into_iter().flatten());
    if !env_files.is_empty() {
        let shell = super::env_file::Shell {
            env: claude_env(cfg.settings_env(), &project, event),
            cwd: workdir.clone(),
        };
        let (vars, warnings) =
            super::env_file::exports(cx.runner, cx.cancel, &env_files, &shell).await;
        fold.out.shell_env = vars;
        fold.out.warnings.extend(warnings);
    }
    fold.finish(cx, options.stop_block_cap).await
}

/// One handler's run, read.
struct Ran {
    record: HookRun,
    verdict: Verdict,
    warnings: Vec<String>,
}

/// A handler ready to run: its text for messages and its run.
struct Work<'a> {
    shown: String,
    /// For a plugin's command: the line its exit 2's blocking error ends
    /// with (Claude Code 2.1.332).
    from_plugin: Option<String>,
    run: Run<'a>,
}

/// How a handler runs.
enum Run<'a> {
    /// A hook process, judged once it ended.
    Process { job: Box<Job>, judged: Judged },
    /// Any other handler, judged by its own future.
    Other(BoxFuture<'a, Ran>),
}

/// How a hook process's run is judged: by its time limit in seconds and
/// its program, for the texts of a failure, and whether its first line
/// may send it to the background (not on events Claude Code runs to their
/// end, whatever the hook says: MessageDisplay).
struct Judged {
    timeout: f64,
    program: String,
    forced_sync: bool,
    /// `onFailure: "block"`, where the event honours it.
    on_failure_blocks: bool,
    /// Where an exit 2 that looks like a missing script is a non-blocking
    /// error (see [`missing_script`]).
    missing: Option<MissingScript>,
}

/// A handler for which Claude Code takes an exit 2 with nothing on stdout
/// and `no such file` or `can't open` in stderr for a script that is not
/// there: a non-blocking error rather than a block (read from its 2.1.197
/// code). So a plugin whose script went missing does not keep the agent
/// going at every Stop. It holds on `Stop`, `SubagentStop`,
/// `TaskCompleted` and `TeammateIdle`, and on `UserPromptSubmit` for a
/// plugin's hook.
struct MissingScript {
    /// The plugin's name, for a plugin's hook.
    plugin: Option<String>,
}

impl MissingScript {
    fn of(ce: ClaudeEvent, plugin: Option<&str>) -> Option<MissingScript> {
        let applies = matches!(
            ce,
            ClaudeEvent::Stop
                | ClaudeEvent::SubagentStop
                | ClaudeEvent::TaskCompleted
                | ClaudeEvent::TeammateIdle
        ) || (ce == ClaudeEvent::UserPromptSubmit && plugin.is_some());
        applies.then(|| MissingScript {
            plugin: plugin.map(str::to_owned),
        })
    }
}

/// `verdict`, unless it is the block of a missing script (see
/// [`MissingScript`]): then the non-blocking error Claude Code reports,
/// in its words.
fn missing_script(
    verdict: Verdict,
    missing: Option<&MissingScript>,
    result: &crate::run::RunResult,
) -> Verdict {
    let (Verdict::Blocking(_), Some(m)) = (&verdict, missing) else {
        return verdict;
    };
    let stderr = String::from_utf8_lossy(&result.stderr.bytes);
    let lower = stderr.to_lowercase();
    let looks_missing = lower.contains("no such file") || lower.contains("can't open");
    if !looks_missing || !text::js_trim(&String::from_utf8_lossy(&result.stdout.bytes)).is_empty() {
        return verdict;
    }
    Verdict::MissingScript {
        stderr: text::js_trim(&stderr).to_owned(),
        plugin: m.plugin.clone(),
    }
}

/// Runs the handlers at once; each comes back in its place with the order
/// it finished in (0 first). When every one is a process and nothing else
/// of the dispatch runs (`alone`: no hook was started in the background),
/// the pipeline runs them as one batch, so a runner that may lend the
/// thread waits for them all there. A hook whose first line sent it to the
/// background is handed to the harness's background runner for `session`.
async fn run_all<'a>(
    runs: Vec<Run<'a>>,
    cx: &'a DispatchContext<'a>,
    alone: bool,
    session: Option<&'a str>,
) -> Vec<(Ran, usize)> {
    if alone && runs.iter().all(|r| matches!(r, Run::Process { .. })) {
        let (jobs, judged): (Vec<Job>, Vec<Judged>) = runs
            .into_iter()
            .filter_map(|r| match r {
                Run::Process { job, judged } => Some((*job, judged)),
                Run::Other(_) => None,
            })
            .unzip();
        return pipeline::run_all(cx, jobs)
            .await
            .into_iter()
            .zip(judged)
            .map(|((f, order), judged)| (ran(f, &judged, cx, session), order))
            .collect();
    }
    let futures =
        runs.into_iter()
            .map(|r| match r {
                Run::Other(future) => future,
                Run::Process { job, judged } => Box::pin(async move {
                    ran(pipeline::run_among(cx, *job).await, &judged, cx, session)
                }) as BoxFuture<'a, Ran>,
            })
            .collect();
    pipeline::join_all(futures).await
}

/// A process that ran, judged.
/// A hook that went on in the background is handed to the harness's
/// background runner, which follows it and keeps its answer for `session`.
fn ran(
    mut f: pipeline::job::Finished,
    judged: &Judged,
    cx: &DispatchContext<'_>,
    session: Option<&str>,
) -> Ran {
    let mut warnings: Vec<String> = f.warning.into_iter().collect();
    if let Some(process) = f.result.detached.take() {
        let job = pipeline::DetachedJob {
            dialect: DIALECT.to_owned(),
            hook: f.record.hook.clone(),
            event: f.record.event.clone(),
            session_id: session.map(str::to_owned),
            process,
        };
        let adopted = match cx.background {
            Some(background) => background.adopt(job),
            None => Err("the harness runs no background hooks".to_owned()),
        };
        if let Err(why) = adopted {
            warnings.push(format!(
                "latch could not follow hook {} ({}) in the background, and stopped it: {why}",
                f.record.hook, f.record.event
            ));
            f.record.fail(
                ErrorCategory::CommandError,
                format!("went to the background, where latch could not follow it: {why}"),
            );
        }
    }
    let verdict = if judged.forced_sync {
        super::judge::judge_forced_sync(&f.result, judged.timeout, &judged.program)
    } else {
        judge(&f.result, judged.timeout, &judged.program)
    };
    let verdict = missing_script(verdict, judged.missing.as_ref(), &f.result);
    let verdict = if judged.on_failure_blocks {
        let stderr = String::from_utf8_lossy(&f.result.stderr.bytes);
        let code = match &f.result.termination {
            crate::run::Termination::Exited(crate::run::Exit::Code(c)) => Some(*c),
            _ => None,
        };
        super::judge::failure_blocks(verdict, &stderr, code, f.record.event.as_str())
    } else {
        verdict
    };
    Ran {
        verdict,
        record: f.record,
        warnings,
    }
}

/// A selected handler, ready to run or refused (its record, and why).
enum Prepared<'a> {
    Run(Work<'a>),
    Refused(HookRun, String),
    /// Started in the background, recorded at once.
    Background(HookRun),
    /// Not run, with why (the harness cannot run it), recorded at once.
    Recorded(HookRun),
}

/// The run of one selected handler, or its record and why it cannot run.
fn work<'a>(
    s: Selected<'a>,
    event: &'a Event,
    place: &Place<'_>,
    env_file: Option<PathBuf>,
    cx: &'a DispatchContext<'a>,
) -> Prepared<'a> {
    let shown = s.handler.kind.shown();
    // Claude Code 2.1.332 refuses the command for such a handler without
    // running it (`zgl`).
    if place.ce == ClaudeEvent::PreSkillShellCommand
        && matches!(
            s.handler.kind,
            HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }
        )
    {
        let record = s.record;
        return Prepared::Run(Work {
            shown,
            from_plugin: None,
            run: Run::Other(Box::pin(async move {
                Ran {
                    record,
                    verdict: Verdict::Blocking(super::skill_shell::NO_PROMPT_HOOKS.to_owned()),
                    warnings: Vec::new(),
                }
            })),
        });
    }
    match &s.handler.kind {
        HandlerKind::Http {
            url,
            headers,
            allowed_env_vars,
        } => {
            let (headers, warnings) =
                http::expand_headers(headers, allowed_env_vars, |k| std::env::var(k).ok());
            let timeout = place.timeout(s.handler);
            // The body is the payload without the newline a command gets.
            let body = place
                .stdin
                .strip_suffix(b"\n")
                .unwrap_or(place.stdin)
                .to_vec();
            let url = url.clone();
            let on_failure_blocks = place.ce.on_failure_blocks(s.handler);
            let mut record = s.record;
            Prepared::Run(Work {
                shown,
                from_plugin: None,
                run: Run::Other(Box::pin(async move {
                    let called = http::call(url, headers, body, timeout, cx.cancel).await;
                    record.took(called.took);
                    if let Some(status) = called.status {
                        record.message = Some(format!("HTTP {status}"));
                    }
                    let verdict = if on_failure_blocks {
                        super::judge::failure_blocks(called.verdict, "", None, "")
                    } else {
                        called.verdict
                    };
                    Ran {
                        record,
                        verdict,
                        warnings,
                    }
                })),
            })
        }
        HandlerKind::Prompt { prompt, model } => {
            let timeout = place.timeout(s.handler);
            let payload =
                String::from_utf8_lossy(place.stdin.strip_suffix(b"\n").unwrap_or(place.stdin))
                    .into_owned();
            let (cfg, ce) = (place.prompt.clone(), place.ce);
            let (prompt, model) = (prompt.clone(), model.clone());
            let mut record = s.record;
            Prepared::Run(Work {
                shown,
                from_plugin: None,
                run: Run::Other(Box::pin(async move {
                    let started = std::time::Instant::now();
                    let verdict = tokio::select! {
                        v = super::prompt::evaluate(&cfg, ce, &prompt, &payload, model.as_deref(), timeout) => v,
                        _ = cx.cancel.cancelled() => Verdict::cancelled(),
                    };
                    record.took(started.elapsed());
                    Ran {
                        record,
                        verdict,
                        warnings: Vec::new(),
                    }
                })),
            })
        }
        // Without a background runner, hooks Claude Code does not wait for
        // run like the others (their output is ignored either way).
        HandlerKind::Agent { .. } | HandlerKind::McpTool { .. } => {
            let Some(harness) = cx.harness else {
                let mut record = s.record;
                record.status = RunStatus::Skipped;
                record.error = Some(ErrorCategory::UnsupportedHandler);
                record.message = Some(format!(
                    "an `{}` handler, and the harness gives latch no sub-agents or tool servers",
                    s.handler.kind.type_name()
                ));
                return Prepared::Recorded(record);
            };
            let ce = place.ce;
            let call = match &s.handler.kind {
                HandlerKind::McpTool {
                    server,
                    tool,
                    input,
                } => {
                    let payload = serde_json::from_slice::<Value>(place.stdin).unwrap_or_default();
                    let input = super::harness::interpolate(input, &payload);
                    let blocks = ce.on_failure_blocks(s.handler);
                    let call: BoxFuture<'a, Verdict> = Box::pin(async move {
                        let answer = harness.call_tool(server, tool, input).await;
                        if blocks {
                            let answer = answer.as_deref().map_err(String::as_str);
                            return super::mcp_failure::blocks(answer, server, ce.as_str());
                        }
                        match answer {
                            Ok(text) => super::judge::read_stdout(&text),
                            Err(e) => Verdict::NonBlocking(format!(
                                "Failed with non-blocking status code: MCP tool {server}:{tool} failed: {e}"
                            )),
                        }
                    });
                    call
                }
                HandlerKind::Agent { prompt } => {
                    let payload = String::from_utf8_lossy(
                        place.stdin.strip_suffix(b"\n").unwrap_or(place.stdin),
                    );
                    let text = super::prompt::with_arguments(prompt, &payload);
                    let call: BoxFuture<'a, Verdict> = Box::pin(async move {
                        match harness.run_agent(&text).await {
                            Ok(answer) => super::prompt::read_answer(ce, &answer),
                            Err(e) => Verdict::NonBlocking(format!("agent hook failed: {e}")),
                        }
                    });
                    call
                }
                other => {
                    let why = format!("`{}` is not a harness handler", other.type_name());
                    return Prepared::Refused(s.record, why);
                }
            };
            let timeout = place.timeout(s.handler);
            // An `mcp_tool` handler's own timeout blocks under `onFailure`.
            let timeout_blocks = matches!(s.handler.kind, HandlerKind::McpTool { .. })
                && ce.on_failure_blocks(s.handler);
            let mut record = s.record;
            Prepared::Run(Work {
                shown,
                from_plugin: None,
                run: Run::Other(Box::pin(async move {
                    let started = std::time::Instant::now();
                    let verdict = tokio::select! {
                        v = tokio::time::timeout(timeout, call) => v.unwrap_or_else(|_| {
                            if timeout_blocks {
                                super::mcp_failure::timed_out()
                            } else {
                                Verdict::timed_out(timeout.as_secs_f64())
                            }
                        }),
                        _ = cx.cancel.cancelled() => Verdict::cancelled(),
                    };
                    record.took(started.elapsed());
                    Ran {
                        record,
                        verdict,
                        warnings: Vec::new(),
                    }
                })),
            })
        }
        HandlerKind::Command { .. }
            if s.handler.run_async || (place.ce.is_unawaited() && cx.background.is_some()) =>
        {
            let mut record = s.record;
            let deliver = !place.ce.is_unawaited();
            let Some(background) = cx.background else {
                record.status = RunStatus::Skipped;
                record.error = Some(ErrorCategory::UnsupportedHandler);
                record.message =
                    Some("an `async` handler, and the harness runs no background hooks".to_owned());
                return Prepared::Recorded(record);
            };
            match command(s.file, s.handler, event, place, env_file.as_deref()) {
                Err(message) => Prepared::Refused(record, message),
                Ok(mut cmd) => {
                    // Claude Code gives an async hook 600 s by default too.
                    cmd.timeout = place.timeout(s.handler);
                    let job = crate::pipeline::BackgroundJob {
                        dialect: DIALECT.to_owned(),
                        hook: record.hook.clone(),
                        event: record.event.clone(),
                        command: cmd,
                        session_id: event.session_id.clone(),
                        deliver,
                    };
                    if let Err(why) = background.start(job) {
                        // A failure as any other (a warning too), so the
                        // harness hears of it.
                        let why = format!("could not start in the background: {why}");
                        return Prepared::Refused(record, why);
                    }
                    record.message = Some(if deliver {
                        "started in the background; its answer comes with the next tool result"
                            .to_owned()
                    } else {
                        format!(
                            "started in the background; Claude Code does not wait for {} hooks and ignores what they say",
                            place.ce
                        )
                    });
                    Prepared::Background(record)
                }
            }
        }
        _ => match command(s.file, s.handler, event, place, env_file.as_deref()) {
            Ok(mut cmd) => {
                // A first line `{"async":true}` sends the hook to the
                // background, where the harness follows it; without a
                // background runner that follows hooks, or a session to
                // keep its answer in, latch waits for the hook.
                // MessageDisplay hooks always run to their end in Claude
                // Code.
                let forced_sync = place.ce == ClaudeEvent::MessageDisplay;
                if cx.background.is_some_and(|b| b.follows())
                    && event.session_id.is_some()
                    && !forced_sync
                {
                    cmd.detach = Some(super::judge::first_line);
                }
                let timeout = cmd.timeout.as_secs_f64();
                let missing =
                    MissingScript::of(place.ce, s.file.plugin.as_ref().map(|p| p.name.as_str()));
                let program = match &cmd.program {
                    Program::Exec { program, .. } => program.display().to_string(),
                    Program::Shell { shell, .. } => shell.display().to_string(),
                };
                // A plugin's command is named with its root expanded, and
                // its exit 2 says which plugin it comes from (2.1.332,
                // recorded: `r2_plugin`).
                let (shown, from_plugin) = match &s.file.plugin {
                    Some(plugin) => (
                        text::plugin_command(
                            &shown,
                            &plugin.root,
                            matches!(s.handler.kind, HandlerKind::Command { args: None, .. }),
                        ),
                        Some(text::from_plugin(&plugin.name)),
                    ),
                    None => (shown, None),
                };
                Prepared::Run(Work {
                    shown,
                    from_plugin,
                    run: Run::Process {
                        job: Box::new(Job {
                            command: cmd,
                            record: s.record,
                        }),
                        judged: Judged {
                            timeout,
                            program,
                            forced_sync,
                            on_failure_blocks: place.ce.on_failure_blocks(s.handler),
                            missing,
                        },
                    },
                })
            }
            Err(message) => Prepared::Refused(s.record, message),
        },
    }
}

/// The handlers that run for this event, in configuration order, with a
/// record each; handlers that do not run are recorded in `out` already.
#[allow(clippy::too_many_arguments)]
fn select<'a>(
    cfg: &'a Claude,
    groups: Vec<(&'a LoadedFile, &'a Group)>,
    ce: ClaudeEvent,
    event: &'a Event,
    tool: &'a str,
    claude_input: Option<&Value>,
    project: &Path,
    workdir: &Path,
    trust: Option<&crate::trust::Gate>,
    out: &mut Outcome,
) -> Vec<Selected<'a>> {
    let mut chosen: Vec<Selected<'a>> = Vec::new();
    // The handlers that match and pass their `if`, before copies are
    // told apart.
    let mut candidates = Vec::new();
    // The tool call, prepared once for every `if` (a Bash command is
    // parsed here), and only if some handler has one.
    let mut call: Option<ToolInput> = None;
    for (file, group) in groups {
        for handler in &group.handlers {
            let shown = handler.kind.shown();
            let mut record = HookRun::new(
                &text::label_of(&shown),
                DIALECT,
                ce.as_str(),
                Some(handler.source.clone()),
            );
            if let Some(why) = skip_reason(ce, group, handler) {
                record.status = RunStatus::Skipped;
                record.message = Some(why.1);
                record.error = why.0;
                out.runs.push(record);
                continue;
            }
            if let Some(Condition {
                text,
                rule: Some(rule),
            }) = &handler.condition
            {
                let call =
                    call.get_or_insert_with(|| rule_input(tool, claude_input, event, project));
                let verdict = rule.matches_input(call);
                if !verdict.runs() {
                    record.status = RunStatus::Skipped;
                    record.message = Some(format!(
                        "{} ({verdict})",
                        crate::permission_rule::skip_message(text)
                    ));
                    out.runs.push(record);
                    continue;
                }
            }
            candidates.push((file, group, handler, record));
        }
    }
    // A copy the trust policy holds back does not stand in for one it
    // lets run: copies are told apart among the handlers that may run, so
    // a project's unapproved copy of the user's guard cannot displace it.
    let held: Vec<bool> = candidates
        .iter()
        .map(|(file, group, handler, _)| {
            trust.filter(|g| g.checks(DIALECT)).is_some_and(|g| {
                let d = super::trust::definition(cfg, file, group, handler, Some(workdir));
                matches!(g.admit(&d), crate::trust::Admission::Refuse(_))
            })
        })
        .collect();
    // Claude Code runs copies of a handler once per event: the last one.
    let may_run: Vec<(Option<&Path>, &Handler)> = candidates
        .iter()
        .zip(&held)
        .filter(|(_, held)| !**held)
        .map(|((file, _, handler, _), _)| {
            (file.plugin.as_ref().map(|p| p.root.as_path()), *handler)
        })
        .collect();
    let mut superseded = super::load::superseded(&may_run).into_iter();
    for (i, (file, group, handler, mut record)) in candidates.into_iter().enumerate() {
        if !held[i] && superseded.next().unwrap_or(false) {
            record.status = RunStatus::Skipped;
            record.message = Some(super::load::COPY_SKIPPED.to_owned());
            out.runs.push(record);
            continue;
        }
        let definition = || super::trust::definition(cfg, file, group, handler, Some(workdir));
        if crate::trust::check(trust, DIALECT, definition, &mut out.warnings, &mut record) {
            out.runs.push(record);
            continue;
        }
        chosen.push(Selected {
            file,
            handler,
            record,
        });
    }
    chosen
}

/// `SessionEnd` handlers share one budget (Claude Code's docs): 1.5 s,
/// raised to the largest `timeout` of a settings-file handler, at most
/// 60 s; `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` sets it instead.
fn session_end_budget(selected: &[Selected<'_>]) -> std::time::Duration {
    use std::time::Duration;
    if let Some(ms) = std::env::var("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Duration::from_millis(ms);
    }
    let largest = selected
        .iter()
        .filter(|s| s.file.plugin.is_none())
        .filter_map(|s| s.handler.timeout)
        .max()
        .unwrap_or_default();
    largest.clamp(Duration::from_millis(1500), Duration::from_secs(60))
}

/// Why a selected handler does not run, if it does not.
fn skip_reason(
    ce: ClaudeEvent,
    group: &Group,
    handler: &Handler,
) -> Option<(Option<ErrorCategory>, String)> {
    if let Matcher::Invalid(why) = &group.matcher {
        return Some((
            Some(ErrorCategory::InvalidMatcher),
            format!("invalid matcher: {why}"),
        ));
    }
    if let Some(c) = &handler.condition
        && !crate::permission_rule::evaluates_on(ce.as_str())
    {
        return Some((
            None,
            crate::permission_rule::non_tool_event_message(&c.text, ce.as_str()),
        ));
    }
    if handler.run_async && !matches!(handler.kind, HandlerKind::Command { .. }) {
        return Some((
            Some(ErrorCategory::UnsupportedHandler),
            format!(
                "latch runs only `command` handlers in the background, not `{}`",
                handler.kind.type_name()
            ),
        ));
    }
    match &handler.kind {
        HandlerKind::Command { .. } => None,
        // Recorded (`r2_http_errors`, `r4_setup_http`): SessionStart and
        // Setup skip http handlers.
        HandlerKind::Http { .. }
            if matches!(ce, ClaudeEvent::SessionStart | ClaudeEvent::Setup) =>
        {
            Some((
                Some(ErrorCategory::UnsupportedHandler),
                format!("{ce} does not run http handlers"),
            ))
        }
        HandlerKind::Http { .. } => None,
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. } if super::prompt::runs_on(ce) => {
            None
        }
        // They refuse the command (see `work`).
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }
            if ce == ClaudeEvent::PreSkillShellCommand =>
        {
            None
        }
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. } => Some((
            Some(ErrorCategory::UnsupportedHandler),
            format!(
                "Claude Code does not run {} handlers on {ce}",
                handler.kind.type_name()
            ),
        )),
        HandlerKind::McpTool { .. } => None,
    }
}

/// The process for a command handler, or why it cannot run (a message in
/// Claude Code's words).
fn command(
    file: &LoadedFile,
    handler: &Handler,
    event: &Event,
    place: &Place<'_>,
    env_file: Option<&Path>,
) -> Result<HookCommand, String> {
    let (project, workdir, stdin) = (place.project, place.workdir, place.stdin);
    let HandlerKind::Command {
        command,
        args,
        shell,
    } = &handler.kind
    else {
        return Err("not a command handler".to_owned());
    };
    let plugin = file.plugin.as_ref();
    // Recorded (`r2_exec_args`): the message names the variable the hook
    // uses, and an exec-form hook's command line with its arguments.
    let plugin_var = ["${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_DATA}"]
        .into_iter()
        .find(|var| mentions(command, args, var));
    if let (None, Some(var)) = (plugin, plugin_var) {
        let line = match args {
            Some(args) => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            None => command.clone(),
        };
        return Err(format!(
            "Failed to run: Hook command references {var} but the hook is not associated with a plugin. This variable is only available in hooks defined in a plugin's hooks/hooks.json file, not in settings.json. Command: {line}"
        ));
    }
    let mut vars: Vec<(&str, String)> =
        vec![("${CLAUDE_PROJECT_DIR}", project.display().to_string())];
    if let Some(p) = plugin {
        vars.push(("${CLAUDE_PLUGIN_ROOT}", p.root.display().to_string()));
        vars.push(("${CLAUDE_PLUGIN_DATA}", p.data.display().to_string()));
    }
    let substitute = |s: &str| {
        vars.iter()
            .fold(s.to_owned(), |acc, (k, v)| acc.replace(k, v))
    };
    let program = match (args, shell.as_deref()) {
        // Exec form: no shell; only the braced variables are substituted
        // (recorded: `r2_exec_args`).
        (Some(args), _) => Program::Exec {
            program: PathBuf::from(substitute(command)),
            args: args.iter().map(|a| substitute(a)).collect(),
        },
        (None, Some("powershell")) => {
            let Some(pwsh) = ["pwsh", "powershell"].iter().find_map(|p| on_path(p)) else {
                return Err(format!(
                    "Failed to run: Hook \"{command}\" has shell: 'powershell' but no PowerShell executable (pwsh or powershell) was found on PATH. Install PowerShell, or remove \"shell\": \"powershell\" to use bash."
                ));
            };
            Program::Exec {
                program: pwsh,
                args: vec!["-NoProfile".into(), "-Command".into(), command.clone()],
            }
        }
        // Shell form, `shell: "bash"` included: Claude Code runs /bin/sh
        // (recorded: `n`, `r2_exec_args`), without substituting anything
        // in the text; the shell expands the variables.
        (None, _) => Program::Shell {
            shell: PathBuf::from("/bin/sh"),
            script: command.clone(),
        },
    };
    let mut env = claude_env(place.settings_env, project, event);
    if let Some(p) = plugin {
        // Claude Code makes the plugin's data directory as it starts one of
        // its hooks, not before (recorded: `r5_plugin_data_dir`, `_unfired`).
        // Not made, the hook finds it missing and says so itself.
        let _ = std::fs::create_dir_all(&p.data);
    }
    if let Some(f) = env_file {
        env.push(("CLAUDE_ENV_FILE".into(), f.into()));
    }
    if let Some(p) = plugin {
        env.push(("CLAUDE_PLUGIN_ROOT".into(), p.root.clone().into()));
        env.push(("CLAUDE_PLUGIN_DATA".into(), p.data.clone().into()));
    }
    let timeout = place.timeout(handler);
    Ok(HookCommand {
        program,
        env: EnvPolicy::Inherit(env),
        cwd: Some(workdir.to_path_buf()),
        stdin: stdin.to_vec(),
        timeout,
        limits: OutputLimits {
            stdout: super::judge::MAX_STDOUT,
            stderr: MAX_STDERR,
        },
        output_wait: OutputWait::UntilTimeout,
        detach: None,
    })
}

/// The variables every command hook gets besides latch's environment: the
/// settings files' `env`, then `CLAUDE_PROJECT_DIR`, `CLAUDECODE` and
/// `CLAUDE_CODE_SESSION_ID` (the later assignment of a name wins, so
/// Claude Code's own win over a settings `env` of the same name).
fn claude_env(
    settings_env: &[(OsString, OsString)],
    project: &Path,
    event: &Event,
) -> Vec<(OsString, OsString)> {
    let mut env = settings_env.to_vec();
    env.push(("CLAUDE_PROJECT_DIR".into(), project.into()));
    env.push(("CLAUDECODE".into(), "1".into()));
    if let Some(id) = &event.session_id {
        env.push(("CLAUDE_CODE_SESSION_ID".into(), id.into()));
    }
    env
}

fn mentions(command: &str, args: &Option<Vec<String>>, var: &str) -> bool {
    command.contains(var) || args.iter().flatten().any(|a| a.contains(var))
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The event as Claude Code names it in texts: `PreToolUse:Bash` on tool
/// events, else the event's name.
fn label(ce: ClaudeEvent, tool: &str) -> String {
    if ce.is_tool() {
        format!("{ce}:{tool}")
    } else {
        ce.as_str().to_owned()
    }
}

/// The state of one dispatch as answers are read.
struct Fold<'a> {
    ce: ClaudeEvent,
    tool: &'a str,
    /// The vocabulary's entry for the harness's tool.
    map: Option<&'a crate::vocabulary::ToolMap>,
    /// What names the files of long texts: the tool call's id (else one
    /// of each hook run's; see [`super::persist`]).
    texts_id: Option<String>,
    texts: Texts,
    event: &'a Event,
    out: Outcome,
    /// The strongest permission decision so far, and who made it.
    strongest: Option<Decision>,
    /// Texts of the hooks that denied, asked or deferred: (hook, decision, text).
    denials: Vec<(String, Decision, String)>,
    /// The input rewrite of the latest handler in configuration order.
    rewrite: Option<(usize, Value)>,
    /// Stop feedback, in the order the hooks finished.
    feedback: Vec<String>,
    feedback_hooks: Vec<String>,
    /// Answers of hooks that went to the background with a first line
    /// `{"async":true}`, kept for the next tool result: (hook, texts).
    later: Vec<(String, Vec<String>)>,
    /// A prompt's hook blocked it or stopped the loop: Claude Code reads
    /// no answer that finished after (recorded: `r13_ups_two_exit2`,
    /// `r13_ups_continue_false_sibling_exit2`).
    prompt_ended: bool,
    /// The session's title as the hooks read it.
    title_before: Option<String>,
    /// `sessionTitle` and `initialUserMessage`: the latest in
    /// configuration order, with its handler's index.
    title: Option<(usize, String)>,
    /// `initialUserMessage`, likewise (as the hook wrote it; the one
    /// kept is saved to a file if long).
    initial_user_message: Option<(usize, String)>,
    /// `terminalSequence`s that passed the allowlist, with their
    /// handlers' indexes.
    terminal_sequences: Vec<(usize, String)>,
    /// `PostModelSwitch` contexts and plain stdout, in the order the
    /// hooks finished: Claude Code joins them in one reminder.
    model_contexts: Vec<(String, String)>,
    /// Why the first `PreSkillShellCommand` hook to fail did not check
    /// the command (`hook failed: …`, `hook timed out`).
    skill_failure: Option<String>,
    /// On `PreSkillShellCommand`: the command, as hooks read it.
    shell_command: String,
    /// How an answer's block names each run hook, by run index: its
    /// `statusMessage`, else its command as written (a plugin's root not
    /// expanded, unlike an exit 2's text).
    names: Vec<String>,
}

impl Fold<'_> {
    /// A hook's text as the model reads it: over 10,000 characters it is
    /// saved to a file and previewed (see [`super::persist`]).
    fn kept(&self, cx: &DispatchContext<'_>, text: &str, field: super::persist::Field) -> String {
        let id = match (field, &self.texts_id) {
            // Claude Code names stdout's file after the hook run, and so
            // the others without a tool call.
            (super::persist::Field::Stdout, _) | (_, None) => super::persist::run_id(),
            (_, Some(call)) => call.clone(),
        };
        super::persist::inline_or_saved(text, cx.session, &id, self.ce.as_str(), field)
    }

    /// The harness's check of rewritten arguments, in its own shape and
    /// with its own tool name.
    fn validate(&self, cx: &DispatchContext<'_>, input: &Value) -> Result<(), String> {
        let harness = match self.map {
            Some(m) => m.from_claude(input.clone()),
            None => input.clone(),
        };
        cx.validator
            .validate(self.event.tool_name().unwrap_or(self.tool), &harness)
    }

    fn decide(&mut self, hook: &str, d: Decision, text: String) {
        if self.strongest.is_none_or(|s| d.strength() > s.strength()) {
            self.strongest = Some(d);
        }
        if d != Decision::Allow {
            self.denials.push((hook.to_owned(), d, text));
        }
    }

    fn context(&mut self, hook: &str, placement: Placement, text: String) {
        self.out.context.push(Injection {
            hook: hook.to_owned(),
            placement,
            text,
        });
    }

    /// Applies one hook's verdict, in the order the hooks finished.
    fn apply(
        &mut self,
        index: usize,
        cmd: &str,
        verdict: Verdict,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let prompt = matches!(
            self.ce,
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion
        );
        if prompt && self.prompt_ended {
            record.message = Some(text::AFTER_PROMPT_ENDED.to_owned());
            return;
        }
        self.apply_verdict(index, cmd, verdict, record, cx);
        if prompt && (self.strongest == Some(Decision::Deny) || self.out.halt.is_some()) {
            self.prompt_ended = true;
        }
    }

    fn apply_verdict(
        &mut self,
        index: usize,
        cmd: &str,
        verdict: Verdict,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let ce = self.ce;
        let label = label(ce, self.tool);
        let hook = record.hook.clone();
        let t = self.texts;
        let verdict = super::judge::for_event(verdict, ce.as_str());
        let category = match &verdict {
            Verdict::Stopped(category, _) => *category,
            _ => ErrorCategory::CommandError,
        };
        match verdict {
            // Its text names the command itself: no `[<cmd>]: ` before it.
            Verdict::MissingScript { stderr, plugin } => {
                let text = t.missing_script(cmd, &stderr, plugin.as_deref());
                self.out
                    .warnings
                    .push(format!("{label} hook error: {text}"));
                record.fail(ErrorCategory::CommandError, text);
            }
            Verdict::NonBlocking(message) | Verdict::Stopped(_, message)
                if matches!(
                    ce,
                    ClaudeEvent::PreModelSwitch | ClaudeEvent::PreSkillShellCommand
                ) =>
            {
                self.failed_check(&hook, category, &message);
                record.fail(category, message);
            }
            Verdict::NonBlocking(message) | Verdict::Stopped(_, message) => {
                self.out.warnings.push(format!(
                    "{label} hook error: {}",
                    t.bracketed(cmd, &message)
                ));
                // Any failure of a WorktreeCreate hook fails the creation.
                if ce == ClaudeEvent::WorktreeCreate {
                    self.decide(&hook, Decision::Deny, t.worktree_failed(cmd, &message));
                }
                record.fail(category, message);
            }
            Verdict::Blocking(message) => {
                record.status = RunStatus::Blocked;
                record.error = Some(ErrorCategory::HookBlocked);
                record.message = Some(message.clone());
                match ce {
                    ClaudeEvent::PreToolUse => {
                        self.decide(
                            &hook,
                            Decision::Deny,
                            t.pre_tool_error(self.tool, cmd, &message),
                        );
                    }
                    // Folded into the tool's result (Claude Code 2.1.332,
                    // recorded: `e3_posttooluse_exit2_and_failure`).
                    ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                        let tail = t.bracketed(cmd, &message);
                        self.context(
                            &hook,
                            Placement::AppendToToolResult,
                            t.blocking_error(&label, cmd, &tail),
                        );
                    }
                    ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion => {
                        let prompt = self.event.prompt.clone().unwrap_or_default();
                        self.decide(
                            &hook,
                            Decision::Deny,
                            t.prompt_blocked(ce.as_str(), &t.bracketed(cmd, &message), &prompt),
                        );
                    }
                    ClaudeEvent::Stop | ClaudeEvent::SubagentStop | ClaudeEvent::TeammateIdle => {
                        record.status = RunStatus::Continued;
                        let said = t.bracketed(cmd, &message);
                        // `TeammateIdle hook feedback:` (read from Claude
                        // Code's code; agent teams are not recorded).
                        self.feedback.push(if ce == ClaudeEvent::TeammateIdle {
                            task_feedback(ce, &said)
                        } else {
                            stop_feedback(&said)
                        });
                        self.feedback_hooks.push(hook.clone());
                    }
                    ClaudeEvent::PreCompact => {
                        self.decide(&hook, Decision::Deny, message);
                    }
                    ClaudeEvent::PreModelSwitch => {
                        self.decide(&hook, Decision::Deny, t.bracketed(cmd, &message));
                    }
                    ClaudeEvent::PreSkillShellCommand => {
                        let lead = t.bracketed(cmd, "");
                        let reason = super::skill_shell::exit2_reason(&lead, &message);
                        self.decide(&hook, Decision::Deny, reason);
                    }
                    ClaudeEvent::WorktreeCreate => {
                        let text = t.worktree_failed(cmd, &message);
                        self.decide(&hook, Decision::Deny, text);
                    }
                    // The task tool's result (recorded: `r3_task_created_exit2`,
                    // `r3_task_completed_exit2`).
                    ClaudeEvent::TaskCreated | ClaudeEvent::TaskCompleted => {
                        let text = task_feedback(ce, &t.bracketed(cmd, &message));
                        self.decide(&hook, Decision::Deny, text);
                    }
                    ClaudeEvent::Elicitation | ClaudeEvent::ElicitationResult => {
                        self.decline(&hook);
                        self.decide(&hook, Decision::Deny, message);
                    }
                    ClaudeEvent::ConfigChange if !self.is_policy_change() => {
                        self.decide(&hook, Decision::Deny, message);
                    }
                    // The loop ends at once; the model is not told why
                    // (recorded: `r3_post_tool_batch_exit2`).
                    ClaudeEvent::PostToolBatch => {
                        self.halt(&hook, Some(t.bracketed(cmd, &message)));
                    }
                    // Exit 2 does nothing here (Claude Code's debug log only).
                    ClaudeEvent::PermissionDenied
                    | ClaudeEvent::Setup
                    | ClaudeEvent::InstructionsLoaded
                    | ClaudeEvent::StopFailure
                    | ClaudeEvent::WorktreeRemove
                    | ClaudeEvent::DirectoryAdded
                    | ClaudeEvent::MessageDisplay
                    | ClaudeEvent::CwdChanged
                    | ClaudeEvent::FileChanged
                    | ClaudeEvent::Notification => {
                        record.status = RunStatus::Ok;
                        record.error = None;
                    }
                    // Exit 2 blocks nothing here: stderr is for the user.
                    ClaudeEvent::PermissionRequest
                    | ClaudeEvent::SubagentStart
                    | ClaudeEvent::SessionStart
                    | ClaudeEvent::SessionEnd
                    | ClaudeEvent::PostCompact
                    | ClaudeEvent::PostModelSwitch
                    | ClaudeEvent::ConfigChange => {
                        record.status = RunStatus::Ok;
                        record.error = None;
                        self.out.warnings.push(format!(
                            "{label} hook error: {}",
                            t.bracketed(cmd, &message)
                        ));
                    }
                }
            }
            Verdict::Plain(stdout) => {
                if stdout.is_empty() {
                    return;
                }
                match ce {
                    ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion => {
                        self.context(
                            &hook,
                            Placement::WithPrompt,
                            success(ce.as_str(), &self.kept(cx, &stdout, Field::Stdout)),
                        );
                    }
                    // The last non-empty line is the worktree's path.
                    ClaudeEvent::WorktreeCreate => {
                        if let Some(line) = stdout.lines().rev().find(|l| !l.trim().is_empty()) {
                            self.out.worktree_path = Some(line.trim().to_owned());
                        }
                    }
                    ClaudeEvent::SessionStart => {
                        let source = self.event.source.as_deref().unwrap_or("startup");
                        self.context(
                            &hook,
                            self.session_start_placement(),
                            success(
                                &format!("SessionStart:{source}"),
                                &self.kept(cx, &stdout, Field::Stdout),
                            ),
                        );
                    }
                    ClaudeEvent::PostModelSwitch => {
                        let text = self.kept(cx, &stdout, Field::Stdout);
                        self.model_contexts.push((hook.clone(), text));
                    }
                    // Recorded (`r3_compact_outputs`): more instructions for
                    // the summary.
                    ClaudeEvent::PreCompact => {
                        let text = self.kept(cx, &stdout, Field::Stdout);
                        self.context(&hook, Placement::CompactionPrompt, text);
                    }
                    // Elsewhere plain stdout goes to Claude Code's debug log only.
                    _ => {}
                }
            }
            Verdict::Json(j) => {
                // An exit 2 beside an answer that does not block: the
                // stderr block first, then the answer (recorded:
                // `r8_exit2_json_post_ctx_sys`, the blocking error before
                // the context; `r8_exit2_json_pre_hso_allow`, the block
                // wins), and the run stays blocked.
                // On a prompt, the answer's stop wins over the exit's block
                // (Claude Code 2.1.197, FINDINGS §42, "exit 2 beside
                // `continue: false`").
                let stops_prompt = j.continue_ == Some(false)
                    && matches!(
                        ce,
                        ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion
                    );
                let exit2 = j
                    .exit2
                    .clone()
                    .filter(|_| !j.blocks(ce.as_str()) && !stops_prompt);
                let blocked = exit2.map(|text| {
                    self.apply_verdict(index, cmd, Verdict::Blocking(text), record, cx);
                    (record.status, record.error, record.message.clone())
                });
                self.apply_json(index, &label, cmd, &j, record, cx);
                if let Some((status, error, message)) = blocked {
                    (record.status, record.error, record.message) = (status, error, message);
                }
            }
            // Claude Code goes on at once and delivers what follows like an
            // `async` hook's answer; latch has waited for the hook, and
            // keeps that answer for the next tool result the same way.
            Verdict::Async(rest) => {
                if record.status != RunStatus::Failed {
                    record.message = Some(
                        "went to the background ({\"async\":true}); its answer comes with the next tool result"
                            .to_owned(),
                    );
                }
                self.later
                    .push((hook, super::background::later_answer(&rest, ce.as_str())));
            }
        }
    }

    fn apply_json(
        &mut self,
        index: usize,
        label: &str,
        cmd: &str,
        j: &HookJson,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let ce = self.ce;
        let hook = record.hook.clone();
        let t = self.texts;
        // Events that discard `continue` and `systemMessage` (Claude Code's docs).
        let universal = !matches!(
            ce,
            ClaudeEvent::Notification
                | ClaudeEvent::SessionEnd
                | ClaudeEvent::PreCompact
                | ClaudeEvent::PostCompact
                | ClaudeEvent::InstructionsLoaded
                | ClaudeEvent::Elicitation
                | ClaudeEvent::ElicitationResult
                | ClaudeEvent::WorktreeCreate
                | ClaudeEvent::WorktreeRemove
                | ClaudeEvent::MessageDisplay
                | ClaudeEvent::ConfigChange
                | ClaudeEvent::StopFailure
                | ClaudeEvent::PreModelSwitch
                | ClaudeEvent::PostModelSwitch
                | ClaudeEvent::PreSkillShellCommand
        );
        // Claude Code stops reading a prompt hook's answer at its block or
        // stop: its `systemMessage` and `terminalSequence` never come
        // (recorded: `r14i_ups_block`, `r14i_ups_stop`, `r14j_upe_block`,
        // `r14j_upe_stop`).
        let ends_prompt = matches!(
            ce,
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion
        ) && (j.continue_ == Some(false)
            || j.decision.as_deref() == Some("block")
            || j.exit2.is_some());
        crate::dialect::output_json::note_ignored(
            &j.too_deep,
            || format!("{label} hook {hook}"),
            record,
            &mut self.out.warnings,
        );
        if universal {
            // Recorded (`r3_task_completed_json`): nothing stops.
            if j.continue_ == Some(false) && ce != ClaudeEvent::TaskCompleted {
                self.halt(&hook, j.stop_reason.clone());
                // A prompt's stop is said to the user and kept in the
                // conversation after the prompt, there in a reminder
                // (recorded: `r13_ups_continue_false_*`; 2.1.332:
                // `r13_ups_continue_false_then_prompt`).
                if let (
                    ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion,
                    Some(halt),
                ) = (ce, self.out.halt.as_mut())
                    && halt.message.is_none()
                {
                    let said = text::operation_stopped(j.stop_reason.as_deref());
                    halt.kept = Some(text::stopped_kept(&said));
                    halt.message = Some(said);
                }
            }
            if let Some(m) = &j.system_message {
                if ends_prompt {
                    record
                        .ignored_fields
                        .push(format!("systemMessage ({ENDS_PROMPT})"));
                } else {
                    let m = self.kept(cx, m, Field::SystemMessage);
                    self.out.warnings.push(m);
                }
            }
        }
        if ends_prompt && j.terminal_sequence.is_some() {
            record
                .ignored_fields
                .push(format!("terminalSequence ({ENDS_PROMPT})"));
        } else {
            self.terminal_sequence(index, j, record);
        }
        let context = j
            .specific_str("additionalContext")
            .map(|c| self.kept(cx, c, Field::AdditionalContext));
        let reason = j.reason.clone();
        // What a `decision: "block"` says: Claude Code's answer reader puts
        // `reason || "Blocked by hook"` in its blocking error, so an empty
        // reason reads the same as none.
        let blocked = || {
            reason
                .clone()
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| text::BLOCKED_BY_HOOK.to_owned())
        };
        match ce {
            ClaudeEvent::PreToolUse => {
                let decision = match (j.specific_str("permissionDecision"), j.decision.as_deref()) {
                    (Some("allow"), _) | (None, Some("approve")) => Some(Decision::Allow),
                    (Some("deny"), _) | (None, Some("block")) => Some(Decision::Deny),
                    (Some("ask"), _) => Some(Decision::Ask),
                    (Some("defer"), _) => Some(Decision::Defer),
                    _ => None,
                };
                // The reason as JavaScript's `a || b || c` picks it: an
                // empty one counts as none.
                let given = j
                    .specific_str("permissionDecisionReason")
                    .map(str::to_owned)
                    .filter(|r| !r.is_empty())
                    .or(reason.filter(|r| !r.is_empty()));
                // A deny is a hook error the model reads, `Blocked by hook`
                // without a reason; an ask without one says what the hook
                // decided (2.1.332, recorded: `c_pretooluse_deny_json`,
                // `r3_deny_json_no_reason`).
                let said = match decision {
                    Some(Decision::Deny) => {
                        given.unwrap_or_else(|| text::BLOCKED_BY_HOOK.to_owned())
                    }
                    Some(d) => given.unwrap_or_else(|| t.decided(self.tool, d)),
                    None => given.unwrap_or_default(),
                };
                if let Some(d) = decision {
                    // The run record keeps what the hook said; the model
                    // reads a deny as a hook error.
                    record.message = Some(said.clone()).filter(|w| !w.is_empty());
                    let why = if d == Decision::Deny {
                        record.status = RunStatus::Blocked;
                        record.error = Some(ErrorCategory::HookBlocked);
                        t.pre_tool_denied(self.tool, &said)
                    } else {
                        said
                    };
                    self.decide(&hook, d, why);
                }
                if let Some(input) = j.specific.get("updatedInput") {
                    match self.validate(cx, input) {
                        Ok(()) => {
                            if self.rewrite.as_ref().is_none_or(|(i, _)| index > *i) {
                                self.rewrite = Some((index, input.clone()));
                            }
                        }
                        Err(why) => {
                            record.ignored_fields.push(format!("updatedInput ({why})"));
                        }
                    }
                }
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        Placement::AfterToolResult,
                        additional_context(label, &ctx),
                    );
                }
            }
            ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                // Both folded into the tool's result (Claude Code 2.1.332,
                // recorded: `e_posttooluse_additional_context`,
                // `e2_posttooluse_decision_block`).
                if j.decision.as_deref() == Some("block") {
                    record.status = RunStatus::Blocked;
                    let name = self.names.get(index).map_or(cmd, String::as_str);
                    self.context(
                        &hook,
                        Placement::AppendToToolResult,
                        t.blocking_error(label, name, &blocked()),
                    );
                }
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        Placement::AppendToToolResult,
                        additional_context(label, &ctx),
                    );
                }
                if ce == ClaudeEvent::PostToolUse {
                    self.output_rewrite(j, record);
                }
            }
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion => {
                // A stop in the same answer wins (`r13_ups_continue_false_block`).
                if j.decision.as_deref() == Some("block") && j.continue_ != Some(false) {
                    record.status = RunStatus::Blocked;
                    record.error = Some(ErrorCategory::HookBlocked);
                    let prompt = self.event.prompt.clone().unwrap_or_default();
                    let mut text = t.prompt_blocked(ce.as_str(), &blocked(), &prompt);
                    // `suppressOriginalPrompt` leaves the prompt out of
                    // the text (FINDINGS §42, "suppressOriginalPrompt";
                    // on UserPromptExpansion too since 2.1.332).
                    if j.specific.get("suppressOriginalPrompt") == Some(&Value::Bool(true)) {
                        text = t.prompt_blocked_alone(ce.as_str(), &blocked());
                    }
                    self.decide(&hook, Decision::Deny, text);
                }
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        Placement::WithPrompt,
                        additional_context(ce.as_str(), &ctx),
                    );
                }
                if ce == ClaudeEvent::UserPromptSubmit
                    && let Some(title) = j.specific_str("sessionTitle")
                {
                    latest(&mut self.title, index, title);
                }
            }
            // Recorded (`r3_post_tool_batch_*`): a block ends the loop at
            // once without telling the model; context is appended to the
            // batch's last tool result.
            ClaudeEvent::PostToolBatch => {
                if j.decision.as_deref() == Some("block") {
                    record.status = RunStatus::Blocked;
                    self.halt(&hook, reason);
                }
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        Placement::AppendToToolResult,
                        additional_context(label, &ctx),
                    );
                }
            }
            ClaudeEvent::TaskCreated | ClaudeEvent::ConfigChange => {
                if j.decision.as_deref() == Some("block")
                    && !(ce == ClaudeEvent::ConfigChange && self.is_policy_change())
                {
                    record.status = RunStatus::Blocked;
                    record.error = Some(ErrorCategory::HookBlocked);
                    let reason = blocked();
                    let text = if ce == ClaudeEvent::TaskCreated {
                        task_feedback(ce, &reason)
                    } else {
                        reason
                    };
                    self.decide(&hook, Decision::Deny, text);
                }
            }
            // Recorded (`r3_permission_denied_retry`): the model is told.
            ClaudeEvent::PermissionDenied => {
                if j.specific.get("retry").and_then(Value::as_bool) == Some(true) && !self.out.retry
                {
                    self.out.retry = true;
                    self.context(
                        &hook,
                        Placement::AfterToolResult,
                        text::reminder(text::RETRY),
                    );
                }
            }
            ClaudeEvent::WorktreeCreate => {
                if let Some(path) = j.specific_str("worktreePath") {
                    self.out.worktree_path = Some(path.to_owned());
                }
            }
            // A decline or cancel stands: a later `accept` (from a hook that
            // finished after) does not replace it.
            ClaudeEvent::Elicitation | ClaudeEvent::ElicitationResult => {
                if let Some(action) = j.specific_str("action") {
                    let refused = self
                        .out
                        .elicitation
                        .as_ref()
                        .is_some_and(|e| e.action != "accept");
                    if !(refused && action == "accept") {
                        self.out.elicitation = Some(ElicitationAnswer {
                            hook: hook.clone(),
                            action: action.to_owned(),
                            content: j.specific.get("content").cloned(),
                        });
                    }
                    if action != "accept" {
                        self.decide(&hook, Decision::Deny, String::new());
                    }
                }
            }
            ClaudeEvent::MessageDisplay => {
                if let Some(text) = j.specific_str("displayContent") {
                    self.out.display = Some(text.to_owned());
                }
            }
            ClaudeEvent::CwdChanged | ClaudeEvent::FileChanged => self.watch(j),
            ClaudeEvent::PreModelSwitch | ClaudeEvent::PostModelSwitch => {
                self.model_switch_answer(&hook, j, record, cx);
                if let Some(ctx) = context.filter(|_| ce == ClaudeEvent::PostModelSwitch) {
                    self.model_contexts.push((hook.clone(), ctx));
                }
            }
            ClaudeEvent::PreSkillShellCommand => self.skill_shell_answer(&hook, j, record),
            // Recorded (`r3_setup_init`): Claude Code drops a Setup hook's
            // `additionalContext`, whatever its docs say.
            ClaudeEvent::Setup => {
                if context.is_some() {
                    record
                        .ignored_fields
                        .push("additionalContext (Claude Code drops it on Setup)".to_owned());
                }
            }
            ClaudeEvent::PermissionRequest => self.permission(index, j, record, cx),
            ClaudeEvent::SubagentStart => {
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        Placement::FirstUserMessage,
                        additional_context("SubagentStart", &ctx),
                    );
                }
            }
            ClaudeEvent::SessionStart => {
                if let Some(ctx) = context {
                    self.context(
                        &hook,
                        self.session_start_placement(),
                        additional_context("SessionStart", &ctx),
                    );
                }
                self.watch(j);
                self.session_start(index, j, record);
            }
            ClaudeEvent::Stop | ClaudeEvent::SubagentStop => {
                if j.decision.as_deref() == Some("block") {
                    record.status = RunStatus::Continued;
                    // A block an answer gives (not an exit 2's) comes with
                    // a blocking error first (2.1.332, recorded:
                    // `g_stop_block_once`, `r8_exit2_json_stop_block`).
                    let name = self.names.get(index).map_or(cmd, String::as_str);
                    self.feedback
                        .push(t.blocking_error(ce.as_str(), name, &blocked()));
                    self.feedback.push(stop_feedback(&blocked()));
                    self.feedback_hooks.push(hook.clone());
                } else if let Some(ctx) = context {
                    // Recorded (`r2_stop_additional_context`): the agent
                    // goes on, reading the context without an error label.
                    record.status = RunStatus::Continued;
                    self.feedback.push(additional_context(ce.as_str(), &ctx));
                    self.feedback_hooks.push(hook.clone());
                }
            }
            ClaudeEvent::PreCompact => {
                if j.decision.as_deref() == Some("block") {
                    record.status = RunStatus::Blocked;
                    record.error = Some(ErrorCategory::HookBlocked);
                    self.decide(&hook, Decision::Deny, blocked());
                }
            }
            ClaudeEvent::Notification
            | ClaudeEvent::SessionEnd
            | ClaudeEvent::PostCompact
            | ClaudeEvent::InstructionsLoaded
            | ClaudeEvent::StopFailure
            | ClaudeEvent::TaskCompleted
            | ClaudeEvent::TeammateIdle
            | ClaudeEvent::DirectoryAdded
            | ClaudeEvent::WorktreeRemove => {}
        }
    }

    /// `terminalSequence`, on any event: kept when Claude Code's
    /// allowlist lets it through, else named in the run's ignored fields
    /// (Claude Code writes it in its debug log only).
    fn terminal_sequence(&mut self, index: usize, j: &HookJson, record: &mut HookRun) {
        let Some(text) = &j.terminal_sequence else {
            return;
        };
        match super::terminal::normalize(text) {
            Ok(sequence) if sequence.is_empty() => {}
            Ok(sequence) => self.terminal_sequences.push((index, sequence)),
            Err(why) => record.ignored_fields.push(format!(
                "terminalSequence (refused: {why}; only OSC 0, 1, 2, 9, 99, 777 and BEL pass)"
            )),
        }
    }

    /// SessionStart's `sessionTitle` and `initialUserMessage`, which
    /// Claude Code takes on `startup` and `resume` only (recorded:
    /// `r14_ss_title_resume`, `r14_ss_title_compact_stream`,
    /// `r14_ss_ium_compact_stream`), and `reloadSkills`, on any.
    fn session_start(&mut self, index: usize, j: &HookJson, record: &mut HookRun) {
        let source = self.event.source.as_deref().unwrap_or("startup");
        let starts = matches!(source, "startup" | "resume");
        if let Some(title) = j.specific_str("sessionTitle").filter(|t| !t.is_empty()) {
            if starts {
                latest(&mut self.title, index, title);
            } else {
                record.ignored_fields.push(format!(
                    "sessionTitle (Claude Code keeps a SessionStart title on startup and resume, not {source})"
                ));
            }
        }
        if let Some(message) = j
            .specific_str("initialUserMessage")
            .filter(|m| !m.is_empty())
        {
            if starts {
                latest(&mut self.initial_user_message, index, message);
            } else {
                record.ignored_fields.push(format!(
                    "initialUserMessage (Claude Code sends it on startup and resume, not {source})"
                ));
            }
        }
        if j.specific.get("reloadSkills") == Some(&Value::Bool(true)) {
            self.out.reload_skills = true;
        }
    }

    /// Ends the agent loop once the event is handled.
    fn halt(&mut self, hook: &str, reason: Option<String>) {
        let halt = self.out.halt.get_or_insert_with(|| Halt {
            hooks: Vec::new(),
            reason: None,
            message: None,
            kept: None,
        });
        halt.hooks.push(hook.to_owned());
        if halt.reason.is_none() {
            halt.reason = reason;
        }
    }

    /// Where SessionStart text goes: after compaction, at the end of the
    /// last tool result (recorded: `r3_compact_auto`); else in the first
    /// user message.
    fn session_start_placement(&self) -> Placement {
        if self.event.source.as_deref() == Some("compact") {
            Placement::AppendToToolResult
        } else {
            Placement::FirstUserMessage
        }
    }

    /// A tool server's request is declined.
    fn decline(&mut self, hook: &str) {
        self.out.elicitation = Some(ElicitationAnswer {
            hook: hook.to_owned(),
            action: "decline".to_owned(),
            content: None,
        });
    }

    /// Whether a `ConfigChange` concerns managed policy, which hooks
    /// cannot block.
    fn is_policy_change(&self) -> bool {
        super::events::is_policy_change(self.event)
    }

    /// `watchPaths`: files the harness should watch for `FileChanged`.
    fn watch(&mut self, j: &HookJson) {
        if let Some(paths) = j.specific.get("watchPaths").and_then(Value::as_array) {
            self.out
                .watch_paths
                .extend(paths.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }

    /// `PermissionRequest`'s `decision`: `behavior` allow or deny,
    /// `updatedInput` with an allow, `message` with a deny (for the
    /// model), `interrupt: true` with a deny to stop the agent.
    /// `updatedPermissions` (a list) goes to the harness, which keeps the
    /// permission rules: the outcome's `permission_updates`.
    fn permission(
        &mut self,
        index: usize,
        j: &HookJson,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let hook = record.hook.clone();
        let Some(decision) = j.specific.get("decision").and_then(Value::as_object) else {
            return;
        };
        match decision.get("behavior").and_then(Value::as_str) {
            Some("allow") => {
                self.decide(&hook, Decision::Allow, String::new());
                if let Some(input) = decision.get("updatedInput") {
                    match self.validate(cx, input) {
                        Ok(()) => {
                            if self.rewrite.as_ref().is_none_or(|(i, _)| index > *i) {
                                self.rewrite = Some((index, input.clone()));
                            }
                        }
                        Err(why) => record.ignored_fields.push(format!("updatedInput ({why})")),
                    }
                }
            }
            Some("deny") => {
                record.status = RunStatus::Blocked;
                record.error = Some(ErrorCategory::HookBlocked);
                let message = decision
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_default();
                record.message = Some(message.clone()).filter(|m| !m.is_empty());
                self.decide(&hook, Decision::Deny, message);
                if decision.get("interrupt").and_then(Value::as_bool) == Some(true) {
                    self.halt(&hook, None);
                }
            }
            // The answer passed Claude Code's schema: allow or deny.
            _ => {}
        }
        if let Some(Value::Array(updates)) = decision.get("updatedPermissions")
            && !updates.is_empty()
        {
            self.out.permission_updates.push(PermissionUpdates {
                hook,
                updates: updates.clone(),
            });
        }
    }

    /// `updatedToolOutput`: it replaces the result only with the shape of
    /// the original (recorded: an object for Bash replaces it,
    /// `r2_post_updated_output`; a string is ignored,
    /// `r2_post_updated_output_string`). `updatedMCPToolOutput` counts only
    /// for MCP tools (`r2_post_updated_mcp_output_on_bash`), whose results
    /// have no shape to keep (see [`super::mcp_output`]).
    fn output_rewrite(&mut self, j: &HookJson, record: &mut HookRun) {
        if self.tool.starts_with("mcp__") {
            match super::mcp_output::replacement(self.tool, &j.specific) {
                Replacement::None => {}
                Replacement::Output(text) => self.out.tool_output = Some(text),
                Replacement::Ignored(note) => record.ignored_fields.push(note),
            }
            return;
        }
        if j.specific.contains_key("updatedMCPToolOutput") {
            record
                .ignored_fields
                .push("updatedMCPToolOutput (only for MCP tools)".to_owned());
        }
        let original = self
            .event
            .tool
            .as_ref()
            .and_then(|t| t.output.as_ref())
            .map(|o| o.to_value())
            .map(|o| match self.map {
                Some(m) => m.output_to_claude(o),
                None => o,
            });
        let key = "updatedToolOutput";
        // Bash's result is always an object to Claude Code, whatever the
        // harness gave, and a replacement must have the fields its schema
        // requires.
        let bash = self.tool == "Bash";
        if let Some(value) = j.specific.get(key) {
            let same_shape = match value {
                Value::Object(m) if bash => {
                    m.get("stdout").is_some_and(Value::is_string)
                        && m.get("stderr").is_some_and(Value::is_string)
                        && m.get("interrupted").is_some_and(Value::is_boolean)
                }
                _ if bash => false,
                // No tool's output is `null` (recorded for Bash:
                // `r13b_hso_post_updated_output_null`).
                Value::Null => false,
                _ => matches!(
                    (&original, value),
                    (Some(Value::Object(_)), Value::Object(_))
                        | (Some(Value::Array(_)), Value::Array(_))
                        | (Some(Value::String(_)), Value::String(_))
                        | (None, _)
                ),
            };
            if !same_shape {
                record.ignored_fields.push(format!(
                    "{key} (not the shape of the tool's output; the original output is used)"
                ));
                return;
            }
            self.out.tool_output = Some(match value {
                Value::String(s) => s.clone(),
                // Bash's result as the model reads it: stdout, then the
                // trimmed stderr on its own line (recorded: `r3_cwd_changed`,
                // `{stdout:"/tmp", stderr:"\nShell cwd was reset to …"}`
                // reached the model as `/tmp\nShell cwd was reset to …`).
                Value::Object(m) if bash => {
                    let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
                    let (stdout, stderr) = (text("stdout"), super::text::js_trim(text("stderr")));
                    match (stdout.is_empty(), stderr.is_empty()) {
                        (_, true) => stdout.to_owned(),
                        (true, false) => stderr.to_owned(),
                        (false, false) => format!("{stdout}\n{stderr}"),
                    }
                }
                Value::Object(m) => match m.get("stdout") {
                    Some(Value::String(s)) => s.clone(),
                    _ => value.to_string(),
                },
                other => other.to_string(),
            });
        }
    }

    async fn finish(mut self, cx: &DispatchContext<'_>, cap: Option<u32>) -> Outcome {
        let ce = self.ce;
        if let Some(d) = self.strongest {
            self.out.decision = d;
        }
        if ce == ClaudeEvent::PreSkillShellCommand {
            self.skill_shell_texts();
        }
        if ce == ClaudeEvent::PostModelSwitch
            && let Some((hook, _)) = self.model_contexts.first()
        {
            let hook = hook.clone();
            let texts: Vec<&str> = self
                .model_contexts
                .iter()
                .map(|(_, t)| t.as_str())
                .collect();
            let joined = texts.join("\n");
            self.context(
                &hook,
                Placement::WithPrompt,
                additional_context(ce.as_str(), &joined),
            );
        }
        // The texts of the decision that won.
        let mut winning: Vec<(String, String)> = self
            .denials
            .iter()
            .filter(|(_, d, _)| Some(*d) == self.strongest)
            .map(|(h, _, t)| (h.clone(), t.clone()))
            .collect();
        // Of several denials the model reads one: the last to finish
        // (recorded: `r3_two_denies_*`); every reason stays in `reasons`.
        if matches!(
            ce,
            ClaudeEvent::PreToolUse
                | ClaudeEvent::PermissionRequest
                | ClaudeEvent::TaskCreated
                | ClaudeEvent::TaskCompleted
                | ClaudeEvent::WorktreeCreate
        ) && self.out.decision == Decision::Deny
            && let Some((hook, text)) = winning.last()
        {
            self.out.notices.push(Notice {
                hook: hook.clone(),
                event: ce.as_str().to_owned(),
                kind: NoticeKind::Block,
                text: text.clone(),
            });
        }
        // Before a model switch, the first refusal (or ask) to finish is
        // the one said (Claude Code 2.1.332's `Uxi`: `k ??= …`).
        if ce == ClaudeEvent::PreModelSwitch {
            winning.truncate(1);
        }
        for (hook, text) in winning {
            self.out.reasons.push(Reason { hook, text });
        }
        if matches!(ce, ClaudeEvent::PreToolUse | ClaudeEvent::PermissionRequest)
            && !matches!(self.out.decision, Decision::Deny | Decision::Defer)
            && let Some((_, input)) = self.rewrite.take()
        {
            // Back in the harness's own argument names.
            self.out.tool_input = Some(match self.map {
                Some(m) => m.from_claude(input),
                None => input,
            });
        }
        if matches!(ce, ClaudeEvent::Stop | ClaudeEvent::SubagentStop) {
            self.stop(cx, cap).await;
        }
        for (hook, texts) in std::mem::take(&mut self.later) {
            if let Err(e) = super::background::store(cx.session, cx.cancel, &hook, texts).await {
                self.out.warnings.push(format!(
                    "latch could not keep the answer of the async hook {hook}: {e}"
                ));
            }
        }
        self.interface_requests(cx).await;
        // A teammate told to go on keeps working; no cap applies.
        if ce == ClaudeEvent::TeammateIdle && !self.feedback.is_empty() && self.out.halt.is_none() {
            self.out.continuation = Some(Continuation {
                prompt: self.feedback.join("\n\n"),
                hooks: std::mem::take(&mut self.feedback_hooks),
            });
        }
        self.out
    }

    /// What hooks asked of the harness's own interface: the session's
    /// title (not after a prompt's block or stop, where Claude Code never
    /// gets to it), kept in the session's state for later payloads; the
    /// first user message; the terminal sequences, in configuration order.
    async fn interface_requests(&mut self, cx: &DispatchContext<'_>) {
        let prompt_goes_on = self.out.decision != Decision::Deny && self.out.halt.is_none();
        if let Some((_, given)) = self.title.take()
            && (self.ce != ClaudeEvent::UserPromptSubmit || prompt_goes_on)
            && let Some(title) = super::title::change(&given, self.title_before.as_deref())
        {
            let stored = cx
                .session
                .update(cx.cancel, |s| {
                    s.values.insert(
                        super::title::STATE_KEY.to_owned(),
                        Value::from(title.as_str()),
                    );
                })
                .await;
            if let Err(e) = stored {
                self.out
                    .warnings
                    .push(format!("latch could not keep the session's title: {e}"));
            }
            self.out.session_title = Some(title);
        }
        if let Some((_, message)) = self.initial_user_message.take() {
            let field = Field::InitialUserMessage;
            self.out.initial_user_message = Some(self.kept(cx, &message, field));
        }
        let mut sequences = std::mem::take(&mut self.terminal_sequences);
        sequences.sort_by_key(|(i, _)| *i);
        self.out.terminal_sequences = sequences.into_iter().map(|(_, s)| s).collect();
    }

    /// Whether the agent goes on after Stop: a block makes it, up to the
    /// cap of consecutive blocks (Claude Code: 8; `None` for no cap). A
    /// block counts in the turn (`stop_hook_active`) and in the run of
    /// blocks since the agent's last tool call, which the cap limits.
    async fn stop(&mut self, cx: &DispatchContext<'_>, cap: Option<u32>) {
        let (key, run) = stop_keys(self.ce, self.event);
        if self.feedback.is_empty() || self.out.halt.is_some() {
            let reset = cx
                .session
                .update(cx.cancel, |s| {
                    s.set_counter(&key, 0);
                    s.set_counter(&run, 0);
                })
                .await
                .and_then(|()| cx.session.set_flag(&run, false));
            if let Err(e) = reset {
                self.out
                    .warnings
                    .push(format!("latch could not reset the Stop block counter: {e}"));
            }
            return;
        }
        // The run is open unless a tool call closed it since the last block.
        let allowed = match cx.session.flag(&run) {
            Err(e) => Err(e),
            Ok(open) => {
                cx.session
                    .try_update(cx.cancel, |s| {
                        let count = if open { s.counter(&run)? } else { 0 };
                        if cap.is_some_and(|c| count >= u64::from(c)) {
                            s.set_counter(&run, 0);
                            s.set_counter(&key, 0);
                            Ok(Some(count + 1))
                        } else {
                            let in_turn = s.counter(&key)?;
                            s.set_counter(&run, count + 1);
                            s.set_counter(&key, in_turn + 1);
                            Ok(None)
                        }
                    })
                    .await
            }
        };
        // The flag follows the counter: up while the run goes on.
        let allowed = allowed.and_then(|a| cx.session.set_flag(&run, a.is_none()).map(|()| a));
        match allowed {
            Ok(None) => {
                self.out.continuation = Some(Continuation {
                    prompt: self.feedback.join("\n"),
                    hooks: std::mem::take(&mut self.feedback_hooks),
                });
            }
            // Claude Code's words (read from its 2.1.332 code, `ral`), with
            // the number of this block.
            Ok(Some(blocks)) => self.refuse_continuation(format!(
                "A hook blocked the turn from ending {blocks} consecutive times\u{2014}overriding and ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit."
            )),
            // Without the counter the cap cannot hold: ending the turn is
            // the choice that cannot loop forever.
            Err(e) => self.refuse_continuation(format!(
                "{} hook continuation refused: latch could not use the Stop block counter ({e})",
                self.ce
            )),
        }
    }

    /// The turn ends although hooks asked to go on: a warning, and their
    /// runs say so instead of `continued`.
    fn refuse_continuation(&mut self, why: String) {
        let hooks = std::mem::take(&mut self.feedback_hooks);
        for run in self
            .out
            .runs
            .iter_mut()
            .filter(|r| r.status == RunStatus::Continued && hooks.contains(&r.hook))
        {
            run.status = RunStatus::Ok;
            // `A hook blocked …` reads `it asked to go on, but a hook …`.
            let mut chars = why.chars();
            let why = chars
                .next()
                .map(|c| c.to_lowercase().chain(chars).collect::<String>())
                .unwrap_or_default();
            run.message = Some(format!("it asked to go on, but {why}"));
        }
        self.out.warnings.push(why);
    }
}

/// Why a prompt hook's `systemMessage` or `terminalSequence` did nothing.
const ENDS_PROMPT: &str = "Claude Code stops reading an answer that blocks or stops the prompt";

/// Keeps `value` in `slot` when it comes from a handler later in the
/// configuration than the one there. Claude Code keeps the last to
/// finish; latch, as with rewrites, the last in configuration order.
fn latest(slot: &mut Option<(usize, String)>, index: usize, value: &str) {
    if value.is_empty() || slot.as_ref().is_some_and(|(i, _)| *i > index) {
        return;
    }
    *slot = Some((index, value.to_owned()));
}

/// What the model reads when a task hook refuses: `<Event> hook
/// feedback:\n<message>`, as the task tool's result.
fn task_feedback(ce: ClaudeEvent, message: &str) -> String {
    format!("{ce} hook feedback:\n{message}")
}

/// The session keys of the Stop block counters, the turn's and the run's
/// (also the run's flag): one pair for the main agent, one per sub-agent
/// (`SubagentStop`, and a sub-agent's tool calls, name it by `agent_id`).
fn stop_keys(ce: ClaudeEvent, event: &Event) -> (String, String) {
    let agent = event.agent_id.as_deref();
    stop_keys_of(agent.filter(|_| ce == ClaudeEvent::SubagentStop))
}

/// [`stop_keys`] of the main agent (`None`) or of the sub-agent `agent`.
fn stop_keys_of(agent: Option<&str>) -> (String, String) {
    match agent {
        Some(id) => (
            format!("{STOP_BLOCKS_KEY}.{id}"),
            format!("{STOP_RUN_KEY}.{id}"),
        ),
        None => (STOP_BLOCKS_KEY.to_owned(), STOP_RUN_KEY.to_owned()),
    }
}

/// The harness's tool input reshaped as Claude Code's, where the
/// vocabulary says the shapes differ (parsed only then); `None`: the
/// input as the harness gave it is Claude Code's.
pub(super) fn claude_tool_input(
    options: &super::Options,
    event: &Event,
    workdir: &std::path::Path,
) -> Option<Value> {
    let map = options.vocabulary.get(event.tool_name()?)?;
    if !map.changes_input() {
        return None;
    }
    let tool = event.tool.as_ref()?;
    Some(map.to_claude(tool.input.to_value(), workdir))
}

/// What an `if` rule reads: the tool call in Claude Code's shape.
pub(super) fn rule_input(
    tool: &str,
    claude_input: Option<&Value>,
    event: &Event,
    project: &std::path::Path,
) -> ToolInput {
    match claude_input {
        Some(input) => ToolInput::new(tool, input, project),
        None => {
            let input = event
                .tool
                .as_ref()
                .map(|t| t.input.to_value())
                .unwrap_or(Value::Null);
            ToolInput::new(tool, &input, project)
        }
    }
}
