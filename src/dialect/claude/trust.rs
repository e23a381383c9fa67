//! The claude dialect's hooks as trust sees them (see [`crate::trust`]).
//!
//! Project settings (`.claude/settings.json`, `.claude/settings.local.json`)
//! and plugins inside the project need approval; the user's settings,
//! managed settings, the harness's `--claude-settings` and plugins
//! outside the project do not. Paths in a command resolve as the hook's
//! shell would see them: relative to the project, with
//! `$CLAUDE_PROJECT_DIR`, `${CLAUDE_PLUGIN_ROOT}` and
//! `${CLAUDE_PLUGIN_DATA}` expanded.

use crate::event::Event;
use crate::trust::scripts::{self, Resolution};
use crate::trust::{Definition, Runs};

use super::load::{Group, Handler, HandlerKind, LoadedFile, Scope};
use super::{Claude, DIALECT, text};

/// Every loaded hook, in file order (the handlers of dropped files are
/// not loaded, so not listed); with an event, relative paths resolve
/// where its hooks run.
pub fn definitions(cfg: &Claude, event: Option<&Event>) -> Vec<Definition> {
    let run_dir = event.map(|e| cfg.run_dir(e));
    let run_dir = run_dir.as_deref();
    cfg.files()
        .iter()
        .flat_map(|file| {
            file.groups.iter().flat_map(move |group| {
                group
                    .handlers
                    .iter()
                    .map(move |handler| definition(cfg, file, group, handler, run_dir))
            })
        })
        .collect()
}

/// One handler as trust sees it; relative paths in its command resolve
/// against `run_dir`, where it runs for this event (the project when
/// `None`).
pub fn definition(
    cfg: &Claude,
    file: &LoadedFile,
    group: &Group,
    handler: &Handler,
    run_dir: Option<&std::path::Path>,
) -> Definition {
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
        base: run_dir
            .map(std::path::Path::to_path_buf)
            .or_else(|| project.clone()),
        vars,
        project,
    };
    let mut settings = std::collections::BTreeMap::new();
    if let Some(c) = &handler.condition {
        settings.insert("if".to_owned(), c.text.clone());
    }
    if handler.run_async {
        settings.insert("async".to_owned(), "true".to_owned());
    }
    if handler.async_rewake {
        settings.insert("asyncRewake".to_owned(), "true".to_owned());
    }
    match &handler.kind {
        HandlerKind::Http {
            headers,
            allowed_env_vars,
            ..
        } => {
            if !headers.is_empty() {
                let shown: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                settings.insert("headers".to_owned(), shown.join("\n"));
            }
            if !allowed_env_vars.is_empty() {
                settings.insert("allowedEnvVars".to_owned(), allowed_env_vars.join(","));
            }
        }
        HandlerKind::Prompt { model: Some(m), .. } => {
            settings.insert("model".to_owned(), m.clone());
        }
        _ => {}
    }
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
        settings,
    }
}
