//! `latch test`: run hook test scenarios.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::scenario::Scenario;

use super::exit;
use super::signals::FireSignals;
use super::stdout::Stdout;

/// Run hook test scenarios: events through real hooks, checked against
/// expected outcomes.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// Scenario files, or directories whose `*.yaml` files are scenarios.
    #[arg(value_name = "FILES", required = true)]
    files: Vec<PathBuf>,
}

/// Runs `latch test`: one line per case, a diff for each failure, and a
/// closing `N passed, M failed` line. Exit 1 when a case fails, 3 when a
/// scenario cannot be read or there is none. A terminating signal (the list `latch fire`
/// answers) stops the scenario that runs, which kills its hook and every
/// descendant, and exits 6.
pub async fn run(args: TestArgs) -> u8 {
    let signals = FireSignals::install();
    let cancel = signals.begin_dispatch().await;
    let mut files = Vec::new();
    for f in &args.files {
        collect(f, &mut files);
    }
    let mut out = Stdout::lock();
    // A directory with no scenario in it is a mistake (a wrong path in CI
    // would otherwise pass with nothing tested).
    if files.is_empty() {
        let _ = writeln!(
            out,
            "error: no scenario (`*.yaml`) found in {}",
            args.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(out, "0 passed, 0 failed");
        return out.finish(exit::BAD_EVENT);
    }
    let (mut passed, mut failed, mut broken) = (0usize, 0usize, 0usize);
    for file in files {
        let _ = writeln!(out, "{}", file.display());
        let scenario = match Scenario::load(&file) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(out, "  error {e}");
                broken += 1;
                continue;
            }
        };
        let problems = scenario.config_problems();
        if !problems.is_empty() {
            for d in problems {
                let _ = writeln!(out, "  error {d}");
            }
            broken += 1;
            continue;
        }
        let results = tokio::select! {
            results = scenario.run() => results,
            () = cancel.cancelled() => {
                // Dropping the run kills the running hook's whole tree.
                let name = signals.received().unwrap_or_else(|| "a signal".to_owned());
                let _ = writeln!(out, "  interrupted by {name}; no further case runs");
                let _ = writeln!(out, "{passed} passed, {failed} failed");
                return out.finish(exit::CANCELLED);
            }
        };
        for result in results {
            if result.failures.is_empty() {
                passed += 1;
                let _ = writeln!(out, "  ok    {}", result.name);
            } else {
                failed += 1;
                let _ = writeln!(out, "  FAIL  {}", result.name);
                for f in &result.failures {
                    let _ = writeln!(out, "        {f}");
                }
            }
        }
    }
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    out.finish(if broken > 0 {
        exit::BAD_EVENT
    } else if failed > 0 {
        exit::TEST_FAILED
    } else {
        exit::OK
    })
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        out.extend(
            entries
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml")),
        );
    } else {
        out.push(path.to_path_buf());
    }
}
