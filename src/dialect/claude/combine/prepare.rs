//! Turning a selected handler into what runs: a command's process (its
//! program, environment and limits), an `http` request, a `prompt`,
//! `agent` or `mcp_tool` call, or its record and why it cannot run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::event::Event;
use crate::outcome::{ErrorCategory, HookRun, RunStatus};
use crate::pipeline::{BoxFuture, DispatchContext, Job};
use crate::run::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program};

use super::super::DIALECT;
use super::super::events::ClaudeEvent;
use super::super::http;
use super::super::judge::Verdict;
use super::super::load::{Handler, HandlerKind, LoadedFile};
use super::super::text;
use super::failure::{PersonalRun, failure_rules, mcp_tool_verdict};
use super::select::Selected;
use super::{Judged, MAX_STDERR, Place, Ran, Run, Work};

/// A handler for which Claude Code takes an exit 2 with nothing on stdout
/// and `no such file` or `can't open` in stderr for a script that is not
/// there: a non-blocking error rather than a block (read from its 2.1.197
/// code). So a plugin whose script went missing does not keep the agent
/// going at every Stop. It holds on `Stop`, `SubagentStop`,
/// `TaskCompleted` and `TeammateIdle`, and on `UserPromptSubmit` for a
/// plugin's hook.
pub(super) struct MissingScript {
    /// The plugin's name, for a plugin's hook.
    pub(super) plugin: Option<String>,
}

impl MissingScript {
    pub(super) fn of(ce: ClaudeEvent, plugin: Option<&str>) -> Option<MissingScript> {
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
pub(super) fn missing_script(
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

/// A selected handler, ready to run or refused (its record, and why).
pub(super) enum Prepared<'a> {
    Run(Work<'a>),
    Refused(HookRun, String),
    /// Started in the background, recorded at once.
    Background(HookRun),
    /// Not run, with why (the harness cannot run it), recorded at once.
    Recorded(HookRun),
}

/// The run of one selected handler, or its record and why it cannot run.
pub(super) fn work<'a>(
    s: Selected<'a>,
    event: &'a Event,
    place: &Place<'_>,
    env_file: Option<PathBuf>,
    cx: &'a DispatchContext<'a>,
) -> Prepared<'a> {
    let shown = s.handler.kind.shown().into_owned();
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
                    verdict: Verdict::Blocking(
                        super::super::skill_shell::NO_PROMPT_HOOKS.to_owned(),
                    ),
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
                .map(|_| super::super::personal::cut_url(&shown).unwrap_or_else(|| shown.clone()));
            let detail = if super::super::personal::shows_error(&url) {
                super::super::judge::Detail::UrlsCut
            } else {
                super::super::judge::Detail::Hidden
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
            cancellable_call(shown, s.record, cx.cancel, async move {
                super::super::prompt::evaluate(
                    &cfg,
                    ce,
                    &prompt,
                    &payload,
                    model.as_deref(),
                    timeout,
                )
                .await
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
                    let input = super::super::harness::interpolate(input, &payload);
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
                                p.judge(verdict, "", None, super::super::judge::Detail::Hidden)
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
                    let text = super::super::prompt::with_arguments(prompt, &payload);
                    let call: BoxFuture<'a, Verdict> = Box::pin(async move {
                        match harness.run_agent(&text).await {
                            Ok(answer) => super::super::prompt::read_answer(ce, &answer),
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
            cancellable_call(shown, s.record, cx.cancel, async move {
                tokio::time::timeout(timeout, call)
                    .await
                    .unwrap_or_else(|_| {
                        if timeout_blocks {
                            super::super::mcp_failure::timed_out()
                        } else {
                            Verdict::timed_out(timeout.as_secs_f64())
                        }
                    })
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
                    cmd.detach = Some(super::super::judge::first_line);
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
                    .map(|_| super::super::personal::scrub_urls(&shown));
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

/// The process for a command handler, or why it cannot run (a message in
/// Claude Code's words).
/// A `prompt`, `agent` or `mcp_tool` handler's work: `verdict` raced
/// against the dispatch's cancel (which wins as `cancelled`), its time
/// recorded; such a call has no warnings and no personal rule.
fn cancellable_call<'a>(
    shown: String,
    mut record: HookRun,
    cancel: &'a crate::run::Cancel,
    verdict: impl std::future::Future<Output = Verdict> + Send + 'a,
) -> Prepared<'a> {
    Prepared::Run(Work {
        shown,
        from_plugin: None,
        cut: None,
        run: Run::Other(Box::pin(async move {
            let started = std::time::Instant::now();
            let verdict = tokio::select! {
                v = verdict => v,
                _ = cancel.cancelled() => Verdict::cancelled(),
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

pub(super) fn command(
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
            stdout: super::super::judge::MAX_STDOUT,
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
pub(super) fn claude_env(
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

pub(super) fn mentions(command: &str, args: &Option<Vec<String>>, var: &str) -> bool {
    command.contains(var) || args.iter().flatten().any(|a| a.contains(var))
}

pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
