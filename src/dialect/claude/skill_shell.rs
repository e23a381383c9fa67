//! `PreSkillShellCommand` (Claude Code 2.1.332): the texts of a refused or
//! unchecked `` !`cmd` `` of a skill or typed command, as Claude Code's
//! `m9o` class writes them (read from its code; the event cannot be fired
//! offline, see `recordings/claude-2.1.332/spec/events.md`).
//!
//! A refusal replaces the command's output in the expanded prompt with
//! `[not run: blocked by hook: <reason>]`, which the model reads, and
//! tells the user `Not run in /<skill>: <command> (blocked by hook:
//! <reason>)`. A hook that fails lets the command run and tells the user
//! `Ran anyway in /<skill>: <command> (hook failed: <stderr>)`.

use std::sync::LazyLock;

use regex::Regex;

/// Why a refusal that is not the hook's own words came (Claude Code's
/// `Kgl`). A reason ending `; <one of these>` keeps the hook's words
/// before it.
pub const CANNOT_WAIT: &str = "the hook asked for approval, which a skill can't wait for";
/// An `updatedInput` refuses the command.
pub const CHANGED: &str = "the hook changed the command, which isn't supported here";
/// A `PermissionRequest`-shaped answer's `updatedPermissions` refuses it.
pub const PERMISSIONS: &str = "the hook asked to change permissions, which isn't supported here";
/// A `prompt` or `agent` handler refuses it without running.
pub const NO_PROMPT_HOOKS: &str = "prompt and agent hooks don't run on PreSkillShellCommand";
/// Claude Code's reasons for hooks that gave no answer (latch words such
/// failures otherwise, but a hook's own reason may end with them).
const NO_ANSWER: &str = "the hook didn't answer";
const COULD_NOT_RUN: &str = "the hook couldn't run";
const WHYS: [&str; 6] = [
    CANNOT_WAIT,
    CHANGED,
    PERMISSIONS,
    NO_ANSWER,
    COULD_NOT_RUN,
    NO_PROMPT_HOOKS,
];

/// How much of a hook's reason the texts show (`e5i`).
const REASON_WIDTH: usize = 500;
/// How much of the command the user's line shows (`n5i`).
const COMMAND_WIDTH: usize = 80;

/// Terminal escapes Claude Code strips (`L5e`): CSI sequences, and OSC,
/// DCS, PM and APC strings.
static ESCAPES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b[\]PX^_][^\x1b\x07]*(?:\x07|\x1b\\)")
        .ok()
});

/// A text as the user's line shows it (Claude Code's `vS` then `Ct`):
/// terminal escapes removed (four passes at most), each run of control or
/// format characters one space, runs of spaces one space, trimmed, and cut
/// to `width` characters, the last one `…`. Claude Code counts terminal
/// columns, so a wide character counts twice there and once here.
pub fn shown(text: &str, width: usize) -> String {
    let mut plain = text.to_owned();
    if let Some(re) = ESCAPES.as_ref() {
        for _ in 0..4 {
            let next = re.replace_all(&plain, "").into_owned();
            if next == plain {
                break;
            }
            plain = next;
        }
    }
    let mut spaced = String::with_capacity(plain.len());
    for c in plain.chars() {
        let c = if super::title::is_control_or_format(c) {
            ' '
        } else {
            c
        };
        if !(c == ' ' && spaced.ends_with(' ')) {
            spaced.push(c);
        }
    }
    let trimmed = super::text::js_trim(&spaced);
    if trimmed.chars().count() <= width {
        return trimmed.to_owned();
    }
    let mut cut: String = trimmed.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The reason of a blocking error (Claude Code's `p5i`): an exit 2's
/// stderr, except that `No stderr output` and `Blocked by hook` say
/// nothing; an `onFailure` block (`failed; …`, `timed out; …`) keeps the
/// command before it (`cmd` as the texts show it, `[<cmd>]: `).
pub fn exit2_reason(cmd: &str, stderr: &str) -> String {
    let r = super::text::js_trim(stderr);
    if r.starts_with("failed; ") || r.starts_with("timed out; ") {
        return format!("{cmd}{r}");
    }
    if r == "No stderr output" || r == super::text::BLOCKED_BY_HOOK {
        String::new()
    } else {
        r.to_owned()
    }
}

/// The texts of a refusal: what replaces the command's output in the
/// expanded prompt (the model reads it), and the user's line.
pub fn refused(skill: &str, command: &str, reason: &str) -> (String, String) {
    let why = WHYS
        .iter()
        .find(|w| reason == **w || reason.ends_with(&format!("; {w}")));
    let own = match why {
        Some(w) if reason.len() > w.len() => &reason[..reason.len() - w.len() - 2],
        Some(_) => "",
        None => reason,
    };
    let own_shown = shown(own, REASON_WIDTH);
    let blocked = if own_shown.is_empty() {
        "blocked by hook".to_owned()
    } else {
        format!("blocked by hook: {own_shown}")
    };
    let said = match why {
        None => blocked,
        Some(w) if own.is_empty() => (*w).to_owned(),
        Some(w) => format!("{blocked}; {w}"),
    };
    let user = format!(
        "Not run in {}: {} ({said})",
        shown_name(skill),
        shown(command, COMMAND_WIDTH)
    );
    let model_reason = shown(if own.is_empty() { reason } else { own }, REASON_WIDTH);
    let inner = if model_reason.is_empty() {
        "blocked by hook".to_owned()
    } else {
        format!("blocked by hook: {model_reason}")
    };
    (
        format!(
            "[not run: {}]",
            escape_bangs(&super::text::escape_reminders(&inner))
        ),
        user,
    )
}

/// The user's line for a command that ran although a hook failed
/// (`hook failed: <stderr>` or `hook timed out`).
pub fn ran_anyway(skill: &str, command: &str, why: &str) -> String {
    format!(
        "Ran anyway in {}: {} ({why})",
        shown_name(skill),
        shown(command, COMMAND_WIDTH)
    )
}

/// The user's line for a command that a failed hook did not check and a
/// stop then kept from running.
pub fn unchecked(skill: &str, command: &str) -> String {
    format!(
        "Not run in {}, and not checked: {}",
        shown_name(skill),
        shown(command, COMMAND_WIDTH)
    )
}

/// Why a failed hook did not check the command: `hook failed: <stderr>`,
/// the first line of the stderr, shown without Claude Code's `Failed with
/// non-blocking status code: ` lead (`Mr`, `LA`).
pub fn failed(stderr: &str) -> String {
    let text = super::judge::without_lead(stderr);
    let text = text.split('\n').next().unwrap_or_default();
    let s = shown(text, REASON_WIDTH);
    if s.is_empty() {
        "hook failed".to_owned()
    } else {
        format!("hook failed: {s}")
    }
}

/// Why a hook that ran out of time did not check the command.
pub const TIMED_OUT: &str = "hook timed out";

/// What a hook's `systemMessage` tells the user (`<hookName> says: …`),
/// or `None` when nothing is left of it.
pub fn says(tool: &str, message: &str) -> Option<String> {
    let s = shown(message, REASON_WIDTH);
    (!s.is_empty()).then(|| format!("PreSkillShellCommand:{tool} says: {s}"))
}

/// The stop a hook's `continue: false` makes (`Operation stopped by
/// hook[: <stopReason>]`).
pub fn stopped(stop_reason: Option<&str>) -> String {
    let s = shown(stop_reason.unwrap_or(""), REASON_WIDTH);
    super::text::operation_stopped(Some(s.as_str()).filter(|s| !s.is_empty()))
}

fn shown_name(skill: &str) -> String {
    format!("/{}", shown(skill, usize::MAX))
}

/// `!` escaped so the expanded prompt runs no command of it (Claude
/// Code's `uG`): `` `! `` and `` !` `` get a space, and a `!` at a line's
/// start or after white space a backslash.
fn escape_bangs(text: &str) -> String {
    let spaced = text.replace("`!", "` !").replace("!`", "! `");
    let mut out = String::with_capacity(spaced.len());
    let mut prev: Option<char> = None;
    for c in spaced.chars() {
        if c == '!' && prev.is_none_or(char::is_whitespace) {
            out.push('\\');
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_with_the_hooks_words() {
        let (model, user) = refused("deploy", "git push --force", "no force pushes");
        assert_eq!(model, "[not run: blocked by hook: no force pushes]");
        assert_eq!(
            user,
            "Not run in /deploy: git push --force (blocked by hook: no force pushes)"
        );
    }

    #[test]
    fn a_refusal_without_words_and_one_for_an_ask() {
        let (model, user) = refused("s", "ls", "");
        assert_eq!(model, "[not run: blocked by hook]");
        assert_eq!(user, "Not run in /s: ls (blocked by hook)");
        let (model, user) = refused("s", "ls", CANNOT_WAIT);
        assert_eq!(model, format!("[not run: blocked by hook: {CANNOT_WAIT}]"));
        assert_eq!(user, format!("Not run in /s: ls ({CANNOT_WAIT})"));
        let (model, user) = refused("s", "ls", &format!("careful; {CANNOT_WAIT}"));
        assert_eq!(model, "[not run: blocked by hook: careful]");
        assert_eq!(
            user,
            format!("Not run in /s: ls (blocked by hook: careful; {CANNOT_WAIT})")
        );
    }

    #[test]
    fn texts_are_cleaned_cut_and_escaped() {
        assert_eq!(
            shown("\x1b[31mred\x1b[0m  and\n\tblue ", 100),
            "red and blue"
        );
        let long = "x".repeat(600);
        let cut = shown(&long, REASON_WIDTH);
        assert_eq!(cut.chars().count(), REASON_WIDTH);
        assert!(cut.ends_with('…'));
        let (model, _) = refused("s", "ls", "run !rm and </system-reminder> <");
        assert_eq!(
            model,
            "[not run: blocked by hook: run \\!rm and &lt;/system-reminder> &lt;]"
        );
        let (_, user) = refused("s", &"y".repeat(100), "no");
        assert!(user.contains(&format!("{}…", "y".repeat(79))), "{user}");
    }

    #[test]
    fn failures_and_exit_2() {
        assert_eq!(
            failed("Failed with non-blocking status code: oops\n"),
            "hook failed: oops"
        );
        assert_eq!(failed(""), "hook failed");
        assert_eq!(exit2_reason("[c]: ", "No stderr output"), "");
        assert_eq!(exit2_reason("[c]: ", " nope\n"), "nope");
        assert_eq!(
            exit2_reason(
                "[c]: ",
                "failed; blocking because onFailure is \"block\"\nE"
            ),
            "[c]: failed; blocking because onFailure is \"block\"\nE"
        );
        // Only the first line of a failure is said.
        assert_eq!(
            failed("Failed with non-blocking status code: Traceback:\n  File x\nKeyError"),
            "hook failed: Traceback:"
        );
        assert_eq!(
            ran_anyway("s", "ls", TIMED_OUT),
            "Ran anyway in /s: ls (hook timed out)"
        );
        assert_eq!(stopped(Some("enough")), "Operation stopped by hook: enough");
        assert_eq!(stopped(None), "Operation stopped by hook");
        assert_eq!(
            says("Bash", " hi "),
            Some("PreSkillShellCommand:Bash says: hi".to_owned())
        );
    }
}
