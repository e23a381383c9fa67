//! latch's integration tests: one binary, one module per topic. Every test
//! spawns real processes in temp directories; the CLI tests run the real
//! `latch` binary.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod audit;
mod claude;
mod claude_332;
mod claude_332_events;
mod claude_accepted;
mod claude_async_line;
mod claude_convert;
mod claude_early_cases;
mod claude_events;
mod claude_lint;
mod claude_long_texts;
mod claude_message;
mod claude_r13;
mod claude_r14;
mod claude_recorded;
mod claude_restrict;
mod claude_sources;
mod claude_util;
mod completions;
mod convert;
mod evener_faults;
mod evener_lib;
mod evener_load;
mod evener_prompt;
mod evener_run;
mod evener_util;
mod examples;
pub use examples::examples_copy_dir;

/// A path with symlinks resolved (temp dirs may sit behind one).
pub fn util_canonical(p: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(p).unwrap()
}
mod config_paths;
mod explain;
mod fire;
mod hostile;
mod lint;
mod man;
mod peen_actions;
mod peen_command;
mod peen_journal;
mod peen_lib;
mod peen_load;
mod peen_match;
mod peen_util;
mod permission_rule;
mod poolside_config;
mod poolside_decisions;
mod poolside_faults;
mod poolside_payload;
mod poolside_stop;
mod props;
mod readme;
mod runner;
mod scenario_config;
mod scenarios;
mod schema;
mod serve;
mod serve_generated;
mod serve_params;
mod serve_props;
mod trust;
mod util;
