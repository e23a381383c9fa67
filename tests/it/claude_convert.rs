//! `latch convert --from claude`: every handler key the targets cannot
//! express is part of the report, at its own position, and a handler that
//! would run differently is not converted.

use serde_json::{Value, json};

use crate::claude_util::Claude;
use crate::convert::{convert, position_of};

/// The settings of a project whose one PreToolUse group has a handler per
/// key the converted hooks lose (one per line, so each key has its own
/// position).
const KEYED: &str = concat!(
    "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [\n",
    "  {\"type\": \"command\", \"command\": \"./rewake.sh\", \"asyncRewake\": true},\n",
    "  {\"type\": \"command\", \"command\": \"Write-Output no; exit 2\", \"shell\": \"powershell\"},\n",
    "  {\"type\": \"command\", \"command\": \"./bg.sh\", \"async\": true},\n",
    "  {\"type\": \"command\", \"command\": \"./status.sh\", \"statusMessage\": \"Checking\", \"once\": true},\n",
    "  {\"type\": \"command\", \"command\": \"./bash.sh\", \"shell\": \"bash\"}\n",
    "]}]}}\n"
);

/// Where `"key"` is first written in [`KEYED`], as `LINE:COL`.
fn key_at(key: &str) -> String {
    let quoted = format!("\"{key}\"");
    KEYED
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find(&quoted).map(|c| format!("{}:{}", i + 1, c + 1)))
        .unwrap()
}

#[test]
fn claude_handler_keys_the_targets_lose_are_reported_at_their_keys() {
    let c = Claude::new();
    std::fs::write(c.project().join(".claude/settings.json"), KEYED).unwrap();
    for to in ["evener", "poolside", "peen", "claude"] {
        let (out, report) = convert("claude", to, &c.project());
        for (text, key, level) in [
            (
                "`asyncRewake` is dropped: in an interactive Claude Code session the hook runs in the background and its exit 2 wakes the model; the converted hook holds the event, and its decisions count",
                "asyncRewake",
                "warning",
            ),
            (
                "`shell: powershell` has no equivalent: converted hooks run their text with /bin/sh (or bash), not PowerShell; the handler is not converted",
                "shell",
                "warning",
            ),
            (
                "`async` is dropped: the converted hook holds the event, and its decisions count",
                "async",
                "warning",
            ),
            (
                "`statusMessage` is dropped (the text Claude Code shows while the hook runs; the targets show none)",
                "statusMessage",
                "note",
            ),
            (
                "`once` is dropped (latch ignores it, as Claude Code does in settings files)",
                "once",
                "note",
            ),
        ] {
            assert_eq!(position_of(&report, text), key_at(key), "to {to}: {text}");
            assert!(
                report.contains(&format!("{level}: {text}")),
                "to {to}: {report}"
            );
        }
        // `shell: bash` runs /bin/sh in Claude Code too: nothing is lost.
        assert!(!report.contains("`shell` "), "to {to}: {report}");
        // The PowerShell text is not converted into a POSIX shell hook; the
        // others are.
        assert!(!out.contains("Write-Output"), "to {to}: {out}");
        for script in ["./rewake.sh", "./bg.sh", "./status.sh", "./bash.sh"] {
            assert!(out.contains(script), "to {to}: {script} in {out}");
        }
    }
}

/// An `asyncRewake` handler's deny counts once converted: the report says
/// so because the converted hook now holds the event.
#[test]
fn a_converted_async_rewake_hook_blocks_and_the_report_says_so() {
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo no >&2; exit 2", "asyncRewake": true}]}]}}));
    let (out, report) = convert("claude", "poolside", &c.project());
    assert!(report.contains("`asyncRewake` is dropped"), "{report}");
    let project = c.root.path().join("converted");
    std::fs::create_dir_all(project.join(".poolside")).unwrap();
    std::fs::write(project.join(".poolside/settings.yaml"), &out).unwrap();
    let fired = crate::util::latch()
        .args(["fire", "--project"])
        .arg(&project)
        .arg("--home")
        .arg(c.home())
        .arg("--state-dir")
        .arg(c.root.path().join("state"))
        .write_stdin(
            serde_json::to_vec(&json!({"event": "tool_before",
                "tool": {"name": "shell", "input": {"cmd": "ls"}}}))
            .unwrap(),
        )
        .output()
        .unwrap();
    let outcome: Value = serde_json::from_slice(&fired.stdout).unwrap();
    assert_eq!(outcome["decision"], "deny", "{outcome}");
}

/// A plugin's inline manifest hooks are loaded from a rebuilt text, whose
/// positions mean nothing: a dropped key is reported at the manifest's
/// `hooks` value, where the handler is.
#[test]
fn keys_of_inline_manifest_hooks_are_reported_at_the_manifest_hooks() {
    let c = Claude::new();
    let manifest = concat!(
        "{\n",
        "  \"name\": \"inline\",\n",
        "  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [\n",
        "    {\"type\": \"command\", \"command\": \"./rewake.sh\", \"asyncRewake\": true}]}]}\n",
        "}\n"
    );
    c.write("inline/.claude-plugin/plugin.json", manifest);
    let (_, report) = convert("claude", "evener", &c.root.path().join("inline"));
    assert_eq!(
        position_of(&report, "`asyncRewake` is dropped"),
        "3:12",
        "{report}"
    );
}
