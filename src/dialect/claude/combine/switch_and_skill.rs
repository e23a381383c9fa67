//! What the answers of Claude Code 2.1.332's `PreModelSwitch`,
//! `PostModelSwitch` and `PreSkillShellCommand` hooks do (read from its
//! code: `Uxi`, `Bxi`, `TWn`, `p5i` and the class `m9o`; see
//! `recordings/claude-2.1.332/spec/events.md`).

use serde_json::Value;

use super::super::judge::HookJson;
use super::super::persist::Field;
use super::super::{ClaudeEvent, text};
use super::{DispatchContext, Fold};
use crate::event::Event;
use crate::outcome::{Decision, ErrorCategory, HookRun, RunStatus};

impl Fold<'_> {
    /// A `PreModelSwitch` or `PostModelSwitch` answer (Claude Code
    /// 2.1.332's `Uxi`, `Bxi`): its `systemMessage` is shown, `continue` is
    /// not read, and before the switch a deny or block refuses it (the
    /// reason `permissionDecisionReason`, else `reason`, else `Blocked by
    /// hook`), an ask asks, an allow skips the harness's confirmation.
    pub(super) fn model_switch_answer(
        &mut self,
        hook: &str,
        j: &HookJson,
        record: &mut HookRun,
        cx: &DispatchContext<'_>,
    ) {
        if let Some(m) = &j.system_message {
            let m = self.kept(cx, m, Field::SystemMessage);
            self.out.warnings.push(m);
        }
        if j.continue_ == Some(false) {
            record.ignored_fields.push(format!(
                "continue (Claude Code does not stop for it on {})",
                self.ce
            ));
        }
        if self.ce != ClaudeEvent::PreModelSwitch {
            return;
        }
        let given = j.decision_reason();
        let decision = j.specific_str("permissionDecision");
        if decision == Some("deny") || j.decision.as_deref() == Some("block") {
            record.status = RunStatus::Blocked;
            record.error = Some(ErrorCategory::HookBlocked);
            let reason = given.unwrap_or(text::BLOCKED_BY_HOOK).to_owned();
            record.message = Some(reason.clone());
            self.decide(hook, Decision::Deny, reason);
        } else if decision == Some("ask") {
            // An ask's reason is `permissionDecisionReason` alone.
            let asked = j.specific_str("permissionDecisionReason");
            self.decide(hook, Decision::Ask, asked.unwrap_or_default().to_owned());
        } else if decision == Some("allow") || j.decision.as_deref() == Some("approve") {
            self.decide(hook, Decision::Allow, String::new());
        }
    }

    /// A `PreSkillShellCommand` answer, which may come in the shape of a
    /// `PreToolUse` or `PermissionRequest` answer (Claude Code 2.1.332's
    /// `TWn`, `p5i`): anything but an allow refuses the command; so do an
    /// `updatedInput` and new permissions, which a skill cannot take.
    pub(super) fn skill_shell_answer(&mut self, hook: &str, j: &HookJson, record: &mut HookRun) {
        use super::super::skill_shell::{CANNOT_WAIT, CHANGED, PERMISSIONS, says, stopped};
        let non_empty = |s: Option<&str>| s.filter(|r| !r.is_empty()).map(str::to_owned);
        let top = non_empty(j.reason.as_deref());
        let blocks = j.decision.as_deref() == Some("block");
        let mut interrupt = None;
        let refusal: Option<String> = match j.specific_str("hookEventName") {
            Some("PermissionRequest") => {
                let d = j.specific.get("decision");
                let field = |k: &str| d.and_then(|d| d.get(k));
                let behavior = field("behavior").and_then(Value::as_str);
                if behavior == Some("deny") {
                    let said = non_empty(field("message").and_then(Value::as_str)).or(top.clone());
                    if field("interrupt") == Some(&Value::Bool(true)) {
                        interrupt = Some(said.clone());
                    }
                    Some(said.unwrap_or_default())
                } else if blocks {
                    Some(top.clone().unwrap_or_default())
                } else if field("updatedInput").is_some() {
                    Some(CHANGED.to_owned())
                } else if field("updatedPermissions")
                    .and_then(Value::as_array)
                    .is_some_and(|u| !u.is_empty())
                {
                    Some(PERMISSIONS.to_owned())
                } else {
                    None
                }
            }
            _ => {
                let said = j.decision_reason().map(str::to_owned);
                match j.specific_str("permissionDecision") {
                    Some("deny") => Some(said.unwrap_or_default()),
                    Some("ask" | "defer") => Some(match said {
                        Some(r) => format!("{r}; {CANNOT_WAIT}"),
                        None => CANNOT_WAIT.to_owned(),
                    }),
                    _ if blocks => Some(top.clone().unwrap_or_default()),
                    _ if j.specific.contains_key("updatedInput") => Some(CHANGED.to_owned()),
                    _ => None,
                }
            }
        };
        if let Some(reason) = refusal {
            record.status = RunStatus::Blocked;
            record.error = Some(ErrorCategory::HookBlocked);
            // `Blocked by hook` says nothing more than the refusal does.
            let reason = if reason == text::BLOCKED_BY_HOOK {
                String::new()
            } else {
                reason
            };
            self.decide(hook, Decision::Deny, reason);
        }
        if let Some(m) = j.system_message.as_deref().and_then(|m| says(self.tool, m)) {
            self.out.warnings.push(m);
        }
        if j.continue_ == Some(false) || interrupt.is_some() {
            let why = j.stop_reason.clone().or(interrupt.flatten());
            let said = stopped(why.as_deref());
            self.halt(hook, why);
            // A later stop with a reason says it (Claude Code's `m9o`).
            if let Some(halt) = self.out.halt.as_mut()
                && (halt.message.is_none() || said != text::operation_stopped(None))
            {
                halt.message = Some(said);
            }
        }
    }

    /// A `PreModelSwitch` or `PreSkillShellCommand` hook that failed or ran
    /// out of time (Claude Code 2.1.332). Before a model switch a timeout
    /// refuses it (`<hook name> did not respond before its timeout`) and
    /// another failure is said to the user; a skill's command runs anyway,
    /// and the user is told why it was not checked.
    pub(super) fn failed_check(&mut self, hook: &str, category: ErrorCategory, message: &str) {
        if category == ErrorCategory::Cancelled {
            return;
        }
        let timed_out = category == ErrorCategory::Timeout;
        if self.ce == ClaudeEvent::PreSkillShellCommand {
            let why = if timed_out {
                super::super::skill_shell::TIMED_OUT.to_owned()
            } else {
                super::super::skill_shell::failed(message)
            };
            self.skill_failure.get_or_insert(why);
            return;
        }
        let name = match self.ce.target(self.event, self.tool) {
            Some(target) => format!("{}:{target}", self.ce),
            None => self.ce.as_str().to_owned(),
        };
        if timed_out {
            let text = format!("PreModelSwitch hook {name} did not respond before its timeout");
            self.decide(hook, Decision::Deny, text);
        } else {
            let said = text::js_trim(message);
            self.out.warnings.push(if said.is_empty() {
                format!("PreModelSwitch hook {name} failed")
            } else {
                format!("PreModelSwitch hook {name} failed: {said}")
            });
        }
    }

    /// What a `PreSkillShellCommand` dispatch tells the model and the
    /// user (see [`super::super::skill_shell`]): the first refusal to finish
    /// replaces the command's output; else a failed hook's reason, when the
    /// command runs unchecked.
    pub(super) fn skill_shell_texts(&mut self) {
        use super::super::skill_shell::{ran_anyway, refused};
        let skill = self
            .event
            .expansion
            .as_ref()
            .and_then(|x| x.command_name.clone())
            .unwrap_or_default();
        let command = std::mem::take(&mut self.shell_command);
        if self.strongest == Some(Decision::Deny) {
            if let Some((hook, _, reason)) = self.denials.first().cloned() {
                let (model, user) = refused(&skill, &command, &reason);
                self.denials = vec![(hook, Decision::Deny, model)];
                self.out.warnings.push(user);
            }
        } else if let Some(why) = self.skill_failure.take() {
            self.out.warnings.push(if self.out.halt.is_some() {
                super::super::skill_shell::unchecked(&skill, &command)
            } else {
                ran_anyway(&skill, &command, &why)
            });
        }
    }
}

/// The command of a `PreSkillShellCommand`, from the call in Claude
/// Code's shape.
pub(super) fn shell_command(claude_input: Option<&Value>, event: &Event) -> String {
    let input = match (claude_input, &event.tool) {
        (Some(v), _) => v.clone(),
        (None, Some(t)) => t.input.to_value(),
        (None, None) => Value::Null,
    };
    input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
