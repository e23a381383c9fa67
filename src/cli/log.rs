//! `latch log`: a session's audit log, readable or as JSON lines,
//! filtered by hook, event and status.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::Session;
use crate::audit::AuditRecord;
use crate::text::serde_word as word;

use super::exit;
use super::stdout::Stdout;

/// Print a session's audit log: one line per hook run (see
/// docs/audit.md).
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The session whose log to print. Without it, the sessions that have
    /// a log are listed, the most recent last.
    #[arg(value_name = "SESSION")]
    session: Option<String>,
    /// Only the runs of this hook (its label).
    #[arg(long, value_name = "LABEL")]
    hook: Option<String>,
    /// Only the runs for this event: the neutral kind (`tool_before`) or
    /// the dialect's name for it (`PreToolUse`).
    #[arg(long, value_name = "EVENT")]
    event: Option<String>,
    /// Only the runs that ended so (`ok`, `blocked`, `failed`, `untrusted`, …).
    #[arg(long, value_name = "STATUS")]
    status: Option<String>,
    /// Where the session state lives. Default: $LATCH_STATE_DIR, else
    /// $XDG_STATE_HOME/latch, else ~/.local/state/latch.
    #[arg(long, value_name = "DIR", value_parser = super::config::path_flag)]
    state_dir: Option<PathBuf>,
    /// Output format: aligned text, or the records as JSON lines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Runs `latch log` and returns its exit code.
pub fn run(args: LogArgs) -> u8 {
    let Some(root) = args.state_dir.clone().or_else(Session::default_state_root) else {
        eprintln!("latch: error: {}", super::config::NO_STATE_DIRECTORY);
        return exit::INTERNAL;
    };
    let mut out = Stdout::lock();
    let Some(session) = &args.session else {
        return match Session::audited(&root) {
            Ok(sessions) => {
                if sessions.is_empty() {
                    let _ = writeln!(out, "no session under {} has an audit log", root.display());
                }
                for (id, when) in &sessions {
                    let _ = writeln!(out, "{}  {id}", humantime::format_rfc3339_seconds(*when));
                }
                let unlisted = logs_present(&root).saturating_sub(sessions.len());
                if unlisted > 0 {
                    eprintln!(
                        "latch: warning: {unlisted} session(s) under {} have an audit log latch cannot read (not a regular file, or not audit records); `latch log SESSION` says why",
                        root.display()
                    );
                }
                out.finish(exit::OK)
            }
            Err(e) => {
                eprintln!("latch: error: {e}");
                exit::INTERNAL
            }
        };
    };
    let bytes = match Session::read_audit(&root, session) {
        Ok(Some(b)) => b,
        Ok(None) => {
            eprintln!(
                "latch: error: session `{session}` has no audit log under {}",
                root.display()
            );
            return exit::USAGE;
        }
        Err(e) => {
            eprintln!("latch: error: {e}");
            return exit::INTERNAL;
        }
    };
    let mut unreadable = 0usize;
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(record) = serde_json::from_slice::<AuditRecord>(line) else {
            unreadable += 1;
            continue;
        };
        if !wanted(&record, &args) {
            continue;
        }
        let _ = match args.format {
            Format::Json => out.write_all(line).and_then(|()| out.write_all(b"\n")),
            Format::Text => writeln!(out, "{}", text(&record)),
        };
    }
    if unreadable > 0 {
        eprintln!(
            "latch: warning: {unreadable} line(s) of the log are not audit records and were skipped"
        );
    }
    out.finish(exit::OK)
}

/// How many session directories under `root` have an entry named like an
/// audit log, readable or not.
fn logs_present(root: &std::path::Path) -> usize {
    let Ok(listing) = std::fs::read_dir(root.join("sessions")) else {
        return 0;
    };
    listing
        .flatten()
        .filter(|e| std::fs::symlink_metadata(e.path().join(crate::audit::LOG_FILE)).is_ok())
        .count()
}

fn wanted(r: &AuditRecord, args: &LogArgs) -> bool {
    args.hook.as_ref().is_none_or(|h| *h == r.hook)
        && args
            .event
            .as_ref()
            .is_none_or(|e| *e == r.event || *e == r.hook_event)
        && args.status.as_ref().is_none_or(|s| *s == word(&r.status))
}

/// One record on one line: time, event, dialect, hook, status, how it
/// ended, what it contributed, where it is declared.
fn text(r: &AuditRecord) -> String {
    let ended = match (r.exit_code, r.signal) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "-".to_owned(),
    };
    let mut line = format!(
        "{}  {:<13} {:<9} {:<24} {:<10} {:<8} {:>9.1} ms",
        r.time,
        r.hook_event,
        r.dialect,
        crate::text::visible(&r.hook),
        word(&r.status),
        ended,
        r.duration_ms
    );
    if !r.contributed.is_empty() {
        line.push_str(&format!("  {}", r.contributed.join(",")));
    }
    if let Some(e) = r.error {
        line.push_str(&format!("  error={}", word(&e)));
    }
    if let Some(t) = r.trust {
        line.push_str(&format!("  trust={}", word(&t)));
    }
    if r.stdout_truncated || r.stderr_truncated {
        line.push_str("  truncated");
    }
    if let Some(s) = &r.source {
        line.push_str(&format!("  {}", crate::text::visible(s)));
    }
    line
}
