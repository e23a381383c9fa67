//! The poolside dialect's hooks as trust sees them (see [`crate::trust`]).
//!
//! The project's `settings.yaml` and `settings.local.yaml` need approval;
//! the user's `~/.config/poolside/settings.yaml` and the `--settings` file
//! do not. Commands run through `/bin/sh` in the project, so a relative
//! script path resolves against it.

use crate::event::Event;
use crate::trust::scripts::{self, Resolution};
use crate::trust::{Definition, Runs};

use super::events::PoolEvent;
use super::load::{Hook, Level, Matcher};
use super::{DIALECT, Poolside};

/// Every loaded hook, event by event in poolside's order, then in run
/// order; with an event, relative paths resolve where its hooks run.
pub fn definitions(cfg: &Poolside, event: Option<&Event>) -> Vec<Definition> {
    let run_dir = event.and_then(|e| e.workdir(cfg.workdir()));
    let run_dir = run_dir.as_deref();
    PoolEvent::ALL
        .into_iter()
        .flat_map(|pe| {
            cfg.hooks(pe)
                .iter()
                .map(move |hook| definition(cfg, pe, hook, run_dir))
        })
        .collect()
}

/// One hook as trust sees it; relative paths in its command resolve
/// against `run_dir`, where it runs for this event (the project when
/// `None`).
pub fn definition(
    cfg: &Poolside,
    event: PoolEvent,
    hook: &Hook,
    run_dir: Option<&std::path::Path>,
) -> Definition {
    let project = cfg.workdir().map(std::path::Path::to_path_buf);
    let how = Resolution {
        base: run_dir
            .map(std::path::Path::to_path_buf)
            .or_else(|| project.clone()),
        vars: Vec::new(),
        project,
    };
    Definition {
        dialect: DIALECT.to_owned(),
        event: event.as_str().to_owned(),
        hook: hook.label.clone(),
        source: hook.source.clone(),
        needs_approval: matches!(hook.level, Level::Project | Level::Local),
        matcher: Some(match &hook.matcher {
            Matcher::Valid(m) => m.describe(),
            Matcher::Invalid { pattern, .. } => pattern.clone(),
        }),
        runs: Runs::Command {
            command: hook.command.clone(),
            shell: None,
        },
        scripts: scripts::in_command(&hook.command, &how),
        settings: Default::default(),
    }
}
