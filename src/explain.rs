//! Explanations: for one event, every configured hook and whether it would
//! run, and why. Nothing runs. `latch explain` prints them.
//!
//! # Example
//!
//! ```
//! use latch::dialect::poolside::{Poolside, Sources};
//! use latch::{Engine, Event};
//!
//! let project = tempfile::tempdir()?;
//! std::fs::create_dir(project.path().join(".poolside"))?;
//! std::fs::write(
//!     project.path().join(".poolside/settings.yaml"),
//!     "hooks:\n  PreToolUse:\n    - name: shell-guard\n      matcher: shell\n      command: ./guard.sh\n    \
//!      - name: edit-guard\n      matcher: edit\n      command: ./guard.sh\n",
//! )?;
//! let engine = Engine::new().with_dialect(Poolside::load(&Sources {
//!     project: Some(project.path().to_path_buf()),
//!     ..Sources::default()
//! }));
//! // Which hooks would run for this event, and why: nothing runs.
//! let event = Event::tool_before("shell", serde_json::json!({"cmd": "ls"}));
//! let all: Vec<_> = engine.dialects().flat_map(|d| d.explain(&event)).collect();
//! assert_eq!(all.len(), 2);
//! assert!(all[0].runs && all[0].hook == "shell-guard");
//! assert!(!all[1].runs, "{}", all[1].reason);
//! # Ok::<(), std::io::Error>(())
//! ```

use serde::Serialize;

use crate::diag::SourceRef;

/// Whether one configured hook would run for an event, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    /// The dialect that declared it.
    pub dialect: String,
    /// The event it is declared for, in the dialect's spelling.
    pub event: String,
    /// Its label, as `latch fire` names it in run records (poolside: name
    /// or command file; evener: plugin; peen: `group/action`).
    pub hook: String,
    /// What it runs, shortened, when the label alone does not tell hooks
    /// apart: every evener handler, unnamed poolside hooks and unnamed peen
    /// actions. Commands are cut to 48 characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Where it was declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// Whether it would run.
    pub runs: bool,
    /// Why it would run, or why not.
    pub reason: String,
    /// Configuration keys of this hook latch reads but does not act on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<IgnoredKey>,
    /// The time limit it would run under, in milliseconds (claude: its
    /// `timeout`, else Claude Code's default for its type and event);
    /// `None` where the dialect does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A configuration key of a hook that has no effect in latch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct IgnoredKey {
    /// The key as written.
    pub key: String,
    /// Why it has no effect.
    pub why: String,
}

impl Explanation {
    /// An explanation.
    pub(crate) fn new(
        dialect: &str,
        event: impl Into<String>,
        hook: impl Into<String>,
        source: Option<SourceRef>,
        runs: bool,
        reason: impl Into<String>,
    ) -> Self {
        Explanation {
            dialect: dialect.to_owned(),
            event: event.into(),
            hook: hook.into(),
            source,
            runs,
            reason: reason.into(),
            summary: None,
            ignored: Vec::new(),
            timeout_ms: None,
        }
    }

    /// With the time limit it would run under.
    pub(crate) fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout_ms = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// With a summary of what the hook runs (an empty one is left out).
    pub(crate) fn with_summary(mut self, summary: Option<String>) -> Self {
        self.summary = summary.filter(|s| !s.is_empty() && *s != self.hook);
        self
    }

    /// With the keys that have no effect.
    pub(crate) fn with_ignored(mut self, ignored: Vec<IgnoredKey>) -> Self {
        self.ignored = ignored;
        self
    }
}

/// How many characters a summary keeps before its ellipsis.
pub(crate) const SUMMARY_CHARS: usize = 48;

/// A shell command, shortened to tell hooks apart: whitespace collapsed,
/// every plain path word (no quotes or shell operators inside, after one
/// pair of surrounding quotes is removed) replaced by its file name, and
/// cut to [`SUMMARY_CHARS`] characters with `…`.
/// `python3 "${CLAUDE_PLUGIN_ROOT}/hooks/check.py" --strict` becomes
/// `python3 check.py --strict`.
pub(crate) fn short_command(command: &str) -> String {
    let words: Vec<String> = command.split_whitespace().map(short_word).collect();
    excerpt(&words.join(" "))
}

fn short_word(word: &str) -> String {
    let inner = ['"', '\'']
        .iter()
        .find_map(|q| {
            word.strip_prefix(*q)
                .and_then(|w| w.strip_suffix(*q))
                .filter(|w| !w.is_empty())
        })
        .unwrap_or(word);
    let plain = inner.contains('/')
        && !inner
            .chars()
            .any(|c| "<>|&;()'\"`\\ ".contains(c) || c.is_control());
    match inner.rsplit('/').next() {
        Some(name) if plain && !name.is_empty() => name.to_owned(),
        _ => word.to_owned(),
    }
}

/// Text cut to [`SUMMARY_CHARS`] characters, whitespace collapsed, with
/// `…` when cut (at the last space when there is one late enough).
pub(crate) fn excerpt(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= SUMMARY_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SUMMARY_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i >= SUMMARY_CHARS / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

/// Puts the hooks that would run first, in their run order, then the rest
/// in configuration order. `list` must be in configuration order, with the
/// running ones already in run order relative to each other.
pub(crate) fn run_order_first(mut list: Vec<Explanation>) -> Vec<Explanation> {
    list.sort_by_key(|e| !e.runs);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_shorten_to_their_file_names_and_first_words() {
        assert_eq!(
            short_command("python3 \"${CLAUDE_PLUGIN_ROOT}/hooks/check.py\" --strict"),
            "python3 check.py --strict"
        );
        assert_eq!(short_command("/a/b/block-sudo.sh"), "block-sudo.sh");
        assert_eq!(short_command("cat 2>/dev/null"), "cat 2>/dev/null");
        assert_eq!(
            short_command("jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0"),
            "jq -r '.tool_input.command' | grep -q 'rm -rf'…"
        );
        assert_eq!(short_command("  a\n  b  "), "a b");
    }

    #[test]
    fn excerpts_cut_at_a_word_boundary() {
        let long = "Decide whether the command $TOOL_INPUT deletes files outside the project.";
        assert_eq!(
            excerpt(long),
            "Decide whether the command $TOOL_INPUT deletes…"
        );
        assert_eq!(excerpt(&"x".repeat(60)), format!("{}…", "x".repeat(48)));
        assert_eq!(excerpt("short"), "short");
    }
}
