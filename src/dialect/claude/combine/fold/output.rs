//! What an answer hands the harness: a `PermissionRequest` hook's
//! decision and permission updates, and a `PostToolUse` hook's rewrite
//! of the tool's output.

use super::*;

impl Fold<'_> {
    /// `PermissionRequest`'s `decision`: `behavior` allow or deny,
    /// `updatedInput` with an allow, `message` with a deny (for the
    /// model), `interrupt: true` with a deny to stop the agent.
    /// `updatedPermissions` (a list) goes to the harness, which keeps the
    /// permission rules: the outcome's `permission_updates`.
    pub(super) fn permission(
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
    /// have no shape to keep (see [`super::super::super::mcp_output`]).
    pub(super) fn output_rewrite(&mut self, j: &HookJson, record: &mut HookRun) {
        if self.tool.starts_with("mcp__") {
            match super::super::super::mcp_output::replacement(self.tool, &j.specific) {
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
                    let (stdout, stderr) = (
                        text("stdout"),
                        super::super::super::text::js_trim(text("stderr")),
                    );
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
}
