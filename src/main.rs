//! The `latch` command line. Everything lives in the library: the binary
//! is one call to [`latch::cli::main`].

fn main() -> std::process::ExitCode {
    latch::cli::main()
}
