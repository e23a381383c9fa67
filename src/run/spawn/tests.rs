//! Both ways of starting a process set the child up alike: its signals,
//! process group, stdio, working directory, environment and `PATH` search,
//! and the errors of a failed start.

use std::ffi::{CStr, CString, OsStr, c_char};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;

use rustix::pipe::{PipeFlags, pipe_with};

use super::{SpawnArgs, null_terminated, posix_spawnp};

#[derive(Clone, Copy, Debug)]
enum Way {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    Clone3,
    PosixSpawn,
}

fn ways() -> Vec<Way> {
    let mut ways = vec![Way::PosixSpawn];
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    ways.push(Way::Clone3);
    ways
}

/// Whether the kernel has `CLONE_CLEAR_SIGHAND` (Linux 5.5).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn kernel_has_clear_sighand() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut parts = release
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (5, 5)
}

struct Ran {
    /// The wait status.
    status: i32,
    stdout: String,
}

/// Starts `argv` one way, feeds it `stdin`, and returns its output and
/// status.
fn run(
    way: Way,
    program: &CStr,
    argv: &[&CStr],
    cwd: Option<&CStr>,
    stdin: &[u8],
) -> io::Result<Ran> {
    run_searching(way, program, argv, cwd, stdin, None)
}

/// [`run`], with the `PATH` a bare name is looked up on (the `clone3`
/// way only; `posix_spawnp` reads the process's own).
fn run_searching(
    way: Way,
    program: &CStr,
    argv: &[&CStr],
    cwd: Option<&CStr>,
    stdin: &[u8],
    search: Option<&OsStr>,
) -> io::Result<Ran> {
    let (stdin_child, stdin_ours) = pipe_with(PipeFlags::CLOEXEC)?;
    let (stdout_ours, stdout_child) = pipe_with(PipeFlags::CLOEXEC)?;
    let (stderr_ours, stderr_child) = pipe_with(PipeFlags::CLOEXEC)?;
    let env = [c"PATH=/usr/bin:/bin", c"LATCH_SPAWN_TEST=1"];
    let args = SpawnArgs {
        program,
        argv,
        envp: &env,
        cwd,
        stdio: [
            stdin_child.as_fd(),
            stdout_child.as_fd(),
            stderr_child.as_fd(),
        ],
    };
    let (argv_ptrs, envp_ptrs): (Vec<*mut c_char>, Vec<*mut c_char>) =
        (null_terminated(argv), null_terminated(&env));
    let pid = match (way, search) {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        (Way::Clone3, Some(path)) => {
            super::vfork::spawn_searching(&args, &argv_ptrs, &envp_ptrs, Some(path))
                .expect("clone3 with CLONE_CLEAR_SIGHAND is available on this kernel")?
        }
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        (Way::Clone3, None) => super::vfork::spawn(&args, &argv_ptrs, &envp_ptrs)
            .expect("clone3 with CLONE_CLEAR_SIGHAND is available on this kernel")?,
        (Way::PosixSpawn, _) => posix_spawnp(&args, &argv_ptrs, &envp_ptrs)?,
    };
    drop((stdin_child, stdout_child, stderr_child, stderr_ours));
    let mut input = std::fs::File::from(stdin_ours);
    let _ = input.write_all(stdin);
    drop(input);
    let mut stdout = String::new();
    std::fs::File::from(stdout_ours).read_to_string(&mut stdout)?;
    let mut status = 0;
    // SAFETY: waits for the child started above.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(waited, pid);
    Ok(Ran { status, stdout })
}

/// The value of a `Name:` line of `/proc/self/status` output.
fn field<'a>(status: &'a str, name: &str) -> &'a str {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {name} in {status}"))
}

extern "C" fn ignore(_: libc::c_int) {}

#[test]
fn the_child_starts_with_default_signal_actions_an_empty_mask_and_its_own_group() {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    assert!(
        kernel_has_clear_sighand(),
        "the test needs Linux 5.5 or later"
    );
    // latch's state that must not reach a hook: a handler (tokio's for
    // SIGINT and SIGTERM), an ignored SIGPIPE (Rust's), a blocked signal.
    // SAFETY: installs a handler that does nothing, ignores SIGPIPE (as
    // Rust already does), and blocks SIGUSR2 in this test's thread only.
    let old_mask = unsafe {
        libc::signal(libc::SIGUSR1, ignore as *const () as libc::sighandler_t);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR2);
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    };
    for way in ways() {
        let ran = run(way, c"/bin/cat", &[c"cat", c"/proc/self/status"], None, b"").unwrap();
        assert_eq!(ran.status, 0, "{way:?}");
        for name in ["SigBlk", "SigIgn", "SigCgt"] {
            let mask = u64::from_str_radix(field(&ran.stdout, name), 16).unwrap();
            // glibc's two internal signals (32 and 33) may be ignored:
            // its `posix_spawn` sets them so in every child, so a process
            // it started (this test, under cargo) has them ignored, and an
            // ignored signal stays ignored across `exec`, as with the
            // standard library. SIGPIPE is the one latch resets.
            let allowed = if name == "SigIgn" { 0x1_8000_0000 } else { 0 };
            assert_eq!(mask & !allowed, 0, "{way:?}: {name} {mask:x}");
        }
        assert_eq!(
            field(&ran.stdout, "NSpgid"),
            field(&ran.stdout, "Pid"),
            "{way:?}"
        );
    }
    // SAFETY: restores this thread's mask.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut()) };
}

#[test]
fn stdio_working_directory_and_environment_are_the_ones_given() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    let cwd = CString::new(real.as_os_str().as_encoded_bytes()).unwrap();
    for way in ways() {
        let ran = run(way, c"/bin/cat", &[c"cat"], None, b"payload\n").unwrap();
        assert_eq!(ran.stdout, "payload\n", "{way:?}");
        let ran = run(way, c"/bin/sh", &[c"sh", c"-c", c"pwd"], Some(&cwd), b"").unwrap();
        assert_eq!(ran.stdout.trim_end(), real.to_str().unwrap(), "{way:?}");
        let ran = run(way, c"/usr/bin/env", &[c"env"], None, b"").unwrap();
        assert_eq!(
            ran.stdout, "PATH=/usr/bin:/bin\nLATCH_SPAWN_TEST=1\n",
            "{way:?}"
        );
    }
}

#[test]
fn a_bare_name_is_looked_up_on_latchs_path() {
    for way in ways() {
        let ran = run(way, c"echo", &[c"echo", c"found"], None, b"").unwrap();
        assert_eq!(ran.stdout, "found\n", "{way:?}");
    }
}

#[test]
fn a_failed_start_is_an_error_not_a_process() {
    let dir = tempfile::tempdir().unwrap();
    let missing = CString::new(dir.path().join("gone").as_os_str().as_encoded_bytes()).unwrap();
    let directory = CString::new(dir.path().as_os_str().as_encoded_bytes()).unwrap();
    let cases: [(&CStr, Option<&CStr>, io::ErrorKind); 4] = [
        (&missing, None, io::ErrorKind::NotFound),
        (c"latch-no-such-program", None, io::ErrorKind::NotFound),
        (&directory, None, io::ErrorKind::PermissionDenied),
        (c"/bin/true", Some(&missing), io::ErrorKind::NotFound),
    ];
    for way in ways() {
        for (program, cwd, kind) in cases {
            let error = run(way, program, &[c"x"], cwd, b"")
                .err()
                .unwrap_or_else(|| panic!("{way:?}: {program:?} in {cwd:?} started"));
            assert_eq!(
                error.kind(),
                kind,
                "{way:?}: {program:?} in {cwd:?}: {error}"
            );
            // The child that failed was reaped: this thread has none left.
            let children = std::fs::read_to_string("/proc/thread-self/children").unwrap();
            assert_eq!(children.trim(), "", "{way:?}: {program:?} in {cwd:?}");
        }
    }
}

/// An executable script without a `#!` line: `exec` refuses it (ENOEXEC),
/// and neither way falls back to a shell.
#[test]
fn a_script_without_an_interpreter_line_is_not_run_through_a_shell() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bare");
    std::fs::write(&script, "echo ran\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = CString::new(script.as_os_str().as_encoded_bytes()).unwrap();
    for way in ways() {
        let error = run(way, &script, &[c"bare"], None, b"").err();
        assert_eq!(
            error.and_then(|e| e.raw_os_error()),
            Some(libc::ENOEXEC),
            "{way:?}"
        );
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod clone3 {
    use std::ffi::{CString, OsStr, OsString};
    use std::os::unix::ffi::OsStringExt;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

    use super::{Way, run_searching};

    /// A directory holding `tool`, executable or not, printing `says`.
    fn tool_in(dir: &Path, executable: bool, says: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let tool = dir.join("tool");
        std::fs::write(&tool, format!("#!/bin/sh\necho {says}\n")).unwrap();
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn path_of(dirs: &[&Path]) -> OsString {
        std::env::join_paths(dirs).unwrap()
    }

    fn run_tool(cwd: Option<&CString>, path: &OsStr) -> std::io::Result<super::Ran> {
        run_searching(
            Way::Clone3,
            c"tool",
            &[c"tool"],
            cwd.map(CString::as_c_str),
            b"",
            Some(path),
        )
    }

    #[test]
    fn the_path_search_skips_what_cannot_run_and_reports_it_as_execvp_does() {
        let root = tempfile::tempdir().unwrap();
        let (denied, good) = (root.path().join("denied"), root.path().join("good"));
        tool_in(&denied, false, "denied");
        tool_in(&good, true, "good");
        let missing = root.path().join("missing");

        // A match that cannot run is passed over for a later one.
        let ran = run_tool(None, &path_of(&[&missing, &denied, &good])).unwrap();
        assert_eq!(ran.stdout, "good\n");

        // Only matches that cannot run: EACCES, not ENOENT.
        let error = run_tool(None, &path_of(&[&missing, &denied])).err();
        assert_eq!(
            error.map(|e| e.kind()),
            Some(std::io::ErrorKind::PermissionDenied)
        );

        // No match at all: ENOENT.
        let error = run_tool(None, &path_of(&[&missing])).err();
        assert_eq!(error.map(|e| e.kind()), Some(std::io::ErrorKind::NotFound));

        // An empty entry is the directory the hook starts in.
        let cwd = CString::new(good.as_os_str().as_encoded_bytes()).unwrap();
        let ran = run_tool(Some(&cwd), OsStr::new(":")).unwrap();
        assert_eq!(ran.stdout, "good\n");
    }

    /// The pid a handler ran in, when that was not this process.
    static HANDLED_ELSEWHERE: AtomicI32 = AtomicI32::new(0);
    static THIS_PROCESS: AtomicI32 = AtomicI32::new(0);

    extern "C" fn note_where(_: libc::c_int) {
        // SAFETY: `getpid` has no requirements; the raw call asks the
        // kernel, so a child sharing this memory gets its own pid.
        let pid = unsafe { libc::syscall(libc::SYS_getpid) } as i32;
        if pid != THIS_PROCESS.load(Ordering::Relaxed) {
            HANDLED_ELSEWHERE.store(pid, Ordering::Relaxed);
        }
    }

    /// The child shares latch's memory until it execs: a handler of
    /// latch's running in it would run on latch's data, so the kernel
    /// must have reset every handler. Each child here searches 2,000
    /// missing directories with its signals unblocked, while another
    /// thread sends SIGUSR2 to every child of the spawning thread.
    #[test]
    fn no_handler_of_latch_runs_in_the_child_before_exec() {
        THIS_PROCESS.store(std::process::id() as i32, Ordering::Relaxed);
        // SAFETY: installs a handler that only reads a pid and stores it.
        unsafe { libc::signal(libc::SIGUSR2, note_where as *const () as libc::sighandler_t) };
        // SAFETY: `gettid` has no requirements.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        let children = format!("/proc/self/task/{tid}/children");
        let dirs = (0..2000)
            .map(|i| format!("/nonexistent-latch-test-{i}"))
            .collect::<Vec<_>>()
            .join(":");
        let path = OsString::from_vec(dirs.into_bytes());
        let done = AtomicBool::new(false);
        let sent = AtomicUsize::new(0);
        let mut killed = 0;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    let list = std::fs::read_to_string(&children).unwrap_or_default();
                    for pid in list
                        .split_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok())
                    {
                        // SAFETY: signals a child of the spawning thread.
                        unsafe { libc::kill(pid, libc::SIGUSR2) };
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
            for _ in 0..200 {
                let ran = run_searching(
                    Way::Clone3,
                    c"latch-no-such-program",
                    &[c"x"],
                    None,
                    b"",
                    Some(&path),
                );
                match ran {
                    Ok(ran) if libc::WIFSIGNALED(ran.status) => {
                        assert_eq!(libc::WTERMSIG(ran.status), libc::SIGUSR2);
                        killed += 1;
                    }
                    Ok(ran) => panic!("a missing program ran: status {}", ran.status),
                    Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound),
                }
            }
            done.store(true, Ordering::Relaxed);
        });
        assert_eq!(
            HANDLED_ELSEWHERE.load(Ordering::Relaxed),
            0,
            "latch's handler ran in a child"
        );
        // The signals reached children before their exec: the default
        // action killed them.
        assert!(
            killed > 0,
            "no child was signalled in time ({} signals sent)",
            sent.load(Ordering::Relaxed)
        );
    }
}

/// Under a seccomp filter that hides `clone3` (as some container runtimes
/// install), latch falls back to `posix_spawnp` and hooks still start.
/// The filter cannot be lifted and the fallback is for the whole process,
/// so the test runs itself again in a child process.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn a_kernel_that_refuses_clone3_gets_posix_spawn() {
    const NAME: &str = "run::spawn::tests::a_kernel_that_refuses_clone3_gets_posix_spawn";
    if std::env::var_os("LATCH_TEST_NO_CLONE3").is_some() {
        hide_clone3();
        for _ in 0..2 {
            let ran = run_with_fallback(c"/bin/echo", &[c"echo", c"started"]).unwrap();
            assert_eq!(ran.stdout, "started\n");
        }
        assert!(super::vfork::REFUSED.load(std::sync::atomic::Ordering::Relaxed));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env("LATCH_TEST_NO_CLONE3", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("1 passed"), "{text}");
}

/// Starts `argv` through [`super::spawn`], which picks the way.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn run_with_fallback(program: &CStr, argv: &[&CStr]) -> io::Result<Ran> {
    let (stdin_child, stdin_ours) = pipe_with(PipeFlags::CLOEXEC)?;
    let (stdout_ours, stdout_child) = pipe_with(PipeFlags::CLOEXEC)?;
    let (stderr_ours, stderr_child) = pipe_with(PipeFlags::CLOEXEC)?;
    let pid = super::spawn(&SpawnArgs {
        program,
        argv,
        envp: &[],
        cwd: None,
        stdio: [
            stdin_child.as_fd(),
            stdout_child.as_fd(),
            stderr_child.as_fd(),
        ],
    })?;
    drop((
        stdin_child,
        stdout_child,
        stderr_child,
        stderr_ours,
        stdin_ours,
    ));
    let mut stdout = String::new();
    std::fs::File::from(stdout_ours).read_to_string(&mut stdout)?;
    let mut status = 0;
    // SAFETY: waits for the child started above.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    Ok(Ran { status, stdout })
}

/// Makes `clone3` fail with ENOSYS for this thread from now on (a seccomp
/// filter: on x86-64, system call 435 answers ENOSYS; all else is
/// allowed).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn hide_clone3() {
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    // BPF opcodes: load a word at an absolute offset, jump if equal, return.
    const LOAD: u16 = 0x20;
    const JEQ: u16 = 0x15;
    const RET: u16 = 0x06;
    let op = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
    // `struct seccomp_data`: `nr` at offset 0, `arch` at 4.
    let mut filter = [
        op(LOAD, 0, 0, 4),
        op(JEQ, 1, 0, AUDIT_ARCH_X86_64),
        op(RET, 0, 0, SECCOMP_RET_ALLOW),
        op(LOAD, 0, 0, 0),
        op(JEQ, 0, 1, libc::SYS_clone3 as u32),
        op(RET, 0, 0, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        op(RET, 0, 0, SECCOMP_RET_ALLOW),
    ];
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: `program` points at a valid filter for the duration of the
    // call, which copies it; no-new-privileges is required to install one.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog
            ),
            0,
            "{}",
            io::Error::last_os_error()
        );
    }
}

/// The `se.slice` (nanoseconds) in a `/proc/…/sched` text.
#[cfg(target_os = "linux")]
fn slice_in(sched: &str) -> Option<u64> {
    sched
        .lines()
        .find(|l| l.starts_with("se.slice"))?
        .rsplit(':')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// A thread that took the short slice has 0.1 ms; a process it starts has
/// the slice it would have had. Run on a thread of its own, which it
/// leaves with the short slice; skipped where the thread is left alone (a
/// kernel older than 6.12, or a test run under another policy).
#[cfg(target_os = "linux")]
#[test]
fn the_short_slice_is_the_threads_alone() {
    std::thread::spawn(|| {
        let own = || {
            std::fs::read_to_string("/proc/thread-self/sched")
                .ok()
                .and_then(|s| slice_in(&s))
        };
        let child = || {
            let out = std::process::Command::new("/bin/cat")
                .arg("/proc/self/sched")
                .output()
                .expect("cat runs");
            slice_in(&String::from_utf8_lossy(&out.stdout))
        };
        let child_before = child();
        if super::prefer_short_slice().is_err() {
            return;
        }
        assert_eq!(own(), Some(100_000));
        assert_eq!(child(), child_before, "a child's slice");
    })
    .join()
    .expect("the test thread");
}
