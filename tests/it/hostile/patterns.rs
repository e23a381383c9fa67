//! Hostile patterns.
