//! The peen dialect's actions as trust sees them (see [`crate::trust`]).
//!
//! The workspace's `.agents/hooks.yaml` needs approval; the
//! `PEEN_CONFIG_DIR` layer, peen's trusted deployment-wide layer, does not.
//! Every action counts, not only commands: an `inject` puts the file's text
//! before the model, a `deny` stops the agent. A command is an executable
//! with arguments; a relative one resolves against the workspace.

use std::path::Path;

use crate::event::Event;
use crate::trust::scripts::{self, Resolution};
use crate::trust::{Definition, Runs};

use super::load::{Action, ActionKind, Group};
use super::matching::Match;
use super::{DIALECT, Peen};

/// Every action, file by file (layer order), group by group; with an
/// event, relative paths resolve where its actions run.
pub fn definitions(cfg: &Peen, event: Option<&Event>) -> Vec<Definition> {
    let run_dir = event.map(|e| cfg.cwd_for(e));
    let run_dir = run_dir.as_deref();
    cfg.files()
        .iter()
        .flat_map(|file| {
            file.groups.iter().flat_map(move |group| {
                group
                    .actions
                    .iter()
                    .map(move |action| definition(cfg, &file.path, group, action, run_dir))
            })
        })
        .collect()
}

/// One action as trust sees it; a relative program resolves against
/// `run_dir`, the agent's directory for this event (the workspace when
/// `None`), and the action's `workingDir` below it.
pub fn definition(
    cfg: &Peen,
    file: &Path,
    group: &Group,
    action: &Action,
    run_dir: Option<&Path>,
) -> Definition {
    let workspace = cfg.options().workspace.clone();
    let needs_approval = match (&cfg.options().config_dir, &workspace) {
        (Some(config), _) if file.starts_with(config) => false,
        (_, Some(ws)) => file.starts_with(ws),
        _ => false,
    };
    let mut base = run_dir.map(Path::to_path_buf).or_else(|| workspace.clone());
    let mut settings = std::collections::BTreeMap::new();
    if let ActionKind::Command(spec) = &action.kind {
        if let Some(dir) = &spec.working_dir {
            base = base.map(|b| b.join(dir));
            settings.insert("workingDir".to_owned(), dir.clone());
        }
        if !spec.environment.is_empty() {
            let shown: Vec<String> = spec
                .environment
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            settings.insert("environment".to_owned(), shown.join("\n"));
        }
    }
    let how = Resolution {
        base,
        vars: Vec::new(),
        project: workspace,
    };
    let text = |of: &str, text: &str| Runs::Text {
        of: of.to_owned(),
        text: text.to_owned(),
    };
    let (runs, scripts) = match &action.kind {
        ActionKind::Command(spec) => (
            Runs::Exec {
                program: spec.command.clone(),
                args: spec.args.clone(),
            },
            scripts::in_exec(&spec.command, &spec.args, &how),
        ),
        ActionKind::Inject(t) => (text("inject", t), Vec::new()),
        ActionKind::Deny(t) => (text("deny", t), Vec::new()),
        ActionKind::EmitEvent(spec) => (text("emitEvent", &format!("{spec:?}")), Vec::new()),
    };
    let matcher = [group.matcher.as_ref(), action.when.as_ref()]
        .iter()
        .map(|m| m.map(describe).unwrap_or_default())
        .collect::<Vec<_>>();
    Definition {
        dialect: DIALECT.to_owned(),
        event: group.event.name(),
        hook: format!("{}/{}", group.name, action.name),
        source: action.source.clone(),
        needs_approval,
        matcher: (!matcher.iter().all(String::is_empty))
            .then(|| format!("match {} when {}", matcher[0], matcher[1])),
        runs,
        scripts,
        settings,
    }
}

/// A `match` or `when`, as its written parts.
fn describe(m: &Match) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &m.tool {
        parts.push(format!("tool={t}"));
    }
    if let Some(r) = &m.root {
        parts.push(format!("root={r}"));
    }
    if let Some(p) = &m.path {
        parts.push(format!("path={}", p.glob()));
    }
    if let Some(e) = &m.extensions {
        parts.push(format!("extensions={}", e.join(",")));
    }
    for (pointer, _, check) in &m.input {
        if let Some(e) = check.exists {
            parts.push(format!("input{pointer} exists={e}"));
        }
        if let Some(v) = &check.equals {
            parts.push(format!("input{pointer} equals={v}"));
        }
        if let Some(r) = &check.regex {
            parts.push(format!("input{pointer} regex={}", r.as_str()));
        }
    }
    format!("{{{}}}", parts.join(" "))
}
