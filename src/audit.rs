//! The audit log: one JSON line per hook run, in the session's private
//! directory (`<state dir>/sessions/<id>/audit.jsonl`).
//!
//! A record says when, which event, which hook (dialect, label, where it
//! is declared), its trust state, how it ended (status, exit code or
//! signal, duration, error category, truncation) and what it contributed
//! to the outcome (a deny, an ask, context, a continuation, an end of the
//! loop). It never holds the event's payload, what the hook printed or
//! environment values: with [`AuditMode::Full`] the harness opts in to the
//! hook's message and the texts it contributed, which may quote its
//! output. The file is bounded: past 4 MiB it becomes
//! `audit.1.jsonl` (replacing the one before) and a new one starts.
//!
//! # Example
//!
//! ```
//! use latch::audit::AuditMode;
//!
//! // `runs` (the default of `latch fire`) records the facts of each hook run;
//! // `full` adds what hooks said; `off` writes nothing.
//! let mode: AuditMode = "full".parse()?;
//! assert_eq!(mode, AuditMode::Full);
//! assert!("everything".parse::<AuditMode>().is_err());
//! let engine = latch::Engine::new().with_audit(mode);
//! # drop(engine);
//! # Ok::<(), String>(())
//! ```

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::event::Event;
use crate::outcome::{Decision, ErrorCategory, HookRun, Outcome, RunStatus, TrustWord};

/// The size at which a session's log is rotated; with the previous file,
/// a session keeps at most twice this.
pub(crate) const MAX_LOG_BYTES: u64 = 4 * 1024 * 1024;

/// The log file in a session's directory.
pub(crate) const LOG_FILE: &str = "audit.jsonl";

/// The previous log file, after a rotation.
pub(crate) const PREVIOUS_LOG_FILE: &str = "audit.1.jsonl";

/// What the audit log records.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AuditMode {
    /// Nothing.
    Off,
    /// The facts of each run, never what a hook printed (the default of
    /// `latch fire` and `latch serve`).
    #[default]
    Runs,
    /// The facts, plus each hook's message and the texts it contributed,
    /// which may quote its output.
    Full,
}

impl std::str::FromStr for AuditMode {
    type Err = String;
    fn from_str(s: &str) -> Result<AuditMode, String> {
        match s {
            "off" => Ok(AuditMode::Off),
            "runs" => Ok(AuditMode::Runs),
            "full" => Ok(AuditMode::Full),
            _ => Err(format!("`{s}` is not an audit mode (off, runs, full)")),
        }
    }
}

/// One hook run, as the audit log records it: borrowing from the outcome
/// when written, owned when read back (`'static`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AuditRecord<'a> {
    /// When the dispatch ended, RFC 3339 in UTC with milliseconds.
    pub time: Cow<'a, str>,
    /// The session.
    pub session: Cow<'a, str>,
    /// The event occurrence (shared by every hook of one dispatch).
    pub event_id: Cow<'a, str>,
    /// The neutral event kind (`tool_before`).
    pub event: Cow<'a, str>,
    /// The dialect that ran the hook.
    pub dialect: Cow<'a, str>,
    /// The event in the dialect's spelling (`PreToolUse`).
    pub hook_event: Cow<'a, str>,
    /// The hook's label.
    pub hook: Cow<'a, str>,
    /// Where it is declared: `FILE:LINE:COLUMN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its trust state, when a trust policy checked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustWord>,
    /// How it ended.
    pub status: RunStatus,
    /// Its exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that killed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// How long it ran, in milliseconds.
    pub duration_ms: f64,
    /// What it contributed to the outcome: `deny` (it blocked), `ask`,
    /// `defer`, `allow` (its reason came with that decision), `reason` (a
    /// reason that did not decide), `context`, `continue`, `halt`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contributed: Vec<Cow<'a, str>>,
    /// What went wrong, if anything did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorCategory>,
    /// Its stdout went over the cap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stdout_truncated: bool,
    /// Its stderr went over the cap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stderr_truncated: bool,
    /// [`AuditMode::Full`] only: the run's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Cow<'a, str>>,
    /// [`AuditMode::Full`] only: the texts it contributed (reasons,
    /// context).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<Cow<'a, str>>,
}

/// The records of one dispatch's runs.
pub(crate) fn records<'a>(
    mode: AuditMode,
    session: &'a str,
    event: &Event,
    event_id: &'a str,
    outcome: &'a Outcome,
) -> Vec<AuditRecord<'a>> {
    // A dispatch that ran no hook has nothing to record: its time is not
    // even formatted.
    if mode == AuditMode::Off || outcome.runs.is_empty() {
        return Vec::new();
    }
    let time = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
    outcome
        .runs
        .iter()
        .map(|run| {
            let (contributed, texts) = contributions(run, outcome);
            AuditRecord {
                time: Cow::Owned(time.clone()),
                session: Cow::Borrowed(session),
                event_id: Cow::Borrowed(event_id),
                event: Cow::Borrowed(event.event.as_str()),
                dialect: Cow::Borrowed(&run.dialect),
                hook_event: Cow::Borrowed(&run.event),
                hook: Cow::Borrowed(&run.hook),
                source: run.source.as_ref().map(ToString::to_string),
                trust: run.trust,
                status: run.status,
                exit_code: run.exit_code,
                signal: run.signal,
                duration_ms: run.duration_ms,
                contributed,
                error: run.error,
                stdout_truncated: run.stdout_truncated,
                stderr_truncated: run.stderr_truncated,
                message: (mode == AuditMode::Full)
                    .then(|| run.message.as_deref().map(Cow::Borrowed))
                    .flatten(),
                texts: if mode == AuditMode::Full {
                    texts
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// What `run` contributed to `outcome`, and the texts it gave. Outcomes
/// name hooks by label, so two hooks with one label share their
/// contributions.
fn contributions<'a>(
    run: &HookRun,
    outcome: &'a Outcome,
) -> (Vec<Cow<'a, str>>, Vec<Cow<'a, str>>) {
    let mut what = Vec::new();
    let mut texts = Vec::new();
    if matches!(
        run.status,
        RunStatus::Untrusted | RunStatus::Skipped | RunStatus::Failed
    ) {
        return (what, texts);
    }
    let reasons = outcome
        .reasons
        .iter()
        .filter(|r| r.hook == run.hook)
        .map(|r| Cow::Borrowed(r.text.as_str()));
    let before = texts.len();
    texts.extend(reasons);
    if run.status == RunStatus::Blocked {
        what.push(Cow::Borrowed("deny"));
    } else if texts.len() > before {
        // The combined decision, unless it is a deny this hook did not
        // give (its own reason lost to another hook's deny).
        let decision = match outcome.decision {
            Decision::Proceed | Decision::Deny => "reason",
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Defer => "defer",
        };
        what.push(Cow::Borrowed(decision));
    }
    let before = texts.len();
    texts.extend(
        outcome
            .context
            .iter()
            .filter(|c| c.hook == run.hook)
            .map(|c| Cow::Borrowed(c.text.as_str())),
    );
    if texts.len() > before {
        what.push(Cow::Borrowed("context"));
    }
    if run.status == RunStatus::Continued
        || outcome
            .continuation
            .as_ref()
            .is_some_and(|c| c.hooks.contains(&run.hook))
    {
        what.push(Cow::Borrowed("continue"));
    }
    if outcome
        .halt
        .as_ref()
        .is_some_and(|h| h.hooks.contains(&run.hook))
    {
        what.push(Cow::Borrowed("halt"));
    }
    (what, texts)
}

/// The records as JSON lines.
pub(crate) fn to_lines(records: &[AuditRecord<'_>]) -> Vec<u8> {
    // A record is about 300 bytes: one allocation for most dispatches.
    let mut out = Vec::with_capacity(512 * records.len());
    for r in records {
        if serde_json::to_writer(&mut out, r).is_ok() {
            out.push(b'\n');
        }
    }
    out
}
