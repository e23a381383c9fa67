//! Capped capture of one output stream.

use std::os::fd::BorrowedFd;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};

use super::detach::Rule;
use super::lent::Stream;

/// What latch kept of one output stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The first `cap` bytes of the stream.
    pub bytes: Vec<u8>,
    /// Every byte read, kept or not.
    pub total: u64,
    /// More than `cap` bytes arrived.
    pub truncated: bool,
    cap: usize,
}

/// Read in chunks of this size; memory stays flat however much a hook prints.
const CHUNK: usize = 64 * 1024;

/// The first read's buffer: enough for what most hooks print.
const FIRST_CHUNK: usize = 1024;

impl Captured {
    /// An empty capture that keeps at most `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Captured {
            bytes: Vec::new(),
            total: 0,
            truncated: false,
            cap,
        }
    }

    /// Reads the stream to its end, keeping at most `cap` bytes and counting
    /// the rest; a read error ends the stream. The pipe is taken (`None`)
    /// at its end. With a `first_line` rule, each read is shown to it until
    /// it decides; when it says to detach, the drain returns at once with
    /// the time the hook has left, the pipe still open.
    ///
    /// Cancel-safe: dropped between reads, nothing read is lost.
    pub(super) async fn drain<R: AsyncRead + Unpin>(
        &mut self,
        pipe: &mut Option<R>,
        first_line: &Rule,
    ) -> Result<(), Duration> {
        let Some(reader) = pipe.as_mut() else {
            return Ok(());
        };
        // `read_buf` fills spare capacity, so the buffer is never zeroed:
        // most hooks print nothing, and zeroing 64 KiB per stream per run
        // showed up in the dispatch benchmark. It starts small and grows to
        // a full chunk once a read fills it: two 64 KiB buffers per hook,
        // allocated and freed on every dispatch, made the allocator grow
        // and trim its heap (`brk`) each time.
        let mut buf = Vec::with_capacity(FIRST_CHUNK);
        loop {
            buf.clear();
            match reader.read_buf(&mut buf).await {
                Ok(0) => break,
                Ok(n) => {
                    self.keep(&buf[..n]);
                    if n == buf.capacity() && n < CHUNK {
                        buf.clear();
                        buf.reserve_exact(CHUNK);
                    }
                    if let Some(left) = first_line.says(self) {
                        return Err(left);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        *pipe = None;
        Ok(())
    }

    /// Reads what a non-blocking pipe holds now, keeping at most `cap`
    /// bytes and counting the rest.
    pub(super) fn read_available(&mut self, pipe: BorrowedFd<'_>) -> Stream {
        // A stack buffer, never zeroed (most hooks print nothing, and what
        // they print is copied into `bytes` anyway).
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16 * 1024];
        // Bounded, so a hook that prints without end cannot keep the
        // caller from its deadline: after this many reads it polls again.
        for _ in 0..16 {
            match rustix::io::read(pipe, &mut buf[..]) {
                Ok(([], _)) => return Stream::Ended,
                Ok((read, _)) => self.keep(read),
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => return Stream::Open,
                Err(_) => return Stream::Ended,
            }
        }
        Stream::Open
    }

    pub(super) fn keep(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.cap.saturating_sub(self.bytes.len());
        if chunk.len() > room {
            self.truncated = true;
        }
        self.bytes
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
    }

    /// The kept bytes as text, with invalid UTF-8 replaced by U+FFFD.
    pub fn lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_up_to_the_cap_and_counts_the_rest() {
        let mut c = Captured::new(5);
        c.keep(b"abc");
        c.keep(b"defg");
        c.keep(b"hij");
        assert_eq!(c.bytes, b"abcde");
        assert_eq!(c.total, 10);
        assert!(c.truncated);
    }

    #[test]
    fn exactly_the_cap_is_not_truncated() {
        let mut c = Captured::new(3);
        c.keep(b"abc");
        assert!(!c.truncated);
        assert_eq!(c.bytes, b"abc");
    }
}
