//! The hostile suite: what an attacker's repository, event or signal can do
//! to latch, one class per module. Each test fails if latch panics, hangs,
//! leaks a hook process or loses a deny on that class of input.

mod events;
mod files;
mod output;
mod output_json;
mod patterns;
mod processes;
mod signals;
mod state;
