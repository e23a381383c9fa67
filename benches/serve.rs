//! `latch serve` against its targets (issue: the server and its clients):
//!
//! 1. `fire` round trip with no matching hook: median ≤ 100 µs, beside
//!    `latch fire`'s whole-process time for the same event;
//! 2. N = 1, 4, 16 `true` hooks through the server: ≤ 1.05× spawning the
//!    same processes directly (at once, as the claude dialect runs them,
//!    with the same environment); first a floor beside one direct hook,
//!    a line through a process that only echoes it, and at each N a least
//!    server beside the same direct spawns (`--spawner`: it reads a line,
//!    spawns the N hooks as the direct side does, appends to a file as
//!    the audit log does, and answers), which shows what this machine
//!    lets any server reach;
//! 3. 10,000 `fire`s on one server: RSS and open descriptors flat (first
//!    and last reported);
//! 4. 64 sessions each with one slow hook in flight do not delay a session
//!    with no hook by more than 5 ms: the quick session fires throughout,
//!    from the slow fires' start to their last answer, and its largest
//!    delay is compared with its largest delay beside the same 64
//!    processes spawned directly, over several bursts of each (the
//!    medians of each burst's largest delay).
//!
//! The server is the release binary, driven through its pipes by this
//! process, as a harness would. Timings are medians of interleaved rounds,
//! each running the server and the direct spawns once, in an order drawn
//! afresh each round (with a strict alternation, each side would always
//! follow the other, and what one leaves behind would favour or slow the
//! other), so a busy machine affects both sides alike. Run with `cargo bench --bench serve` (`SERVE_FIRES=N`
//! changes the endurance count, `SERVE_SECTIONS=2` runs section 2 only,
//! `SERVE_QUARTILES=1` adds each side's spread in section 2, `SERVE_CPU=1`
//! each side's CPU time per round (the server's and this thread's for its
//! round trip, and this thread's for the direct spawns), `SERVE_AUDIT=off`
//! turns the server's audit log off; it is `runs`, the default, otherwise;
//! `SERVE_ROUNDS=N` sets section 2's rounds, 2,000, and 300 for N = 16;
//! `SERVE_N=1` runs only that hook count, or `1,4` those; `SERVE_BURSTS=N`
//! sets section 4's bursts of each side, 5; `SERVE_WHEN=1` prints each
//! burst's three largest delays, with when each came since the burst
//! started).
//!
//! `cargo bench` builds the server with the `bench` profile (no LTO, 16
//! codegen units: quick to build), and writes it to `target/release/latch`,
//! over the release build. The targets are for what users run, so copy
//! the release build out of its way first: `cargo build --release && cp
//! target/release/latch target/latch-release &&
//! LATCH_BIN=target/latch-release cargo bench --bench serve`. Section 2's
//! verdict is the ratio of the two sides' medians; the median of each
//! round's own ratio is printed beside it. A served round is timed from
//! the write of the encoded request to the read of the answer's line, as
//! the floors are. Encoding the request and decoding the answer is the
//! harness's work, which the direct side also does in advance (its
//! payload is ready); that work is timed separately, and a second ratio
//! that includes it is printed beside the verdict's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The server binary: `$LATCH_BIN` (for example the release build, which
/// `cargo bench` does not use), else the one `cargo bench` built.
fn latch() -> String {
    std::env::var("LATCH_BIN")
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_latch").to_owned())
}

/// Whether `bin` is the build `cargo bench` made for this bench: the same
/// file, even when named by the path `cargo build --release` wrote (the
/// bench profile writes there too).
fn is_bench_build(bin: &str) -> bool {
    let canonical = |p: &str| std::fs::canonicalize(p).ok();
    canonical(bin).is_some() && canonical(bin) == canonical(env!("CARGO_BIN_EXE_latch"))
}

/// A running `latch serve`.
struct Serve {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
}

impl Serve {
    fn start(project: &Path) -> Serve {
        let mut child = Command::new(latch())
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("latch serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Serve {
            child,
            stdin,
            stdout,
            next: 1,
        };
        let r = s.call(
            "initialize",
            json!({"dialects": ["claude"], "project": project, "home": project.join("home"),
                "claude_managed_dir": project.join("managed"), "state_dir": project.join("state"),
                "audit": std::env::var("SERVE_AUDIT").unwrap_or_else(|_| "runs".to_owned())}),
        );
        assert!(r["result"].is_object(), "{r}");
        s
    }

    fn send(&mut self, method: &str, params: &Value) -> i64 {
        let (id, line) = self.encode(method, params);
        // One write per message, as both clients do: `writeln!` on the
        // unbuffered pipe wrote the newline separately, which woke the
        // server twice per message and added ~25 µs to the round trip.
        self.stdin.write_all(&line).unwrap();
        id
    }

    /// The next request's id and line, newline included.
    fn encode(&mut self, method: &str, params: &Value) -> (i64, Vec<u8>) {
        let id = self.next;
        self.next += 1;
        let mut line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            .to_string()
            .into_bytes();
        line.push(b'\n');
        (id, line)
    }

    /// Writes an encoded request and reads the next line back, undecoded:
    /// the round trip alone, as the floors of section 2 time theirs.
    fn exchange(&mut self, line: &[u8]) -> String {
        self.stdin.write_all(line).unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        answer
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Reads answers until the one to `id`; returns the ids of the
    /// others read meanwhile.
    fn read_until(&mut self, id: i64) -> Vec<i64> {
        let mut others = Vec::new();
        loop {
            match self.read()["id"].as_i64() {
                Some(i) if i == id => return others,
                Some(i) => others.push(i),
                None => {}
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, &params);
        loop {
            let r = self.read();
            if r["id"] == id {
                return r;
            }
        }
    }

    /// The CPU time the server's threads have run, in nanoseconds
    /// (`/proc/<pid>/task/*/schedstat`).
    fn cpu_ns(&self) -> u64 {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).unwrap();
        tasks
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum()
    }

    /// `(VmRSS in KiB, open descriptors)` of the server.
    fn footprint(&self) -> (u64, usize) {
        let pid = self.child.id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let rss = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|d| d.count())
            .unwrap_or(0);
        (rss, fds)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A project whose `.claude/settings.json` holds `settings`.
fn project(settings: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in [".claude", "home", "managed", "state"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    dir
}

/// `n` distinct PreToolUse hooks running `true`.
fn true_hooks(n: usize) -> Value {
    let hooks: Vec<Value> = (0..n)
        .map(|i| json!({"type": "command", "command": format!("true # {i}")}))
        .collect();
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
}

fn bash_event(session: &str) -> Value {
    json!({"event": "tool_before", "session_id": session,
        "tool": {"name": "Bash", "input": {"command": "ls"}}})
}

/// How long each of `n` calls of `f` took.
fn timed(n: usize, mut f: impl FnMut()) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The CPU time this thread has run, in nanoseconds.
fn thread_cpu_ns() -> u64 {
    // The clock, not `/proc/thread-self/schedstat`: for the running thread
    // that file only moves at scheduler events, so it missed the work
    // since the thread last blocked.
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec).unwrap() * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap()
}

/// Spawns the same `n` hooks directly, at once, with their payload and
/// the variables the claude dialect gives them (setting any variable makes
/// the standard library copy the whole environment for each spawn, a cost
/// of the hooks, not of latch: about 1 µs per inherited variable).
fn direct(cwd: &Path, n: usize) {
    let payload = br#"{"session_id":"s","transcript_path":"","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":""}"#;
    let children: Vec<Child> = (0..n)
        .map(|i| {
            use std::os::unix::process::CommandExt;
            let mut c = Command::new("/bin/sh")
                .arg("-c")
                .arg(format!("true # {i}"))
                .current_dir(cwd)
                .env("CLAUDE_PROJECT_DIR", cwd)
                .env("CLAUDECODE", "1")
                .env("CLAUDE_CODE_SESSION_ID", "s1")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .spawn()
                .unwrap();
            let _ = c.stdin.take().unwrap().write_all(payload);
            c
        })
        .collect();
    for c in children {
        assert!(c.wait_with_output().unwrap().status.success());
    }
}

/// `--echo`: copies stdin to stdout line by line with blocking reads and
/// writes, and nothing else: the least a server in another process can be.
fn echo() {
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

/// `--spawner DIR [N]`: the least server that runs hooks. For each line
/// of stdin it spawns `N` (1) `true` hooks in `DIR` exactly as the direct
/// side does ([`direct`]), appends a line of an audit record's length per
/// hook to `DIR/state/spawner.jsonl` (in one write), and answers with a
/// line of a served one-hook answer's length. It parses nothing, chooses
/// nothing and folds nothing: it is the floor for a server's work around
/// a hook, not a rival design.
fn spawner(cwd: &Path, n: usize) {
    use std::os::unix::fs::OpenOptionsExt;
    let mut audit = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(cwd.join("state/spawner.jsonl"))
        .unwrap();
    // One record per hook, in one write, as latch appends a dispatch's.
    let record = format!("{}\n", "a".repeat(276)).repeat(n);
    let answer = format!("{}\n", "r".repeat(272));
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            return;
        }
        direct(cwd, n);
        audit.write_all(record.as_bytes()).unwrap();
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// A floor of section 2: a round trip through this bench's own binary run
/// with `args` ([`echo`] or [`spawner`]) in a process of its own, against
/// the direct spawn of `n` `true` hooks, interleaved as section 2
/// interleaves its sides. Returns the two medians.
fn floor(cwd: &Path, rounds: usize, args: &[&std::ffi::OsStr], n: usize) -> (Duration, Duration) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // A line as long as a served `fire` of `bash_event`.
    let message = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "fire", "params": bash_event("s1")})
    );
    let mut line = String::new();
    let (mut through, mut spawned) = (Vec::new(), Vec::new());
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..rounds {
        for its_turn in coin(&mut seed) {
            let t = Instant::now();
            if its_turn {
                stdin.write_all(message.as_bytes()).unwrap();
                line.clear();
                stdout.read_line(&mut line).unwrap();
                through.push(t.elapsed());
            } else {
                direct(cwd, n);
                spawned.push(t.elapsed());
            }
        }
    }
    drop(stdin);
    child.wait().unwrap();
    (median(through), median(spawned))
}

/// Which of a round's two turns is the server's, `[true, false]` or
/// `[false, true]`, from a xorshift coin: with a fixed seed, runs stay
/// comparable.
fn coin(seed: &mut u64) -> [bool; 2] {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    [*seed & 1 == 0, *seed & 1 == 1]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if std::env::args().any(|a| a == "--echo") {
        echo();
        return;
    }
    let mut spawner_args = std::env::args_os().skip_while(|a| a != "--spawner").skip(1);
    if let Some(dir) = spawner_args.next() {
        let n = spawner_args
            .next()
            .and_then(|n| n.to_str()?.parse().ok())
            .unwrap_or(1);
        spawner(Path::new(&dir), n);
        return;
    }
    let mut verdicts = Vec::new();
    println!("server: {}", latch());
    if is_bench_build(&latch()) {
        println!(
            "(the bench profile's build, which cargo bench writes to target/release/latch: \
             copy the release build elsewhere and set LATCH_BIN to measure it)"
        );
    }

    // `SERVE_SECTIONS=2,3` runs only those sections.
    let sections = std::env::var("SERVE_SECTIONS").unwrap_or_else(|_| "1,2,3,4".to_owned());
    let wanted = |n: &str| sections.split(',').any(|s| s.trim() == n);

    // 1. Round trip, no matching hook.
    if wanted("1") {
        let p = project(
            &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]}}),
        );
        let mut s = Serve::start(p.path());
        let event = bash_event("s1");
        for _ in 0..500 {
            s.call("fire", event.clone());
        }
        let serve_rt = median(timed(5000, || {
            s.call("fire", event.clone());
        }));
        let fire_times: Vec<Duration> = (0..100)
            .map(|_| {
                let t = Instant::now();
                let mut c = Command::new(latch())
                    .args(["fire", "--dialect", "claude", "--project"])
                    .arg(p.path())
                    .arg("--home")
                    .arg(p.path().join("home"))
                    .arg("--claude-managed-dir")
                    .arg(p.path().join("managed"))
                    .arg("--state-dir")
                    .arg(p.path().join("state"))
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(event.to_string().as_bytes())
                    .unwrap();
                c.wait_with_output().unwrap();
                t.elapsed()
            })
            .collect();
        let fire_whole = median(fire_times);
        println!(
            "1. no matching hook: serve round trip median {serve_rt:?}; latch fire whole process median {fire_whole:?}"
        );
        verdicts.push((
            "serve round trip ≤ 100 µs",
            serve_rt <= Duration::from_micros(100),
        ));
    }

    // 2. N true hooks against direct spawns, interleaved; first the floors.
    if wanted("2") {
        let p = project(&true_hooks(1));
        let (echoed, spawned) = floor(p.path(), 2000, &["--echo".as_ref()], 1);
        println!(
            "2. floor: a line through a process that only echoes it {echoed:?}, beside a direct \
             `true` hook {spawned:?}: N = 1 can be no lower than {:.3}",
            (echoed + spawned).as_secs_f64() / spawned.as_secs_f64()
        );
    }
    // `SERVE_N=1` (or `1,4`) runs only those hook counts.
    let named = std::env::var("SERVE_N").unwrap_or_else(|_| "1,4,16".to_owned());
    let counts: Vec<usize> = [1, 4, 16]
        .into_iter()
        .filter(|n| wanted("2") && named.split(',').any(|c| c.trim() == n.to_string()))
        .collect();
    if wanted("2") && counts.is_empty() {
        println!("2. SERVE_N={named} names none of the hook counts 1, 4, 16: nothing to run");
    }
    for n in counts {
        let p = project(&true_hooks(n));
        let rounds = std::env::var("SERVE_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            // Fewer rounds left the median at N = 1 and 4 a few percent
            // apart from one run to the next on a 2-core machine.
            .unwrap_or(if n == 16 { 300 } else { 2000 });
        let count = n.to_string();
        let (least, spawned) = floor(
            p.path(),
            rounds,
            &["--spawner".as_ref(), p.path().as_os_str(), count.as_ref()],
            n,
        );
        println!(
            "2. N = {n:2}, least server: a line answered by a process that spawns the hooks as \
             the direct side does and appends an audit line {least:?}, beside the direct spawns \
             {spawned:?}: ratio {:.3}",
            least.as_secs_f64() / spawned.as_secs_f64()
        );
        let mut s = Serve::start(p.path());
        let event = bash_event("s1");
        for _ in 0..20 {
            s.call("fire", event.clone());
            direct(p.path(), n);
        }
        let (mut served, mut spawned, mut json_work) = (Vec::new(), Vec::new(), Vec::new());
        // `SERVE_CPU=1`: the CPU time each side spends per round (the
        // server's, all threads; this thread's for the direct spawns, and
        // for the served round trip: its write, its read and its wake-ups,
        // a harness's share of a served fire besides its JSON).
        let cpu = std::env::var_os("SERVE_CPU").is_some();
        let (server_cpu, mut direct_cpu, mut harness_cpu) = (cpu.then(|| s.cpu_ns()), 0, 0);
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..rounds {
            for serve_turn in coin(&mut seed) {
                if serve_turn {
                    // The request is encoded and the answer decoded outside
                    // the timed round trip, and timed apart: that is the
                    // harness's work, which the floors' pre-encoded lines
                    // and the direct side's ready payload do not pay either.
                    let t = Instant::now();
                    let (id, line) = s.encode("fire", &event);
                    let encoding = t.elapsed();
                    let before = if cpu { thread_cpu_ns() } else { 0 };
                    let t = Instant::now();
                    let answer = s.exchange(&line);
                    served.push(t.elapsed());
                    if cpu {
                        harness_cpu += thread_cpu_ns() - before;
                    }
                    let t = Instant::now();
                    let r: Value = serde_json::from_str(&answer).expect("a JSON line");
                    json_work.push(encoding + t.elapsed());
                    assert_eq!(r["id"], id, "no notification comes here: {r}");
                    assert_eq!(r["result"]["runs"].as_array().map(Vec::len), Some(n), "{r}");
                } else if cpu {
                    // Timed from after the clock read.
                    let before = thread_cpu_ns();
                    let t = Instant::now();
                    direct(p.path(), n);
                    spawned.push(t.elapsed());
                    direct_cpu += thread_cpu_ns() - before;
                } else {
                    let t = Instant::now();
                    direct(p.path(), n);
                    spawned.push(t.elapsed());
                }
            }
        }
        let (a, b) = (median(served.clone()), median(spawned.clone()));
        let ratio = a.as_secs_f64() / b.as_secs_f64();
        // Each round's own ratio: what the machine's speed drifting over
        // the run does not move.
        let mut paired: Vec<f64> = served
            .iter()
            .zip(&spawned)
            .map(|(s, d)| s.as_secs_f64() / d.as_secs_f64())
            .collect();
        paired.sort_by(f64::total_cmp);
        let paired = paired[paired.len() / 2];
        println!(
            "2. N = {n:2}: serve {a:?}, direct {b:?}, ratio {ratio:.3} (median of each round's ratio {paired:.3})"
        );
        // What a harness adds on top: this bench encodes and decodes
        // through `serde_json::Value` trees; a typed harness pays less, a
        // Python one more.
        let with_json: Vec<Duration> = served
            .iter()
            .zip(&json_work)
            .map(|(s, j)| *s + *j)
            .collect();
        let with_json = median(with_json);
        println!(
            "   with this bench's own encoding and decoding ({:?} per round): serve {with_json:?}, ratio {:.3}",
            median(json_work),
            with_json.as_secs_f64() / b.as_secs_f64()
        );
        if let Some(before) = server_cpu {
            let per_round = |ns: u64| Duration::from_nanos(ns / rounds as u64);
            println!(
                "   CPU per round: server {:?}, this thread's round trip beside it {:?}; direct (this thread) {:?}",
                per_round(s.cpu_ns() - before),
                per_round(harness_cpu),
                per_round(direct_cpu)
            );
        }
        if std::env::var_os("SERVE_QUARTILES").is_some() {
            for (what, v) in [("serve", &mut served), ("direct", &mut spawned)] {
                v.sort();
                let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize];
                println!(
                    "   {what}: p10 {:?} p25 {:?} p50 {:?} p75 {:?} p90 {:?}",
                    q(0.1),
                    q(0.25),
                    q(0.5),
                    q(0.75),
                    q(0.9)
                );
            }
        }
        verdicts.push((
            ["N = 1 ≤ 1.05×", "N = 4 ≤ 1.05×", "N = 16 ≤ 1.05×"]
                [[1, 4, 16].iter().position(|&x| x == n).unwrap()],
            ratio <= 1.05,
        ));
    }

    // 3. Endurance: RSS and descriptors over many fires.
    if wanted("3") {
        let fires: usize = std::env::var("SERVE_FIRES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10_000);
        let p = project(&true_hooks(1));
        let mut s = Serve::start(p.path());
        for i in 0..100 {
            s.call("fire", bash_event(&format!("e{}", i % 10)));
        }
        let first = s.footprint();
        for i in 100..fires {
            s.call("fire", bash_event(&format!("e{}", i % 10)));
        }
        let last = s.footprint();
        println!(
            "3. {fires} fires: RSS {} KiB after 100, {} KiB after all; open descriptors {} and {}",
            first.0, last.0, first.1, last.1
        );
        verdicts.push(("descriptors flat", last.1 <= first.1));
        verdicts.push(("RSS flat (≤ +10 %)", last.0 as f64 <= first.0 as f64 * 1.10));
    }

    // 4. 64 slow sessions do not delay a fast one. The quick session
    // fires one event after another from before the 64 slow fires are
    // sent until after the last of them is answered, so that the bursts
    // (64 hooks started at once, and 64 ended, reaped and answered at
    // once two seconds later) fall inside what is measured. On a small
    // machine the 64 processes alone delay the quick session too, so the
    // same is measured beside the same 64 processes spawned directly by
    // this process: the verdict is on what latch adds to the largest
    // delay. A largest delay is one sample of the machine's worst moment,
    // which on a 2-CPU VM varies by several milliseconds between two
    // bursts of the same direct spawns; so both sides run `SERVE_BURSTS`
    // bursts (5), in an order drawn afresh each time, each server burst
    // with 64 sessions new to it, and the verdict compares the medians of
    // the bursts' largest delays (each burst's are printed).
    if wanted("4") {
        let p = project(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sleep 2"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}]}}));
        let mut s = Serve::start(p.path());
        let quick = json!({"event": "stop", "session_id": "quick"});
        let alone = median(timed(200, || {
            s.call("fire", quick.clone());
        }));
        let bursts: usize = std::env::var("SERVE_BURSTS")
            .ok()
            .and_then(|b| b.parse().ok())
            .filter(|&b| b > 0)
            .unwrap_or(5);
        // Each side's delays, burst by burst, with when each came since
        // the burst's start.
        let (mut direct, mut served) = (Vec::new(), Vec::new());
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for burst in 0..bursts {
            for its_turn in coin(&mut seed) {
                let mut delays = Vec::new();
                let began = Instant::now();
                let mut quick_fire = |s: &mut Serve| {
                    let t = Instant::now();
                    let id = s.send("fire", &quick);
                    let answered = s.read_until(id);
                    delays.push((t - began, t.elapsed().saturating_sub(alone)));
                    answered
                };
                if its_turn {
                    // Beside 64 sessions whose hook runs through the server.
                    let mut slow: std::collections::HashSet<i64> = (0..64)
                        .map(|i| s.send("fire", &bash_event(&format!("slow{burst}.{i}"))))
                        .collect();
                    while !slow.is_empty() {
                        for id in quick_fire(&mut s) {
                            slow.remove(&id);
                        }
                    }
                    served.push(delays);
                } else {
                    // Beside 64 processes spawned directly.
                    let spawner = std::thread::spawn(|| {
                        let children: Vec<Child> = (0..64)
                            .map(|_| {
                                Command::new("/bin/sh")
                                    .args(["-c", "sleep 2"])
                                    .spawn()
                                    .unwrap()
                            })
                            .collect();
                        for mut c in children {
                            c.wait().unwrap();
                        }
                    });
                    while !spawner.is_finished() {
                        quick_fire(&mut s);
                    }
                    direct.push(delays);
                }
            }
        }
        let largest = |side: &[Vec<(Duration, Duration)>]| -> Vec<Duration> {
            side.iter()
                .map(|d| d.iter().map(|&(_, delay)| delay).max().unwrap_or_default())
                .collect()
        };
        let (direct_max, served_max) = (largest(&direct), largest(&served));
        let spread = |side: &[Vec<(Duration, Duration)>]| {
            let mut v: Vec<Duration> = side.iter().flatten().map(|&(_, d)| d).collect();
            v.sort();
            let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize];
            (v.len(), q(0.5), q(0.99))
        };
        let ((dn, dm, d99), (sn, sm, s99)) = (spread(&direct), spread(&served));
        let ms = |v: &[Duration]| {
            v.iter()
                .map(|d| format!("{:.1}", d.as_secs_f64() * 1e3))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "4. session without hooks: {alone:?} alone; {bursts} bursts of each side; its delay beside 64 `sleep 2` spawned directly: median {dm:?}, p99 {d99:?} ({dn} fires), each burst's largest {} ms; beside 64 new sessions running them through the server: median {sm:?}, p99 {s99:?} ({sn} fires), each burst's largest {} ms",
            ms(&direct_max),
            ms(&served_max),
        );
        let (dmid, smid) = (median(direct_max.clone()), median(served_max.clone()));
        let over = served_max
            .iter()
            .filter(|&&m| m > dmid + Duration::from_millis(5))
            .count();
        println!(
            "   median of the largest delays: {dmid:.1?} beside the direct spawns, {smid:.1?} through the server; {over} of {bursts} server bursts more than 5 ms over the direct median"
        );
        if std::env::var_os("SERVE_WHEN").is_some() {
            for (side, bursts) in [("direct", &direct), ("served", &served)] {
                for delays in bursts {
                    let mut at = delays.clone();
                    at.sort_by_key(|&(_, d)| std::cmp::Reverse(d));
                    let top: Vec<String> = at
                        .iter()
                        .take(3)
                        .map(|(when, d)| format!("{d:.1?} at {when:.1?}"))
                        .collect();
                    println!("   {side}: largest delays {}", top.join(", "));
                }
            }
        }
        verdicts.push((
            "64 slow sessions add ≤ 5 ms to a quick one's largest delay (median of the bursts)",
            smid <= dmid + Duration::from_millis(5),
        ));
    }

    println!();
    for (what, ok) in verdicts {
        println!("{} {what}", if ok { "PASS  " } else { "MISSED" });
    }
}
