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

mod fold;
mod switch_and_skill;

use fold::{Fold, Naming};

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::event::Event;
use crate::outcome::{
    Continuation, Decision, ElicitationAnswer, ErrorCategory, Halt, HookRun, Injection, Notice,
    NoticeKind, Outcome, PermissionUpdates, Placement, Reason, RunStatus,
};
use crate::pipeline::{self, BoxFuture, DispatchContext, Job, ToolAnswer};
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
    /// One of the user's own hooks, under
    /// `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`.
    personal: Option<super::personal::Personal>,
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
                            own_message: false,
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
    let mut namings: Vec<Naming> = Vec::new();
    for (i, s) in selected.into_iter().enumerate() {
        let env_file = env_dir
            .as_ref()
            .map(|d| super::env_file::file(d, ce.as_str(), i));
        if let Some(f) = &env_file {
            // A file left by an earlier start of the session does not count.
            let _ = std::fs::remove_file(f);
            env_files.push(f.clone());
        }
        let in_block = super::visible::one_line(
            &s.handler
                .status_message
                .clone()
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| s.handler.kind.shown()),
        );
        match work(s, event, &place, env_file, cx) {
            Prepared::Run(run) => {
                namings.push(Naming {
                    shown: run.shown,
                    from_plugin: run.from_plugin,
                    in_block,
                    cut: run.cut,
                });
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
        joined_contexts: Vec::new(),
        skill_failure: None,
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
        let naming = &namings[i];
        let verdict = match naming.from_plugin.as_deref() {
            Some(line) => text::with_plugin_line(ran.verdict, line),
            None => ran.verdict,
        };
        // A personal hook's failure names it with its URLs cut; its
        // other texts, as written (Claude Code 2.1.332's `Fkn`).
        let cut_naming;
        let naming = match (&naming.cut, ran.personal_failure) {
            (Some(cut), true) => {
                cut_naming = Naming {
                    shown: cut.clone(),
                    ..naming.clone()
                };
                &cut_naming
            }
            _ => naming,
        };
        fold.apply(i, naming, verdict, &mut record, cx);
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
    /// The verdict is a personal hook's block for a failure (see
    /// [`Personally::failed`]).
    personal_failure: bool,
}

/// A handler ready to run: its text for messages and its run.
struct Work<'a> {
    shown: String,
    /// For a plugin's command: the line its exit 2's blocking error ends
    /// with (Claude Code 2.1.332).
    from_plugin: Option<String>,
    /// For one of the user's own hooks: its name with URLs cut, for the
    /// text of its failure.
    cut: Option<String>,
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
    /// One of the user's own hooks: its answer is cut down, and its
    /// failure blocks where [`super::personal::failure_blocks`] says.
    personal: Option<PersonalRun>,
    /// Where an exit 2 that looks like a missing script is a non-blocking
    /// error (see [`missing_script`]).
    missing: Option<MissingScript>,
}

/// How one of the user's own hooks runs (see [`super::personal`]).
#[derive(Clone)]
struct PersonalRun {
    /// The event's name.
    event: &'static str,
    /// The payload, for what the answer may not change.
    payload: Value,
    /// Its failure's words after `failed; `, where its failure blocks.
    blocks: Option<String>,
}

impl PersonalRun {
    fn new(s: &Selected<'_>, place: &Place<'_>) -> Option<PersonalRun> {
        let personal = s.personal.as_ref()?;
        Some(PersonalRun {
            event: place.ce.as_str(),
            payload: serde_json::from_slice(place.stdin).unwrap_or(Value::Null),
            blocks: super::personal::failure_blocks(place.ce, s.handler)
                .then(|| personal.why.clone()),
        })
    }

    /// `verdict` with its answer cut down, then its failure blocking
    /// (the error's own words shown as `detail` says).
    fn judge(
        &self,
        verdict: Verdict,
        stderr: &str,
        code: Option<i32>,
        detail: super::judge::Detail,
    ) -> Personally {
        let verdict = match verdict {
            Verdict::Json(j) => Verdict::Json(Box::new(super::personal::sanitize(
                *j,
                self.event,
                &self.payload,
            ))),
            other => other,
        };
        match &self.blocks {
            Some(why) => {
                let was_blocking = matches!(verdict, Verdict::Blocking(_));
                let verdict = super::judge::failure_blocks_because(
                    verdict, stderr, code, self.event, why, detail,
                );
                Personally {
                    failed: !was_blocking && matches!(verdict, Verdict::Blocking(_)),
                    verdict,
                    decided: true,
                }
            }
            None => Personally::as_is(verdict),
        }
    }
}

/// What the personal rule made of a verdict.
struct Personally {
    verdict: Verdict,
    /// The rule decides this hook's failures (`onFailure` then does not).
    decided: bool,
    /// The verdict is the rule's block for a failure, whose text names
    /// the hook with its URLs cut (`Gg`).
    failed: bool,
}

impl Personally {
    /// A verdict the rule leaves alone.
    fn as_is(verdict: Verdict) -> Personally {
        Personally {
            verdict,
            decided: false,
            failed: false,
        }
    }
}

/// A command's or an `http` hook's verdict under the rules for its
/// failures: the personal rule's, for one of the user's own hooks, else
/// `onFailure: "block"`'s; and whether it became a personal hook's block
/// for a failure.
fn failure_rules(
    personal: Option<&PersonalRun>,
    on_failure_blocks: bool,
    verdict: Verdict,
    (stderr, code): (&str, Option<i32>),
    event: &str,
    detail: super::judge::Detail,
) -> (Verdict, bool) {
    let p = match personal {
        Some(p) => p.judge(verdict, stderr, code, detail),
        None => Personally::as_is(verdict),
    };
    let verdict = if on_failure_blocks && !p.decided {
        super::judge::failure_blocks(p.verdict, stderr, code, event)
    } else {
        p.verdict
    };
    (verdict, p.failed)
}

/// An `mcp_tool` handler's verdict from what the tool answered: read as a
/// command's stdout, or, under `onFailure: "block"`, with its failures
/// blocking (see [`super::mcp_failure`]); an error result or a failed call
/// is a non-blocking error.
fn mcp_tool_verdict(
    answer: Result<ToolAnswer, String>,
    server: &str,
    tool: &str,
    ce: ClaudeEvent,
    blocks: bool,
) -> Verdict {
    if blocks {
        return super::mcp_failure::blocks(&answer, server, ce.as_str());
    }
    let failed = |e: &str| {
        Verdict::NonBlocking(format!(
            "{}MCP tool {server}/{tool} failed: {e}",
            super::judge::NON_BLOCKING_LEAD
        ))
    };
    match answer {
        Ok(ToolAnswer::Text(text)) => super::judge::read_stdout(&text),
        // Claude Code's words when the tool said nothing.
        Ok(ToolAnswer::Error(text)) if text.is_empty() => failed(super::mcp_failure::TOOL_ERROR),
        Ok(ToolAnswer::Error(text)) => failed(&text),
        Err(e) => failed(&e),
    }
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
    let stderr = String::from_utf8_lossy(&f.result.stderr.bytes);
    let code = match &f.result.termination {
        crate::run::Termination::Exited(crate::run::Exit::Code(c)) => Some(*c),
        _ => None,
    };
    let (verdict, personal_failure) = failure_rules(
        judged.personal.as_ref(),
        judged.on_failure_blocks,
        verdict,
        (&stderr, code),
        f.record.event.as_str(),
        super::judge::Detail::UrlsCut,
    );
    Ran {
        verdict,
        record: f.record,
        warnings,
        personal_failure,
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
            cut: None,
            run: Run::Other(Box::pin(async move {
                Ran {
                    record,
                    verdict: Verdict::Blocking(super::skill_shell::NO_PROMPT_HOOKS.to_owned()),
                    warnings: Vec::new(),
                    personal_failure: false,
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
            let event = place.ce.as_str();
            let personal = PersonalRun::new(&s, place);
            // A personal hook's failure names its URL without its
            // credentials, query and fragment (`DA`).
            let cut = personal
                .as_ref()
                .map(|_| super::personal::cut_url(&shown).unwrap_or_else(|| shown.clone()));
            let detail = if super::personal::shows_error(&url) {
                super::judge::Detail::UrlsCut
            } else {
                super::judge::Detail::Hidden
            };
            let mut record = s.record;
            Prepared::Run(Work {
                shown,
                from_plugin: None,
                cut,
                run: Run::Other(Box::pin(async move {
                    let called = http::call(url, headers, body, timeout, cx.cancel).await;
                    record.took(called.took);
                    if let Some(status) = called.status {
                        record.message = Some(format!("HTTP {status}"));
                    }
                    let (verdict, personal_failure) = failure_rules(
                        personal.as_ref(),
                        on_failure_blocks,
                        called.verdict,
                        ("", None),
                        event,
                        detail,
                    );
                    Ran {
                        record,
                        verdict,
                        warnings,
                        personal_failure,
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
                cut: None,
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
                        personal_failure: false,
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
                    // One of the user's own: its answer is cut down as a
                    // command's is (2.1.332, `DX`); its failures do not
                    // block for it (`Dkn`).
                    let personal = PersonalRun::new(&s, place);
                    let call: BoxFuture<'a, Verdict> = Box::pin(async move {
                        let answer = harness.call_tool(server, tool, input).await;
                        let verdict = mcp_tool_verdict(answer, server, tool, ce, blocks);
                        match &personal {
                            Some(p) => {
                                p.judge(verdict, "", None, super::judge::Detail::Hidden)
                                    .verdict
                            }
                            None => verdict,
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
                cut: None,
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
                        personal_failure: false,
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
                let personal = PersonalRun::new(&s, place);
                // A personal hook's failure names its command with its URLs
                // cut (`Gg`; recorded: `rp12_user_stderr_secrets`).
                let cut = personal
                    .as_ref()
                    .map(|_| super::personal::scrub_urls(&shown));
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
                    cut,
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
                            personal,
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
        let personal = cfg.personal(file, handler, &group.event_name);
        chosen.push(Selected {
            file,
            handler,
            record,
            personal,
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
