//! The reading of one file's text into groups and handlers: the
//! file's shape, its events, their matcher groups.

use super::*;
use handler::js_string;
use settings::MANAGED_IGNORES;

pub(super) struct Loader<'a> {
    pub(super) path: &'a Path,
    pub(super) scope: Scope,
    /// Problems that make Claude Code drop the file.
    pub(super) problems: Vec<Diagnostic>,
    /// Warnings and notes; the file still loads.
    pub(super) notes: Vec<Diagnostic>,
    pub(super) budget: PatternBudget,
    /// Managed settings whose `hooks` Claude Code ignores.
    pub(super) hooks_dropped: bool,
    /// Under the event being read, a wrong entry or matcher group is
    /// dropped alone, with a warning, instead of dropping the file (see
    /// [`guards`]).
    pub(super) lenient: bool,
}

impl Loader<'_> {
    pub(super) fn problem(&mut self, at: Position, message: String) {
        self.problems.push(
            Diagnostic::error(message)
                .in_file(self.path)
                .at(Some(at))
                .for_dialect(DIALECT),
        );
    }

    pub(super) fn note(&mut self, d: Diagnostic) {
        self.notes.push(d.in_file(self.path).for_dialect(DIALECT));
    }

    /// The problems found since `from`, made warnings: Claude Code drops
    /// only the `what` they are in (see [`guards`]).
    pub(super) fn forgive(&mut self, from: usize, what: &str, event: &str) {
        for d in self.problems.split_off(from) {
            self.notes.push(
                Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    message: format!(
                        "{}; Claude Code ignores this {what} and loads the rest",
                        d.message
                    ),
                    ..d
                }
                .for_event(event),
            );
        }
    }

    /// A part of `hooks` with the wrong shape: where Claude Code skips it
    /// alone (`alone`; `skips` says what it does) and the rest loads, a
    /// warning; elsewhere a problem, which drops the file.
    pub(super) fn wrong_shape(
        &mut self,
        alone: bool,
        at: Position,
        message: String,
        skips: &str,
        event: Option<String>,
    ) {
        if !alone {
            self.problem(at, message);
            return;
        }
        let d = Diagnostic::warning(format!("{message}; {skips}")).at(Some(at));
        self.note(match event {
            Some(e) => d.for_event(e),
            None => d,
        });
    }

    pub(super) fn root(&mut self, root: &Node, file: &mut LoadedFile) {
        if root.as_map().is_none() {
            self.problem(
                root.position,
                format!("the file must hold a JSON object, not {}", root.json_kind()),
            );
            return;
        }
        for key in UNAPPLIED_KEYS {
            if let Some(node) = root.get(key) {
                file.unapplied.push((key, node.position));
            }
        }

        if let Some(env) = root.get("env") {
            file.env_at = Some(env.position);
            self.env(env, file);
        }
        for key in ["disableAllHooks", "allowManagedHooksOnly"] {
            let Some(node) = root.get(key) else { continue };
            // 2.1.332 removes the `null` of a setting that restricts before
            // its check (`Fr`): `allowManagedHooksOnly`, not `disableAllHooks`.
            if node.value == Value::Null && super::settings_schema::null_is_removed(key) {
                continue;
            }
            match node.value {
                Value::Bool(b) if key == "disableAllHooks" => {
                    file.disable_all_hooks = Some(b);
                    file.disable_all_hooks_at = Some(node.position);
                }
                Value::Bool(b) => {
                    file.allow_managed_hooks_only = Some(b);
                    if self.scope != Scope::Managed {
                        self.note(
                            Diagnostic::warning(
                                "`allowManagedHooksOnly` only counts in managed settings; here it is ignored",
                            )
                            .at(Some(node.position)),
                        );
                    }
                }
                // 2.1.332 reads a wrong setting that restricts as its
                // restrictive value (`ISa`, `Pn`; recorded:
                // `m332_amho_str`).
                _ if self.scope == Scope::Managed && key == "allowManagedHooksOnly" => {
                    file.allow_managed_hooks_only = Some(true);
                    self.note(
                        Diagnostic::warning(format!(
                            "`allowManagedHooksOnly` must be a boolean, not {}; in managed settings Claude Code reads it as `true` (its restrictive value) until it is fixed",
                            node.json_kind()
                        ))
                        .at(Some(node.position)),
                    );
                }
                // Managed settings drop a bad setting alone (see
                // `settings_types`).
                _ if self.scope == Scope::Managed => self.note(
                    Diagnostic::warning(format!(
                        "`{key}` must be a boolean, not {}; {MANAGED_IGNORES}",
                        node.json_kind()
                    ))
                    .at(Some(node.position)),
                ),
                _ => self.problem(
                    node.position,
                    format!("`{key}` must be a boolean, not {}", node.json_kind()),
                ),
            }
        }
        let Some(hooks) = root.get("hooks") else {
            // Events written at the top level are not read: a plugin's
            // hooks file copied without its `hooks` wrapper would load
            // nothing without a word.
            if let Some((name, _)) = root
                .as_map()
                .unwrap_or_default()
                .iter()
                .find(|(k, _)| ClaudeEvent::from_name(&k.scalar_text()).is_some())
            {
                self.note(
                    Diagnostic::warning(format!(
                        "`{}` is at the top level, where no hook is read: events go under `hooks` (`{{\"hooks\": {{\"{}\": [...]}}}}`), so none of this file's hooks loads",
                        name.scalar_text(),
                        name.scalar_text()
                    ))
                    .at(Some(name.position)),
                );
            }
            return;
        };
        // A plugin's hooks file may wrap its events: {"description", "hooks": {...}}.
        let hooks = match self.scope {
            Scope::Plugin => plugin_events(root).unwrap_or(hooks),
            _ => hooks,
        };
        // A settings file's `hooks` is cleaned before Claude Code checks the
        // file: a `hooks` that is not an object, an event that is not an
        // array and an unknown event are dropped with a warning, and the
        // rest of the file loads (recorded: `r13_settings_event_*`,
        // `r13_settings_hooks_*`, `r13_settings_unknown_event_*`). A
        // plugin's hooks file is checked as it is.
        let settings = self.scope != Scope::Plugin;
        // What 2.1.332's search for guard hooks drops (`Tr`, `N4s`): the
        // file, or in managed settings the file's `hooks`.
        let searched = settings;
        let Some(events) = hooks.as_map() else {
            use super::settings_schema::guard_search;
            let message = format!(
                "`hooks` must be an object of events, not {}",
                hooks.json_kind()
            );
            // A list that may hold hooks (an object, a matcher group or a
            // guard anywhere in it) is kept, and fails the file (2.1.332,
            // `Tr`).
            let holds = |items: &[Node]| {
                items.iter().any(|i| i.as_map().is_some())
                    || guard_search::in_list(hooks)
                    || guard_search::deep_null(hooks)
            };
            let kept = searched && hooks.as_seq().is_some_and(holds);
            self.wrong_shape(
                settings && !kept,
                hooks.position,
                message,
                "Claude Code ignores it and loads the rest of the file",
                None,
            );
            return;
        };
        for (name, groups) in events {
            let name_text = name.scalar_text();
            let event = ClaudeEvent::from_name(&name_text);
            if event.is_none() {
                let hint = closest(&name_text, ClaudeEvent::ALL.iter().map(|e| e.as_str()))
                    .map(|c| format!("did you mean `{c}`?"));
                let d = Diagnostic::warning(format!(
                    "unknown event `{name_text}`; Claude Code skips it and loads the rest"
                ));
                let d = match hint {
                    Some(h) => d.with_hint(h),
                    None => d,
                };
                self.note(d.at(Some(name.position)).for_event(name_text.clone()));
                // 2.1.332 keeps an unknown event that seems to hold guard
                // hooks, and it fails the file (`Tr`).
                if searched
                    && super::settings_schema::guard_search::holds_guards(
                        groups,
                        3,
                        groups.as_seq().is_none(),
                        false,
                        false,
                    )
                {
                    self.problem(
                        name.position,
                        format!("unknown event `{name_text}` seems to hold PreToolUse, PermissionRequest or PreSkillShellCommand hooks"),
                    );
                }
                if settings {
                    continue;
                }
            }
            let guard = guards(event);
            let Value::Seq(items) = &groups.value else {
                let message = format!(
                    "`{name_text}` must be an array of matcher groups, not {}",
                    groups.json_kind()
                );
                // Under a guard event a wrong list drops the file (a
                // settings file's `null` only the event: 2.1.332,
                // `drift_guard_event_object_env`); under any other it drops
                // the event alone, in a plugin too. In managed settings what
                // would drop the file drops its `hooks` (2.1.332:
                // `r14k_m_event_object`, `m332_pre_null`, `m332_stop_object`).
                let event_alone = if guard {
                    settings && groups.value == Value::Null
                } else {
                    // One that seems to hold guard hooks drops the file
                    // (2.1.332, `Tr`).
                    !(searched
                        && super::settings_schema::guard_search::holds_guards(
                            groups, 3, false, false, false,
                        ))
                };
                self.wrong_shape(
                    event_alone,
                    groups.position,
                    message,
                    "Claude Code ignores this event's hooks and loads the rest",
                    Some(name_text.clone()),
                );
                continue;
            };
            self.lenient = !guard;
            for g in items {
                // A group that seems to hold guard hooks where a matcher
                // group was expected drops the file (2.1.332, `N4s`).
                if searched
                    && super::settings_schema::guard_search::holds_guards(g, 3, false, false, false)
                {
                    self.problem(
                        g.position,
                        format!("this matcher group of `{name_text}` seems to hold PreToolUse, PermissionRequest or PreSkillShellCommand hooks where they are not read"),
                    );
                    continue;
                }
                let from = self.problems.len();
                match self.group(g, event, &name_text) {
                    Some(group) => file.groups.push(group),
                    None if self.lenient => self.forgive(from, "matcher group", &name_text),
                    None => {}
                }
            }
            self.lenient = false;
        }
    }

    /// The `env` object. Claude Code's schema turns each value into a
    /// string (`z.coerce.string()`, JavaScript's `String(value)`), so `8000`
    /// is `"8000"`, `true` is `"true"` and `null` is `"null"`.
    pub(super) fn env(&mut self, env: &Node, file: &mut LoadedFile) {
        // Not an object: the settings check drops the file.
        let Some(vars) = env.as_map() else {
            return;
        };
        for (name, value) in vars {
            let name = name.scalar_text();
            let v = js_string(value);
            if !name.is_empty() && !name.contains(['=', '\0']) && !v.contains('\0') {
                if matches!(value.value, Value::Map(_) | Value::Seq(_)) {
                    self.note(
                        Diagnostic::warning(format!(
                            "`env.{name}` is {}, which Claude Code sets as the text {v:?}",
                            value.json_kind()
                        ))
                        .at(Some(value.position)),
                    );
                }
                file.env.push((name, v));
            } else {
                self.note(
                    Diagnostic::warning(format!(
                        "`env.{name}` cannot be an environment variable (an empty name, `=` or a NUL byte); latch leaves it out"
                    ))
                    .at(Some(value.position)),
                );
            }
        }
    }

    pub(super) fn group(
        &mut self,
        g: &Node,
        event: Option<ClaudeEvent>,
        event_name: &str,
    ) -> Option<Group> {
        if g.as_map().is_none() {
            self.problem(
                g.position,
                format!(
                    "a matcher group of `{event_name}` must be an object, not {}",
                    g.json_kind()
                ),
            );
            return None;
        }
        let matcher_text = match g.get("matcher") {
            None => None,
            Some(m) => match m.as_str() {
                Some(s) => Some(s.to_owned()),
                None => {
                    self.problem(
                        m.position,
                        format!("`matcher` must be a string, not {}", m.json_kind()),
                    );
                    return None;
                }
            },
        };
        if let Some(misplaced) = g.get("if") {
            self.note(
                Diagnostic::warning(
                    "`if` belongs on each handler: on a matcher group it is not read, so the group's hooks run for every call its matcher takes",
                )
                .at(Some(misplaced.position))
                .for_event(event_name),
            );
        }
        let at = g.get("matcher").map_or(g.position, |m| m.position);
        // A FileChanged matcher does two things in Claude Code (read from
        // its 2.1.197 code): split on `|`, it names the files watched from
        // the session's start (recorded: `r3_file_changed`); and it selects
        // groups like any matcher, tested against the changed file's name
        // with the narrow word set, so `.envrc` is a regex there.
        if event == Some(ClaudeEvent::FileChanged)
            && let Some(list) = matcher_text.as_deref()
        {
            for n in list.split('|').map(str::trim) {
                if n.contains(['*', '?', '[', '(', '^', '$', '\\']) {
                    self.note(
                        Diagnostic::warning(format!(
                            "FileChanged matcher `{n}` is watched as a file named exactly so, and tested as a regular expression against a changed file's name"
                        ))
                        .at(Some(at))
                        .for_event(event_name),
                    );
                }
            }
        }
        // StopFailure and FileChanged take the narrower word set (see
        // `matcher::claude`'s header).
        let narrow = matches!(
            event,
            Some(ClaudeEvent::StopFailure | ClaudeEvent::FileChanged)
        );
        // A model-switch matcher loses the `[1m]`/`[2m]` suffix of each
        // name first (Claude Code 2.1.332's `gIr`).
        let tested = match event {
            Some(e) if e.is_model_switch() => matcher_text.as_deref().map(model_matcher),
            _ => matcher_text.clone(),
        };
        let parsed = ClaudeMatcher::parse_with(
            tested.as_deref(),
            if narrow {
                WordSet::Narrow
            } else {
                WordSet::Tools
            },
            &mut self.budget,
        );
        let matcher = match parsed {
            Ok(m) => {
                for advice in m.warnings() {
                    self.note(
                        Diagnostic::warning(advice)
                            .at(Some(at))
                            .for_event(event_name),
                    );
                }
                Matcher::Valid(m)
            }
            Err(why) => {
                let why = why.to_string();
                self.note(
                    Diagnostic::warning(format!("invalid matcher: {why}; the group never runs"))
                        .at(Some(at))
                        .for_event(event_name),
                );
                Matcher::Invalid(why)
            }
        };
        let handlers = match g.get("hooks") {
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => {
                let mut handlers = Vec::new();
                for h in items {
                    let from = self.problems.len();
                    match self.handler(h) {
                        Some(handler) => handlers.push(handler),
                        None if self.lenient => self.forgive(from, "entry", event_name),
                        None => {}
                    }
                }
                handlers
            }
            Some(other) => {
                self.problem(
                    other.position,
                    format!(
                        "`hooks` of a matcher group must be an array, not {}",
                        other.json_kind()
                    ),
                );
                return None;
            }
            None => {
                self.problem(
                    g.position,
                    "a matcher group needs `hooks`, an array of handlers".to_owned(),
                );
                return None;
            }
        };
        Some(Group {
            event,
            event_name: event_name.to_owned(),
            matcher_text,
            matcher,
            handlers,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(g.position),
            },
        })
    }
}
