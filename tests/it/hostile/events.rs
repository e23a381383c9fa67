//! Hostile events.
