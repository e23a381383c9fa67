//! `latch lint`: find every hook configuration, report every problem.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use crate::Severity;
use crate::config::env_path;
use crate::dialect::poolside::user_settings;
use crate::lint::{Dialects, Target, UserLevels, discover_reporting, lint_with, render::render};

use super::config::DialectName;
use super::exit;
use super::explain::Format;

/// Find every hook configuration under the given paths and report every
/// problem: load errors and likely mistakes.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories to check (directories are searched). Default:
    /// the current directory, the user's poolside settings and
    /// $PEEN_CONFIG_DIR.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Exit 1 when there are warnings (errors always fail).
    #[arg(long)]
    deny_warnings: bool,
    /// The harness's tool vocabulary: Claude Code matchers naming a tool
    /// none of its tools maps to are reported.
    #[arg(long, value_name = "FILE")]
    tool_vocabulary: Option<PathBuf>,
    /// Check only this dialect's configurations (repeatable). A plugin
    /// directory is an evener plugin by default; with `--dialect claude`
    /// it is a Claude Code plugin, and any file given is a Claude Code
    /// settings file.
    #[arg(long = "dialect", value_name = "NAME")]
    dialects: Vec<DialectName>,
}

/// Runs `latch lint` and returns its exit code.
pub fn run(args: LintArgs) -> u8 {
    let mut user = UserLevels::default();
    let dialects = Dialects::named(args.dialects.iter().map(|d| d.name()));
    let (mut targets, missing) = if args.paths.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let mut t = discover_reporting(&[cwd], dialects).0;
        if let Some(home) = env_path("HOME").filter(|_| dialects.poolside) {
            let settings = user_settings(&home);
            if settings.is_file() {
                t.push(Target::PoolsideFile(settings));
            }
            user.poolside_home = Some(home);
        }
        if let Some(dir) = env_path("PEEN_CONFIG_DIR").filter(|_| dialects.peen) {
            t.extend(discover_reporting(std::slice::from_ref(&dir), dialects).0);
            user.peen_config_dir = Some(dir);
        }
        (t, Vec::new())
    } else {
        // Explicit paths are checked as they are, whoever runs lint.
        discover_reporting(&args.paths, dialects)
    };
    let mut seen = std::collections::HashSet::new();
    targets.retain(|t| seen.insert(t.clone()));
    let mut diags = missing;
    if let Some(file) = &args.tool_vocabulary {
        match crate::config::read_bounded_text(file, crate::config::MAX_CONFIG_FILE) {
            Ok(text) => {
                let (v, d) = crate::vocabulary::Vocabulary::from_text(&text, file);
                diags.extend(d);
                user.harness_tools = Some(v);
            }
            Err(e) => diags.push(
                crate::Diagnostic::error(format!("cannot read the tool vocabulary: {e}"))
                    .in_file(file),
            ),
        }
    }
    let claude_checked = targets
        .iter()
        .any(|t| t.dialect() == crate::dialect::claude::DIALECT);
    if args.tool_vocabulary.is_some() && !claude_checked {
        diags.push(crate::Diagnostic::new(
            Severity::Info,
            "--tool-vocabulary has no effect: no Claude Code configuration was checked (a plugin directory is one with --dialect claude)",
        ));
    }
    diags.extend(lint_with(&targets, &user));
    let mut stdout = io::stdout().lock();
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let written = match args.format {
        Format::Json => serde_json::to_string_pretty(&diags)
            .map_err(io::Error::other)
            .and_then(|j| writeln!(stdout, "{j}")),
        Format::Text => write!(stdout, "{}", render(&diags)).and_then(|()| {
            writeln!(
                stdout,
                "{errors} error{}, {warnings} warning{}, {notes} note{} in {} configuration{}",
                plural(errors),
                plural(warnings),
                plural(notes),
                targets.len(),
                plural(targets.len())
            )
        }),
    };
    if let Err(e) = written {
        return super::stdout::failed(&e);
    }
    if errors > 0 {
        exit::LINT_ERRORS
    } else if warnings > 0 && args.deny_warnings {
        exit::LINT_WARNINGS
    } else {
        exit::OK
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
