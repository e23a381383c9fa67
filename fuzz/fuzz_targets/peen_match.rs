//! Any peen hooks file and any event: selecting and matching (tool, root,
//! path globs, extensions, JSON Pointer checks) never panic, and every
//! affected path is absolute and normalized, as matching assumes.
#![no_main]

use std::path::{Component, Path};

use latch::Event;
use latch::dialect::peen::events::PeenEvent;
use latch::dialect::peen::load::load_file;
use latch::dialect::peen::matching::Subject;
use latch::dialect::peen::payload::{affected_paths, event_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &[u8])| {
    let (text, event) = input;
    let Ok(file) = load_file(Path::new("/ws/.agents/hooks.yaml"), text) else {
        return;
    };
    let Ok(event) = serde_json::from_slice::<Event>(event) else {
        return;
    };
    if event.validate().is_err() {
        return;
    }
    let cwd = Path::new("/ws");
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
    for summarize in [false, true] {
        for pe in PeenEvent::fired_by(&event, summarize) {
            let input = event_input(&pe, &event, cwd);
            let subject = Subject {
                tool: event.tool_name().filter(|_| pe.is_tool()),
                cwd,
                paths: &paths,
                input: &input,
            };
            for g in file.groups.iter().filter(|g| g.event == pe) {
                let group = g.matcher.as_ref().map_or(Ok(()), |m| m.explain(&subject));
                for a in &g.actions {
                    if let Some(w) = &a.when {
                        assert_eq!(w.matches(&subject), w.explain(&subject).is_ok());
                    }
                }
                let _ = group;
            }
        }
    }
});
