// The runner cases, included by `mod.rs` once per way of waiting.

#[tokio::test]
async fn exit_code_and_output_are_captured() {
    let r = run(&sh("cat; echo err >&2; exit 3")).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(3)));
    assert_eq!(r.stdout.bytes, b"{}");
    assert_eq!(r.stderr.bytes, b"err\n");
    assert!(!r.killed_leftovers);
}

#[tokio::test]
async fn death_by_signal_is_distinct_from_an_exit_code() {
    let r = run(&sh("kill -9 $$")).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Signal(9)));
}

#[tokio::test]
async fn a_missing_program_could_not_start() {
    let mut cmd = sh("");
    cmd.program = Program::Exec {
        program: PathBuf::from("/nonexistent/latch-hook"),
        args: vec![],
    };
    let r = run(&cmd).await;
    assert_spawn_failed(&r, SpawnFailure::NotFound);
}

#[tokio::test]
async fn a_non_executable_program_could_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hook.sh");
    std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
    let mut cmd = sh("");
    cmd.program = Program::Exec {
        program: path,
        args: vec![],
    };
    let r = run(&cmd).await;
    assert_spawn_failed(&r, SpawnFailure::NotExecutable);
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group_grandchild_included() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let mut cmd = sh(&format!(
        "sleep 1000 & echo $! > {}; sleep 1000",
        pidfile.display()
    ));
    cmd.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let r = run(&cmd).await;
    assert!(
        matches!(r.termination, Termination::TimedOut { .. }),
        "{:?}",
        r.termination
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let grandchild = read_pid(&pidfile);
    assert!(
        wait_dead(grandchild),
        "grandchild {grandchild} survived the timeout"
    );
}

#[tokio::test]
async fn a_hook_that_ignores_sigterm_is_killed_after_the_grace() {
    let mut cmd = sh("trap '' TERM; sleep 1000");
    cmd.timeout = Duration::from_millis(200);
    let r = run(&cmd).await;
    assert_eq!(
        r.termination,
        Termination::TimedOut {
            exit: Exit::Signal(9)
        }
    );
}

#[tokio::test]
async fn a_hook_that_never_reads_a_4_mib_stdin_does_not_deadlock() {
    let mut cmd = sh("sleep 0.1; echo done");
    cmd.stdin = vec![b'x'; 4 * 1024 * 1024];
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(r.stdout.bytes, b"done\n");
}

#[tokio::test]
async fn a_hook_that_exits_at_once_with_a_large_stdin_is_fine() {
    let mut cmd = sh("exit 0");
    cmd.stdin = vec![b'x'; 4 * 1024 * 1024];
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
}

/// A payload larger than a pipe holds reaches the hook whole, however
/// slowly it reads, and a hook that reads it only after closing its output
/// gets it too.
#[tokio::test]
async fn a_large_payload_reaches_the_hook_whole() {
    let payload: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let mut cmd = sh("sleep 0.1; cksum");
    cmd.stdin = payload.clone();
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    let dir = tempfile::tempdir().unwrap();
    let expected = dir.path().join("payload");
    std::fs::write(&expected, &payload).unwrap();
    let want = std::process::Command::new("cksum")
        .stdin(std::fs::File::open(&expected).unwrap())
        .output()
        .unwrap()
        .stdout;
    assert_eq!(r.stdout.bytes, want);

    let got = dir.path().join("got");
    let mut cmd = sh(&format!("exec >&- 2>&-; cat > '{}'", got.display()));
    cmd.stdin = payload.clone();
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(std::fs::read(&got).unwrap(), payload);
}

#[tokio::test]
async fn output_is_capped_while_reading_and_drained_to_the_end() {
    let mut cmd = sh("head -c 10000000 /dev/zero; echo tail >&2");
    cmd.limits.stdout = 64 * 1024;
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(r.stdout.bytes.len(), 64 * 1024);
    assert_eq!(r.stdout.total, 10_000_000);
    assert!(r.stdout.truncated);
    assert_eq!(r.stderr.bytes, b"tail\n");
}

#[tokio::test]
async fn a_grandchild_holding_the_pipe_is_killed_after_the_drain_window() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "sleep 1000 & echo $! > {}; echo out",
        pidfile.display()
    ));
    let started = Instant::now();
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert!(r.killed_leftovers);
    assert!(!r.leftovers_escaped);
    assert_eq!(r.stdout.bytes, b"out\n");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(wait_dead(read_pid(&pidfile)));
}

#[tokio::test]
async fn a_background_process_that_let_go_of_the_pipes_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "sleep 1000 >/dev/null 2>&1 </dev/null & echo $! > {}",
        pidfile.display()
    ));
    let r = run(&cmd).await;
    assert!(!r.killed_leftovers);
    let pid = read_pid(&pidfile);
    assert!(!process_is_dead(pid), "a deliberate daemon was killed");
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    }
}

#[tokio::test]
async fn an_only_environment_is_exactly_what_was_given() {
    let mut cmd = sh("");
    cmd.program = Program::Exec {
        program: PathBuf::from("/usr/bin/env"),
        args: vec![],
    };
    cmd.env = EnvPolicy::Only(vec![(OsString::from("ONLY"), OsString::from("this"))]);
    let r = run(&cmd).await;
    assert_eq!(String::from_utf8_lossy(&r.stdout.bytes), "ONLY=this\n");
}

#[tokio::test]
async fn the_working_directory_is_applied() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = sh("pwd");
    cmd.cwd = Some(dir.path().to_path_buf());
    let r = run(&cmd).await;
    let expected = dir.path().canonicalize().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&r.stdout.bytes).trim(),
        expected.to_str().unwrap()
    );
}

#[tokio::test]
async fn exec_form_passes_arguments_verbatim() {
    let mut cmd = sh("");
    cmd.program = Program::Exec {
        program: PathBuf::from("printf"),
        args: vec!["%s|".into(), "$HOME".into(), "a b".into()],
    };
    let r = run(&cmd).await;
    assert_eq!(r.stdout.bytes, b"$HOME|a b|");
}

#[tokio::test]
async fn a_timeout_kills_a_descendant_that_ignores_sigterm_and_closed_its_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    // The grandchild ignores TERM and lets go of the pipes; the leader dies
    // on TERM at once, well within the grace.
    let mut cmd = sh(&format!(
        "(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 </dev/null & echo $! > {}; sleep 1000",
        pidfile.display()
    ));
    cmd.timeout = Duration::from_millis(300);
    let r = run(&cmd).await;
    assert!(
        matches!(r.termination, Termination::TimedOut { .. }),
        "{:?}",
        r.termination
    );
    assert!(
        wait_dead(read_pid(&pidfile)),
        "the TERM-ignoring grandchild survived the timeout"
    );
}

/// Runs `script` (which writes a descendant's pid to `$PIDFILE`'s path,
/// given as `{pid}`) with a short timeout, and whether that descendant was
/// dead afterwards (it is killed either way, so nothing leaks).
async fn descendant_dies_on_timeout(script: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let mut cmd = sh(&script
        .replace("{dir}", &dir.path().display().to_string())
        .replace("{pid}", &pidfile.display().to_string()));
    cmd.timeout = Duration::from_millis(300);
    let r = run(&cmd).await;
    assert!(matches!(r.termination, Termination::TimedOut { .. }));
    let pid = read_pid(&pidfile);
    let dead = wait_dead(pid);
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    }
    dead
}

/// Without orphan adoption (the library's default), the walk of /proc still
/// finds a descendant that left the group while its parent lives.
#[tokio::test]
async fn a_timeout_kills_a_descendant_in_its_own_session_without_adoption() {
    assert!(
        descendant_dies_on_timeout("setsid sh -c 'echo $$ > {pid}; exec sleep 1000' & wait").await,
        "a descendant in its own session outlived the timeout"
    );
}

/// The same, for a descendant whose name (its program's file name) is not
/// UTF-8: /proc still shows it, and the walk must still read it.
#[tokio::test]
async fn a_timeout_kills_a_descendant_whose_name_is_not_utf8_without_adoption() {
    assert!(
        descendant_dies_on_timeout(
            "n=\"{dir}/$(printf '\\377\\376')\"; cp \"$(command -v sleep)\" \"$n\"; setsid sh -c 'echo $$ > {pid}; exec \"$0\" 1000' \"$n\" & wait"
        )
        .await,
        "a descendant with a non-UTF-8 name outlived the timeout"
    );
}

/// Without orphan adoption, a pipe holder that left the group and lost its
/// parent cannot be found: the result says so instead of claiming a kill.
#[tokio::test]
async fn an_unreachable_holder_of_the_pipes_is_reported_as_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 1000' & exit 0",
        pidfile.display()
    ));
    let r = run(&cmd).await;
    let pid = read_pid(&pidfile);
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    }
    assert!(r.killed_leftovers);
    assert!(r.leftovers_escaped, "an escaped holder was reported killed");
}

#[tokio::test]
async fn a_hook_variable_replaces_the_inherited_one_and_the_last_assignment_wins() {
    // `PATH` is inherited from the test process; the hook sees it once,
    // with the value the hook's variables give it last.
    let mut cmd = sh("env");
    cmd.env = EnvPolicy::Inherit(vec![
        (OsString::from("LATCH_T"), OsString::from("first")),
        (OsString::from("HOME"), OsString::from("/nowhere")),
        (OsString::from("LATCH_T"), OsString::from("second")),
    ]);
    let r = run(&cmd).await;
    let out = String::from_utf8_lossy(&r.stdout.bytes).into_owned();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines
            .iter()
            .copied()
            .filter(|l| l.starts_with("HOME="))
            .collect::<Vec<_>>(),
        ["HOME=/nowhere"]
    );
    assert_eq!(
        lines
            .iter()
            .copied()
            .filter(|l| l.starts_with("LATCH_T="))
            .collect::<Vec<_>>(),
        ["LATCH_T=second"]
    );
    assert!(lines.iter().any(|l| l.starts_with("PATH=")), "{out}");
    // Every other inherited variable comes through once, unchanged (but
    // those the shell itself sets, and values `env` prints over lines):
    // beside a replaced one, and when the hook's variables replace none.
    let inherited_once = |out: &str, replaced: &str| {
        let lines: Vec<&str> = out.lines().collect();
        for (name, value) in std::env::vars() {
            if [replaced, "PWD", "OLDPWD", "SHLVL", "_"].contains(&name.as_str())
                || value.contains('\n')
            {
                continue;
            }
            let entry = format!("{name}={value}");
            let seen = lines.iter().filter(|l| **l == entry).count();
            assert_eq!(seen, 1, "{entry} in {out}");
        }
    };
    inherited_once(&out, "HOME");
    cmd.env = EnvPolicy::Inherit(vec![(OsString::from("LATCH_T"), OsString::from("new"))]);
    let out = String::from_utf8_lossy(&run(&cmd).await.stdout.bytes).into_owned();
    assert!(out.lines().any(|l| l == "LATCH_T=new"), "{out}");
    inherited_once(&out, "");
}

#[tokio::test]
async fn a_bare_program_name_is_looked_up_on_the_hooks_own_path() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("latch-test-tool");
    std::fs::write(&tool, "#!/bin/sh\necho found \"$@\"\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = sh("");
    cmd.program = Program::Exec {
        program: PathBuf::from("latch-test-tool"),
        args: vec!["x".into()],
    };
    // Not on latch's PATH: found only through the hook's.
    let r = run(&cmd).await;
    assert_spawn_failed(&r, SpawnFailure::NotFound);
    let path = format!("{}:/usr/bin:/bin", dir.path().display());
    cmd.env = EnvPolicy::Inherit(vec![(OsString::from("PATH"), OsString::from(&path))]);
    let r = run(&cmd).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(r.stdout.bytes, b"found x\n");
    cmd.env = EnvPolicy::Only(vec![(OsString::from("PATH"), OsString::from(&path))]);
    let r = run(&cmd).await;
    assert_eq!(r.stdout.bytes, b"found x\n");
    // Not on the hook's own PATH either: the operating system's words, as
    // when `posix_spawnp` looks it up.
    cmd.env = EnvPolicy::Only(vec![(OsString::from("PATH"), OsString::from("/nonexistent"))]);
    let r = run(&cmd).await;
    match &r.termination {
        Termination::SpawnFailed { reason, message } => {
            assert_eq!(*reason, SpawnFailure::NotFound);
            assert!(message.contains("No such file or directory"), "{message}");
        }
        other => panic!("not a spawn failure: {other:?}"),
    }
}

#[tokio::test]
async fn a_hook_starts_with_no_blocked_or_ignored_signals_and_leads_its_group() {
    // latch ignores SIGPIPE (as every Rust program does); the hook must
    // not inherit that, nor any blocked signal.
    let r = run(&sh(
            "grep -E '^Sig(Blk|Ign):' /proc/self/status; ps -o pgid= -p $$; echo $$",
        ))
        .await;
    let out = String::from_utf8_lossy(&r.stdout.bytes).into_owned();
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    assert_eq!(lines.len(), 4, "{out}");
    let mask =
        |line: &str| u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap();
    assert_eq!(mask(lines[0]), 0, "blocked signals: {out}");
    assert_eq!(
        mask(lines[1]) & (1 << (13 - 1)),
        0,
        "SIGPIPE ignored: {out}"
    );
    assert_eq!(lines[2], lines[3], "the hook leads its own process group");
}

#[tokio::test]
async fn a_nul_byte_in_the_command_is_a_spawn_failure_not_a_panic() {
    let r = run(&sh("echo a\0b")).await;
    assert_spawn_failed(&r, SpawnFailure::Other);
}

/// `OutputWait::UntilTimeout` waits for a background child that holds the
/// output past the drain window, up to the hook's timeout, then kills it.
#[tokio::test]
async fn until_timeout_waits_past_the_drain_window_then_kills() {
    let dir = tempfile::tempdir().unwrap();
    let pid = dir.path().join("pid");
    let mut cmd = sh(&format!("sleep 30 & echo $! > '{}'", pid.display()));
    cmd.output_wait = OutputWait::UntilTimeout;
    cmd.timeout = Duration::from_millis(1500);
    let started = Instant::now();
    let r = run(&cmd).await;
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(1400), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert!(r.killed_leftovers);
    assert!(wait_dead(read_pid(&pid)));
}

/// A hook that closes its output and runs on is still waited for, and
/// its exit code kept.
#[tokio::test]
async fn a_hook_that_closes_its_output_and_runs_on_is_waited_for() {
    let started = Instant::now();
    let r = run(&sh("exec >&- 2>&-; sleep 0.3; exit 4")).await;
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(r.termination, Termination::Exited(Exit::Code(4)));
    assert!(!r.killed_leftovers);
}

/// The same hook past its timeout is stopped as any other.
#[tokio::test]
async fn a_hook_that_closes_its_output_and_hangs_times_out() {
    let mut cmd = sh("exec >&- 2>&-; sleep 30");
    cmd.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let r = run(&cmd).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(r.termination, Termination::TimedOut { .. }),
        "{:?}",
        r.termination
    );
}

/// A descendant that keeps printing after the hook exited does not hide
/// the exit: the drain window starts, and the descendant is killed.
#[tokio::test]
async fn a_descendant_printing_steadily_after_the_exit_is_killed_after_the_drain_window() {
    let dir = tempfile::tempdir().unwrap();
    let pid = dir.path().join("pid");
    let mut cmd = sh(&format!(
        "(while sleep 0.02; do echo .; done) & echo $! > '{}'; sleep 0.3; exit 0",
        pid.display()
    ));
    cmd.timeout = Duration::from_secs(30);
    let started = Instant::now();
    let r = run(&cmd).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert!(r.killed_leftovers);
    assert!(wait_dead(read_pid(&pid)));
}

/// A first-line rule: `go` on the first line detaches the hook with 300 ms
/// left (or `go <ms>`), anything else on it keeps the hook.
fn go_rule(stdout: &[u8]) -> latch::run::FirstLine {
    use latch::run::FirstLine;
    let Some(end) = stdout.iter().position(|&b| b == b'\n') else {
        return FirstLine::Wait;
    };
    let line = String::from_utf8_lossy(&stdout[..end]);
    match line.strip_prefix("go") {
        Some("") => FirstLine::Detach(Duration::from_millis(300)),
        Some(ms) => FirstLine::Detach(Duration::from_millis(ms.trim().parse().unwrap_or(300))),
        None => FirstLine::Stay,
    }
}

fn detaching(script: &str) -> HookCommand {
    let mut cmd = sh(script);
    cmd.detach = Some(go_rule);
    cmd
}

#[tokio::test]
async fn a_first_line_rule_detaches_the_hook_and_finish_follows_it_to_its_end() {
    let r = run(&detaching(
        "printf 'g'; sleep 0.1; echo 'o 5000'; sleep 0.3; echo later; echo err >&2",
    ))
    .await;
    assert_eq!(r.termination, Termination::Detached);
    assert_eq!(r.stdout.bytes, b"go 5000\n");
    let hook = r.detached.expect("the hook");
    assert_eq!(hook.stdout().bytes, b"go 5000\n");
    let done = hook.finish(&runner(false), &Cancel::never()).await;
    assert_eq!(done.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(done.stdout.bytes, b"go 5000\nlater\n");
    assert_eq!(done.stderr.bytes, b"err\n");
    assert!(done.detached.is_none());
}

#[tokio::test]
async fn a_rule_that_keeps_the_hook_lets_it_run_to_its_end() {
    let r = run(&detaching("echo stay; sleep 0.2; echo go")).await;
    assert_eq!(r.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(r.stdout.bytes, b"stay\ngo\n");
    assert!(r.detached.is_none());
}

#[tokio::test]
async fn a_detached_hook_is_stopped_when_the_time_the_rule_gave_runs_out() {
    let r = run(&detaching("echo go; sleep 10")).await;
    let hook = r.detached.expect("the hook");
    let done = hook.finish(&runner(false), &Cancel::never()).await;
    assert!(
        matches!(done.termination, Termination::TimedOut { .. }),
        "{:?}",
        done.termination
    );
}

#[tokio::test]
async fn dropping_a_detached_hook_kills_it_and_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let r = run(&detaching(&format!(
        "sleep 30 & echo $! > '{}'; echo go; wait",
        pid_file.display()
    )))
    .await;
    let child = read_pid(&pid_file);
    assert!(!process_is_dead(child));
    drop(r);
    assert!(wait_dead(child), "the hook's child outlived its dropped run");
}

#[tokio::test]
async fn a_released_hook_is_followed_through_its_pipes_and_stopped_on_time() {
    // Followed to its end: all it printed, stdin's rest included.
    let r = run(&detaching("echo go 5000; sleep 0.2; cat; echo done")).await;
    let followed = latch::run::follow(r.detached.expect("the hook").release(), Duration::from_millis(200)).await;
    assert!(!followed.timed_out);
    assert_eq!(followed.stdout.bytes, b"go 5000\n{}done\n");

    // Out of time, and deaf to SIGTERM: its group is killed.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let r = run(&detaching(&format!(
        "trap '' TERM; sleep 30 & echo $! > '{}'; echo go; wait",
        pid_file.display()
    )))
    .await;
    let child = read_pid(&pid_file);
    let followed = latch::run::follow(r.detached.expect("the hook").release(), Duration::from_millis(200)).await;
    assert!(followed.timed_out);
    assert!(wait_dead(child), "the hook's child outlived its time");
}

#[tokio::test]
async fn a_detached_hook_still_gets_the_rest_of_a_large_payload() {
    // Detached before it read a byte: the payload's rest follows it, when
    // finished here and when followed by another process alike.
    for release in [false, true] {
        let mut cmd = detaching("echo go 10000; sleep 0.1; wc -c | tr -d ' '");
        cmd.stdin = vec![b'x'; 1 << 20];
        let r = run(&cmd).await;
        let hook = r.detached.expect("the hook");
        let stdout = if release {
            latch::run::follow(hook.release(), Duration::from_millis(200))
                .await
                .stdout
        } else {
            hook.finish(&runner(false), &Cancel::never()).await.stdout
        };
        assert_eq!(stdout.bytes, b"go 10000\n1048576\n", "released: {release}");
    }
}

#[tokio::test]
async fn a_hook_that_prints_the_line_and_closes_its_output_at_once_still_detaches() {
    let r = run(&detaching("echo go 5000; exec >/dev/null 2>&1; sleep 0.3")).await;
    assert_eq!(r.termination, Termination::Detached);
    let done = r
        .detached
        .expect("the hook")
        .finish(&runner(false), &Cancel::never())
        .await;
    assert_eq!(done.termination, Termination::Exited(Exit::Code(0)));
    assert_eq!(done.stdout.bytes, b"go 5000\n");
}

#[tokio::test]
async fn a_hook_stopped_at_its_timeout_does_not_detach_afterwards() {
    // It prints the line only once SIGTERM came.
    let mut cmd = detaching("trap 'echo go; exit 0' TERM; sleep 5 & wait");
    cmd.timeout = Duration::from_millis(200);
    let r = run(&cmd).await;
    assert!(
        matches!(r.termination, Termination::TimedOut { .. }),
        "{:?}",
        r.termination
    );
    assert!(r.detached.is_none());
}
