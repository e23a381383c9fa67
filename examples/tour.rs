//! A tour of latch: fires the bundled example events through the example
//! hooks of each dialect (`examples/poolside/`, `examples/evener/`,
//! `examples/claude/`, `examples/peen/`) and prints each outcome.
//!
//! Run it with `cargo run --example tour`. It works on copies of the
//! example projects in a temp directory, so the hooks' marker files never
//! land in the repository.

use std::path::{Path, PathBuf};

use latch::dialect::claude::{self, Claude};
use latch::dialect::evener::{self, Evener};
use latch::dialect::peen::{self, Peen};
use latch::dialect::poolside::{Poolside, Sources};
use latch::{Engine, Event, Session};

/// The events, in the order a session would see them.
const EVENTS: [&str; 7] = [
    "session-start.json",
    "user-prompt.json",
    "shell-allowed.json",
    "shell-sudo.json",
    "shell-hook-test.json",
    "shell-output.json",
    "stop.json",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/poolside");
    let work = std::env::temp_dir().join(format!("latch-tour-{}", std::process::id()));
    copy_dir(&source, &work)?;
    // log-payload.sh writes where poolside's documentation says.
    let payload_log = Path::new("/tmp/pool-hook-payload.json");

    let pool = Poolside::load(&Sources {
        project: Some(work.clone()),
        ..Sources::default()
    });
    let engine = Engine::new().with_dialect(pool);
    for d in engine.diagnostics() {
        eprintln!("{d}");
    }
    let session = Session::in_memory(Some("demo".into()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;

    println!("════ poolside: .poolside/settings.yaml in examples/poolside/\n");
    for name in EVENTS {
        let text = std::fs::read_to_string(work.join("events").join(name))?;
        let event: Event = serde_json::from_str(&text)?;
        let outcome = runtime.block_on(engine.dispatch(&event, &session))?;
        println!("── {name}: {}", text.trim());
        println!("{}\n", serde_json::to_string_pretty(&summary(&outcome))?);
    }
    if let Ok(logged) = std::fs::read_to_string(payload_log) {
        println!("── what log-payload.sh received on stdin:\n{logged}");
    }
    std::fs::remove_dir_all(&work)?;

    println!("════ evener: Claude-format plugins in examples/evener/\n");
    let plugins = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/evener");
    let evener = Evener::load(evener::Options {
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
    });
    let engine = Engine::new().with_dialect(evener);
    for d in engine.diagnostics() {
        eprintln!("{d}");
    }
    for name in EVENER_EVENTS {
        let text = std::fs::read_to_string(plugins.join("events").join(name))?;
        let event: Event = serde_json::from_str(&text)?;
        let outcome = runtime.block_on(engine.dispatch(&event, &session))?;
        println!("── {name}: {}", text.trim());
        println!("{}\n", serde_json::to_string_pretty(&summary(&outcome))?);
    }

    println!("════ claude: Claude Code's settings and a plugin in examples/claude/\n");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/claude");
    let home = std::env::temp_dir().join(format!("latch-tour-home-{}", std::process::id()));
    std::fs::create_dir_all(&home)?;
    let claude = Claude::load(claude::Options {
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
    });
    let engine = Engine::new().with_dialect(claude);
    for d in engine.diagnostics() {
        eprintln!("{d}");
    }
    for name in CLAUDE_EVENTS {
        let text = std::fs::read_to_string(root.join("events").join(name))?;
        let event: Event = serde_json::from_str(&text)?;
        let outcome = runtime.block_on(engine.dispatch(&event, &session))?;
        println!("── {name}: {}", text.trim());
        println!("{}\n", serde_json::to_string_pretty(&summary(&outcome))?);
    }
    std::fs::remove_dir_all(&home)?;

    println!("════ peen: .agents/hooks.yaml in examples/peen/no-force-push/\n");
    let work = std::env::temp_dir().join(format!("latch-tour-peen-{}", std::process::id()));
    copy_dir(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/peen/no-force-push"),
        &work,
    )?;
    let engine = Engine::new().with_dialect(Peen::load(peen::Options {
        workspace: Some(work.clone()),
        ..peen::Options::default()
    }));
    for d in engine.diagnostics() {
        eprintln!("{d}");
    }
    for command in ["git push origin main --force", "git push origin main"] {
        let event = serde_json::json!({"event": "tool_before", "session_id": "demo",
            "turn_id": "t1", "cwd": work,
            "tool": {"name": "runCommand", "input": {"command": command}, "call_id": "c1"}});
        let outcome =
            runtime.block_on(engine.dispatch(&serde_json::from_value(event.clone())?, &session))?;
        println!("── {event}");
        println!("{}\n", serde_json::to_string_pretty(&summary(&outcome))?);
    }
    std::fs::remove_dir_all(&work)?;
    Ok(())
}

/// The claude example events.
const CLAUDE_EVENTS: [&str; 4] = [
    "rm-rf.json",
    "npm-test.json",
    "write-outside.json",
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
