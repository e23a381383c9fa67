//! Hostile processes.
