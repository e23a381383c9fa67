//! The server's stdin and stdout. When they are pipes (as Python's
//! `subprocess` connects them) or Unix stream sockets (as Node's
//! `child_process` does: libuv's "pipes" are socket pairs) they are read
//! and written through tokio's reactor; otherwise through tokio's standard
//! streams, which hand every read and write to a blocking thread. The
//! difference is the round trip: the thread handoffs cost about as much as
//! the rest of a `fire` that runs no hook (measured with `cargo bench
//! --bench serve`).

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
    if let Some(r) = fifo {
        return (Box::pin(r), Some(stdin.as_fd()));
    }
    match unix_stream(stdin.as_fd()) {
        Some(r) => (Box::pin(r), Some(stdin.as_fd())),
        None => (Box::pin(tokio::io::stdin()), None),
    }
}

/// A copy of `fd` as a reactor-driven Unix stream socket, if it is one.
fn unix_stream(fd: BorrowedFd<'_>) -> Option<tokio::net::UnixStream> {
    use rustix::net::{AddressFamily, SocketType, sockopt};
    if sockopt::socket_type(fd).ok()? != SocketType::STREAM
        || sockopt::socket_domain(fd).ok()? != AddressFamily::UNIX
    {
        return None;
    }
    let stream = std::os::unix::net::UnixStream::from(fd.try_clone_to_owned().ok()?);
    stream.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(stream).ok()
}

/// stdout, as a reactor-driven pipe when it is one.
pub fn output() -> Pin<Box<dyn AsyncWrite + Send>> {
    let fifo = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Sender::from_file(File::from(fd)).ok());
    if let Some(w) = fifo {
        return Box::pin(w);
    }
    match unix_stream(std::io::stdout().as_fd()) {
        Some(w) => Box::pin(w),
        None => Box::pin(tokio::io::stdout()),
    }
}
