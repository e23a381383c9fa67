//! Reading a hook's JSON answer: `continue`, `decision`, `reason`,
//! `systemMessage` and each event's `hookSpecificOutput`, into the fold.

use super::*;

impl Fold<'_> {
    pub(super) fn apply_json(
        &mut self,
        index: usize,
        label: &str,
        naming: &Naming,
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
                let given = j.decision_reason().map(str::to_owned);
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
                    self.joined_contexts.push((hook.clone(), ctx));
                }
            }
            ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
                // Both folded into the tool's result (Claude Code 2.1.332,
                // recorded: `e_posttooluse_additional_context`,
                // `e2_posttooluse_decision_block`).
                if j.decision.as_deref() == Some("block") {
                    record.status = RunStatus::Blocked;
                    let name = naming.in_block.as_str();
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
                    // Claude Code sends this one as a message of its own.
                    self.out.context.push(Injection {
                        hook: hook.clone(),
                        placement: Placement::AfterToolResult,
                        text: text::reminder(text::RETRY),
                        own_message: true,
                    });
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
                    self.joined_contexts.push((hook.clone(), ctx));
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
                    let name = naming.in_block.as_str();
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
}
