//! latch's embedding guide and README examples, compiled against its
//! public API without the `internals` feature (see Cargo.toml).

/// docs/embedding.md.
#[doc = include_str!("../../../docs/embedding.md")]
#[cfg(doctest)]
pub struct Embedding;

/// The README's Rust examples.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct Readme;
