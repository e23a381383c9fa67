//! The server's stdin and stdout. When they are pipes (as a harness
//! connects them) they are read and written through tokio's reactor;
//! otherwise through tokio's standard streams, which hand every read and
//! write to a blocking thread. The difference is the round trip: the
//! thread handoffs cost about as much as the rest of a `fire` that runs
//! no hook (measured with `cargo bench --bench serve`).

use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
use std::pin::Pin;
use std::sync::LazyLock;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// The process's stdin, kept for the descriptor [`input`] lends.
static STDIN: LazyLock<std::io::Stdin> = LazyLock::new(std::io::stdin);

/// stdin, as a reactor-driven pipe when it is one; then also its
/// descriptor, which a wait that blocks the server's thread polls to see
/// the next message arrive (tokio's standard stream reads on another
/// thread, so there the next message cannot be seen that way).
pub fn input() -> (Pin<Box<dyn AsyncRead + Send>>, Option<BorrowedFd<'static>>) {
    let stdin: &'static std::io::Stdin = &STDIN;
    let fifo = stdin
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Receiver::from_file(File::from(fd)).ok());
    match fifo {
        Some(r) => (Box::pin(r), Some(stdin.as_fd())),
        None => (Box::pin(tokio::io::stdin()), None),
    }
}

/// stdout, as a reactor-driven pipe when it is one.
pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    let fifo = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Sender::from_file(File::from(fd)).ok());
    match fifo {
        Some(w) => Box::pin(w),
        None => Box::pin(tokio::io::stdout()),
    }
}
