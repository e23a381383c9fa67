//! `latch completions`: scripts for every shell; the bash one loaded into
//! a real bash completes the subcommands and their flags.

use crate::util::latch;

#[test]
fn the_bash_script_completes_subcommands_and_flags_in_a_real_bash() {
    let out = latch().args(["completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("latch.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let complete = |words: &str, cword: usize| -> String {
        let shell = format!(
            "source \"$0\"; COMP_WORDS=({words}); COMP_CWORD={cword}; _latch latch \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &shell])
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let subcommands = complete("latch ''", 1);
    for sub in [
        "fire",
        "explain",
        "lint",
        "test",
        "serve",
        "schema",
        "convert",
        "trust",
        "log",
        "completions",
    ] {
        assert!(
            subcommands.lines().any(|l| l == sub),
            "{sub} missing: {subcommands}"
        );
    }
    let fire = complete("latch fire --tr", 2);
    assert_eq!(fire.trim(), "--trust", "{fire}");
    let trust = complete("latch trust ''", 2);
    assert!(trust.lines().any(|l| l == "approve"), "{trust}");
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = latch().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("latch") && text.contains("trust"), "{shell}");
    }
    let out = latch().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
