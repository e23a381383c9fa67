//! Joining futures on the caller's task, with the order they finished in.
//!
//! Hand-written rather than `tokio::spawn` or a `futures` join: the
//! futures borrow the dispatch context (no `'static` tasks), all of them
//! run on the caller's task, and the order they finish in is part of the
//! answer (Claude Code reports several hooks' texts in that order).

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// A boxed future, so dialects can be held as trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Waits for every future, polling them all on the caller's task. The
/// results come back in the futures' order, each with the order in which
/// it finished (0 first).
pub async fn join_all<'a, T>(futures: Vec<BoxFuture<'a, T>>) -> Vec<(T, usize)> {
    // Each future gets its own waker, and a wake-up polls only the futures
    // that were woken: polling every running hook at each wake-up made a
    // dispatch of N hooks cost O(N²) polls. Futures woken together are
    // polled in their order, so simultaneous finishes keep the order they
    // had when every future was polled.
    let n = futures.len();
    let shared = Arc::new(Shared {
        state: Mutex::new(WakeState {
            // Every future starts woken: each is polled once to start.
            woken: (0..n).collect(),
            queued: vec![true; n],
            task: None,
        }),
    });
    let mut running: Vec<Option<(BoxFuture<'a, T>, Waker)>> = futures
        .into_iter()
        .enumerate()
        .map(|(index, future)| {
            let waker = Waker::from(Arc::new(SlotWaker {
                index,
                shared: Arc::clone(&shared),
            }));
            Some((future, waker))
        })
        .collect();
    let mut done: Vec<Option<(T, usize)>> = running.iter().map(|_| None).collect();
    let mut finished = 0;
    let mut batch: Vec<usize> = Vec::with_capacity(n);
    poll_fn(|task| {
        {
            let mut state = shared.lock();
            if !state
                .task
                .as_ref()
                .is_some_and(|w| w.will_wake(task.waker()))
            {
                state.task = Some(task.waker().clone());
            }
            std::mem::swap(&mut batch, &mut state.woken);
            for &i in &batch {
                state.queued[i] = false;
            }
        }
        // One batch per poll: a future woken while the batch runs (one out
        // of its cooperative budget wakes itself at once) has woken the
        // task already, which polls it next time.
        batch.sort_unstable();
        for &i in &batch {
            let Some((future, waker)) = &mut running[i] else {
                continue;
            };
            if let Poll::Ready(result) = future.as_mut().poll(&mut Context::from_waker(waker)) {
                done[i] = Some((result, finished));
                finished += 1;
                running[i] = None;
            }
        }
        batch.clear();
        if finished == n {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    done.into_iter().flatten().collect()
}

/// What the wakers of one [`join_all`] share.
struct Shared {
    state: Mutex<WakeState>,
}

/// The futures woken since the last poll, and the task to wake.
struct WakeState {
    /// Indices of the futures to poll, each at most once.
    woken: Vec<usize>,
    /// Whether each future is in `woken` already.
    queued: Vec<bool>,
    /// The waker of the task running [`join_all`].
    task: Option<Waker>,
}

impl Shared {
    /// The state; a panic elsewhere while it was held (a poisoned lock)
    /// leaves it consistent, so the guard is taken all the same.
    fn lock(&self) -> std::sync::MutexGuard<'_, WakeState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The waker of one future of a [`join_all`]: marks it woken and wakes
/// the task.
struct SlotWaker {
    index: usize,
    shared: Arc<Shared>,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let task = {
            let mut state = self.shared.lock();
            if let Some(queued) = state.queued.get_mut(self.index)
                && !*queued
            {
                *queued = true;
                state.woken.push(self.index);
            }
            state.task.clone()
        };
        if let Some(task) = task {
            task.wake();
        }
    }
}
