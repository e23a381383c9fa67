//! latch's embedding guide, README and public modules' examples, compiled
//! against its public API without the `internals` feature (see
//! Cargo.toml).

/// docs/embedding.md.
#[doc = include_str!("../../../docs/embedding.md")]
#[cfg(doctest)]
pub struct Embedding;

/// The README's Rust examples.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct Readme;

/// The module-level examples of latch's public modules (see build.rs).
#[doc = include_str!(concat!(env!("OUT_DIR"), "/modules.md"))]
#[cfg(doctest)]
pub struct Modules;
