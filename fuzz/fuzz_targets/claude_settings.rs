//! Any text as a Claude Code settings file and as a plugin's hooks file:
//! loading never panics; a file Claude Code would drop keeps no hooks and
//! says why; every diagnostic names the file.
#![no_main]

use std::path::{Path, PathBuf};

use latch::dialect::claude::load::{PluginInfo, Scope, load_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let plugin = PluginInfo {
        name: "fuzz".to_owned(),
        root: PathBuf::from("/plugin"),
        data: PathBuf::from("/data"),
    };
    for (path, scope, plugin) in [
        ("settings.json", Scope::Project, None),
        ("hooks.json", Scope::Plugin, Some(plugin)),
    ] {
        let (file, diagnostics) = load_text(text, Path::new(path), scope, plugin);
        if file.dropped {
            assert!(file.groups.is_empty());
            assert!(!diagnostics.is_empty(), "a dropped file says why");
        }
        for d in &diagnostics {
            assert_eq!(d.file.as_deref(), Some(Path::new(path)), "{d:?}");
        }
    }
});
