//! Any text as an evener plugin manifest (`.claude-plugin/plugin.json`) in
//! a plugin directory that also has a `hooks/hooks.json`: loading the plugin
//! never panics, whatever `name` and `hooks` (a path, an inline object,
//! anything else) say, and the plugin always has a name.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use latch::dialect::evener::discover::load_plugin;
use libfuzzer_sys::fuzz_target;

/// One plugin directory per fuzzing process, rewritten at every input.
fn plugin_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("latch-fuzz-manifest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".claude-plugin")).expect("mkdir");
        std::fs::create_dir_all(dir.join("hooks")).expect("mkdir");
        std::fs::write(
            dir.join("hooks/hooks.json"),
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}"#,
        )
        .expect("write hooks.json");
        std::fs::write(
            dir.join("other.json"),
            r#"{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}"#,
        )
        .expect("write other.json");
        dir
    })
}

fuzz_target!(|text: &str| {
    let dir = plugin_dir();
    std::fs::write(dir.join(".claude-plugin/plugin.json"), text).expect("write manifest");
    let mut diags = Vec::new();
    let plugin = load_plugin(dir, &mut diags);
    assert!(!plugin.name.is_empty());
});
