//! The `latch` command line. [`main`] is the whole `latch` binary: a
//! harness that ships its own executable can call it to offer latch's
//! commands (for example behind a `hooks` subcommand of its own, with
//! [`main_from`]). Each command lives in its own file here; they are
//! crate-internal.
//!
//! Both functions run a command as the whole process does: they build
//! their own tokio runtime (so they panic inside one), read and write the
//! process's stdin and stdout, install `tracing` output and signal
//! handlers (`latch fire` exits the process on SIGINT and SIGTERM), make
//! the process a child subreaper, and, for the commands that start hooks,
//! give the calling thread the shortest time slice
//! ([`crate::run::prefer_short_slice`]). Call them from the process's
//! `main`, never from a running harness; a harness that is already running
//! embeds the library ([`crate::Engine`]) instead.
//!
//! `latch fire` runs an `async` hook in a detached copy of the current
//! executable, started with the single argument `background-hook`. A
//! binary that offers latch's commands behind a prefix of its own must
//! hand that invocation to latch unchanged, as the example of
//! [`main_from`] does.

mod background;
mod completions;
mod config;
mod convert;
mod event_input;
mod explain;
mod fire;
mod lint;
mod log;
mod man;
mod schema;
// Reachable with `internals`: its message parser is fuzzed and
// property-tested.
internal_mods!(serve);
mod signals;
mod stdout;
mod test;
mod trust;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes, documented in `docs/cli.md`.
pub(crate) mod exit {
    /// The command ran (for `fire`: the dispatch ran, whatever it decided).
    pub const OK: u8 = 0;
    /// Bad flags or arguments (clap's own code; listed for the docs).
    #[allow(dead_code)]
    pub const USAGE: u8 = 2;
    /// The event could not be read or is not a valid event.
    pub const BAD_EVENT: u8 = 3;
    /// latch itself could not run (state directory, runtime), or failed
    /// internally (a bug: "latch: internal error: …" on stderr).
    pub const INTERNAL: u8 = 4;
    /// `fire`: a signal arrived before any hook ran; no outcome. `test`: a
    /// signal stopped the run.
    pub const CANCELLED: u8 = 6;
    /// `lint` found warnings and `--deny-warnings` was given.
    pub const LINT_WARNINGS: u8 = 1;
    /// `lint` found errors.
    pub const LINT_ERRORS: u8 = 5;
    /// `test`: a case failed.
    pub const TEST_FAILED: u8 = 1;
}

/// `latch --version`: the version, the commit it was built from (when
/// built from git) and the dialects it supports.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    env!("LATCH_COMMIT"),
    "\ndialects: poolside, peen, evener, claude"
);

/// latch: a hook engine for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "latch", version, long_version = LONG_VERSION, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each subcommand's arguments are built only when it runs: `latch fire`
// does not pay for building `trust`'s or `serve`'s.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Fire one event: load the hook configuration, run the matching hooks,
    /// print the outcome as JSON.
    Fire(fire::FireArgs),
    /// For one event, list every configured hook, whether it would run,
    /// and why. Runs nothing.
    Explain(explain::ExplainArgs),
    /// Find every hook configuration under the given paths and report every
    /// problem: load errors and likely mistakes.
    Lint(lint::LintArgs),
    /// Run hook test scenarios: events through real hooks, checked against
    /// expected outcomes.
    Test(test::TestArgs),
    /// Serve JSON-RPC 2.0 on stdin and stdout (one message per line): a
    /// long-lived engine for a harness (see docs/serve.md).
    Serve(serve::ServeArgs),
    /// Print the JSON Schema of a dialect's configuration format.
    Schema(schema::SchemaArgs),
    /// Translate a configuration between dialects, reporting what cannot be
    /// expressed.
    Convert(convert::ConvertArgs),
    /// List the hooks a project would run with their trust state; approve
    /// them or revoke approvals (see docs/trust.md).
    Trust(Box<trust::TrustArgs>),
    /// Print a session's audit log: one line per hook run (see
    /// docs/audit.md).
    Log(log::LogArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
    /// Write the manual pages of latch and its subcommands into a directory.
    Man(man::ManArgs),
    /// Run one background hook described on stdin (started by `latch fire`).
    #[command(hide = true)]
    BackgroundHook,
}

/// Raises the soft limit of open files to the hard limit, as Node (and
/// so Claude Code) does: every hook of a claude event runs at once, each
/// with three pipes, so a file with many handlers would otherwise make
/// the others fail to start, a deny among them (a server also runs many
/// hooks for a long time). Hooks inherit the raised limit, as under
/// Claude Code.
pub(crate) fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let _ = setrlimit(
            Resource::Nofile,
            rustix::process::Rlimit {
                current: limit.maximum,
                maximum: limit.maximum,
            },
        );
    }
}

/// Sends `tracing` output to stderr when `LATCH_LOG` names a level
/// (`error`, `warn`, `info`, `debug`, `trace`); stdout carries JSON only.
/// A plain level, not an `EnvFilter`: the filter's regex engine would pull
/// the full-DFA regex build into every matcher latch compiles.
fn init_logging() {
    let Ok(level) = std::env::var("LATCH_LOG") else {
        return;
    };
    let level = level
        .parse::<tracing_subscriber::filter::LevelFilter>()
        .unwrap_or(tracing_subscriber::filter::LevelFilter::DEBUG);
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Runs `latch` on this process's arguments and returns its exit code
/// (documented in `docs/cli.md`). As with any clap program, bad arguments,
/// `--help` and `--version` print and exit the process (2 for bad
/// arguments, 0 otherwise).
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     latch::cli::main()
/// }
/// ```
pub fn main() -> ExitCode {
    run(Cli::parse())
}

/// Runs `latch` on the given arguments (the first is the program name, as
/// in [`std::env::args_os`]); otherwise as [`main`].
///
/// ```
/// use std::ffi::OsString;
/// use std::process::ExitCode;
///
/// /// `myharness hooks ARGS…` runs `latch ARGS…`; `myharness
/// /// background-hook` is `latch fire`'s detached runner of async hooks.
/// fn harness_main(args: Vec<OsString>) -> ExitCode {
///     match args.get(1).and_then(|a| a.to_str()) {
///         Some("hooks") => {
///             let latch_args = std::iter::once(OsString::from("latch")).chain(args[2..].iter().cloned());
///             latch::cli::main_from(latch_args)
///         }
///         Some("background-hook") => latch::cli::main_from(args),
///         _ => ExitCode::SUCCESS, // the harness's own commands
///     }
/// }
///
/// let code = harness_main(["myharness", "hooks", "schema", "poolside"].map(OsString::from).to_vec());
/// assert_eq!(code, ExitCode::SUCCESS);
/// ```
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run(Cli::parse_from(args))
}

/// Runs the parsed command line.
fn run(cli: Cli) -> ExitCode {
    init_logging();
    // Hooks started at once spread over the CPUs (see
    // `run::prefer_short_slice`): in the commands that start hooks, this
    // thread starts them, and so do the runtime's blocking threads (`latch
    // serve` starts a burst there). A kernel or a setting that refuses
    // changes nothing; `LATCH_SHORT_SLICE=0` skips the system calls.
    let short_slice = matches!(
        cli.command,
        Command::Fire(_) | Command::Serve(_) | Command::Test(_) | Command::BackgroundHook
    ) && std::env::var_os("LATCH_SHORT_SLICE").is_none_or(|v| v != "0");
    if short_slice {
        let _ = crate::run::prefer_short_slice();
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .on_thread_start(move || {
            if short_slice {
                let _ = crate::run::prefer_short_slice();
            }
        })
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("latch: error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::INTERNAL);
        }
    };
    // The last line of defence: a panic (a latch bug) anywhere in a command
    // is reported and exits INTERNAL instead of 101. `fire` and `explain`
    // also contain a panic per dialect, so one dialect's failure still
    // yields an outcome.
    let code = crate::panic::catch(|| match cli.command {
        Command::Fire(args) => runtime.block_on(fire::run(args)),
        Command::Explain(args) => explain::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Test(args) => {
            // Scenario hooks' orphans are found and killed as in `fire`.
            let _ = crate::run::become_subreaper();
            runtime.block_on(test::run(args))
        }
        Command::Serve(args) => runtime.block_on(serve::run(args)),
        Command::Schema(args) => schema::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Trust(args) => trust::run(*args),
        Command::Log(args) => log::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::BackgroundHook => runtime.block_on(background::run()),
    })
    .unwrap_or_else(|m| {
        eprintln!("latch: internal error: {m}");
        exit::INTERNAL
    });
    // A `prompt` handler's HTTP call runs on a blocking thread that a
    // cancel cannot stop: the answer is given, so do not wait for it.
    runtime.shutdown_background();
    ExitCode::from(code)
}
