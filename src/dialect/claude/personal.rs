//! The user's own hooks under `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`
//! (Claude Code 2.1.332, a setting of its hosted sessions; read from its
//! code, recorded: `recordings/claude-2.1.332/restrict-332.tar.gz`).
//!
//! A hook is the user's own (`OQe`) when it is a command or http handler
//! of the user settings file, or a copy of one (same type, command,
//! `shell`, `args`, `if`; same URL) in another settings file. Such a hook
//! that fails (an exit other than 0 and 2, a timeout, an answer that
//! fails the schema, a failed start) on an event that decides (`jDe`)
//! blocks (`Dkn`, `Fkn`, `zLr`), and its JSON answer is cut down to what
//! may only narrow what happens (`DX`, `Rge` with `personal: true`).

use serde_json::{Map, Value};

use super::events::ClaudeEvent;
use super::judge::HookJson;
use super::load::{Handler, HandlerKind, LoadedFile, Scope};

/// Why a failed personal hook blocks, after its place.
pub const WHY: &str = "blocking because it is one of the user's own hooks, which must succeed in this session (CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG is set). The user needs to fix or remove the hook; Claude should not change it.";

/// What the place of a failed personal hook says of a change, unless the
/// host gives its own sentence (`CLAUDE_CODE_PERSONAL_CONFIG_FIX`).
pub const SAVED: &str = "a change saved there usually takes effect without a new session";

/// The deny a personal PreToolUse hook's changed `updatedInput` becomes
/// (`zM`).
pub const CHANGED_INPUT: &str = "A hook from the user's own Claude Code files tried to change this tool call's input. In this session such hooks may block or ask about a call but not change it, so the call was not made. Retrying will not help while the hook keeps changing the input: go on without this call, and tell the user their hook's change to it was refused.";

/// Added to the `systemMessage` of a personal PostToolUse hook that tried
/// to change an `AskUserQuestion` answer (`KM`).
pub const CHANGED_ANSWER: &str = "A hook from your own Claude Code files tried to change your answer to Claude's question. Claude read your answer without the hook's change.";

/// Added to the `systemMessage` of a personal PostToolUse hook that tried
/// to change an `ExitPlanMode` plan (`qM`).
pub const CHANGED_PLAN: &str = "A hook from your own Claude Code files tried to change the plan. Claude read the plan without the hook's change.";

/// The detail of a failed personal http hook whose URL Claude Code does
/// not show (`XLr`, with `crd`).
pub const URL_HIDDEN: &str = "Error details are hidden because they may contain this hook's URL, and any secrets in it can't be reliably removed. They will be shown if the URL starts with http:// or https:// and has no whitespace, quotes, backticks or angle brackets.";

/// A hook of the user's own.
#[derive(Debug, Clone)]
pub struct Personal {
    /// What its failure says after `failed; ` or `timed out; `: its place
    /// in the user settings file, when Claude Code can tell it, then
    /// [`WHY`].
    pub why: String,
}

/// Whether `handler` of `file`, under `event_name`, is one of the user's
/// own hooks (`OQe`), with the words of its failure; `files` are all the
/// loaded files, `fix` the host's sentence, `user_problems` the events of
/// the user settings file that have a problem (no place is given then).
pub fn of(
    files: &[LoadedFile],
    file: &LoadedFile,
    handler: &Handler,
    event_name: &str,
    fix: Option<&str>,
    user_problems: &[String],
) -> Option<Personal> {
    if file.plugin.is_some() || file.scope == Scope::Plugin {
        return None;
    }
    // `prompt` and `agent` hooks count too in Claude Code, but what they
    // answer has nothing to cut down in latch (`ok` and `reason`).
    if !matches!(
        handler.kind,
        HandlerKind::Command { .. } | HandlerKind::Http { .. } | HandlerKind::McpTool { .. }
    ) {
        return None;
    }
    let user = files
        .iter()
        .find(|f| f.scope == Scope::User && !f.dropped)?;
    let in_user = |h: &Handler| {
        user.groups
            .iter()
            .chain(&user.switched_off)
            .filter(|g| g.event_name == event_name)
            .flat_map(|g| &g.handlers)
            .any(|u| u.same_hook(h))
    };
    if file.scope != Scope::User && !in_user(handler) {
        return None;
    }
    let location = (file.scope == Scope::User)
        .then(|| place(file, handler, event_name))
        .flatten()
        // A managed copy written alike, or a problem of the file under
        // this event, leaves the place out (`zLr`).
        .filter(|_| !user_problems.iter().any(|e| e == event_name))
        .filter(|_| {
            !files
                .iter()
                .filter(|f| f.scope == Scope::Managed && !f.dropped)
                .flat_map(|f| f.groups.iter().chain(&f.switched_off))
                .filter(|g| g.event_name == event_name)
                .flat_map(|g| &g.handlers)
                .any(|m| m.written_alike(handler))
        });
    let why = match location {
        Some(at) => format!(
            "this hook is {at}, counted from 0, in {} ({}); {WHY}",
            user.path.display(),
            fix.unwrap_or(SAVED)
        ),
        None => WHY.to_owned(),
    };
    Some(Personal { why })
}

/// `hooks.<Event>.<group>.hooks.<handler>` of `handler` in `file`.
fn place(file: &LoadedFile, handler: &Handler, event_name: &str) -> Option<String> {
    file.groups
        .iter()
        .filter(|g| g.event_name == event_name)
        .enumerate()
        .find_map(|(i, g)| {
            g.handlers
                .iter()
                .position(|h| std::ptr::eq(h, handler))
                .map(|j| format!("hooks.{event_name}.{i}.hooks.{j}"))
        })
}

/// Whether a personal hook's failure blocks on `ce` (`Dkn`): a command
/// that is neither `async` nor `asyncRewake`, or an http hook, on
/// `PreToolUse`, `PermissionRequest`, `PreModelSwitch`,
/// `UserPromptSubmit`, `UserPromptExpansion` or `PreSkillShellCommand`.
pub fn failure_blocks(ce: ClaudeEvent, handler: &Handler) -> bool {
    use ClaudeEvent as E;
    let kind = match handler.kind {
        HandlerKind::Command { .. } => !handler.run_async && !handler.async_rewake,
        HandlerKind::Http { .. } => true,
        _ => false,
    };
    kind && matches!(
        ce,
        E::PreToolUse
            | E::PermissionRequest
            | E::PreModelSwitch
            | E::UserPromptSubmit
            | E::UserPromptExpansion
            | E::PreSkillShellCommand
    )
}

/// A personal hook's answer as Claude Code 2.1.332 keeps it (`Rge` with
/// `personal: true`, `XM`, `ZM`), given the event's payload. Kept:
/// `continue: false`, `terminalSequence`, `stopReason`, `decision:
/// "block"`, `systemMessage`, `reason` (not beside `decision:
/// "approve"`); of `hookSpecificOutput`, per event, what narrows (a deny,
/// an ask, contexts, watched paths). Dropped: `allow`s (so the call takes
/// its usual permission path), `updatedInput` (a changed one turns into a
/// deny, [`CHANGED_INPUT`]), `updatedPermissions`, `retry`,
/// `sessionTitle`, `initialUserMessage`, `classifierContext`, an
/// elicitation's `accept` and `content`, a `worktreePath`, a
/// `displayContent`, a `hookSpecificOutput` naming another event.
/// `PreSkillShellCommand` answers are left as they are (Claude Code
/// rewrites them first, `TWn`, which latch's reading of them does too).
pub fn sanitize(mut j: HookJson, event: &str, payload: &Value) -> HookJson {
    if event == "PreSkillShellCommand" {
        return j;
    }
    if j.continue_ != Some(false) {
        j.continue_ = None;
    }
    match j.decision.as_deref() {
        Some("block") => {}
        Some("approve") => {
            j.decision = None;
            j.reason = None;
        }
        _ => j.decision = None,
    }
    let mut replaced = None;
    if !j.specific.is_empty() {
        let specific = std::mem::take(&mut j.specific);
        j.specific = specific_output(&specific, event, payload, &mut replaced).unwrap_or_default();
    }
    if let Some(words) = replaced {
        j.system_message = Some(match j.system_message.take() {
            Some(m) => format!("{m}\n{words}"),
            None => words.to_owned(),
        });
    }
    j
}

/// `hookSpecificOutput` as kept (`XM`, `ZM`); `None`: dropped.
fn specific_output(
    s: &Map<String, Value>,
    event: &str,
    payload: &Value,
    replaced: &mut Option<&'static str>,
) -> Option<Map<String, Value>> {
    if s.get("hookEventName").and_then(Value::as_str) != Some(event) {
        return None;
    }
    let mut out = Map::new();
    out.insert("hookEventName".to_owned(), Value::String(event.to_owned()));
    let keep_str = |out: &mut Map<String, Value>, key: &str| {
        if let Some(v) = s.get(key).filter(|v| v.is_string()) {
            out.insert(key.to_owned(), v.clone());
        }
    };
    let keep_true = |out: &mut Map<String, Value>, key: &str| {
        if s.get(key) == Some(&Value::Bool(true)) {
            out.insert(key.to_owned(), Value::Bool(true));
        }
    };
    let decision = s.get("permissionDecision").and_then(Value::as_str);
    match event {
        "PreToolUse" => {
            if let Some(updated) = s.get("updatedInput")
                && decision != Some("deny")
                && Some(updated) != payload.get("tool_input")
            {
                out.insert("permissionDecision".to_owned(), "deny".into());
                out.insert("permissionDecisionReason".to_owned(), CHANGED_INPUT.into());
                return Some(out);
            }
            let decision = if decision == Some("defer") {
                Some("ask")
            } else {
                decision
            };
            if let Some(d @ ("deny" | "ask")) = decision {
                out.insert("permissionDecision".to_owned(), d.into());
                keep_str(&mut out, "permissionDecisionReason");
            }
            keep_str(&mut out, "additionalContext");
        }
        "UserPromptSubmit" | "UserPromptExpansion" => {
            keep_str(&mut out, "additionalContext");
            keep_true(&mut out, "suppressOriginalPrompt");
        }
        "PostToolUse" => {
            let tool = payload
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("");
            let guarded = match tool {
                "AskUserQuestion" => Some(CHANGED_ANSWER),
                "ExitPlanMode" => Some(CHANGED_PLAN),
                _ => None,
            };
            keep_str(&mut out, "additionalContext");
            match guarded {
                None => {
                    for key in ["updatedToolOutput", "updatedMCPToolOutput"] {
                        if let Some(v) = s.get(key) {
                            out.insert(key.to_owned(), v.clone());
                        }
                    }
                }
                Some(words) => {
                    if let Some(v) = s.get("updatedToolOutput")
                        && Some(v) != payload.get("tool_response")
                    {
                        *replaced = Some(words);
                    }
                }
            }
        }
        "PostToolUseFailure" | "PostToolBatch" | "Stop" | "SubagentStop" | "SubagentStart"
        | "Setup" | "PostModelSwitch" | "Notification" => keep_str(&mut out, "additionalContext"),
        "PermissionDenied" => {}
        "PermissionRequest" => {
            let d = s.get("decision")?;
            if d.get("behavior").and_then(Value::as_str) != Some("deny") {
                return None;
            }
            let mut kept = Map::new();
            kept.insert("behavior".to_owned(), "deny".into());
            if let Some(m) = d.get("message").filter(|v| v.is_string()) {
                kept.insert("message".to_owned(), m.clone());
            }
            if d.get("interrupt") == Some(&Value::Bool(true)) {
                kept.insert("interrupt".to_owned(), Value::Bool(true));
            }
            out.insert("decision".to_owned(), Value::Object(kept));
        }
        "PreModelSwitch" => {
            if let Some(d @ ("deny" | "ask")) = decision {
                out.insert("permissionDecision".to_owned(), d.into());
                keep_str(&mut out, "permissionDecisionReason");
            }
        }
        "SessionStart" => {
            keep_str(&mut out, "additionalContext");
            if let Some(v) = s.get("watchPaths") {
                out.insert("watchPaths".to_owned(), v.clone());
            }
            keep_true(&mut out, "reloadSkills");
        }
        "Elicitation" | "ElicitationResult" => {
            if let Some(a @ ("decline" | "cancel")) = s.get("action").and_then(Value::as_str) {
                out.insert("action".to_owned(), a.into());
            }
        }
        "CwdChanged" | "FileChanged" => {
            if let Some(v) = s.get("watchPaths") {
                out.insert("watchPaths".to_owned(), v.clone());
            }
        }
        _ => return None,
    }
    Some(out)
}

/// `text` with each URL that carries credentials, a query or a fragment
/// cut to its scheme, host and path (part of Claude Code's `Gg`, which
/// shows a personal hook's command and error so; its further redaction
/// of secrets, `Fs`, and the URL parser's normalising are not
/// reproduced).
pub fn scrub_urls(text: &str) -> String {
    static URL: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?i)[a-z][a-z0-9+.-]{0,31}://[^\s'"`<>]+"#).ok()
    });
    let Some(re) = URL.as_ref() else {
        return text.to_owned();
    };
    re.replace_all(text, |c: &regex::Captures<'_>| {
        let url = &c[0];
        match cut_url(url) {
            Some(cut) => cut,
            None => url.to_owned(),
        }
    })
    .into_owned()
}

/// `url` without its user, password, query and fragment, and without a
/// final `/` (Claude Code's `DA`); `None` when it has none of the three.
pub fn cut_url(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    let path = &tail[..path_end];
    if host.len() == authority.len() && path_end == tail.len() {
        return None;
    }
    let whole = format!("{scheme}://{host}{path}");
    Some(whole.strip_suffix('/').unwrap_or(&whole).to_owned())
}

/// Whether Claude Code shows a failed personal http hook's error (`urd`):
/// the URL starts with `http://` or `https://` and has no white space,
/// quote, backtick or angle bracket.
pub fn shows_error(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '<' | '>'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(v: Value) -> HookJson {
        let specific = v
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        HookJson {
            continue_: v.get("continue").and_then(Value::as_bool),
            stop_reason: None,
            system_message: v
                .get("systemMessage")
                .and_then(Value::as_str)
                .map(str::to_owned),
            terminal_sequence: None,
            decision: v.get("decision").and_then(Value::as_str).map(str::to_owned),
            reason: v.get("reason").and_then(Value::as_str).map(str::to_owned),
            specific,
            too_deep: Vec::new(),
            exit2: None,
        }
    }

    #[test]
    fn a_changed_input_is_a_deny_and_an_allow_is_dropped() {
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        let changed = answer(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "updatedInput": {"command": "rm"}, "additionalContext": "c"}}));
        let j = sanitize(changed, "PreToolUse", &payload);
        assert_eq!(
            Value::Object(j.specific),
            json!({"hookEventName": "PreToolUse", "permissionDecision": "deny",
                   "permissionDecisionReason": CHANGED_INPUT})
        );
        let same = answer(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "permissionDecisionReason": "r", "updatedInput": {"command": "ls"},
            "additionalContext": "c"}}));
        let j = sanitize(same, "PreToolUse", &payload);
        assert_eq!(
            Value::Object(j.specific),
            json!({"hookEventName": "PreToolUse", "additionalContext": "c"})
        );
        let defer = answer(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "defer",
            "permissionDecisionReason": "r"}}));
        let j = sanitize(defer, "PreToolUse", &payload);
        assert_eq!(j.specific_str("permissionDecision"), Some("ask"));
        assert_eq!(j.specific_str("permissionDecisionReason"), Some("r"));
    }

    #[test]
    fn what_only_narrows_is_kept() {
        let payload = json!({"tool_name": "AskUserQuestion", "tool_response": {"a": 1}});
        let j = sanitize(
            answer(
                json!({"continue": true, "decision": "approve", "reason": "r",
                "systemMessage": "s", "hookSpecificOutput": {"hookEventName": "PostToolUse",
                "updatedToolOutput": {"a": 2}, "additionalContext": "c",
                "classifierContext": "x"}}),
            ),
            "PostToolUse",
            &payload,
        );
        assert_eq!((j.continue_, j.decision, j.reason), (None, None, None));
        assert_eq!(
            j.system_message.as_deref(),
            Some(&*format!("s\n{CHANGED_ANSWER}"))
        );
        assert_eq!(
            Value::Object(j.specific),
            json!({"hookEventName": "PostToolUse", "additionalContext": "c"})
        );
        let j = sanitize(
            answer(
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedInput": {}}}}),
            ),
            "PermissionRequest",
            &payload,
        );
        assert!(j.specific.is_empty());
        let j = sanitize(
            answer(
                json!({"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}),
            ),
            "PermissionDenied",
            &payload,
        );
        assert_eq!(
            Value::Object(j.specific),
            json!({"hookEventName": "PermissionDenied"})
        );
        let j = sanitize(
            answer(
                json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "c"}}),
            ),
            "PreToolUse",
            &payload,
        );
        assert!(j.specific.is_empty());
    }

    #[test]
    fn urls_lose_credentials_query_and_fragment() {
        // Recorded: `rp12_user_stderr_secrets`, `rp13_user_http_500`.
        assert_eq!(
            scrub_urls("E see https://user:pw@example.com/x?token=abc#frag and bob@example.com"),
            "E see https://example.com/x and bob@example.com"
        );
        assert_eq!(
            cut_url("http://127.0.0.1:8080/e500?key=v").as_deref(),
            Some("http://127.0.0.1:8080/e500")
        );
        assert_eq!(
            scrub_urls("curl https://example.com/x"),
            "curl https://example.com/x"
        );
        assert!(
            shows_error("http://h/x") && !shows_error("http://h/x y") && !shows_error("ftp://h")
        );
    }
}
