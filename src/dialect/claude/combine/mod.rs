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

mod failure;
mod fold;
mod prepare;
mod select;
mod switch_and_skill;

use failure::{PersonalRun, failure_rules};
use fold::{Fold, Naming};
use prepare::{MissingScript, Prepared, claude_env, missing_script, work};
use select::{select, session_end_budget};

use std::ffi::OsString;
use std::path::Path;

use serde_json::Value;

use crate::event::Event;
use crate::outcome::{
    Continuation, Decision, ElicitationAnswer, ErrorCategory, Halt, HookRun, Injection, Notice,
    NoticeKind, Outcome, PermissionUpdates, Placement, Reason, RunStatus,
};
use crate::pipeline::{self, BoxFuture, DispatchContext, Job};

use super::events::ClaudeEvent;
use super::judge::{HookJson, Verdict, judge};
use super::load::{Handler, HandlerKind};
use super::mcp_output::Replacement;
use super::payload::{PayloadFacts, payload};
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
                .unwrap_or_else(|| s.handler.kind.shown().into_owned()),
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
    /// [`failure::Personally::failed`]).
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
