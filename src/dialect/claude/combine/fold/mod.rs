//! The fold of one claude dispatch: each hook's verdict, in the order
//! the hooks finished, made into the outcome (decisions, texts, the Stop
//! loop, what the harness's interface is asked). `dispatch` in the parent
//! module runs the hooks; [`Fold`] reads what they said.

mod json;
mod output;

use super::*;

/// The state of one dispatch as answers are read.
pub(super) struct Fold<'a> {
    pub(super) ce: ClaudeEvent,
    pub(super) tool: &'a str,
    /// The vocabulary's entry for the harness's tool.
    pub(super) map: Option<&'a crate::vocabulary::ToolMap>,
    /// What names the files of long texts: the tool call's id (else one
    /// of each hook run's; see [`super::super::persist`]).
    pub(super) texts_id: Option<String>,
    pub(super) texts: Texts,
    pub(super) event: &'a Event,
    pub(super) out: Outcome,
    /// The strongest permission decision so far, and who made it.
    pub(super) strongest: Option<Decision>,
    /// Texts of the hooks that denied, asked or deferred: (hook, decision, text).
    pub(super) denials: Vec<(String, Decision, String)>,
    /// The input rewrite of the latest handler in configuration order.
    pub(super) rewrite: Option<(usize, Value)>,
    /// Stop feedback, in the order the hooks finished.
    pub(super) feedback: Vec<String>,
    pub(super) feedback_hooks: Vec<String>,
    /// Answers of hooks that went to the background with a first line
    /// `{"async":true}`, kept for the next tool result: (hook, texts).
    pub(super) later: Vec<(String, Vec<String>)>,
    /// A prompt's hook blocked it or stopped the loop: Claude Code reads
    /// no answer that finished after (recorded: `r13_ups_two_exit2`,
    /// `r13_ups_continue_false_sibling_exit2`).
    pub(super) prompt_ended: bool,
    /// The session's title as the hooks read it.
    pub(super) title_before: Option<String>,
    /// `sessionTitle` and `initialUserMessage`: the latest in
    /// configuration order, with its handler's index.
    pub(super) title: Option<(usize, String)>,
    /// `initialUserMessage`, likewise (as the hook wrote it; the one
    /// kept is saved to a file if long).
    pub(super) initial_user_message: Option<(usize, String)>,
    /// `terminalSequence`s that passed the allowlist, with their
    /// handlers' indexes.
    pub(super) terminal_sequences: Vec<(usize, String)>,
    /// `PreToolUse` contexts, and `PostModelSwitch` contexts and plain
    /// stdout, in the order the hooks finished: Claude Code joins them in
    /// one reminder (recorded with 2.1.332 for `PreToolUse`:
    /// `r3_deny_slow_plus_context_fast`, and the probes of
    /// `recordings/claude-2.1.332/README.md`, "PreToolUse contexts").
    pub(super) joined_contexts: Vec<(String, String)>,
    /// Why the first `PreSkillShellCommand` hook to fail did not check
    /// the command (`hook failed: …`, `hook timed out`).
    pub(super) skill_failure: Option<String>,
    /// On `PreSkillShellCommand`: the command, as hooks read it.
    pub(super) shell_command: String,
}

/// How the texts about one run hook name it.
#[derive(Clone)]
pub(super) struct Naming {
    /// Its command (or URL, or `server/tool`) as the texts quote it: a
    /// plugin's root expanded (2.1.332).
    pub(super) shown: String,
    /// For a plugin's command: the line its exit 2's error ends with.
    pub(super) from_plugin: Option<String>,
    /// How an answer's block names it (Claude Code 2.1.332's `qwo`,
    /// `_h`): its `statusMessage`, else its command as written (a plugin's
    /// root not expanded), made visible on one line.
    pub(super) in_block: String,
    /// For one of the user's own hooks: `shown` with its URLs cut, as the
    /// text of its failure names it (see `super::super::personal`).
    pub(super) cut: Option<String>,
}

impl Fold<'_> {
    /// A hook's text as the model reads it: over 10,000 characters it is
    /// saved to a file and previewed (see [`super::super::persist`]).
    pub(super) fn kept(
        &self,
        cx: &DispatchContext<'_>,
        text: &str,
        field: super::super::persist::Field,
    ) -> String {
        let id = match (field, &self.texts_id) {
            // Claude Code names stdout's file after the hook run, and so
            // the others without a tool call.
            (super::super::persist::Field::Stdout, _) | (_, None) => {
                super::super::persist::run_id()
            }
            (_, Some(call)) => call.clone(),
        };
        super::super::persist::inline_or_saved(text, cx.session, &id, self.ce.as_str(), field)
    }

    /// The harness's check of rewritten arguments, in its own shape and
    /// with its own tool name.
    pub(super) fn validate(&self, cx: &DispatchContext<'_>, input: &Value) -> Result<(), String> {
        let harness = match self.map {
            Some(m) => m.from_claude(input.clone()),
            None => input.clone(),
        };
        cx.validator
            .validate(self.event.tool_name().unwrap_or(self.tool), &harness)
    }

    pub(super) fn decide(&mut self, hook: &str, d: Decision, text: String) {
        if self.strongest.is_none_or(|s| d.strength() > s.strength()) {
            self.strongest = Some(d);
        }
        if d != Decision::Allow {
            self.denials.push((hook.to_owned(), d, text));
        }
    }

    pub(super) fn context(&mut self, hook: &str, placement: Placement, text: String) {
        self.out.context.push(Injection {
            hook: hook.to_owned(),
            placement,
            text,
            own_message: false,
        });
    }

    /// Applies one hook's verdict, in the order the hooks finished.
    pub(super) fn apply(
        &mut self,
        index: usize,
        naming: &Naming,
        verdict: Verdict,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let prompt = matches!(
            self.ce,
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::UserPromptExpansion
        );
        if prompt && self.prompt_ended {
            match verdict {
                // Killed by latch (its timeout, a cancel): the run says so,
                // and what it printed is not applied either.
                Verdict::Stopped(category, _) => record.fail(category, text::AFTER_PROMPT_ENDED),
                _ => record.message = Some(text::AFTER_PROMPT_ENDED.to_owned()),
            }
            return;
        }
        self.apply_verdict(index, naming, verdict, record, cx);
        if prompt && (self.strongest == Some(Decision::Deny) || self.out.halt.is_some()) {
            self.prompt_ended = true;
        }
    }

    pub(super) fn apply_verdict(
        &mut self,
        index: usize,
        naming: &Naming,
        verdict: Verdict,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        let cmd = naming.shown.as_str();
        let ce = self.ce;
        let label = label(ce, self.tool);
        let hook = record.hook.clone();
        let t = self.texts;
        let verdict = super::super::judge::for_event(verdict, ce.as_str());
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
                        let reason = super::super::skill_shell::exit2_reason(&lead, &message);
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
                        self.joined_contexts.push((hook.clone(), text));
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
                    self.apply_verdict(index, naming, Verdict::Blocking(text), record, cx);
                    (record.status, record.error, record.message.clone())
                });
                self.apply_json(index, &label, naming, &j, record, cx);
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
                self.later.push((
                    hook,
                    super::super::background::later_answer(&rest, ce.as_str()),
                ));
            }
        }
    }

    /// `terminalSequence`, on any event: kept when Claude Code's
    /// allowlist lets it through, else named in the run's ignored fields
    /// (Claude Code writes it in its debug log only).
    pub(super) fn terminal_sequence(&mut self, index: usize, j: &HookJson, record: &mut HookRun) {
        let Some(text) = &j.terminal_sequence else {
            return;
        };
        match super::super::terminal::normalize(text) {
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
    pub(super) fn session_start(&mut self, index: usize, j: &HookJson, record: &mut HookRun) {
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
    pub(super) fn halt(&mut self, hook: &str, reason: Option<String>) {
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
    pub(super) fn session_start_placement(&self) -> Placement {
        if self.event.source.as_deref() == Some("compact") {
            Placement::AppendToToolResult
        } else {
            Placement::FirstUserMessage
        }
    }

    /// A tool server's request is declined.
    pub(super) fn decline(&mut self, hook: &str) {
        self.out.elicitation = Some(ElicitationAnswer {
            hook: hook.to_owned(),
            action: "decline".to_owned(),
            content: None,
        });
    }

    /// Whether a `ConfigChange` concerns managed policy, which hooks
    /// cannot block.
    pub(super) fn is_policy_change(&self) -> bool {
        super::super::events::is_policy_change(self.event)
    }

    /// `watchPaths`: files the harness should watch for `FileChanged`.
    pub(super) fn watch(&mut self, j: &HookJson) {
        if let Some(paths) = j.specific.get("watchPaths").and_then(Value::as_array) {
            self.out
                .watch_paths
                .extend(paths.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }

    pub(super) async fn finish(mut self, cx: &DispatchContext<'_>, cap: Option<u32>) -> Outcome {
        let ce = self.ce;
        if let Some(d) = self.strongest {
            self.out.decision = d;
        }
        if ce == ClaudeEvent::PreSkillShellCommand {
            self.skill_shell_texts();
        }
        // One reminder for the contexts of all the event's hooks, in the
        // order they finished, after the tool's result (`PreToolUse`) or
        // with the next request (`PostModelSwitch`).
        if let Some((hook, _)) = self.joined_contexts.first() {
            let hook = hook.clone();
            let texts: Vec<&str> = self
                .joined_contexts
                .iter()
                .map(|(_, t)| t.as_str())
                .collect();
            let joined = texts.join("\n");
            let (placement, label) = if ce == ClaudeEvent::PostModelSwitch {
                (Placement::WithPrompt, ce.as_str().to_owned())
            } else {
                (Placement::AfterToolResult, label(ce, self.tool))
            };
            self.context(&hook, placement, additional_context(&label, &joined));
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
            if let Err(e) =
                super::super::background::store(cx.session, cx.cancel, &hook, texts).await
            {
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
    pub(super) async fn interface_requests(&mut self, cx: &DispatchContext<'_>) {
        let prompt_goes_on = self.out.decision != Decision::Deny && self.out.halt.is_none();
        if let Some((_, given)) = self.title.take()
            && (self.ce != ClaudeEvent::UserPromptSubmit || prompt_goes_on)
            && let Some(title) = super::super::title::change(&given, self.title_before.as_deref())
        {
            let stored = cx
                .session
                .update(cx.cancel, |s| {
                    s.values.insert(
                        super::super::title::STATE_KEY.to_owned(),
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
    pub(super) async fn stop(&mut self, cx: &DispatchContext<'_>, cap: Option<u32>) {
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
    pub(super) fn refuse_continuation(&mut self, why: String) {
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
