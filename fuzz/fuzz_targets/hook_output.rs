//! Any bytes as a hook's stdout and stderr, with exit 0 or 2: both dialects'
//! judges never panic.
#![no_main]

use std::time::Duration;

use latch::dialect::evener::judge::judge_run;
use latch::dialect::poolside::events::PoolEvent;
use latch::dialect::poolside::judge::judge;
use latch::run::{Captured, Exit, RunResult, Termination};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, Vec<u8>, Vec<u8>)| {
    let (selector, stdout, stderr) = input;
    let mut out = Captured::new(1024 * 1024);
    out.bytes = stdout;
    let mut err = Captured::new(64 * 1024);
    err.bytes = stderr;
    let code = if selector & 1 == 0 { 0 } else { 2 };
    let run = RunResult {
        termination: Termination::Exited(Exit::Code(code)),
        stdout: out,
        stderr: err,
        duration: Duration::ZERO,
        killed_leftovers: false,
        leftovers_escaped: false,
        detached: None,
    };
    let event = PoolEvent::ALL[usize::from(selector >> 1) % PoolEvent::ALL.len()];
    let _ = judge(event, &run, 1.0);
    let _ = judge_run(&run, 1.0);
});
