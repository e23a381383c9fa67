//! The claude dialect's hooks as trust sees them (see [`crate::trust`]).
//!
//! Project settings (`.claude/settings.json`, `.claude/settings.local.json`)
//! and plugins inside the project need approval; the user's settings,
//! managed settings, the harness's `--claude-settings` and plugins
//! outside the project do not. Paths in a command resolve as the hook's
//! shell would see them: relative to the project, with
//! `$CLAUDE_PROJECT_DIR`, `${CLAUDE_PLUGIN_ROOT}` and
//! `${CLAUDE_PLUGIN_DATA}` expanded.

use crate::trust::scripts::{self, Resolution};
use crate::trust::{Definition, Runs};

use super::load::{Group, Handler, HandlerKind, LoadedFile, Scope};
use super::{Claude, DIALECT, text};

/// Every loaded hook, in file order (the handlers of dropped files are
/// not loaded, so not listed).
pub fn definitions(cfg: &Claude) -> Vec<Definition> {
    cfg.files()
        .iter()
        .flat_map(|file| {
            file.groups.iter().flat_map(move |group| {
                group
                    .handlers
                    .iter()
                    .map(move |handler| definition(cfg, file, group, handler))
            })
        })
        .collect()
}

/// One handler as trust sees it.
pub fn definition(cfg: &Claude, file: &LoadedFile, group: &Group, handler: &Handler) -> Definition {
    let project = cfg.options().project.clone();
    let needs_approval = match file.scope {
        Scope::Project | Scope::Local => true,
        Scope::Plugin => match (&file.plugin, &project) {
            (Some(plugin), Some(project)) => plugin.root.starts_with(project),
            _ => false,
        },
        Scope::User | Scope::Flag | Scope::Managed => false,
    };
    let mut vars = Vec::new();
    if let Some(p) = &project {
        vars.push(("CLAUDE_PROJECT_DIR".to_owned(), p.clone()));
    }
    if let Some(plugin) = &file.plugin {
        vars.push(("CLAUDE_PLUGIN_ROOT".to_owned(), plugin.root.clone()));
        vars.push(("CLAUDE_PLUGIN_DATA".to_owned(), plugin.data.clone()));
    }
    let how = Resolution {
        base: project.clone(),
        vars,
        project,
    };
    let (runs, scripts) = match &handler.kind {
        HandlerKind::Command {
            command,
            args: Some(args),
            ..
        } => (
            Runs::Exec {
                program: command.clone(),
                args: args.clone(),
            },
            scripts::in_exec(command, args, &how),
        ),
        HandlerKind::Command { command, shell, .. } => (
            Runs::Command {
                command: command.clone(),
                shell: shell.clone(),
            },
            scripts::in_command(command, &how),
        ),
        HandlerKind::Http { url, .. } => (Runs::Http { url: url.clone() }, Vec::new()),
        HandlerKind::Prompt { prompt, .. } => (
            Runs::Text {
                of: "prompt".into(),
                text: prompt.clone(),
            },
            Vec::new(),
        ),
        HandlerKind::Agent { prompt } => (
            Runs::Text {
                of: "agent".into(),
                text: prompt.clone(),
            },
            Vec::new(),
        ),
        kind @ HandlerKind::McpTool { input, .. } => (
            Runs::Text {
                of: "mcp_tool".into(),
                text: format!("{} {input}", kind.shown()),
            },
            Vec::new(),
        ),
    };
    Definition {
        dialect: DIALECT.to_owned(),
        event: group.event_name.clone(),
        hook: text::label_of(&handler.kind.shown()),
        source: handler.source.clone(),
        needs_approval,
        matcher: group.matcher_text.clone(),
        runs,
        scripts,
    }
}
