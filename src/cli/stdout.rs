//! Standard output for the commands that print as they go.
//!
//! A command's output is its result: when it cannot be written (a closed
//! pipe, a full disk), the command must not end with exit 0 as if it had
//! been. [`Stdout`] remembers the first failed write, so each `writeln!`
//! can go on without checking, and [`Stdout::finish`] turns the exit code
//! into 4 with a message.

use std::io::{self, Write};

use super::exit;

/// The process's stdout, remembering whether a write failed.
pub(crate) struct Stdout {
    lock: io::StdoutLock<'static>,
    failed: Option<io::Error>,
}

impl Stdout {
    /// Locks the process's stdout.
    pub(crate) fn lock() -> Stdout {
        Stdout {
            lock: io::stdout().lock(),
            failed: None,
        }
    }

    /// `code`, or [`exit::INTERNAL`] with a message on stderr if any write
    /// (or the final flush) failed.
    pub(crate) fn finish(mut self, code: u8) -> u8 {
        if let Err(e) = self.lock.flush() {
            self.failed.get_or_insert(e);
        }
        match self.failed {
            None => code,
            Some(e) => failed(&e),
        }
    }
}

/// Says on stderr that the output could not be written, and returns the
/// exit code for it.
pub(crate) fn failed(e: &io::Error) -> u8 {
    eprintln!("latch: error: could not write the output: {e}");
    exit::INTERNAL
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.lock.write(buf) {
            Err(e) => {
                if self.failed.is_none() {
                    self.failed = Some(io::Error::new(e.kind(), e.to_string()));
                }
                Err(e)
            }
            written => written,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.lock.flush()
    }
}
