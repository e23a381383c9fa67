//! The test builder: a temp project with poolside settings and fixture hooks,
//! fired through the real binary.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// A temp project: `<root>/project` with `.poolside/`, `<root>/home`, and a
/// state directory.
pub struct Project {
    pub root: TempDir,
}

/// The result of one `latch fire`.
pub struct Fired {
    pub code: i32,
    pub outcome: Value,
    pub stderr: String,
}

/// `bytes` as JSON of any depth up to what the stack takes (an outcome
/// may carry a hook's deeply nested data).
pub fn unbounded_json(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

impl Fired {
    /// Reads a finished `latch` process: exit code, JSON outcome, stderr.
    pub fn from_output(out: &Output) -> Fired {
        Fired {
            code: out.status.code().unwrap_or(-1),
            outcome: unbounded_json(&out.stdout).unwrap_or(Value::Null),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The `runs` array.
    pub fn runs(&self) -> &Vec<Value> {
        self.outcome["runs"].as_array().expect("runs is an array")
    }

    /// The `notices[].text` values.
    pub fn notice_texts(&self) -> Vec<String> {
        self.outcome["notices"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|n| n["text"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The `reasons[].text` values.
    pub fn reasons(&self) -> Vec<String> {
        self.outcome["reasons"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|n| n["text"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether any user warning contains `text`.
    pub fn warnings_contain(&self, text: &str) -> bool {
        self.outcome["warnings"]
            .as_array()
            .is_some_and(|a| a.iter().any(|w| w.as_str().unwrap_or("").contains(text)))
    }

    /// One run's status.
    pub fn status(&self, i: usize) -> &str {
        self.runs()[i]["status"].as_str().unwrap_or("")
    }
}

impl Project {
    pub fn new() -> Project {
        let root = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(root.path().join("project/.poolside")).expect("mkdir");
        fs::create_dir_all(root.path().join("home")).expect("mkdir");
        Project { root }
    }

    pub fn dir(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn state(&self) -> PathBuf {
        self.root.path().join("state")
    }

    /// Writes `<project>/.poolside/settings.yaml`.
    pub fn settings(self, yaml: &str) -> Project {
        self.write(".poolside/settings.yaml", yaml);
        self
    }

    /// Writes a file relative to the project and returns its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        write_file(&self.dir(), rel, text)
    }

    /// Writes an executable script relative to the project.
    pub fn script(&self, rel: &str, body: &str) -> PathBuf {
        write_script(&self.dir(), rel, body)
    }

    /// A fixture hook command: records its stdin to `in.<id>.json`, prints
    /// `stdout` and `stderr` (stored in files, so any bytes work), and exits
    /// with `code`.
    pub fn hook(&self, id: &str, stdout: &[u8], stderr: &[u8], code: i32) -> String {
        fs::write(self.dir().join(format!("out.{id}")), stdout).expect("write");
        fs::write(self.dir().join(format!("err.{id}")), stderr).expect("write");
        format!("cat > in.{id}.json; cat out.{id}; cat err.{id} >&2; exit {code}")
    }

    /// What fixture hook `id` read on stdin, if it ran.
    pub fn received(&self, id: &str) -> Option<Value> {
        let text = fs::read_to_string(self.dir().join(format!("in.{id}.json"))).ok()?;
        Some(serde_json::from_str(&text).expect("hook stdin is JSON"))
    }

    /// Runs `latch fire` with the event on stdin.
    pub fn fire(&self, event: &Value) -> Fired {
        self.fire_with(event, &[])
    }

    /// Runs `latch fire` with extra flags.
    pub fn fire_with(&self, event: &Value, extra: &[&str]) -> Fired {
        let out = self.fire_raw(&serde_json::to_vec(event).expect("json"), extra);
        Fired::from_output(&out)
    }

    /// Runs `latch fire` with raw stdin bytes.
    pub fn fire_raw(&self, stdin: &[u8], extra: &[&str]) -> Output {
        let mut cmd = latch();
        cmd.arg("fire")
            .arg("--project")
            .arg(self.dir())
            .arg("--home")
            .arg(self.home());
        if !extra.contains(&"--state-dir") {
            cmd.arg("--state-dir").arg(self.state());
        }
        cmd.args(extra)
            .env_remove("LATCH_STATE_DIR")
            .write_stdin(stdin.to_vec());
        cmd.output().expect("latch runs")
    }

    /// `latch fire` on this project as a plain child process (to signal it
    /// or watch it while it runs): stdin, stdout and stderr piped.
    pub fn fire_process(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("latch"));
        cmd.args(["fire", "--project"])
            .arg(self.dir())
            .arg("--home")
            .arg(self.home())
            .arg("--state-dir")
            .arg(self.state())
            .env_remove("LATCH_STATE_DIR")
            .env_remove("LATCH_MAX_EVENT_BYTES")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd
    }
}

/// The real binary.
/// Writes `root/rel` (creating its directories) and returns its path.
pub fn write_file(root: &Path, rel: &str, text: &(impl AsRef<[u8]> + ?Sized)) -> PathBuf {
    let p = root.join(rel);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(&p, text).expect("write");
    p
}

/// Writes an executable script at `root/rel` and returns its path.
pub fn write_script(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = write_file(root, rel, text);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

pub fn latch() -> Command {
    Command::cargo_bin("latch").expect("binary built")
}

/// Indents a command for a YAML double-quoted scalar.
pub fn yq(s: &str) -> String {
    serde_json::to_string(s).expect("json string")
}

/// Whether a process is gone (or a zombie waiting to be reaped).
pub fn process_is_dead(pid: i32) -> bool {
    // Bytes, not text: the command name in the line may be any bytes, and a
    // name that is not UTF-8 must not read as "dead".
    match fs::read(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => match stat.iter().rposition(|b| *b == b')') {
            Some(close) => stat[close + 1..].trim_ascii_start().first() == Some(&b'Z'),
            None => true,
        },
    }
}

/// Waits up to two seconds for a process to die.
pub fn wait_dead(pid: i32) -> bool {
    for _ in 0..40 {
        if process_is_dead(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// Reads a pid written by a hook.
pub fn read_pid(path: &Path) -> i32 {
    for _ in 0..40 {
        if let Ok(text) = fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("no pid in {}", path.display())
}

/// The `se.slice` values (the scheduler's time slice, in nanoseconds)
/// quoted in `text`, in order: what a hook printed from
/// `/proc/<pid>/sched`.
pub fn sched_slices(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("se.slice"))
        .filter_map(|l| l.rsplit(':').next()?.trim().parse().ok())
        .collect()
}

/// The time slice a process started by this test process gets, as
/// `sched_slices` reads it; `None` on a kernel that does not show it.
pub fn default_slice() -> Option<u64> {
    let out = std::process::Command::new("/bin/sh")
        .args(["-c", "cat /proc/$$/sched"])
        .output()
        .ok()?;
    sched_slices(&String::from_utf8_lossy(&out.stdout))
        .first()
        .copied()
}

/// The two hooks [`SLICE_HOOKS`] declare print their own time slices and
/// latch's: checks, from the `reasons` of the outcome, that each hook has
/// `default` and latch the slice [`latch_slice`] gives.
pub fn assert_slices(reasons: &Value, default: u64) {
    let reasons = reasons.as_array().cloned().unwrap_or_default();
    let mut slices: Vec<u64> = reasons
        .iter()
        .flat_map(|reason| sched_slices(reason["text"].as_str().unwrap_or_default()))
        .collect();
    slices.sort_unstable();
    let mut expected = [default, default, latch_slice(default)];
    expected.sort_unstable();
    assert_eq!(slices, expected, "{reasons:?}");
}

/// The slice latch's threads that start hooks have: what
/// `latch::run::prefer_short_slice` gives a thread of this process (0.1
/// ms where the kernel and this process's scheduling allow it), else
/// `default`.
pub fn latch_slice(default: u64) -> u64 {
    std::thread::spawn(move || {
        if latch::run::prefer_short_slice().is_err() {
            return default;
        }
        std::fs::read_to_string("/proc/thread-self/sched")
            .ok()
            .and_then(|s| sched_slices(&s).first().copied())
            .unwrap_or(default)
    })
    .join()
    .unwrap_or(default)
}

/// Two hooks that fail (exit 2) with their own `/proc/<pid>/sched`, the
/// second also with their parent's (latch's), for [`assert_slices`].
pub const SLICE_HOOKS: [&str; 2] = [
    "cat /proc/$$/sched >&2; exit 2",
    "cat /proc/$$/sched /proc/$PPID/sched >&2; exit 2",
];
