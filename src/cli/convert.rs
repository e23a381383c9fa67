//! `latch convert`: translate a configuration between dialects.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::convert::{
    from_claude, from_evener, from_peen, from_poolside, to_claude, to_evener, to_peen, to_poolside,
};
use crate::dialect::Dialect;
use crate::dialect::claude::{self, Claude};
use crate::dialect::evener::{self, Evener};
use crate::dialect::peen::{self, Peen};
use crate::dialect::poolside::{Poolside, Sources};
use crate::lint::render::render;

use super::exit;

/// The dialects `latch convert` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectName {
    /// `settings.yaml` (its `hooks:` section).
    Poolside,
    /// `hooks/hooks.json` (or a manifest's inline `hooks`).
    Evener,
    /// `.agents/hooks.yaml`.
    Peen,
    /// Claude Code's `.claude/settings.json` (or a plugin's hooks).
    Claude,
}

/// Translate a configuration between dialects, reporting what cannot be
/// expressed.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The source dialect.
    #[arg(long, value_enum)]
    from: DialectName,
    /// The target dialect.
    #[arg(long, value_enum)]
    to: DialectName,
    /// The source: a poolside project directory or settings file, an evener
    /// plugin directory, or a peen workspace directory or hooks file.
    #[arg(value_name = "PATH")]
    path: PathBuf,
}

/// Runs `latch convert`: the converted configuration on stdout, and a
/// report of everything that could not be expressed on stderr.
pub fn run(args: ConvertArgs) -> u8 {
    let path = std::path::absolute(&args.path).unwrap_or(args.path.clone());
    if !path.exists() {
        eprintln!(
            "latch: error: {}: no such file or directory",
            path.display()
        );
        return exit::LINT_ERRORS;
    }
    let (rules, mut notes, load) = match args.from {
        DialectName::Poolside => {
            let sources = if path.is_file() {
                Sources {
                    settings: Some(path.clone()),
                    ..Sources::default()
                }
            } else {
                Sources {
                    project: Some(path.clone()),
                    ..Sources::default()
                }
            };
            let cfg = Poolside::load(&sources);
            let (r, n) = from_poolside(&cfg);
            (r, n, cfg.diagnostics().to_vec())
        }
        DialectName::Evener => {
            let cfg = Evener::load(evener::Options {
                plugin_dirs: vec![path.clone()],
                ..evener::Options::default()
            });
            let (r, n) = from_evener(&cfg);
            (r, n, cfg.diagnostics().to_vec())
        }
        DialectName::Claude => {
            // A plugin directory, a project with `.claude/`, or one file.
            let plugin =
                path.join(".claude-plugin").is_dir() || path.join("hooks/hooks.json").is_file();
            let none = path.join(".latch-no-managed-settings");
            let sources = if path.is_file() {
                claude::Sources {
                    settings: Some(path.display().to_string()),
                    managed_dir: Some(none),
                    ..claude::Sources::default()
                }
            } else if plugin {
                claude::Sources {
                    plugin_dirs: vec![path.clone()],
                    managed_dir: Some(none),
                    ..claude::Sources::default()
                }
            } else {
                claude::Sources {
                    project: Some(path.clone()),
                    managed_dir: Some(none),
                    ..claude::Sources::default()
                }
            };
            let cfg = Claude::load(claude::Options {
                sources,
                ..claude::Options::default()
            });
            let (r, n) = from_claude(&cfg);
            (r, n, cfg.diagnostics().to_vec())
        }
        DialectName::Peen => {
            let dir = if path.is_file() {
                path.parent()
                    .and_then(Path::parent)
                    .map_or_else(|| path.clone(), Path::to_path_buf)
            } else {
                path.clone()
            };
            let cfg = Peen::load(peen::Options {
                workspace: Some(dir),
                ..peen::Options::default()
            });
            let (r, n) = from_peen(&cfg);
            (r, n, cfg.diagnostics().to_vec())
        }
    };
    let (text, more) = match args.to {
        DialectName::Claude => to_claude(&rules),
        DialectName::Poolside => to_poolside(&rules),
        DialectName::Evener => to_evener(&rules),
        DialectName::Peen => to_peen(&rules),
    };
    notes.extend(more);
    // A load warning or note at the place of a report entry says the same
    // thing less precisely (`"if" is parsed but reserved` where the report
    // says it is dropped): the report entry stays.
    // A load error, or a file the source dialect skipped whole with only a
    // warning (peen's rule): either way, hooks were not converted.
    let failed = crate::dialect::lost_hooks;
    let mut all: Vec<crate::Diagnostic> = load
        .into_iter()
        .filter(|d| {
            failed(d)
                || d.position.is_none()
                || !notes
                    .iter()
                    .any(|n| n.position == d.position && n.file == d.file)
        })
        .collect();
    all.extend(notes);
    if rules.is_empty() && all.is_empty() {
        all.push(crate::Diagnostic::error("no hooks found to convert").in_file(&path));
    }
    if !all.is_empty() {
        let _ = write!(io::stderr().lock(), "{}", render(&all));
    }
    if args.from != args.to {
        let _ = writeln!(
            io::stderr().lock(),
            "latch: note: commands keep their text; each dialect sends its own payload and reads its own output format, so check each script"
        );
    }
    if let Err(e) = io::stdout().lock().write_all(text.as_bytes()) {
        return super::stdout::failed(&e);
    }
    // A source with load errors converted only in part: say so in the code.
    if all.iter().any(failed) {
        exit::LINT_ERRORS
    } else {
        exit::OK
    }
}
