//! Hostile state: special files, symbolic links and stale files in the state
//! directory, a session lock held by another process, and mistyped or
//! corrupt state. latch must never block on a file, write or chmod through a
//! link, nor let broken state bypass the Stop cap or run a peen checkpoint
//! twice; each dialect makes its safe choice with a warning that says what
//! really happened.

use std::fs::{self, File};
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use latch::Session;
use latch::run::Cancel;

use crate::peen_util::Layers;
use crate::util::{Fired, Project, process_is_dead};

const CONTINUE: &str =
    r#"{"continue":true,"hook_specific_output":{"additional_context":"keep going"}}"#;

/// A poolside project with a cap of `cap` and one Stop hook that asks to
/// continue (and first touches `stop-ran` in the project).
fn stop_project(cap: u32) -> Project {
    let p = Project::new();
    let cmd = format!(
        "touch stop-ran; {}",
        p.hook("s", CONTINUE.as_bytes(), b"", 0)
    );
    p.settings(&format!(
        "hooks:\n  stop_hook_max_continuations: {cap}\n  Stop:\n    - name: s\n      command: {cmd:?}\n  UserPromptSubmit:\n    - {{name: noop, command: 'true'}}\n"
    ))
}

fn stop_event() -> Value {
    json!({"event": "stop", "session_id": "sess"})
}

/// The session directory of `sess`.
fn session_dir(p: &Project) -> PathBuf {
    p.state().join("sessions/sess")
}

/// Starts `latch fire` for `p` with `event` on stdin.
fn spawn(p: &Project, event: &Value) -> Child {
    use std::io::Write;
    let mut child = p.fire_process().spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(event).unwrap())
        .unwrap();
    child
}

/// Waits for `child` at most `limit`; kills it and fails if it is still
/// running (a hang guard, not a timing assertion).
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("latch fire still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Fires `event` with a hang guard of 30 s.
fn fire_guarded(p: &Project, event: &Value) -> Fired {
    Fired::from_output(&finish_within(spawn(p, event), Duration::from_secs(30)))
}

/// A Stop that must have been refused with a warning containing `why`, and
/// never with the false "cap reached" message.
fn assert_refused_because(f: &Fired, why: &str) {
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain(why),
        "{why:?} not in {}",
        f.outcome["warnings"]
    );
    assert!(
        !f.warnings_contain("reached"),
        "a false cap message: {}",
        f.outcome["warnings"]
    );
}

/// Fires a continued Stop, which writes the session's state, then a
/// prompt, which resets it: the state file exists, with no count.
fn prime(p: &Project) {
    for event in [
        stop_event(),
        json!({"event": "user_prompt", "session_id": "sess", "prompt": "x"}),
    ] {
        let f = p.fire(&event);
        assert_eq!(f.code, 0, "{}", f.stderr);
    }
    assert!(session_dir(p).join("state.json").is_file());
    let _ = std::fs::remove_file(p.dir().join("stop-ran"));
}

/// A pid that is not in use (a reaped child's).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_fifo_at_state_json_is_refused_without_blocking() {
    let p = stop_project(5);
    prime(&p);
    let state = session_dir(&p).join("state.json");
    fs::remove_file(&state).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &state,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "state.json is a FIFO, not a regular file");
}

#[test]
fn a_device_at_state_json_is_refused() {
    let p = stop_project(5);
    prime(&p);
    let state = session_dir(&p).join("state.json");
    fs::remove_file(&state).unwrap();
    // /dev/zero's numbers; only root may make a device node.
    if rustix::fs::mknodat(
        rustix::fs::CWD,
        &state,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o600),
        rustix::fs::makedev(1, 5),
    )
    .is_err()
    {
        eprintln!("skipped: cannot make a device node here");
        return;
    }
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "state.json is a character device, not a regular file");
}

#[test]
fn a_symlink_at_state_json_is_neither_read_nor_written_through() {
    let p = stop_project(5);
    prime(&p);
    let outside = p.root.path().join("outside.json");
    fs::write(&outside, r#"{"values":{}}"#).unwrap();
    let state = session_dir(&p).join("state.json");
    fs::remove_file(&state).unwrap();
    symlink(&outside, &state).unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "state.json is a symbolic link");
    let f = fire_guarded(
        &p,
        &json!({"event": "user_prompt", "session_id": "sess", "prompt": "x"}),
    );
    assert!(f.warnings_contain("could not reset"), "{}", f.outcome);
    assert_eq!(fs::read_to_string(&outside).unwrap(), r#"{"values":{}}"#);
    assert!(
        fs::symlink_metadata(&state)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_fifo_or_symlink_at_the_lock_is_refused_without_blocking() {
    for kind in ["fifo", "symlink"] {
        let p = stop_project(5);
        prime(&p);
        let lock = session_dir(&p).join("lock");
        fs::remove_file(&lock).unwrap();
        let outside = p.root.path().join("outside-lock");
        if kind == "fifo" {
            rustix::fs::mkfifoat(
                rustix::fs::CWD,
                &lock,
                rustix::fs::Mode::from_raw_mode(0o600),
            )
            .unwrap();
        } else {
            symlink(&outside, &lock).unwrap();
        }
        let f = fire_guarded(&p, &stop_event());
        let why = if kind == "fifo" {
            "lock is a FIFO, not a regular file"
        } else {
            "lock is a symbolic link"
        };
        assert_refused_because(&f, why);
        assert!(!outside.exists(), "the link target was created");
    }
}

#[test]
fn a_symlinked_session_directory_is_not_followed_nor_chmodded() {
    let p = stop_project(5);
    let target = p.root.path().join("elsewhere");
    fs::create_dir_all(&target).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(p.state().join("sessions")).unwrap();
    symlink(&target, session_dir(&p)).unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "sessions/sess is a symbolic link");
    assert!(
        fs::read_dir(&target).unwrap().next().is_none(),
        "written into"
    );
    assert_eq!(mode(&target), 0o755, "chmodded through the link");
}

#[test]
fn a_symlinked_sessions_directory_is_not_followed_nor_chmodded() {
    let p = stop_project(5);
    let target = p.root.path().join("elsewhere");
    fs::create_dir_all(&target).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir_all(p.state()).unwrap();
    symlink(&target, p.state().join("sessions")).unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "sessions is a symbolic link");
    assert!(
        fs::read_dir(&target).unwrap().next().is_none(),
        "written into"
    );
    assert_eq!(mode(&target), 0o755, "chmodded through the link");
}

#[test]
fn a_session_directory_of_another_user_is_refused() {
    let p = stop_project(5);
    prime(&p);
    let dir = session_dir(&p);
    if rustix::fs::chown(&dir, Some(rustix::fs::Uid::from_raw(54321)), None).is_err() {
        eprintln!("skipped: cannot chown here");
        return;
    }
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "belongs to user 54321");
}

#[test]
fn a_symlinked_peen_hook_state_directory_is_not_followed() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo ran >> runs\"]}]\n",
    );
    let target = l.root.path().join("elsewhere");
    fs::create_dir_all(&target).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
    let dir = l.root.path().join("state/sessions/s1");
    fs::create_dir_all(&dir).unwrap();
    symlink(&target, dir.join("peen-hook-state")).unwrap();
    let f = l.fire(
        &json!({"event": "turn_start", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "model": "m"}),
    );
    // A journaled checkpoint without its state directory fails inside
    // latch: denied, never run.
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert!(
        f.warnings_contain("peen-hook-state is a symbolic link"),
        "{}",
        f.outcome
    );
    assert!(!l.ws().join("runs").exists());
    assert_eq!(mode(&target), 0o755);
    assert!(fs::read_dir(&target).unwrap().next().is_none());
}

#[tokio::test]
async fn a_planted_temp_file_symlink_is_not_written_through() {
    // The temporary file's name carries the writer's pid: plant it for
    // this process and update through the library.
    let root = tempfile::tempdir().unwrap();
    let never = Cancel::never();
    let s = Session::open(root.path(), "sess").unwrap();
    let dir = s.dir().unwrap().to_path_buf();
    let outside = root.path().join("outside");
    fs::write(&outside, "precious").unwrap();
    let tmp = dir.join(format!("state.json.{}.tmp", std::process::id()));
    symlink(&outside, &tmp).unwrap();
    s.update(&never, |st| st.set_counter("x", 1)).await.unwrap();
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    assert!(
        fs::symlink_metadata(&tmp).is_err(),
        "the planted link was removed"
    );
    let snap = s.snapshot(&never).await.unwrap();
    assert_eq!(snap.counter("x").unwrap(), 1);
}

#[test]
fn stale_temp_files_of_dead_writers_are_removed() {
    let p = stop_project(5);
    prime(&p);
    let dir = session_dir(&p);
    let dead = dir.join(format!("state.json.{}.tmp", dead_pid()));
    fs::write(&dead, "half a state").unwrap();
    // A temporary file of a live process (this test) is left alone.
    let live = dir.join(format!("state.json.{}.tmp", std::process::id()));
    fs::write(&live, "in progress").unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert!(f.outcome.get("continuation").is_some(), "{}", f.outcome);
    assert!(!dead.exists(), "the stale temp file is still there");
    assert!(live.exists());
}

#[test]
fn an_oversized_state_json_is_refused() {
    let p = stop_project(5);
    prime(&p);
    let state = session_dir(&p).join("state.json");
    File::options()
        .write(true)
        .open(&state)
        .unwrap()
        .set_len(latch::session::MAX_STATE_BYTES + 1)
        .unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "is larger than 8 MiB");
}

#[test]
fn a_counter_stored_as_a_string_fails_closed() {
    let p = stop_project(10);
    prime(&p);
    fs::write(
        session_dir(&p).join("state.json"),
        r#"{"values":{"poolside.stop_continuations":"7"}}"#,
    )
    .unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(
        &f,
        "`poolside.stop_continuations` is \"7\", not a whole number",
    );
    assert!(f.warnings_contain("state.json"), "the file is named");
}

#[test]
fn a_corrupt_state_file_says_so_not_that_the_cap_was_reached() {
    let p = stop_project(1);
    prime(&p);
    fs::write(session_dir(&p).join("state.json"), "{not json").unwrap();
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "state.json is corrupt");
    assert_eq!(
        f.runs()[0]["message"],
        "continuation refused: the Stop continuation counter could not be used"
    );
    // The corrupt file is left for inspection.
    assert_eq!(
        fs::read_to_string(session_dir(&p).join("state.json")).unwrap(),
        "{not json"
    );
}

/// Holds an exclusive `flock` on the session's lock until dropped.
fn hold_lock(dir: &Path) -> File {
    let file = File::options()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .unwrap();
    file.lock().unwrap();
    file
}

#[test]
fn a_lock_held_elsewhere_is_waited_for_boundedly_then_the_stop_is_refused() {
    let p = stop_project(5);
    prime(&p);
    let _held = hold_lock(&session_dir(&p));
    let f = fire_guarded(&p, &stop_event());
    assert_refused_because(&f, "the session state is busy");
    assert!(f.warnings_contain("gave up waiting"), "{}", f.outcome);
}

#[test]
fn a_lock_held_elsewhere_denies_a_peen_checkpoint_without_running_it() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo ran >> runs\"]}]\n",
    );
    let ev = json!({"event": "turn_start", "session_id": "s1", "turn_id": "t0", "cwd": l.ws(), "model": "m"});
    assert_eq!(l.fire(&ev).outcome["decision"], "proceed");
    let _held = hold_lock(&l.root.path().join("state/sessions/s1"));
    let ev = json!({"event": "turn_start", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "model": "m"});
    let f = l.fire(&ev);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert!(
        f.reasons()[0].contains("could not use the restart journal for turnStart")
            && f.reasons()[0].contains("busy"),
        "{:?}",
        f.reasons()
    );
    assert_eq!(
        fs::read_to_string(l.ws().join("runs")).unwrap(),
        "ran\n",
        "the hook ran only for t0"
    );
}

#[test]
fn sigterm_during_a_lock_wait_ends_latch_promptly() {
    let p = stop_project(5);
    prime(&p);
    let _held = hold_lock(&session_dir(&p));
    let child = spawn(&p, &stop_event());
    let pid = child.id() as i32;
    // The Stop hook runs before the counter is needed: once it has run,
    // latch is (about to be) waiting for the lock.
    let start = Instant::now();
    while !p.dir().join("stop-ran").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the hook never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    // Well under the 10 s lock bound.
    let out = finish_within(child, Duration::from_secs(6));
    assert!(sent.elapsed() < Duration::from_secs(6));
    assert!(process_is_dead(pid));
    let f = Fired::from_output(&out);
    assert_refused_because(&f, "cancelled while waiting for the session lock");
}

#[test]
fn the_lock_file_and_state_stay_private_regular_files() {
    let p = stop_project(5);
    prime(&p);
    for name in ["lock", "state.json"] {
        let meta = fs::symlink_metadata(session_dir(&p).join(name)).unwrap();
        assert!(meta.file_type().is_file(), "{name}");
        assert_eq!(meta.mode() & 0o077, 0, "{name} is private");
    }
}
