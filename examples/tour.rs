//! A tour of latch: fires the bundled example events through the example
//! hooks of each dialect (`examples/poolside/`, `examples/evener/`,
//! `examples/claude/`, `examples/peen/`) and prints each outcome.
//!
//! Run it with `cargo run --example tour`. The poolside and peen examples
//! run on copies in a temp directory, so their hooks' marker files never
//! land in the repository; the evener and claude hooks write nothing.
//! `tests/it/examples.rs` runs [`run`] too.

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

use latch::dialect::claude::{self, Claude};
use latch::dialect::evener::{self, Evener};
use latch::dialect::peen::{self, Peen};
use latch::dialect::poolside::{Poolside, Sources};
use latch::{Engine, Event, Session};

/// The poolside example events, in the order a session would see them.
const POOLSIDE_EVENTS: [&str; 7] = [
    "session-start.json",
    "user-prompt.json",
    "shell-allowed.json",
    "shell-sudo.json",
    "shell-hook-test.json",
    "shell-output.json",
    "stop.json",
];

/// The evener example events.
const EVENER_EVENTS: [&str; 5] = [
    "session-start.json",
    "user-prompt.json",
    "shell-sudo.json",
    "edit-after.json",
    "stop-with-question.json",
];

/// The claude example events.
const CLAUDE_EVENTS: [&str; 4] = [
    "rm-rf.json",
    "npm-test.json",
    "write-outside.json",
    "stop.json",
];

#[allow(dead_code)] // The integration test calls `run` only.
fn main() -> Result<(), Box<dyn Error>> {
    run(&mut std::io::stdout().lock(), &mut std::io::stderr().lock())
}

/// The tour: each dialect's outcomes to `out`, load diagnostics to
/// `diagnostics`.
pub fn run(out: &mut dyn Write, diagnostics: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let tour = Tour {
        runtime: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        session: Session::in_memory(Some("demo".into())),
    };

    let work = temp_dir("poolside");
    copy_dir(&examples.join("poolside"), &work)?;
    let engine = Engine::new().with_dialect(Poolside::load(&Sources {
        project: Some(work.clone()),
        ..Sources::default()
    }));
    writeln!(
        out,
        "════ poolside: .poolside/settings.yaml in examples/poolside/\n"
    )?;
    tour.fire_files(
        &engine,
        &work.join("events"),
        &POOLSIDE_EVENTS,
        out,
        diagnostics,
    )?;
    // log-payload.sh writes where poolside's documentation says.
    if let Ok(logged) = std::fs::read_to_string("/tmp/pool-hook-payload.json") {
        writeln!(out, "── what log-payload.sh received on stdin:\n{logged}")?;
    }
    std::fs::remove_dir_all(&work)?;

    let plugins = examples.join("evener");
    let engine = Engine::new().with_dialect(Evener::load(evener::Options {
        plugin_dirs: [
            "hello-plugin",
            "guard-plugin",
            "exec-plugin",
            "pointed-plugin",
            "inline-plugin",
        ]
        .iter()
        .map(|p| plugins.join(p))
        .collect(),
        project: Some(std::env::temp_dir()),
        ..evener::Options::default()
    }));
    writeln!(
        out,
        "════ evener: Claude-format plugins in examples/evener/\n"
    )?;
    tour.fire_files(
        &engine,
        &plugins.join("events"),
        &EVENER_EVENTS,
        out,
        diagnostics,
    )?;

    let root = examples.join("claude");
    let home = temp_dir("home");
    std::fs::create_dir_all(&home)?;
    let engine = Engine::new().with_dialect(Claude::load(claude::Options {
        sources: claude::Sources {
            project: Some(root.join("project")),
            plugin_dirs: vec![root.join("plugins/careful")],
            // Not this machine's own ~/.claude or /etc/claude-code.
            home: Some(home.clone()),
            managed_dir: Some(home.join("no-managed-settings")),
            ..claude::Sources::default()
        },
        project: Some(root.join("project")),
        ..claude::Options::default()
    }));
    writeln!(
        out,
        "════ claude: Claude Code's settings and a plugin in examples/claude/\n"
    )?;
    tour.fire_files(
        &engine,
        &root.join("events"),
        &CLAUDE_EVENTS,
        out,
        diagnostics,
    )?;
    std::fs::remove_dir_all(&home)?;

    let work = temp_dir("peen");
    copy_dir(&examples.join("peen/no-force-push"), &work)?;
    let engine = Engine::new().with_dialect(Peen::load(peen::Options {
        workspace: Some(work.clone()),
        ..peen::Options::default()
    }));
    writeln!(
        out,
        "════ peen: .agents/hooks.yaml in examples/peen/no-force-push/\n"
    )?;
    let events = ["git push origin main --force", "git push origin main"].map(|command| {
        serde_json::json!({"event": "tool_before", "session_id": "demo", "turn_id": "t1",
            "cwd": work, "tool": {"name": "runCommand", "input": {"command": command}, "call_id": "c1"}})
        .to_string()
    });
    tour.fire(&engine, events, out, diagnostics)?;
    std::fs::remove_dir_all(&work)?;
    Ok(())
}

/// What every dialect's part of the tour shares.
struct Tour {
    runtime: tokio::runtime::Runtime,
    session: Session,
}

impl Tour {
    /// Fires the events in `names`, each a file in `dir`.
    fn fire_files(
        &self,
        engine: &Engine,
        dir: &Path,
        names: &[&str],
        out: &mut dyn Write,
        diagnostics: &mut dyn Write,
    ) -> Result<(), Box<dyn Error>> {
        let texts = names
            .iter()
            .map(|name| std::fs::read_to_string(dir.join(name)))
            .collect::<Result<Vec<_>, _>>()?;
        self.fire(engine, texts, out, diagnostics)
    }

    /// Prints the engine's diagnostics, then fires each event (its JSON
    /// text) and prints it with its outcome.
    fn fire(
        &self,
        engine: &Engine,
        events: impl IntoIterator<Item = String>,
        out: &mut dyn Write,
        diagnostics: &mut dyn Write,
    ) -> Result<(), Box<dyn Error>> {
        for d in engine.diagnostics() {
            writeln!(diagnostics, "{d}")?;
        }
        for text in events {
            let event: Event = serde_json::from_str(&text)?;
            let outcome = self
                .runtime
                .block_on(engine.dispatch(&event, &self.session))?;
            writeln!(out, "── {}", text.trim())?;
            writeln!(
                out,
                "{}\n",
                serde_json::to_string_pretty(&summary(&outcome))?
            )?;
        }
        Ok(())
    }
}

/// A directory of this process's own under the temp directory.
fn temp_dir(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!("latch-tour-{what}-{}", std::process::id()))
}

/// The outcome without per-run timings, which change from run to run.
fn summary(outcome: &latch::Outcome) -> serde_json::Value {
    let mut v = serde_json::to_value(outcome).unwrap_or_default();
    if let Some(runs) = v.get_mut("runs").and_then(|r| r.as_array_mut()) {
        for run in runs {
            if let Some(obj) = run.as_object_mut() {
                obj.shift_remove("duration_ms");
                obj.shift_remove("source");
            }
        }
    }
    v
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
