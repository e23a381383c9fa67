//! Hostile files.
