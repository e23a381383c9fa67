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
    let project = cfg.options().project.as_deref();
    let settings = cfg
        .files()
        .iter()
        .flat_map(|file| shaping_settings(project, file).into_iter().map(|(_, d)| d));
    // The groups a `disableAllHooks` turned off too: under a trust policy
    // that does not apply an unapproved one, they run, so they must be
    // listed to be approved.
    let hooks = cfg.files().iter().flat_map(|file| {
        file.groups
            .iter()
            .chain(&file.switched_off)
            .flat_map(move |group| {
                group
                    .handlers
                    .iter()
                    .map(move |handler| definition(cfg, file, group, handler, run_dir))
            })
    });
    settings.chain(hooks).collect()
}

/// A setting that shapes every hook, not one: a project file's `env`
/// reaches every hook's environment (`PATH`, `LD_PRELOAD`), its
/// `disableAllHooks` turns the user's hooks off. Under a trust policy
/// each needs approval like a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shaping {
    /// `env`.
    Env,
    /// `disableAllHooks`.
    DisableAllHooks,
}

/// The settings of `file` that shape every hook, as trust sees them, when
/// the file needs approval (a project's `.claude/settings.json` and
/// `settings.local.json`; plugins have neither setting).
pub fn shaping_settings(
    project: Option<&std::path::Path>,
    file: &LoadedFile,
) -> Vec<(Shaping, Definition)> {
    if file.dropped || !needs_approval(project, file) {
        return Vec::new();
    }
    let setting = |name: &str, of: &str, text: String, at| Definition {
        dialect: DIALECT.to_owned(),
        event: "settings".to_owned(),
        hook: name.to_owned(),
        source: crate::diag::SourceRef {
            file: file.path.clone(),
            position: at,
        },
        needs_approval: true,
        matcher: None,
        runs: Runs::Text {
            of: of.to_owned(),
            text,
        },
        scripts: Vec::new(),
        settings: std::collections::BTreeMap::new(),
    };
    let mut out = Vec::new();
    if !file.env.is_empty() {
        // As JSON text: names and values are unambiguous however they are
        // written (a `=` or a newline in one cannot pass for another).
        let vars: serde_json::Map<String, serde_json::Value> = file
            .env
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
            .collect();
        let text = serde_json::Value::Object(vars).to_string();
        out.push((Shaping::Env, setting("env", "env", text, file.env_at)));
    }
    if let Some(on) = file.disable_all_hooks {
        let text = format!("disableAllHooks: {on}");
        out.push((
            Shaping::DisableAllHooks,
            setting(
                "disableAllHooks",
                "setting",
                text,
                file.disable_all_hooks_at,
            ),
        ));
    }
    out
}

/// Whether `file`'s hooks and settings need approval: the project's
/// settings files, and plugins inside the project.
fn needs_approval(project: Option<&std::path::Path>, file: &LoadedFile) -> bool {
    match file.scope {
        Scope::Project | Scope::Local => true,
        Scope::Plugin => match (&file.plugin, project) {
            (Some(plugin), Some(project)) => plugin.root.starts_with(project),
            _ => false,
        },
        Scope::User | Scope::Flag | Scope::Managed => false,
    }
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
    let needs_approval = needs_approval(project.as_deref(), file);
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
