//! The checks of a whole settings file: every setting's type, `hooks`
//! event by event, and what managed settings keep.

use std::collections::{HashMap, HashSet};

use super::*;

/// Whether a managed file still sets something once its `hooks` and its
/// `wrong` settings are left out (2.1.332's `oyt`): a setting other than
/// `managedSourcesBehavior` and `wslInheritsWindowsSettings` whose value
/// is not an object holding only such objects (`{}`, `{"a": {}}`). A
/// `disableAllHooks` or `allowManagedHooksOnly` that is not a boolean
/// sets nothing (the first is ignored, the second only stands in for
/// `true`).
fn policy_left(cleaned: &Node, wrong: &[String]) -> bool {
    fn hollow(node: &Node) -> bool {
        node.as_map()
            .is_some_and(|entries| entries.iter().all(|(_, v)| hollow(v)))
    }
    let Some(entries) = cleaned.as_map() else {
        return false;
    };
    entries.iter().any(|(k, v)| {
        let name = k.scalar_text();
        let switch = matches!(name.as_str(), "disableAllHooks" | "allowManagedHooksOnly");
        let set = !switch || matches!(v.value, Value::Bool(_));
        let counted = !matches!(
            name.as_str(),
            "hooks" | "managedSourcesBehavior" | "wslInheritsWindowsSettings"
        );
        counted && set && !wrong.contains(&name) && !hollow(v)
    })
}

/// How a warning about a managed setting ends.
pub(super) const MANAGED_IGNORES: &str =
    "in managed settings Claude Code ignores this setting and keeps the others";

impl Loader<'_> {
    /// Every setting's type, as Claude Code checks a settings file before
    /// it reads anything of it (see [`super::settings_schema`]): a wrong
    /// one drops the whole file. Managed settings are checked with each
    /// setting on its own (Claude Code 2.1.332's `ISa`; recorded:
    /// `r14k_m_*`, `m332_*`): a wrong one is a warning and only that
    /// setting is dropped. Their `hooks` are read as a settings file's
    /// (see [`guards`]), but what drops a settings file drops only the
    /// managed file's `hooks`; when nothing else of it would apply, Claude
    /// Code does not start (`m332_pre_bad_hooks_only`), which latch says
    /// with an error.
    pub(super) fn settings_types(&mut self, root: &Node, file: &mut LoadedFile) {
        use super::settings_schema::{check, clean, guard_search};
        let (cleaned, removed) = clean(root, self.scope == Scope::Managed);
        for r in removed {
            self.note(Diagnostic::warning(r.message).at(Some(r.at)));
        }
        let managed = self.scope == Scope::Managed && root.as_map().is_some();
        // 2.1.332 (`bwe`): a guard hook anywhere but under `hooks` drops the
        // file; managed settings say so and load it, `hooks` included
        // (`m332_guard_outside_hooks`, `m332_guard_under_setting`).
        if let Some(at) = guard_search::outside_hooks(root) {
            let message = "a PreToolUse, PermissionRequest or PreSkillShellCommand hook seems to be written here, outside `hooks`, where none is read";
            if managed {
                self.note(
                    Diagnostic::warning(format!(
                        "{message}; in managed settings Claude Code says so and loads the file, its `hooks` included"
                    ))
                    .at(Some(at)),
                );
            } else {
                self.problem(at, message.to_owned());
            }
        }
        // `hooks` is checked event by event: what only the schema rejects
        // drops the file (managed: its `hooks`) under a guard event, and
        // itself elsewhere (see `guards`).
        if self.problems.is_empty()
            && let Some(events) = cleaned.get("hooks")
        {
            self.hooks_by_event(events, file);
        }
        if managed && !self.problems.is_empty() {
            // Every problem the loader found is in `hooks` here.
            for d in std::mem::take(&mut self.problems) {
                self.notes.push(Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    message: format!(
                        "{}; in managed settings Claude Code ignores the file's `hooks` and keeps its other settings",
                        d.message
                    ),
                    ..d
                });
            }
            file.groups.clear();
            self.hooks_dropped = true;
        }
        // Checked by this loader with its own words, and `hooks` above.
        let skip = ["disableAllHooks", "allowManagedHooksOnly", "hooks"];
        let mut wrong = Vec::new();
        for r in check(&cleaned, &skip) {
            if !managed {
                self.problem(r.at, r.message);
                continue;
            }
            self.note(
                Diagnostic::warning(format!("{}; {MANAGED_IGNORES}", r.message)).at(Some(r.at)),
            );
            if r.setting == "env" {
                file.env.clear();
            }
            wrong.push(r.setting);
        }
        if managed && self.hooks_dropped && !policy_left(&cleaned, &wrong) {
            file.dropped = true;
            file.env.clear();
            self.notes.push(
                Diagnostic::error(
                    "Claude Code 2.1.332 does not start with this managed settings file: its `hooks` cannot be loaded because of a PreToolUse, PermissionRequest or PreSkillShellCommand hook, and it sets nothing else; latch loads the other files",
                )
                .in_file(self.path)
                .at(Some(root.position))
                .for_dialect(DIALECT),
            );
        }
    }

    /// The schema's check of `hooks` (what the loader does not read, such
    /// as `rewakeMessage`), one event at a time: a rejection under a guard
    /// event is a problem, which drops the file (in managed settings its
    /// `hooks`); under another event each
    /// wrong entry is dropped alone with a warning, or its matcher group
    /// when the group itself is wrong (Claude Code 2.1.332, `N4s`). What the
    /// loader dropped already, and warned of, is not said twice.
    pub(super) fn hooks_by_event(&mut self, events: &Node, file: &mut LoadedFile) {
        let Some(events) = events.as_map() else {
            return;
        };
        // The loaded groups by event and place, and what is dropped.
        let loaded: HashMap<(&str, Position), usize> = file
            .groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some(((g.event_name.as_str(), g.source.position?), i)))
            .collect();
        let mut gone_groups = HashSet::new();
        let mut gone_handlers = HashSet::new();
        for (name, value) in events {
            let event_name = name.scalar_text();
            if guards(ClaudeEvent::from_name(&event_name)) {
                let one = Node {
                    value: Value::Map(vec![(
                        Node {
                            value: Value::Str("hooks".to_owned()),
                            position: name.position,
                        },
                        Node {
                            value: Value::Map(vec![(name.clone(), value.clone())]),
                            position: value.position,
                        },
                    )]),
                    position: value.position,
                };
                for r in super::settings_schema::check(&one, &[]) {
                    self.problem(r.at, r.message);
                }
                continue;
            }
            let Some(groups) = value.as_seq() else {
                continue;
            };
            for (index, g) in groups.iter().enumerate() {
                // What the loader dropped already, and warned of, is not
                // looked for.
                let Some(&at) = loaded.get(&(event_name.as_str(), g.position)) else {
                    continue;
                };
                let check = super::settings_schema::check_group(&event_name, index, g);
                let mut dropped = Vec::new();
                if let Some(r) = check.group {
                    gone_groups.insert(at);
                    dropped.push((r, "matcher group"));
                } else {
                    let entries = g.get("hooks").and_then(Node::as_seq).unwrap_or_default();
                    for (i, r) in check.entries {
                        let Some(entry) = entries.get(i) else {
                            continue;
                        };
                        if file.groups[at]
                            .handlers
                            .iter()
                            .any(|h| h.source.position == Some(entry.position))
                        {
                            gone_handlers.insert((at, entry.position));
                            dropped.push((r, "entry"));
                        }
                    }
                }
                for (r, what) in dropped {
                    self.note(
                        Diagnostic::warning(format!(
                            "{}; Claude Code ignores this {what} and loads the rest",
                            r.message
                        ))
                        .at(Some(r.at))
                        .for_event(event_name.clone()),
                    );
                }
            }
        }
        // Dropped at once, each list walked once (a file may hold many).
        for (at, group) in file.groups.iter_mut().enumerate() {
            group.handlers.retain(|h| {
                h.source
                    .position
                    .is_none_or(|p| !gone_handlers.contains(&(at, p)))
            });
        }
        let mut at = 0;
        file.groups.retain(|_| {
            at += 1;
            !gone_groups.contains(&(at - 1))
        });
    }
}
