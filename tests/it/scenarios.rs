//! `latch test`: latch's own scenarios pass (dogfooding), and failures show
//! a diff and fail the command.

use crate::util::latch;

/// A scenario file written into a fresh directory, and what `latch test`
/// answered for it.
struct Tested {
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
    code: Option<i32>,
    stdout: String,
}

/// Writes `text` as the scenario `name` and runs `latch test` on it.
fn test_scenario(name: &str, text: &str) -> Tested {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let out = latch().arg("test").arg(&file).output().unwrap();
    Tested {
        _dir: dir,
        file,
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

#[test]
fn latchs_own_scenarios_pass() {
    let out = latch()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["test", "tests/scenarios"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.ends_with("24 passed, 0 failed\n"), "{text}");
    assert!(!text.contains("FAIL"));
}

#[test]
fn a_failing_case_prints_a_diff_and_exits_1() {
    let t = test_scenario(
        "s.yaml",
        "dialect: poolside\nconfig:\n  files:\n    .poolside/settings.yaml: |\n      hooks:\n        PreToolUse:\n          - {name: g, matcher: shell, command: 'echo no >&2; exit 2'}\ncases:\n  - name: wrong on purpose\n    event: {event: tool_before, tool: {name: shell, input: {}}}\n    expect:\n      decision: proceed\n      reason_matches: '^yes'\n      runs: [{hook: g, status: ok}]\n  - name: right\n    event: {event: tool_before, tool: {name: read, input: {}}}\n    expect: {decision: proceed, runs: []}\n",
    );
    assert_eq!(t.code, Some(1));
    let text = t.stdout.as_str();
    // The actual run record carries a duration, so only its shape is pinned.
    let got_run = text
        .lines()
        .nth(4)
        .and_then(|l| l.split("got ").nth(1))
        .unwrap_or("?");
    assert!(got_run.starts_with("{\"hook\":\"g\""), "{got_run}");
    assert!(got_run.contains("\"status\":\"blocked\""), "{got_run}");
    assert_eq!(
        text,
        format!(
            "{}\n  FAIL  wrong on purpose\n        decision: expected \"proceed\", got \"deny\"\n        reason_matches: `^yes` does not match \"no\"\n        runs[0]: expected {{\"hook\":\"g\",\"status\":\"ok\"}} (as a subset), got {}\n  ok    right\n1 passed, 1 failed\n",
            t.file.display(),
            got_run
        )
    );
}

#[test]
fn an_unreadable_scenario_exits_3() {
    let t = test_scenario("bad.yaml", "dialect: nope\n");
    assert_eq!(t.code, Some(3));
    // At the value, line 1 column 10.
    assert!(
        t.stdout.contains(&format!(
            "{}:1:10: `dialect` must be poolside, evener, peen or claude",
            t.file.display()
        )),
        "{}",
        t.stdout
    );
}

#[test]
fn a_directory_without_scenarios_exits_3() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "not a scenario").unwrap();
    let out = latch().arg("test").arg(d.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("error: no scenario (`*.yaml`) found in"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_misspelled_case_key_or_a_mistyped_list_fails_instead_of_passing() {
    let t = test_scenario(
        "s.yaml",
        "dialect: poolside\nconfig:\n  files:\n    .poolside/settings.yaml: \"hooks: {}\\n\"\ncases:\n  - name: typo\n    event: {event: stop}\n    expects: {decision: deny}\n  - name: mapping instead of list\n    event: {event: stop}\n    expect: {runs: {hook: x}}\n",
    );
    assert_eq!(t.code, Some(1));
    let text = t.stdout.as_str();
    // Each problem names where it is: the key, the case, the value.
    let f = t.file.display();
    assert!(text.contains(&format!("  FAIL  typo\n        {f}:8:5: expects: not a case key (name, event, expect)\n        {f}:6:5: expect: missing; a case must expect something\n")), "{text}");
    assert!(
        text.contains(&format!(
            "  FAIL  mapping instead of list\n        {f}:11:20: runs: must be a list\n"
        )),
        "{text}"
    );
}

#[test]
fn a_wrong_expectation_key_an_invalid_regex_and_an_invalid_event_name_their_line_and_column() {
    let t = test_scenario(
        "s.yaml",
        "dialect: poolside\nconfig:\n  files:\n    .poolside/settings.yaml: \"hooks: {}\\n\"\ncases:\n  - name: key\n    event: {event: stop}\n    expect:\n      decison: deny\n  - name: regex\n    event: {event: stop}\n    expect:\n      reason_matches: \"(\"\n  - name: event\n    event: {event: nope}\n    expect: {decision: proceed}\n",
    );
    assert_eq!(t.code, Some(1));
    let text = t.stdout.as_str();
    let f = t.file.display();
    assert!(
        text.contains(&format!(
            "  FAIL  key\n        {f}:9:7: decison: not an expectation (see docs/testing.md)\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  FAIL  regex\n        {f}:13:23: reason_matches: must be a valid regex"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  FAIL  event\n        {f}:15:12: event: not a valid event:"
        )),
        "{text}"
    );
}

#[test]
fn a_configuration_that_does_not_load_stops_the_scenario() {
    let t = test_scenario(
        "s.yaml",
        "dialect: peen\nconfig:\n  files:\n    .agents/hooks.yaml: |\n      version: 1\n      preToolUse:\n        - actions: [{type: command, command: x, timeout: 0s}]\ncases:\n  - event: {event: stop}\n    expect: {decision: proceed}\n",
    );
    assert_eq!(t.code, Some(3));
    let text = t.stdout.as_str();
    assert!(
        text.contains("hooks file skipped: `timeout` must be positive"),
        "{text}"
    );
    let t = test_scenario(
        "s.yaml",
        "dialect: poolside\nconfig: {path: ./nowhere}\ncases: []\n",
    );
    assert_eq!(t.code, Some(3));
    assert!(t.stdout.contains("is not a directory"), "{}", t.stdout);
}
