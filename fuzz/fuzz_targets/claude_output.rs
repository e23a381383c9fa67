//! Any bytes as a claude hook's stdout and stderr, with any exit: reading
//! them never panics, and exit 2 always blocks, whatever stdout says
//! (unless its first line sent the hook to the background); neither do
//! the first-line check and the reading of a background hook's answer.
#![no_main]

use std::time::Duration;

use latch::dialect::claude::judge::{Verdict, background_answer, first_line, judge};
use latch::run::{Captured, Exit, RunResult, Termination};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (i8, Vec<u8>, Vec<u8>)| {
    let (code, stdout, stderr) = input;
    let mut out = Captured::new(1024 * 1024);
    out.bytes = stdout;
    let mut err = Captured::new(64 * 1024);
    err.bytes = stderr;
    let run = RunResult {
        termination: Termination::Exited(Exit::Code(i32::from(code))),
        stdout: out,
        stderr: err,
        duration: Duration::ZERO,
        killed_leftovers: false,
        leftovers_escaped: false,
        detached: None,
    };
    let _ = first_line(&run.stdout.bytes);
    let _ = background_answer(&run.stdout.lossy());
    let verdict = judge(&run, 1.0, "hook");
    // A first line `{"async":true}` sends the hook to the background
    // before its exit counts.
    if code == 2 && !matches!(verdict, Verdict::Async(_)) {
        assert!(matches!(verdict, Verdict::Blocking(_)), "{verdict:?}");
    }
});
