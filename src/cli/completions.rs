//! `latch completions SHELL`: a completion script for the shell, from the
//! same clap definitions the commands parse with.

use std::io::{self, Write};

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::exit;

/// Print a shell completion script (bash, zsh, fish, powershell, elvish).
///
/// bash: `latch completions bash > ~/.local/share/bash-completion/completions/latch`;
/// zsh: into a directory of `$fpath` as `_latch`; fish:
/// `latch completions fish > ~/.config/fish/completions/latch.fish`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the script and returns the exit code.
pub fn run(args: CompletionsArgs) -> u8 {
    let mut command = super::Cli::command();
    // Written whole here: clap_complete panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "latch", &mut script);
    match io::stdout().lock().write_all(&script) {
        Ok(()) => exit::OK,
        Err(e) => super::stdout::failed(&e),
    }
}
