//! Any peen hooks file and any tool call: selecting and matching (tool,
//! root, path globs, extensions, JSON Pointer checks) never panic, and every
//! affected path is absolute and normalized, as matching assumes. Checks
//! that stream through the tool input's text agree with the same checks on
//! the parsed input.
//!
//! The input is text in three parts separated by NUL bytes: the hooks file,
//! the tool name, and the tool input as JSON (anything that is not JSON is
//! taken as a string). The event is a `tool_before`, and then every kind
//! that carries a tool, at the workspace `/ws`; seeds are in
//! `fuzz/seeds/peen_match`.
#![no_main]

use std::path::{Component, Path};

use latch::dialect::peen::events::PeenEvent;
use latch::dialect::peen::input::EventInput;
use latch::dialect::peen::load::load_file;
use latch::dialect::peen::matching::Subject;
use latch::dialect::peen::payload::{affected_paths, event_input};
use latch::{Event, EventKind, RawJson};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|text: &str| {
    let mut parts = text.splitn(3, '\0');
    let (Some(hooks), Some(tool), Some(input)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    let Ok(file) = load_file(Path::new("/ws/.agents/hooks.yaml"), hooks) else {
        return;
    };
    // The input as written (duplicate keys and spacing kept), and parsed.
    let raw: RawJson = serde_json::from_str(input)
        .unwrap_or_else(|_| RawJson::from_value(&Value::String(input.to_owned())));
    let value = raw.to_value();
    let cwd = Path::new("/ws");
    for kind in [
        EventKind::ToolBefore,
        EventKind::ToolAfter,
        EventKind::ToolFailure,
    ] {
        let mut event = Event::tool_before(tool, Value::Null).with_cwd(cwd);
        if let Some(t) = event.tool.as_mut() {
            t.input = raw.clone();
        }
        event.event = kind;
        if event.validate().is_err() {
            continue;
        }
        let paths = affected_paths(&event, cwd);
        for p in &paths {
            assert!(p.is_absolute(), "{}", p.display());
            assert!(
                !p.components()
                    .any(|c| matches!(c, Component::ParentDir | Component::CurDir)),
                "{}",
                p.display()
            );
        }
        for pe in PeenEvent::fired_by(&event, true) {
            let input = event_input(&pe, &event, cwd);
            let subject = Subject {
                tool: event.tool_name().filter(|_| pe.is_tool()),
                cwd,
                paths: &paths,
                input: &input,
            };
            let parsed = EventInput::value(value.clone());
            let parsed_subject = Subject {
                input: &parsed,
                ..subject
            };
            for g in file.groups.iter().filter(|g| g.event == pe) {
                for m in g
                    .matcher
                    .iter()
                    .chain(g.actions.iter().filter_map(|a| a.when.as_ref()))
                {
                    assert_eq!(m.matches(&subject), m.explain(&subject).is_ok());
                    if pe.is_tool() {
                        assert_eq!(m.matches(&subject), m.matches(&parsed_subject));
                    }
                }
            }
        }
    }
});
