//! Dispatch overhead: N hooks that each run `true`, through latch, against
//! spawning the same N processes directly with `std::process::Command`.
//!
//! Every variant runs `/bin/sh -c true` (poolside hooks go through
//! `/bin/sh -c`), writes the same small JSON payload to stdin, captures
//! stdout and stderr through pipes, and runs the N processes one after
//! another, in the same working directory. The variants of one N share a
//! benchmark group, so criterion's report puts them side by side:
//!
//! - `std`: `std::process::Command`, write stdin, `wait_with_output`;
//! - `runner`: [`latch::run::Runner::run`] with a [`HookCommand`], N times;
//! - `engine`: [`latch::Engine::dispatch`] of one `tool_before` event through
//!   a [`Poolside`] config whose project `settings.yaml` declares N
//!   `PreToolUse` hooks with `command: "true"`;
//! - `std-parallel`, `std-parallel+env`: the N processes spawned at once,
//!   then waited for, without and with the three variables a claude hook
//!   gets;
//! - `claude-lent`: the same N hooks through the claude dialect, which runs
//!   them at once, with the runner lending the thread as `latch fire` does.
//!
//! The tokio runtime (current-thread, as `latch fire` uses) and the engine
//! are built once, outside the timing loop.
//!
//! `dispatch_no_match` measures the engine alone: a dispatch whose event
//! matches no hook, so nothing is spawned.
//!
//! Criterion runs each variant in a loop of its own, so its code stays warm
//! in the caches. A full run (no filter) ends with an interleaved
//! measurement of the same variants plus references that locate the
//! overhead (`std` with a process group, the same on tokio's blocking pool,
//! plain `tokio::process`, the claude dialect without a lent thread), each
//! round running every variant once in a drawn order, so each starts with
//! caches the others left behind, as a `latch fire` process or a harness's
//! occasional event does; it prints the medians with their ratio to `std`.
//!
//! Run with `cargo bench --bench dispatch`; `cargo bench --bench dispatch
//! -- summary` runs the interleaved summary alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::hint::black_box;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group};

use latch::dialect::claude::{self, Claude};
use latch::dialect::poolside::{Poolside, Sources};
use latch::run::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program, Runner, Termination};
use latch::{Engine, Event, Session};

/// The hook counts measured.
const COUNTS: [usize; 3] = [1, 4, 16];

/// The payload every variant writes to the hook's stdin: the shape (and
/// roughly the size) of what the poolside dialect sends on PreToolUse.
const PAYLOAD: &[u8] = br#"{"hook_api_version":1,"hook_event_name":"PreToolUse","event_id":"evt-18f2c3a4b5d6e7f8-1a2b-0","session_id":"s","tool_name":"shell","tool_input":{"cmd":"ls"}}"#;

const SHELL: &str = "/bin/sh";

/// One hook run directly with the standard library; `group` adds the
/// `process_group(0)` latch sets (the `std` variant leaves it out).
fn std_once(cwd: &Path, group: bool) {
    let out = std_spawn(cwd, group)
        .wait_with_output()
        .expect("wait for /bin/sh");
    assert!(out.status.success());
    black_box(out);
}

/// Spawns one hook with the standard library and writes its payload.
fn std_spawn(cwd: &Path, group: bool) -> std::process::Child {
    std_spawn_with(cwd, group, |_| {})
}

/// [`std_spawn`], with `more` applied to the command before it spawns.
fn std_spawn_with(cwd: &Path, group: bool, more: impl FnOnce(&mut Command)) -> std::process::Child {
    let mut command = Command::new(SHELL);
    command
        .arg("-c")
        .arg("true")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if group {
        command.process_group(0);
    }
    more(&mut command);
    let mut child = command.spawn().expect("spawn /bin/sh");
    if let Some(mut stdin) = child.stdin.take() {
        // The payload is far below the pipe buffer, so writing before reading
        // cannot deadlock; EPIPE (the shell exited first) is fine, as in latch.
        let _ = stdin.write_all(PAYLOAD);
    }
    child
}

/// Plain `tokio::process`, without latch's runner: the same pipes, the
/// payload written, `wait_with_output`.
async fn tokio_once(cwd: &Path) {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(SHELL)
        .arg("-c")
        .arg("true")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn /bin/sh");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(PAYLOAD).await;
    }
    let out = child.wait_with_output().await.expect("wait for /bin/sh");
    assert!(out.status.success());
    black_box(out);
}

/// The same hook as a latch [`HookCommand`], with poolside's limits.
fn hook_command(cwd: &Path) -> HookCommand {
    HookCommand {
        program: Program::Shell {
            shell: PathBuf::from(SHELL),
            script: "true".to_owned(),
        },
        env: EnvPolicy::Inherit(Vec::<(OsString, OsString)>::new()),
        cwd: Some(cwd.to_path_buf()),
        stdin: PAYLOAD.to_vec(),
        timeout: Duration::from_secs(10),
        limits: OutputLimits {
            stdout: 1024 * 1024,
            stderr: 64 * 1024,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    }
}

/// A project directory whose settings declare `n` PreToolUse hooks running `true`.
fn project_with_hooks(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::from("hooks:\n  PreToolUse:\n");
    for i in 0..n {
        yaml.push_str(&format!(
            "    - name: h{i}\n      matcher: \"shell\"\n      command: \"true\"\n      timeout: 10\n"
        ));
    }
    std::fs::create_dir(dir.path().join(".poolside")).expect("mkdir .poolside");
    std::fs::write(dir.path().join(".poolside/settings.yaml"), yaml).expect("write settings");
    dir
}

/// `n` hooks spawned directly with the standard library, all at once, then
/// waited for: the baseline of hooks that run in parallel. With `env`, each
/// also gets the three variables a claude hook gets (`CLAUDE_PROJECT_DIR`,
/// `CLAUDECODE`, `CLAUDE_CODE_SESSION_ID`).
fn std_parallel(cwd: &Path, n: usize, env: bool) {
    let children: Vec<std::process::Child> = (0..n)
        .map(|_| {
            if env {
                std_spawn_with(cwd, true, |c| {
                    c.env("CLAUDE_PROJECT_DIR", cwd)
                        .env("CLAUDECODE", "1")
                        .env("CLAUDE_CODE_SESSION_ID", "s");
                })
            } else {
                std_spawn(cwd, true)
            }
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait for /bin/sh");
        assert!(out.status.success());
        black_box(out);
    }
}

/// A project whose `.claude/settings.json` declares `n` distinct PreToolUse
/// command hooks running `true` (distinct, or Claude Code's dedup would run
/// one).
fn project_with_claude_hooks(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let hooks: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"type": "command", "command": format!("true # {i}"), "timeout": 10}))
        .collect();
    let settings =
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}});
    std::fs::create_dir(dir.path().join(".claude")).expect("mkdir .claude");
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .expect("write settings");
    dir
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn bench_dispatch(c: &mut Criterion) {
    let rt = runtime();
    let runner = Runner::default();
    let session = Session::in_memory(None);
    let event = Event::tool_before("shell", serde_json::json!({"cmd": "ls"})).with_session("s");

    for n in COUNTS {
        let project = project_with_hooks(n);
        let cwd = project.path().to_path_buf();
        let pool = Poolside::load(&Sources {
            project: Some(cwd.clone()),
            ..Default::default()
        });
        let engine = Engine::new().with_dialect(pool);
        assert_eq!(engine.diagnostics().count(), 0, "the settings load cleanly");
        let cmd = hook_command(&cwd);

        // Check once, outside timing, that each variant really runs n hooks.
        let outcome = rt.block_on(engine.dispatch(&event, &session)).unwrap();
        assert_eq!(outcome.runs.len(), n);
        assert!(outcome.runs.iter().all(|r| r.exit_code == Some(0)));
        let once = rt.block_on(runner.run(&cmd));
        assert!(matches!(once.termination, Termination::Exited(_)));
        assert_eq!(once.exit_code(), Some(0));

        let mut group = c.benchmark_group(format!("dispatch_true/{n}"));
        // Each iteration spawns processes (milliseconds): flat sampling keeps
        // the run within its time budget.
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(25)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        group.bench_function(BenchmarkId::new("std", n), |b| {
            b.iter(|| {
                for _ in 0..n {
                    std_once(&cwd, false);
                }
            });
        });
        group.bench_function(BenchmarkId::new("runner", n), |b| {
            b.iter(|| {
                rt.block_on(async {
                    for _ in 0..n {
                        black_box(runner.run(&cmd).await);
                    }
                });
            });
        });
        group.bench_function(BenchmarkId::new("engine", n), |b| {
            b.iter(|| black_box(rt.block_on(engine.dispatch(&event, &session)).unwrap()));
        });
        // The claude dialect runs its hooks at once: against the same
        // processes spawned at once, with and without its three variables.
        let claude_project = project_with_claude_hooks(n);
        let claude_dir = claude_project.path().to_path_buf();
        let claude_lent = claude_engine(&claude_dir, true);
        let claude_event = event.clone().with_cwd(claude_dir.clone());
        group.bench_function(BenchmarkId::new("std-parallel", n), |b| {
            b.iter(|| std_parallel(&claude_dir, n, false));
        });
        group.bench_function(BenchmarkId::new("std-parallel+env", n), |b| {
            b.iter(|| std_parallel(&claude_dir, n, true));
        });
        group.bench_function(BenchmarkId::new("claude-lent", n), |b| {
            b.iter(|| {
                black_box(
                    rt.block_on(claude_lent.dispatch(&claude_event, &session))
                        .unwrap(),
                )
            });
        });
        group.finish();
    }
}

/// The engine's own cost: a dispatch whose event matches none of 16
/// configured hooks (the tool is `read`, every matcher is `shell`), so no
/// process is spawned and everything measured is in-process work.
fn bench_no_match(c: &mut Criterion) {
    let rt = runtime();
    let session = Session::in_memory(None);
    let project = project_with_hooks(16);
    let engine = Engine::new().with_dialect(Poolside::load(&Sources {
        project: Some(project.path().to_path_buf()),
        ..Default::default()
    }));
    let event = Event::tool_before("read", serde_json::json!({"path": "a"})).with_session("s");
    let outcome = rt.block_on(engine.dispatch(&event, &session)).unwrap();
    assert!(outcome.runs.is_empty());
    let mut group = c.benchmark_group("dispatch_no_match");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("engine/16_hooks", |b| {
        b.iter(|| black_box(rt.block_on(engine.dispatch(&event, &session)).unwrap()));
    });
    group.finish();
}

/// The variants of the interleaved summary: those measured above plus
/// references that locate latch's overhead.
#[derive(Clone, Copy)]
enum Variant {
    /// `std::process::Command` (the baseline).
    Std,
    /// The baseline plus `process_group(0)`, as latch spawns.
    StdGroup,
    /// The baseline plus `process_group(0)`, on tokio's blocking pool.
    Blocking,
    /// Plain `tokio::process::Command`: write stdin, `wait_with_output`.
    Tokio,
    /// latch's `Runner::run`.
    Runner,
    /// latch's `Engine::dispatch`.
    Engine,
    /// The baseline for parallel hooks: `n` spawned at once, then waited.
    StdParallel,
    /// The same, each hook with the three variables a claude hook gets.
    StdParallelEnv,
    /// latch's `Engine::dispatch` through the claude dialect (parallel).
    Claude,
    /// The same with the runner lending the thread, as `latch fire` runs.
    ClaudeLent,
}

const VARIANTS: [(Variant, &str); 10] = [
    (Variant::Std, "std"),
    (Variant::StdGroup, "std+pgroup"),
    (Variant::Blocking, "blocking"),
    (Variant::Tokio, "tokio"),
    (Variant::Runner, "runner"),
    (Variant::Engine, "engine"),
    (Variant::StdParallel, "std-parallel"),
    (Variant::StdParallelEnv, "std-parallel+env"),
    (Variant::Claude, "claude"),
    (Variant::ClaudeLent, "claude-lent"),
];

/// An engine with the claude dialect over `dir`'s settings; `lend` as
/// `latch fire` sets it.
fn claude_engine(dir: &Path, lend: bool) -> Engine {
    Engine::new()
        .with_dialect(Claude::load(claude::Options {
            sources: claude::Sources {
                project: Some(dir.to_path_buf()),
                managed_dir: Some(dir.join("no-managed")),
                ..Default::default()
            },
            project: Some(dir.to_path_buf()),
            ..Default::default()
        }))
        .with_runner(Runner {
            lend_thread: lend,
            ..Runner::default()
        })
}

/// An interleaved measurement, independent of criterion: each round runs one
/// dispatch of N hooks with every variant, in an order shuffled afresh each
/// round, so load from other processes on the machine (another build, say)
/// hits all of them alike, and no variant always follows the same one (a
/// rotation did that, and what a variant leaves behind, such as which core
/// the last hooks ran on, then favoured or slowed its successor). Prints the
/// medians and the ratios to `std`.
fn interleaved_summary() {
    let rt = runtime();
    let runner = Runner::default();
    let session = Session::in_memory(None);
    let event = Event::tool_before("shell", serde_json::json!({"cmd": "ls"})).with_session("s");
    println!("\ninterleaved medians per dispatch of N hooks (ratio to std):");
    print!("{:>3}", "N");
    for (_, name) in VARIANTS {
        print!("  {name:>19}");
    }
    println!("  {:>14}  {:>14}", "claude/std-par", "lent/std-par");
    for n in COUNTS {
        let project = project_with_hooks(n);
        let cwd = project.path().to_path_buf();
        let engine = Engine::new().with_dialect(Poolside::load(&Sources {
            project: Some(cwd.clone()),
            ..Default::default()
        }));
        let cmd = hook_command(&cwd);
        let claude_project = project_with_claude_hooks(n);
        let claude_dir = claude_project.path().to_path_buf();
        let claude = claude_engine(&claude_dir, false);
        let claude_lent = claude_engine(&claude_dir, true);
        let claude_event = event.clone().with_cwd(claude_dir.clone());
        let rounds = (1000 / n).max(60);
        let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); VARIANTS.len()];
        let mut order: Vec<usize> = (0..VARIANTS.len()).collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ n as u64;
        for _ in 0..rounds {
            shuffle(&mut order, &mut seed);
            for &slot in &order {
                let t = Instant::now();
                match VARIANTS[slot].0 {
                    Variant::Std => (0..n).for_each(|_| std_once(&cwd, false)),
                    Variant::StdGroup => (0..n).for_each(|_| std_once(&cwd, true)),
                    Variant::Blocking => rt.block_on(async {
                        for _ in 0..n {
                            let dir = cwd.clone();
                            tokio::task::spawn_blocking(move || std_once(&dir, true))
                                .await
                                .unwrap();
                        }
                    }),
                    Variant::Tokio => rt.block_on(async {
                        for _ in 0..n {
                            tokio_once(&cwd).await;
                        }
                    }),
                    Variant::Runner => rt.block_on(async {
                        for _ in 0..n {
                            black_box(runner.run(&cmd).await);
                        }
                    }),
                    Variant::Engine => {
                        black_box(rt.block_on(engine.dispatch(&event, &session)).unwrap());
                    }
                    Variant::StdParallel => std_parallel(&claude_dir, n, false),
                    Variant::StdParallelEnv => std_parallel(&claude_dir, n, true),
                    Variant::Claude | Variant::ClaudeLent => {
                        let engine = match VARIANTS[slot].0 {
                            Variant::Claude => &claude,
                            _ => &claude_lent,
                        };
                        let outcome = rt
                            .block_on(engine.dispatch(&claude_event, &session))
                            .unwrap();
                        assert_eq!(outcome.runs.len(), n);
                        black_box(outcome);
                    }
                }
                times[slot].push(t.elapsed());
            }
        }
        let medians: Vec<Duration> = times.into_iter().map(median).collect();
        let base = medians[0].as_secs_f64();
        print!("{n:>3}");
        for m in &medians {
            let cell = format!("{m:.3?} ({:.3})", m.as_secs_f64() / base);
            print!("  {cell:>19}");
        }
        let of = |v: Variant| {
            VARIANTS
                .iter()
                .position(|(w, _)| std::mem::discriminant(w) == std::mem::discriminant(&v))
                .map_or(f64::NAN, |i| medians[i].as_secs_f64())
        };
        print!("  {:>14.3}", of(Variant::Claude) / of(Variant::StdParallel));
        print!(
            "  {:>14.3}",
            of(Variant::ClaudeLent) / of(Variant::StdParallel)
        );
        println!();
    }
    println!(
        "target: runner/std and engine/std <= 1.05; claude/std-parallel and claude-lent/std-parallel <= 1.05"
    );
}

/// Fisher–Yates with a xorshift generator: a fixed seed, so runs are
/// comparable, and no dependency for it.
fn shuffle(order: &mut [usize], seed: &mut u64) {
    for i in (1..order.len()).rev() {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let j = (*seed % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

criterion_group!(benches, bench_no_match, bench_dispatch);

/// Criterion's options that take their value as the next argument.
const TAKES_VALUE: [&str; 14] = [
    "--warm-up-time",
    "--measurement-time",
    "--sample-size",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--save-baseline",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--profile-time",
    "--color",
    "--output-format",
];

/// `LATCH_PROFILE=claude|claude-lent|std-parallel|std-parallel+env:N:ROUNDS`: runs that
/// one variant alone in a loop and exits, for `perf` and `strace` to
/// watch (the binary is under `target/release/deps/dispatch-*`).
fn profile(spec: &str) {
    let mut parts = spec.split(':');
    let variant = parts.next().unwrap_or("claude");
    let n: usize = parts.next().and_then(|p| p.parse().ok()).unwrap_or(1);
    let rounds: usize = parts.next().and_then(|p| p.parse().ok()).unwrap_or(2000);
    let rt = runtime();
    let session = Session::in_memory(None);
    let project = project_with_claude_hooks(n);
    let dir = project.path().to_path_buf();
    let claude = claude_engine(&dir, variant == "claude-lent");
    let event = Event::tool_before("shell", serde_json::json!({"cmd": "ls"}))
        .with_session("s")
        .with_cwd(dir.clone());
    let cpu = own_cpu_ticks();
    let t = Instant::now();
    for _ in 0..rounds {
        // A marker syscall around each round, for `perf trace`.
        let _ = rustix::process::getppid();
        match variant {
            "std-parallel" => std_parallel(&dir, n, false),
            "std-parallel+env" => std_parallel(&dir, n, true),
            _ => {
                black_box(rt.block_on(claude.dispatch(&event, &session)).unwrap());
            }
        }
        let _ = rustix::process::getppid();
    }
    let elapsed = t.elapsed();
    let (user, system) = match (cpu, own_cpu_ticks()) {
        // Clock ticks of 10 ms: µs per round.
        (Some((u0, s0)), Some((u1, s1))) => (
            (u1 - u0) as f64 * 10_000.0 / rounds as f64,
            (s1 - s0) as f64 * 10_000.0 / rounds as f64,
        ),
        _ => (f64::NAN, f64::NAN),
    };
    println!(
        "{variant} N={n}: {:.3?} per round; latch's own CPU {user:.0} µs user, {system:.0} µs system",
        elapsed / rounds as u32
    );
}

/// This process's user and system CPU time so far, in clock ticks
/// (`/proc/self/stat`; the hooks' time is not in it).
fn own_cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

fn main() {
    if let Ok(spec) = std::env::var("LATCH_PROFILE") {
        profile(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    // Only a full `cargo bench` run prints the summary: not `cargo test
    // --benches` (no `--bench` flag), a filtered run (but `summary`) or
    // `--list`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_mode = args.iter().any(|a| a == "--bench");
    // A word that is not an option is a filter, unless it is the value of
    // the option before it (`--measurement-time 3`).
    let filtered = args.iter().enumerate().any(|(i, a)| {
        let is_value = i > 0 && TAKES_VALUE.contains(&args[i - 1].as_str());
        (!a.starts_with('-') && !is_value) || a == "--list" || a == "--test"
    });
    // `summary` as the filter matches no criterion bench and runs the
    // summary alone.
    let summary_only = args.iter().any(|a| a == "summary");
    if bench_mode && (!filtered || summary_only) {
        interleaved_summary();
    }
}
