//! Hostile signals.
