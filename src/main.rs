//! The `latch` command line. All logic lives in the library and `cli/`;
//! this file only parses arguments and maps results to exit codes.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args)
}
