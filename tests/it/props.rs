//! Property tests for the matcher and the level-merging rules.

use std::path::Path;

use proptest::prelude::*;

use latch::dialect::poolside::events::PoolEvent;
use latch::dialect::poolside::load::{FileConfig, Level, load_file};
use latch::dialect::poolside::merge::merge;
use latch::matcher::{NameIndex, NameMatcher};

fn name() -> impl Strategy<Value = String> {
    "[a-c_]{1,3}"
}

proptest! {
    /// A pipe list matches exactly its members, never a substring.
    #[test]
    fn pipe_lists_match_exactly_their_members(names in prop::collection::vec(name(), 1..4), probe in name()) {
        let m = NameMatcher::parse(&names.join("|")).unwrap();
        prop_assert_eq!(m.matches(&probe), names.contains(&probe));
    }

    /// A regex matches the whole name: `p.*` matches exactly the names
    /// starting with `p`.
    #[test]
    fn regexes_are_anchored(prefix in name(), probe in "[a-c_]{0,6}") {
        let m = NameMatcher::parse(&format!("{prefix}.*")).unwrap();
        prop_assert_eq!(m.matches(&probe), probe.starts_with(&prefix));
    }

    /// The folded index selects exactly what the matchers select one by one,
    /// in configuration order.
    #[test]
    fn the_index_agrees_with_the_matchers(
        patterns in prop::collection::vec(prop_oneof![
            Just("*".to_owned()), name(), (name(), name()).prop_map(|(a, b)| format!("{a}|{b}")),
            name().prop_map(|n| format!("{n}.*")), name().prop_map(|n| format!(".*{n}")),
        ], 0..12),
        probe in name(),
    ) {
        let ms: Vec<NameMatcher> = patterns.iter().map(|p| NameMatcher::parse(p).unwrap()).collect();
        let idx = NameIndex::build(ms.iter().enumerate());
        let expected: Vec<usize> = ms.iter().enumerate().filter(|(_, m)| m.matches(&probe)).map(|(i, _)| i).collect();
        prop_assert_eq!(idx.select(&probe), expected);
    }

    /// Merging levels: the result is the concatenation in level order, where
    /// a name already present takes the earlier position.
    #[test]
    fn merging_follows_the_named_replacement_rule(
        levels in prop::collection::vec(prop::collection::vec(prop::option::of("[xyz]"), 0..4), 1..4),
    ) {
        let mut configs = Vec::new();
        let mut model: Vec<(Option<String>, String)> = Vec::new();
        for (li, hooks) in levels.iter().enumerate() {
            let level = [Level::User, Level::Project, Level::Local, Level::Flag][li];
            let mut yaml = "hooks:\n  Stop:\n".to_owned();
            for (hi, name) in hooks.iter().enumerate() {
                let cmd = format!("c{li}{hi}");
                match name {
                    Some(n) => yaml.push_str(&format!("    - {{name: {n}, command: {cmd}}}\n")),
                    None => yaml.push_str(&format!("    - {{command: {cmd}}}\n")),
                }
                match name.as_ref().and_then(|n| model.iter().position(|(m, _)| m.as_ref() == Some(n))) {
                    Some(pos) => model[pos] = (name.clone(), cmd),
                    None => model.push((name.clone(), cmd)),
                }
            }
            let (cfg, _) = load_file(Path::new("s.yaml"), level, &yaml);
            configs.push(cfg);
        }
        let merged = merge(configs, &mut Vec::new());
        let got: Vec<String> = merged.hooks.get(&PoolEvent::Stop).map(|hs| hs.iter().map(|h| h.command.clone()).collect()).unwrap_or_default();
        let want: Vec<String> = model.into_iter().map(|(_, c)| c).collect();
        prop_assert_eq!(got, want);
    }

    /// Loading never panics, whatever the text, in any dialect.
    #[test]
    fn loading_arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let (_cfg, _diags): (FileConfig, _) = load_file(Path::new("s.yaml"), Level::Project, &text);
        let _ = latch::dialect::peen::load::load_file(Path::new("/w/.agents/hooks.yaml"), &text);
        if let Ok(node) = latch::config::json::parse(&text) {
            let _ = latch::dialect::evener::load::load_config(&node, Path::new("h.json"), "p", Path::new("/p"));
        }
    }

    /// Peen-shaped YAML with arbitrary values never panics the strict loader.
    #[test]
    fn peen_files_with_arbitrary_values_never_panic(
        event in "[a-zA-Z]{1,14}", field in "[a-zA-Z]{1,10}", value in "\\PC{0,30}",
    ) {
        let yaml = format!("version: 1\n{event}:\n  - match: {{{field}: {value:?}}}\n    actions:\n      - {{type: command, command: x, {field}: {value:?}}}\n");
        let _ = latch::dialect::peen::load::load_file(Path::new("/w/.agents/hooks.yaml"), &yaml);
    }

    /// The Go duration parser never panics and never overflows.
    #[test]
    fn go_durations_never_panic(text in "[-+]?([0-9]{0,25}(\\.[0-9]{0,25})?(ns|us|µs|ms|s|m|h|d)?){0,4}") {
        if let Ok(n) = latch::config::duration::parse_go_duration(&text) {
            prop_assert_eq!(latch::config::duration::parse_go_duration(&format!("{n}ns")), Ok(n));
        }
    }
}

proptest! {
    /// Claude Code's first-line check, over a hook's stdout as it arrives:
    /// every prefix short of the first `}` waits, and once the whole
    /// `{"async":true}` line is there the hook goes, whatever follows.
    #[test]
    fn the_async_first_line_is_decided_at_its_closing_brace(
        padding in "[ \t]{0,3}",
        extra in prop::option::of("[a-z]{1,5}"),
        rest in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        use latch::dialect::claude::judge::first_line;
        use latch::run::FirstLine;
        let line = match &extra {
            Some(key) => format!("{padding}{{\"{key}\":1,\"async\":true}}"),
            None => format!("{padding}{{\"async\":true}}{padding}"),
        };
        let mut stdout = line.clone().into_bytes();
        stdout.push(b'\n');
        stdout.extend_from_slice(&rest);
        let brace = line.find('}').expect("a brace");
        for end in 0..=stdout.len() {
            let got = first_line(&stdout[..end]);
            if end <= brace {
                prop_assert_eq!(got, FirstLine::Wait);
            } else {
                prop_assert!(matches!(got, FirstLine::Detach(_)), "{:?} at {}", got, end);
            }
        }
    }

    /// The check never panics, and detaches only for an object whose
    /// `async` is `true`: any bytes, after a first line that may start
    /// like one.
    #[test]
    fn the_async_first_line_check_takes_any_bytes(
        start in prop::sample::select(vec!["", "{\"async\":true}", "{\"async\":true", "{\"async\":", "{"]),
        separator in prop::sample::select(vec!["", "\n", " \n", "}\n"]),
        bytes in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        use latch::dialect::claude::judge::first_line;
        use latch::run::FirstLine;
        let mut stdout = start.as_bytes().to_vec();
        stdout.extend_from_slice(separator.as_bytes());
        stdout.extend_from_slice(&bytes);
        if let FirstLine::Detach(_) = first_line(&stdout) {
            let line = stdout.split(|&b| b == b'\n').next().unwrap_or_default();
            let value: serde_json::Value =
                serde_json::from_str(String::from_utf8_lossy(line).trim()).expect("JSON");
            prop_assert_eq!(&value["async"], &serde_json::Value::Bool(true));
        }
    }
}
