//! Any `if` rule and any command: parsing the rule, splitting the command
//! and matching never panic; the bare tool always matches; and every simple
//! command the split reports is matched by an exact rule written from it
//! (so the split and the rule syntax agree on quoting and escapes).
//!
//! The input is text in two parts separated by a NUL byte: the rule and
//! the command (also used as a file path, a Grep pattern and a URL).
#![no_main]

use std::path::Path;

use latch::permission_rule::{Commands, Rule, ToolInput};
use latch::text::js_trim;
use libfuzzer_sys::fuzz_target;

/// A rule's content that stands for `text` exactly: wildcard escapes
/// first (`\` and `*`), then the rule syntax's (`\`, `(`, `)`).
fn exact_rule(text: &str) -> String {
    let wild = text.replace('\\', "\\\\").replace('*', "\\*");
    let content = wild
        .replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)");
    format!("Bash({content})")
}

fuzz_target!(|text: &str| {
    let mut parts = text.splitn(2, '\0');
    let (Some(rule), Some(command)) = (parts.next(), parts.next()) else {
        return;
    };
    let input = serde_json::json!({
        "command": command,
        "file_path": command,
        "pattern": command,
        "url": command,
    });
    let project = Path::new("/ws");
    let home = Some(Path::new("/home/u"));
    let bash = ToolInput::with_home("Bash", &input, project, home);
    if let Ok(rule) = Rule::parse(rule) {
        for tool in [
            "Bash",
            "Write",
            "Edit",
            "Read",
            "Grep",
            "WebFetch",
            "mcp__s__t",
        ] {
            let _ = rule.matches_input(&ToolInput::with_home(tool, &input, project, home));
        }
        let _ = rule.matches_input(&bash);
    }
    let Ok(bare) = Rule::parse("Bash") else {
        panic!("`Bash` parses");
    };
    assert!(bare.matches_input(&bash).runs());
    if let Some(Commands::Exact(list) | Commands::Approximate { commands: list, .. }) =
        bash.commands()
    {
        for c in list {
            if c.is_empty() || js_trim(c) != c || c.ends_with(":*") {
                continue;
            }
            let text = exact_rule(c);
            let Ok(rule) = Rule::parse(&text) else {
                continue; // over latch's pattern limits
            };
            assert!(rule.matches_input(&bash).runs(), "{text} on {command:?}");
        }
    }
});
