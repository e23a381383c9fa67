//! `latch schema DIALECT`: print a configuration format's JSON Schema.

use clap::{Args, ValueEnum};
use std::io::Write;

use crate::dialect::{claude, evener, peen, poolside};

use super::exit;

/// The dialects with a configuration format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectName {
    /// `settings.yaml` (its `hooks:` section).
    Poolside,
    /// `hooks/hooks.json` (or a manifest's inline `hooks`).
    Evener,
    /// `.agents/hooks.yaml`.
    Peen,
    /// Claude Code's `.claude/settings.json` (its hook keys) and plugin
    /// `hooks/hooks.json`.
    Claude,
    /// `latch serve`'s messages (with the event and the outcome).
    Serve,
}

/// Print the JSON Schema of a dialect's configuration format.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which format.
    #[arg(value_enum)]
    dialect: DialectName,
}

/// The schema of a dialect, as committed under `schemas/`.
pub fn text(dialect: DialectName) -> String {
    let value = match dialect {
        DialectName::Poolside => poolside::schema::schema(),
        DialectName::Evener => evener::schema::schema(),
        DialectName::Peen => peen::schema::schema(),
        DialectName::Claude => claude::schema::schema(),
        DialectName::Serve => return super::serve::schema::text(),
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    )
}

/// Runs `latch schema`.
pub fn run(args: SchemaArgs) -> u8 {
    let mut out = super::stdout::Stdout::lock();
    let _ = out.write_all(text(args.dialect).as_bytes());
    out.finish(exit::OK)
}
