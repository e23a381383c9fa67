//! The restart journal and debug logging, through the real binary.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::json;

use latch::Session;
use latch::journal::{Journal, Resolution, RunState};

use crate::peen_util::Layers;
use crate::util::{read_pid, wait_dead};

/// Runs a future of the library (session state, journal) to completion on
/// a current-thread runtime, as `latch fire` does.
pub fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}

/// Starts `latch fire` with the turn_start event, in the background.
fn spawn_turn_start(l: &Layers) -> std::process::Child {
    spawn_fire(l, &turn_start(l))
}

/// Starts `latch fire` with `event`, in the background.
fn spawn_fire(l: &Layers, event: &serde_json::Value) -> std::process::Child {
    spawn_with(l, event, Stdio::null)
}

/// Starts `latch fire` with `event` on stdin and `output` for its stdout and
/// stderr.
fn spawn_with(l: &Layers, event: &serde_json::Value, output: fn() -> Stdio) -> std::process::Child {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("latch"))
        .args(["fire", "--project"])
        .arg(l.ws())
        .arg("--home")
        .arg(l.root.path().join("home"))
        .arg("--state-dir")
        .arg(l.root.path().join("state"))
        .env_remove("PEEN_CONFIG_DIR")
        .stdin(Stdio::piped())
        .stdout(output())
        .stderr(output())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(event).unwrap())
        .unwrap();
    child
}

fn turn_start(l: &Layers) -> serde_json::Value {
    json!({"event": "turn_start", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "model": "m"})
}

#[test]
fn a_completed_opening_hook_is_reused_not_rerun() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo x >> runs; echo '{\\\"message\\\":\\\"ctx\\\"}'\"]}]\n",
    );
    let first = l.fire(&turn_start(&l));
    let second = l.fire(&turn_start(&l));
    assert_eq!(
        std::fs::read_to_string(l.ws().join("runs")).unwrap(),
        "x\n",
        "the hook ran once"
    );
    assert_eq!(first.outcome["context"], second.outcome["context"]);
    assert!(
        second.runs()[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("reused the journaled result of t1/turnStart")
    );
    // Another turn runs it again.
    let mut next = turn_start(&l);
    next["turn_id"] = json!("t2");
    l.fire(&next);
    assert_eq!(
        std::fs::read_to_string(l.ws().join("runs")).unwrap(),
        "x\nx\n"
    );
}

#[test]
fn a_hook_interrupted_by_a_crash_is_uncertain_until_resolved() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo $$ >> started; sleep 1000\"]}]\n",
    );
    // Run latch and kill it with SIGKILL while the hook runs: a crash.
    let mut child = spawn_turn_start(&l);
    let hook = read_pid(&l.ws().join("started"));
    child.kill().unwrap();
    child.wait().unwrap();
    // A crash leaves the hook behind (nothing in latch ran to stop it).
    if let Some(pgid) = rustix::process::Pid::from_raw(hook) {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
    assert!(wait_dead(hook));

    // After the restart the turn cannot continue: the run is uncertain.
    let f = l.fire(&turn_start(&l));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.reasons()[0].contains(
            "the turnStart hook run t1/turnStart was interrupted and its outcome is uncertain"
        ),
        "{:?}",
        f.reasons()
    );
    assert_eq!(
        std::fs::read_to_string(l.ws().join("started"))
            .unwrap()
            .lines()
            .count(),
        1,
        "not run again"
    );

    // The library reads and resolves it.
    let session = Session::open(&l.root.path().join("state"), "s1").unwrap();
    let journal = Journal::new(&session);
    let entries = block(journal.read()).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].state, RunState::Started);
    assert_eq!(entries[0].key, "t1/turnStart");
    assert!(block(journal.resolve("t1/turnStart", Resolution::Completed)).unwrap());
    let f = l.fire(&turn_start(&l));
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(
        block(journal.resolve(
            "t1/turnStart",
            Resolution::Failed("inspected: it broke things".into())
        ))
        .unwrap()
    );
    let f = l.fire(&turn_start(&l));
    assert_eq!(
        f.reasons(),
        ["inspected: it broke things"],
        "a failed run is never run again"
    );
    assert!(block(journal.resolve("t1/turnStart", Resolution::Retry)).unwrap());
    let l2 = l
        .workspace_hooks("version: 1\nturnStart:\n  - actions: [{type: inject, message: fresh}]\n");
    let f = l2.fire(&turn_start(&l2));
    assert!(
        f.outcome["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("fresh"),
        "a retried run runs again"
    );
}

#[test]
fn debug_logging_names_hooks_and_never_the_input() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreToolUse:\n  - name: guard\n    actions:\n      - {name: check, type: command, command: sh, args: [\"-c\", \"cat >/dev/null; echo out-secret-9\"]}\npostToolUse:\n  - name: unmatched\n    match: {tool: nothing}\n    actions: [{type: deny, reason: x}]\n",
    );
    let ev = l.tool(
        "tool_before",
        "runCommand",
        json!({"command": "curl -H 'token: in-secret-7'"}),
    );
    let f = l.fire_env(
        &ev,
        &[("LATCH_LOG", "debug"), ("SECRET_ENV", "env-secret-5")],
    );
    assert!(
        f.stderr.contains("hook event started") && f.stderr.contains("hook_event=preToolUse"),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains("group started") && f.stderr.contains("hook_name=guard"),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains("hook_action_name=check") && f.stderr.contains("outcome=\"ok\""),
        "{}",
        f.stderr
    );
    assert!(f.stderr.contains("duration_ms="));
    for secret in ["in-secret-7", "out-secret-9", "env-secret-5"] {
        assert!(
            !f.stderr.contains(secret),
            "{secret} leaked into the log:\n{}",
            f.stderr
        );
    }
    // An event with no matching group is still logged.
    let f = l.fire_env(
        &l.tool("tool_after", "readFile", json!({})),
        &[("LATCH_LOG", "debug")],
    );
    assert!(
        f.stderr.contains("hook_event=postToolUse") && f.stderr.contains("hook event finished"),
        "{}",
        f.stderr
    );
}

#[test]
fn a_failure_of_latch_itself_is_recorded_as_failed_and_never_rerun() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo x >> runs\"]}]\n",
    );
    // Make the session's hook-state directory impossible: a file in its place.
    let session_dir = l.root.path().join("state/sessions/s1");
    std::fs::create_dir_all(&session_dir).unwrap();
    std::fs::write(session_dir.join("peen-hook-state"), "").unwrap();
    let f = l.fire(&turn_start(&l));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.reasons()[0].starts_with("turnStart hook failed inside latch"),
        "{:?}",
        f.reasons()
    );
    assert!(!l.ws().join("runs").exists());
    // Even once the cause is gone, the failed checkpoint is not run again.
    std::fs::remove_file(session_dir.join("peen-hook-state")).unwrap();
    let f = l.fire(&turn_start(&l));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(!l.ws().join("runs").exists());
    let journal =
        block(Journal::new(&Session::open(&l.root.path().join("state"), "s1").unwrap()).read())
            .unwrap();
    assert_eq!(journal[0].state, RunState::Failed);
}

#[test]
fn a_hook_cancelled_by_sigterm_stays_uncertain() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo $$ >> started; sleep 1000\"], onFailure: continue}]\n",
    );
    let mut child = spawn_turn_start(&l);
    let hook = read_pid(&l.ws().join("started"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    child.wait().unwrap();
    assert!(wait_dead(hook), "cancellation killed the hook");
    let f = l.fire(&turn_start(&l));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.reasons()[0].contains("was interrupted and its outcome is uncertain"),
        "{:?}",
        f.reasons()
    );
}

#[test]
fn each_compaction_round_is_its_own_checkpoint() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreCompact:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo x >> runs\"]}]\n",
    );
    let ev = |round: u64| json!({"event": "compact_before", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "compaction": {"round": round}});
    let env = [("PEEN_COMPACTION_MODE", "summarize")];
    l.fire_env(&ev(1), &env);
    l.fire_env(&ev(5), &env);
    l.fire_env(&ev(5), &env);
    assert_eq!(
        std::fs::read_to_string(l.ws().join("runs")).unwrap(),
        "x\nx\n",
        "round 5 reused, round 1 and 5 each ran once"
    );
}

#[test]
fn events_no_group_handles_leave_no_checkpoint() {
    let l = Layers::new()
        .workspace_hooks("version: 1\npreToolUse:\n  - actions: [{type: inject, message: x}]\n");
    l.fire(&turn_start(&l));
    let session = Session::open(&l.root.path().join("state"), "s1").unwrap();
    assert!(block(Journal::new(&session).read()).unwrap().is_empty());
}

#[test]
fn a_journaled_deny_stays_a_deny_when_its_stored_result_is_unreadable() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions:\n      - {type: command, command: sh, args: [\"-c\", \"echo x >> runs\"]}\n      - {type: deny, reason: not today}\n",
    );
    let first = l.fire(&turn_start(&l));
    assert_eq!(first.outcome["decision"], "deny", "{}", first.outcome);
    // Damage the stored result, as an older or newer latch might leave it.
    let state = l.root.path().join("state/sessions/s1/state.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let entries = doc["values"]["journal"].as_object_mut().unwrap();
    assert_eq!(entries.len(), 1);
    for entry in entries.values_mut() {
        assert_eq!(entry["state"], "denied");
        entry["result"] = json!("not a result");
        entry.as_object_mut().unwrap().remove("reason");
    }
    std::fs::write(&state, serde_json::to_vec(&doc).unwrap()).unwrap();
    let second = l.fire(&turn_start(&l));
    assert_eq!(second.outcome["decision"], "deny", "{}", second.outcome);
    assert_eq!(
        second.reasons(),
        ["the turnStart hook denied earlier; it is not run again"]
    );
    assert_eq!(std::fs::read_to_string(l.ws().join("runs")).unwrap(), "x\n");
}

/// A cancel that arrives while an earlier dialect's hook runs starts no
/// peen checkpoint: nothing ran, so nothing is left uncertain.
#[test]
fn a_cancel_before_peen_starts_leaves_no_checkpoint() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreUserMessage:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo x >> runs\"]}]\n",
    );
    std::fs::create_dir_all(l.ws().join(".poolside")).unwrap();
    std::fs::write(
        l.ws().join(".poolside/settings.yaml"),
        "hooks:\n  UserPromptSubmit:\n    - command: echo $$ >> started; sleep 1000\n",
    )
    .unwrap();
    let prompt = json!({"event": "user_prompt", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "prompt": "hi"});
    let mut child = spawn_fire(&l, &prompt);
    let hook = read_pid(&l.ws().join("started"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    child.wait().unwrap();
    assert!(wait_dead(hook), "cancellation killed the poolside hook");
    assert!(!l.ws().join("runs").exists(), "the peen hook never ran");
    let journal =
        block(Journal::new(&Session::open(&l.root.path().join("state"), "s1").unwrap()).read())
            .unwrap();
    assert_eq!(journal, [], "no checkpoint was begun");
}

/// Starts `latch fire` with `event`, its outcome on a pipe.
fn spawn_fire_piped(l: &Layers, event: &serde_json::Value) -> std::process::Child {
    spawn_with(l, event, Stdio::piped)
}

#[test]
fn a_second_copy_of_a_running_checkpoint_waits_for_it_and_reuses_its_result() {
    // Two `latch fire` of one session and checkpoint at once: the second
    // must neither run the hook again nor call the first "interrupted".
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo $$ >> started; sleep 2; echo '{\\\"message\\\":\\\"ctx\\\"}'\"]}]\n",
    );
    let first = spawn_fire_piped(&l, &turn_start(&l));
    read_pid(&l.ws().join("started"));
    let second = spawn_fire_piped(&l, &turn_start(&l));
    let first = crate::util::Fired::from_output(&first.wait_with_output().unwrap());
    let second = crate::util::Fired::from_output(&second.wait_with_output().unwrap());
    assert_eq!(first.outcome["decision"], "proceed", "{}", first.stderr);
    assert_eq!(
        second.outcome["decision"],
        "proceed",
        "{:?}",
        second.reasons()
    );
    assert_eq!(first.outcome["context"], second.outcome["context"]);
    assert!(
        second.runs()[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("reused the journaled result of t1/turnStart"),
        "{}",
        second.outcome
    );
    assert_eq!(
        std::fs::read_to_string(l.ws().join("started"))
            .unwrap()
            .lines()
            .count(),
        1,
        "the hook ran once"
    );
}

#[test]
fn the_journal_keeps_a_flat_size_over_many_turns() {
    let l = Layers::new()
        .workspace_hooks("version: 1\nturnStart:\n  - actions: [{type: inject, message: x}]\n");
    for t in 0..40 {
        let ev = json!({"event": "turn_start", "session_id": "s1", "turn_id": format!("t{t}"), "cwd": l.ws(), "model": "m"});
        assert_eq!(l.fire(&ev).outcome["decision"], "proceed");
    }
    let session = Session::open(&l.root.path().join("state"), "s1").unwrap();
    let keys: Vec<String> = block(Journal::new(&session).read())
        .unwrap()
        .into_iter()
        .map(|e| e.key)
        .collect();
    assert_eq!(keys.len(), latch::journal::KEEP_TURNS, "{keys:?}");
    assert!(keys.contains(&"t39/turnStart".to_owned()));
    // A resend of the latest turn still reuses its result.
    let ev = json!({"event": "turn_start", "session_id": "s1", "turn_id": "t39", "cwd": l.ws(), "model": "m"});
    let f = l.fire(&ev);
    assert!(
        f.runs()[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("reused the journaled result of t39/turnStart")
    );
}
