//! `latch man DIR`: the manual pages of `latch` and of each subcommand,
//! generated from the same clap definitions the commands parse with
//! (clap_mangen). The pages are committed under `docs/man/`, and a test
//! checks that they match the binary.

use std::path::PathBuf;

use clap::{Args, CommandFactory};

use super::exit;

/// Write the manual pages (`latch.1`, `latch-fire.1`, …) into a directory.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Where to write them (created if missing).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// The command the pages describe: without the commit in its version,
/// so the committed pages do not change with every commit.
pub fn command() -> clap::Command {
    super::Cli::command().long_version(None::<&'static str>)
}

/// Writes the pages and returns the exit code.
pub fn run(args: ManArgs) -> u8 {
    let written = std::fs::create_dir_all(&args.dir)
        .and_then(|()| clap_mangen::generate_to(command(), &args.dir));
    match written {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!(
                "latch: error: cannot write the manual pages into {}: {e}",
                args.dir.display()
            );
            exit::INTERNAL
        }
    }
}
