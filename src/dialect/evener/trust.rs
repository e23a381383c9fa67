//! The evener dialect's handlers as trust sees them (see
//! [`crate::trust`]).
//!
//! Evener loads plugins only; a plugin inside the project needs approval,
//! one elsewhere (the user's, or the harness's) does not. Paths in a
//! command resolve against the project, with `${CLAUDE_PLUGIN_ROOT}` and
//! `$CLAUDE_PROJECT_DIR` expanded.

use crate::event::Event;
use crate::trust::scripts::{self, Resolution};
use crate::trust::{Definition, Runs};

use super::discover::Plugin;
use super::load::{Group, Handler, HandlerKind};
use super::{DIALECT, Evener};

/// Every handler, plugin by plugin, in file order. Evener's hooks run in
/// the project whatever the event, so the event changes nothing.
pub fn definitions(cfg: &Evener, _event: Option<&Event>) -> Vec<Definition> {
    cfg.plugins()
        .iter()
        .flat_map(|plugin| {
            plugin.groups.iter().flat_map(move |group| {
                group
                    .handlers
                    .iter()
                    .map(move |handler| definition(cfg, plugin, group, handler, None))
            })
        })
        .collect()
}

/// One handler as trust sees it; relative paths in its command resolve
/// against `run_dir`, where it runs for this event (the project when
/// `None`).
pub fn definition(
    cfg: &Evener,
    plugin: &Plugin,
    group: &Group,
    handler: &Handler,
    run_dir: Option<&std::path::Path>,
) -> Definition {
    let project = cfg.options().project.clone();
    let mut vars = vec![("CLAUDE_PLUGIN_ROOT".to_owned(), plugin.root.clone())];
    if let Some(p) = &project {
        vars.push(("CLAUDE_PROJECT_DIR".to_owned(), p.clone()));
    }
    let how = Resolution {
        base: run_dir
            .map(std::path::Path::to_path_buf)
            .or_else(|| project.clone()),
        vars,
        project: project.clone(),
    };
    let mut settings = std::collections::BTreeMap::new();
    if let HandlerKind::Prompt { model: Some(m), .. } = &handler.kind {
        settings.insert("model".to_owned(), m.clone());
    }
    let (runs, scripts) = match (&handler.kind, &handler.command_text) {
        (HandlerKind::Command(_), Some(command)) => (
            Runs::Command {
                command: command.clone(),
                shell: None,
            },
            scripts::in_command(command, &how),
        ),
        (HandlerKind::Prompt { prompt, .. }, _) => (
            Runs::Text {
                of: "prompt".into(),
                text: prompt.clone(),
            },
            Vec::new(),
        ),
        (HandlerKind::Command(_), None) => (
            Runs::Text {
                of: "command".into(),
                text: String::new(),
            },
            Vec::new(),
        ),
        (HandlerKind::Unsupported(t), _) => (
            Runs::Text {
                of: t.clone(),
                text: String::new(),
            },
            Vec::new(),
        ),
    };
    Definition {
        dialect: DIALECT.to_owned(),
        event: group.event.as_str().to_owned(),
        hook: plugin.name.clone(),
        source: handler.source.clone(),
        needs_approval: project.as_ref().is_some_and(|p| plugin.root.starts_with(p)),
        matcher: Some(group.matcher_text.clone()),
        runs,
        scripts,
        settings,
    }
}
