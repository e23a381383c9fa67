//! Hostile files: every place `latch lint` reads a file, given something
//! that is not a small regular file — `/dev/zero`, a FIFO nobody writes, a
//! directory, a symlink loop, a 100 MB sparse file. Lint must finish
//! quickly with a diagnostic, within a bounded amount of memory, and never
//! block on a FIFO.

use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{write_file as write, write_script as script};

/// The address space lint runs in, so an unbounded read cannot take the
/// machine down; its peak resident memory is checked separately.
const MEMORY_LIMIT_KIB: u64 = 1024 * 1024;

/// The kinds of non-files planted where lint expects a file.
#[derive(Debug, Clone, Copy)]
enum Hostile {
    DevZero,
    Fifo,
    Directory,
    SymlinkLoop,
    Sparse,
}

const ALL: [Hostile; 5] = [
    Hostile::DevZero,
    Hostile::Fifo,
    Hostile::Directory,
    Hostile::SymlinkLoop,
    Hostile::Sparse,
];

/// Plants `kind` at `path` (creating its parent directory).
fn plant(kind: Hostile, path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind {
        Hostile::DevZero => symlink("/dev/zero", path).unwrap(),
        Hostile::Fifo => {
            let ok = Command::new("mkfifo").arg(path).status().unwrap();
            assert!(ok.success(), "mkfifo");
        }
        Hostile::Directory => fs::create_dir(path).unwrap(),
        Hostile::SymlinkLoop => {
            let other = path.with_extension("loop");
            symlink(&other, path).unwrap();
            symlink(path, &other).unwrap();
        }
        Hostile::Sparse => {
            let f = fs::File::create(path).unwrap();
            f.set_len(100 * 1024 * 1024).unwrap();
        }
    }
}

/// Runs `latch lint` (text output, which renders source snippets, so it
/// reads the files its diagnostics name) with a memory limit; kills it and
/// fails after 20 s.
fn lint_bounded(args: &[&Path]) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("latch");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB}; exec \"$0\" lint \"$@\""
        ))
        .arg(&bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut peak_kib = 0;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        peak_kib = peak_kib.max(peak_rss_kib(child.id()));
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("latch lint {args:?} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let code = status.code().unwrap_or(-1);
    assert!(
        matches!(code, 0 | 1 | 5),
        "latch lint {args:?} crashed ({status}); stderr: {err}"
    );
    assert!(
        peak_kib < MAX_RSS_KIB,
        "latch lint {args:?} reached {peak_kib} KiB of memory"
    );
    (code, out)
}

/// The most resident memory lint may use on any of these inputs.
const MAX_RSS_KIB: u64 = 128 * 1024;

/// A running process's peak resident memory (`VmHWM`), 0 once it is gone.
fn peak_rss_kib(pid: u32) -> u64 {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Lints `target` with `kind` planted at `rel` below a fresh directory
/// set up by `setup`; lint must finish with a diagnostic.
fn check(kind: Hostile, rel: &str, setup: impl Fn(&Path), lint_path: impl Fn(&Path) -> PathBuf) {
    let d = tempfile::tempdir().unwrap();
    setup(d.path());
    plant(kind, &d.path().join(rel));
    let (_, out) = lint_bounded(&[&lint_path(d.path())]);
    assert!(
        out.contains("error") || out.contains("warning"),
        "{kind:?} at {rel}: no diagnostic in {out}"
    );
    assert!(
        out.contains(" in "),
        "{kind:?} at {rel}: no summary in {out}"
    );
}

#[test]
fn evener_manifest_hooks_file_and_manifest_pointer() {
    for kind in ALL {
        // The manifest itself, given directly.
        check(
            kind,
            "p/.claude-plugin/plugin.json",
            |_| {},
            |d| d.join("p/.claude-plugin/plugin.json"),
        );
        // The default hooks file, given directly.
        check(
            kind,
            "p/hooks/hooks.json",
            |_| {},
            |d| d.join("p/hooks/hooks.json"),
        );
        // A manifest pointing at it.
        check(
            kind,
            "p/h/x.json",
            |d| {
                write(
                    d,
                    "p/.claude-plugin/plugin.json",
                    r#"{"name":"p","hooks":"h/x.json"}"#,
                );
            },
            |d| d.join("p"),
        );
    }
}

#[test]
fn manifest_hooks_naming_dev_zero_stays_bounded() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "p/.claude-plugin/plugin.json",
        r#"{"name":"p","hooks":"/dev/zero"}"#,
    );
    let (_, out) = lint_bounded(&[&d.path().join("p")]);
    assert!(out.contains("/dev/zero"), "{out}");
}

#[test]
fn poolside_and_peen_configuration_files() {
    for kind in ALL {
        check(
            kind,
            ".poolside/settings.yaml",
            |_| {},
            |d| d.join(".poolside/settings.yaml"),
        );
        check(
            kind,
            "ws/.agents/hooks.yaml",
            |_| {},
            |d| d.join("ws/.agents/hooks.yaml"),
        );
        // A peen inject action's message file.
        check(
            kind,
            "ws/.agents/msg.txt",
            |d| {
                write(
                    d,
                    "ws/.agents/hooks.yaml",
                    "version: 1\nsessionStart:\n  - name: g\n    actions: [{name: m, type: inject, messageFile: msg.txt}]\n",
                );
            },
            |d| d.join("ws"),
        );
    }
}

/// A hook's command or script path is a hostile file: lint looks at it
/// (and reads a poolside guard script) without blocking or reading it
/// whole.
#[test]
fn hook_commands_and_scripts() {
    for kind in ALL {
        // A poolside command (its script is read for `.tool_input` keys).
        check(
            kind,
            "hook.sh",
            |d| {
                write(
                    d,
                    ".poolside/settings.yaml",
                    &format!(
                        "hooks:\n  PreToolUse:\n    - {{matcher: shell, command: {}}}\n    - {{matcher: shell, command: bash {} --x}}\n",
                        d.join("hook.sh").display(),
                        d.join("hook.sh").display()
                    ),
                );
            },
            |d| d.to_path_buf(),
        );
        // An evener command and an interpreter's script.
        check(
            kind,
            "p/hooks/hook.py",
            |d| {
                write(
                    d,
                    "p/hooks/hooks.json",
                    r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
                        {"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/hooks/hook.py"},
                        {"type":"command","command":"python3 ${CLAUDE_PLUGIN_ROOT}/hooks/hook.py"},
                        {"type":"command","command":"/bin/sh","args":["${CLAUDE_PLUGIN_ROOT}/hooks/hook.py"]}]}]}}"#,
                );
            },
            |d| d.join("p"),
        );
        // A peen command.
        check(
            kind,
            "ws/bin/check",
            |d| {
                write(
                    d,
                    "ws/.agents/hooks.yaml",
                    &format!(
                        "version: 1\npreToolUse:\n  - name: g\n    actions: [{{name: c, type: command, command: {}}}]\n",
                        d.join("ws/bin/check").display()
                    ),
                );
            },
            |d| d.join("ws"),
        );
    }
}

/// 2,000 identical evener groups (and as many poolside hooks and peen
/// groups): duplicates are found by hashing, so lint stays fast; every
/// duplicate is still reported.
#[test]
fn thousands_of_duplicates_lint_quickly() {
    let d = tempfile::tempdir().unwrap();
    let hook = script(d.path(), "h.sh", "#!/bin/sh\nexit 0\n");
    let group = format!(
        r#"{{"matcher":"Bash","hooks":[{{"type":"command","command":"{}"}}]}}"#,
        hook.display()
    );
    let groups = vec![group; 2000].join(",");
    write(
        d.path(),
        "p/hooks/hooks.json",
        &format!(r#"{{"hooks":{{"PreToolUse":[{groups}]}}}}"#),
    );
    let hooks = format!("    - {{matcher: shell, command: {}}}\n", hook.display()).repeat(2000);
    write(
        d.path(),
        ".poolside/settings.yaml",
        &format!("hooks:\n  stop_hook_max_continuations: 3\n  PreToolUse:\n{hooks}"),
    );
    let peen = "  - name: g\n    actions: [{name: d, type: deny, reason: x}]\n".repeat(2000);
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        &format!("version: 1\npreToolUse:\n{peen}"),
    );
    let out = crate::util::latch()
        .args(["lint", "--format", "json"])
        .arg(d.path())
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let diags: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&serde_json::Value> = diags
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter(|d| {
            !d["message"]
                .as_str()
                .unwrap()
                .contains("more than the limit")
        })
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let count = |needle: &str| {
        diags
            .iter()
            .filter(|d| d["message"].as_str().unwrap().contains(needle))
            .count()
    };
    assert_eq!(count("this group duplicates"), 1999);
    assert_eq!(count("this hook duplicates"), 1999);
    assert_eq!(count("is already declared for"), 1999);
    // Rendered as text, each from a one-line (minified) file: quoting the
    // source must not cost the whole file per diagnostic.
    let out = crate::util::latch()
        .arg("lint")
        .arg(d.path().join("p"))
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1999 warnings"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
}
