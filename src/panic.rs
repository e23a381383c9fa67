//! The last line of defence: a panic inside one dialect's load or dispatch
//! becomes a value, so `latch fire` still prints an outcome (with that
//! dialect's failure in it) instead of exiting without one.
//!
//! Nothing a configuration file or an event can do should panic; these
//! wrappers only make sure that a bug which does is contained to the
//! dialect it happened in.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A caught panic's message (its payload, when it is text).
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_owned()
    }
}

/// Runs `f`; a panic is returned as its message.
///
/// The closure is asserted unwind-safe: the callers drop whatever it was
/// building when it panics and use nothing it touched.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| message(p.as_ref()))
}

/// A future that turns a panic while it is being created or polled into an
/// `Err` with the panic's message. After a panic the inner future is
/// dropped (so whatever it owned, such as a running hook's process-group
/// guard, is released) and never polled again.
pub struct CatchUnwind<'a, T> {
    inner: Option<Pin<Box<dyn Future<Output = T> + Send + 'a>>>,
    failed: Option<String>,
}

/// Creates the future with `make` and wraps it in [`CatchUnwind`]; a panic
/// in `make` itself is caught too.
pub fn catch_future<'a, T>(
    make: impl FnOnce() -> Pin<Box<dyn Future<Output = T> + Send + 'a>>,
) -> CatchUnwind<'a, T> {
    match catch(make) {
        Ok(f) => CatchUnwind {
            inner: Some(f),
            failed: None,
        },
        Err(m) => CatchUnwind {
            inner: None,
            failed: Some(m),
        },
    }
}

impl<T> Future for CatchUnwind<'_, T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Every field is Unpin (a boxed future, a string).
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(Err(this
                .failed
                .take()
                .unwrap_or_else(|| "polled after it failed".to_owned())));
        };
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Ready(v)) => {
                this.inner = None;
                Poll::Ready(Ok(v))
            }
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => {
                // Dropping the future may panic too (a guard's drop); keep
                // that from escaping as well.
                let inner = this.inner.take();
                let _ = catch(move || drop(inner));
                Poll::Ready(Err(message(payload.as_ref())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet<T>(f: impl FnOnce() -> T) -> T {
        // The default hook prints every caught panic; the tests expect them.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let out = f();
        std::panic::set_hook(hook);
        out
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn a_panicking_closure_is_an_error_with_its_message() {
        let r: Result<(), String> = quiet(|| catch(|| panic!("boom {}", 7)));
        assert_eq!(r, Err("boom 7".to_owned()));
        assert_eq!(catch(|| 5), Ok(5));
    }

    #[test]
    fn a_future_that_panics_while_polled_is_an_error() {
        let r = quiet(|| {
            block_on(catch_future(|| {
                Box::pin(async {
                    tokio::task::yield_now().await;
                    let v: Vec<u8> = Vec::new();
                    v[3] // index out of bounds, after a first Pending
                })
            }))
        });
        let msg = r.expect_err("panicked");
        assert!(msg.contains("index out of bounds"), "{msg}");
    }

    #[test]
    fn a_panic_while_creating_the_future_is_an_error() {
        let r: Result<u8, String> = quiet(|| {
            block_on(catch_future(
                || -> Pin<Box<dyn Future<Output = u8> + Send>> { panic!("no future") },
            ))
        });
        assert_eq!(r, Err("no future".to_owned()));
    }

    #[test]
    fn a_future_that_completes_is_its_value() {
        let r = block_on(catch_future(|| {
            Box::pin(async {
                tokio::task::yield_now().await;
                42
            })
        }));
        assert_eq!(r, Ok(42));
    }
}
