//! Combining settings levels: per event, lists concatenate from the least
//! to the most specific level; a named hook declared again replaces the
//! earlier declaration in its original position; unnamed hooks always add.

use std::collections::HashMap;

use crate::diag::Diagnostic;

use super::DIALECT;
use super::events::PoolEvent;
use super::load::{FileConfig, Hook};

/// The merged configuration.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    /// Hooks per event, in run order.
    pub hooks: HashMap<PoolEvent, Vec<Hook>>,
    /// The most specific level's `stop_hook_max_continuations`.
    pub max_continuations: Option<u32>,
}

/// Merges levels given least specific first.
pub fn merge(levels: Vec<FileConfig>, diags: &mut Vec<Diagnostic>) -> Merged {
    let mut out = Merged::default();
    // Where each named hook is in its event's list, so a redeclaration is
    // found without scanning the list (10,000 named hooks stay linear).
    let mut named: HashMap<(PoolEvent, String), usize> = HashMap::new();
    for level in levels {
        if level.max_continuations.is_some() {
            out.max_continuations = level.max_continuations;
        }
        for (event, hook) in level.hooks {
            let list = out.hooks.entry(event).or_default();
            let key = hook.name.clone().map(|n| (event, n));
            let earlier = key.as_ref().and_then(|k| named.get(k).copied());
            match earlier {
                Some(i) => {
                    if list[i].level == hook.level {
                        diags.push(
                            Diagnostic::warning(format!(
                                "hook `{}` is declared twice for `{event}` in the same file; the later declaration replaces the earlier one",
                                hook.label
                            ))
                            .in_file(&hook.source.file)
                            .at(hook.source.position)
                            .for_dialect(DIALECT)
                            .for_hook(hook.label.clone())
                            .for_event(event.to_string()),
                        );
                    }
                    let same_file = list[i].level == hook.level;
                    let mut earlier = std::mem::replace(&mut list[i], hook);
                    // A less specific level's declaration stands in for
                    // this one (trust); a repeat in the same file passes
                    // on what that one replaced.
                    list[i].replaced = if same_file {
                        earlier.replaced.take()
                    } else {
                        Some(Box::new(earlier))
                    };
                }
                None => {
                    if let Some(k) = key {
                        named.insert(k, list.len());
                    }
                    list.push(hook);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::dialect::poolside::load::{Level, load_file};

    fn level(level: Level, text: &str) -> FileConfig {
        let (cfg, diags) = load_file(Path::new("s.yaml"), level, text);
        assert!(diags.is_empty(), "{diags:?}");
        cfg
    }

    #[test]
    fn named_hooks_are_replaced_in_place_and_unnamed_hooks_add() {
        let user = level(
            Level::User,
            "hooks:\n  Stop:\n    - {name: a, command: a1}\n    - {command: u}\n    - {name: b, command: b1}\n",
        );
        let project = level(
            Level::Project,
            "hooks:\n  Stop:\n    - {command: u}\n    - {name: a, command: a2}\n",
        );
        let mut diags = Vec::new();
        let merged = merge(vec![user, project], &mut diags);
        let cmds: Vec<&str> = merged.hooks[&PoolEvent::Stop]
            .iter()
            .map(|h| h.command.as_str())
            .collect();
        assert_eq!(cmds, ["a2", "u", "b1", "u"]);
    }

    #[test]
    fn the_most_specific_cap_wins() {
        let a = level(Level::User, "hooks:\n  stop_hook_max_continuations: 5\n");
        let b = level(Level::Project, "hooks:\n  stop_hook_max_continuations: 0\n");
        let c = level(Level::Local, "hooks: {}\n");
        let merged = merge(vec![a, b, c], &mut Vec::new());
        assert_eq!(merged.max_continuations, Some(0));
    }
}
