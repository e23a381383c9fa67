//! Hostile state.
