//! Flow control: how much the server holds for a harness that reads its
//! answers slowly, or sends events faster than their hooks run.
//!
//! Two amounts are counted: the answers and notifications handed to the
//! writing task and not yet written to stdout (the outbox), and the
//! `fire` requests read and not yet answered. While either is at its limit
//! the main loop takes no further message, so the harness's writes block
//! as a full pipe's do. A single message is never refused for this: one
//! larger than a limit goes through once the amount is under it.
//!
//! Reading less is not enough: fires read before the outbox filled would
//! still run and queue their answers. So a fire starts its hooks only
//! when the outbox has room, and at most [`FIRES_AT_ONCE`] run at once
//! (the others wait their turn, cancellable). What the server holds is
//! then bounded: the requests in flight, the outbox, and the answers of
//! the fires running, each bounded by the output caps.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, Semaphore, SemaphorePermit, mpsc};

/// The most bytes of answers waiting for stdout before the server stops
/// reading: a harness that does not read its answers cannot make the
/// server buffer them without end.
pub const OUTBOX_LIMIT: usize = 64 << 20;

/// The most bytes of `fire` requests in flight (read and not yet
/// answered) before the server stops reading: events queued behind a slow hook of
/// their session are held whole until they run.
pub const IN_FLIGHT_LIMIT: usize = 64 << 20;

/// The most fires that run their hooks at once; the others wait for a
/// turn. Well above one per session of a harness's sessions at once (the
/// benchmark runs 65).
pub const FIRES_AT_ONCE: usize = 128;

/// The two amounts, the signals that one of them went down, and the
/// fires' turns.
#[derive(Debug)]
pub struct Room {
    outbox: AtomicUsize,
    in_flight: AtomicUsize,
    /// For the main loop, its only waiter.
    freed: Notify,
    /// For the fires waiting for room in the outbox.
    drained: Notify,
    turns: Semaphore,
}

impl Default for Room {
    fn default() -> Room {
        Room {
            outbox: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            freed: Notify::new(),
            drained: Notify::new(),
            turns: Semaphore::new(FIRES_AT_ONCE),
        }
    }
}

impl Room {
    /// Whether the main loop must wait before it reads the next message.
    pub fn full(&self) -> bool {
        self.outbox.load(Ordering::SeqCst) >= OUTBOX_LIMIT
            || self.in_flight.load(Ordering::SeqCst) >= IN_FLIGHT_LIMIT
    }

    /// Returns once either amount went down since the last call (at once
    /// if it did meanwhile): the caller checks [`Room::full`] again.
    pub async fn freed(&self) {
        self.freed.notified().await;
    }

    /// Waits until fewer than [`FIRES_AT_ONCE`] fires run and the outbox
    /// has room, and returns the turn of one more until dropped.
    pub async fn turn(&self) -> Option<SemaphorePermit<'_>> {
        // The turn first, then the room: a fire that waited for its turn
        // while the outbox filled does not start its hooks then.
        // (The semaphore is never closed.)
        let turn = self.turns.acquire().await.ok()?;
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            // Registered before the check: a release in between wakes it.
            drained.as_mut().enable();
            if self.outbox.load(Ordering::SeqCst) < OUTBOX_LIMIT {
                return Some(turn);
            }
            drained.await;
        }
    }

    /// Counts a request of `bytes` in flight until the returned guard is
    /// dropped.
    pub fn hold(self: &Arc<Self>, bytes: usize) -> Held {
        self.in_flight.fetch_add(bytes, Ordering::SeqCst);
        Held {
            room: Arc::clone(self),
            bytes,
        }
    }

    fn release(&self, amount: &AtomicUsize, bytes: usize) {
        amount.fetch_sub(bytes, Ordering::SeqCst);
        self.drained.notify_waiters();
        // One waiter, the main loop: a permit kept for it when it is not
        // waiting yet is what makes a release between its check and its
        // wait count.
        self.freed.notify_one();
    }
}

/// A request counted in flight, until dropped.
#[derive(Debug)]
pub struct Held {
    room: Arc<Room>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.room.release(&self.room.in_flight, self.bytes);
    }
}

/// Where answers and notifications go: to the writing task, counted in
/// the outbox until written.
#[derive(Debug, Clone)]
pub struct Out {
    lines: mpsc::UnboundedSender<String>,
    room: Arc<Room>,
}

impl Out {
    /// Hands `line` to the writing task; fails, returning it, once that
    /// task is gone.
    pub fn send(&self, line: String) -> Result<(), mpsc::error::SendError<String>> {
        let bytes = line.len();
        self.room.outbox.fetch_add(bytes, Ordering::SeqCst);
        self.lines.send(line).inspect_err(|_| {
            self.room.release(&self.room.outbox, bytes);
        })
    }

    /// The amounts this outbox counts in.
    pub fn room(&self) -> &Arc<Room> {
        &self.room
    }
}

/// The writing task's end of an [`Out`].
#[derive(Debug)]
pub struct Outbox {
    lines: mpsc::UnboundedReceiver<String>,
    room: Arc<Room>,
}

impl Outbox {
    /// The next line to write; `None` once every [`Out`] is gone.
    pub async fn recv(&mut self) -> Option<String> {
        self.lines.recv().await
    }

    /// Marks `bytes` of what [`Outbox::recv`] gave as written.
    pub fn written(&self, bytes: usize) {
        self.room.release(&self.room.outbox, bytes);
    }
}

/// A new outbox, and its first sender.
pub fn outbox() -> (Out, Outbox) {
    let (tx, rx) = mpsc::unbounded_channel();
    let room = Arc::new(Room::default());
    (
        Out {
            lines: tx,
            room: Arc::clone(&room),
        },
        Outbox { lines: rx, room },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_is_full_while_either_amount_is_at_its_limit_and_freed_after() {
        let (out, mut outbox) = outbox();
        let room = Arc::clone(out.room());
        assert!(!room.full());
        let held = room.hold(IN_FLIGHT_LIMIT);
        assert!(room.full());
        drop(held);
        assert!(!room.full());
        out.send("x".repeat(OUTBOX_LIMIT))
            .expect("the outbox is open");
        assert!(room.full());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let line = outbox.recv().await.expect("a line");
            outbox.written(line.len());
            // The release left a permit: this returns at once.
            room.freed().await;
        });
        assert!(!room.full());
        drop(outbox);
        assert!(out.send("late".to_owned()).is_err());
        assert!(!room.full(), "a line that could not be sent is not counted");
    }

    /// A fire that waits for its turn while the outbox fills does not start
    /// when a turn comes free: it waits for room too.
    #[test]
    fn a_turn_that_comes_free_waits_for_room_in_the_outbox() {
        use std::future::Future;
        use std::task::{Context, Waker};

        let (out, mut outbox) = outbox();
        let room = Arc::clone(out.room());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let mut running = Vec::new();
            for _ in 0..FIRES_AT_ONCE {
                running.push(room.turn().await.expect("a turn"));
            }
            // A fresh budget: tokio makes a task that used it up wait.
            tokio::task::yield_now().await;
            let mut waiting = Box::pin(room.turn());
            let mut cx = Context::from_waker(Waker::noop());
            assert!(waiting.as_mut().poll(&mut cx).is_pending(), "no turn left");
            out.send("x".repeat(OUTBOX_LIMIT))
                .expect("the outbox is open");
            drop(running.pop());
            assert!(
                waiting.as_mut().poll(&mut cx).is_pending(),
                "a turn came free, but the outbox is full"
            );
            let line = outbox.recv().await.expect("a line");
            outbox.written(line.len());
            assert!(waiting.as_mut().poll(&mut cx).is_ready(), "room again");
        });
    }
}
