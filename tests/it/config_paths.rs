//! `Dialect::config_paths`: what a long-lived harness watches to reload
//! configuration, for every dialect, and a reload driven by it.

use std::path::{Path, PathBuf};

use serde_json::json;

use latch::dialect::Dialect;
use latch::dialect::{claude, evener, peen, poolside};
use latch::{Engine, Event, Session};

fn paths(d: &dyn Dialect) -> Vec<PathBuf> {
    let mut p = d.config_paths();
    p.sort();
    p
}

fn sorted(mut v: Vec<PathBuf>) -> Vec<PathBuf> {
    v.sort();
    v
}

#[test]
fn each_dialect_names_every_file_it_looks_for_whether_it_exists_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("project"));
    let flag = dir.path().join("flag.yaml");

    let pool = poolside::Poolside::load(&poolside::Sources {
        home: Some(home.clone()),
        project: Some(project.clone()),
        settings: Some(flag.clone()),
    });
    assert_eq!(
        paths(&pool),
        sorted(vec![
            home.join(".config/poolside/settings.yaml"),
            project.join(".poolside/settings.yaml"),
            project.join(".poolside/settings.local.yaml"),
            flag.clone(),
        ])
    );

    let managed = dir.path().join("managed");
    let plugin = dir.path().join("plugin");
    // A plugin whose manifest names a hooks file outside its directory.
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "p", "hooks": "../shared/hooks.json"}"#,
    );
    let settings_file = dir.path().join("settings.json");
    let claude = claude::Claude::load(claude::Options {
        sources: claude::Sources {
            home: Some(home.clone()),
            project: Some(project.clone()),
            managed_dir: Some(managed.clone()),
            settings: Some(settings_file.display().to_string()),
            plugin_dirs: vec![plugin.clone()],
        },
        ..claude::Options::default()
    });
    let got = paths(&claude);
    for p in [
        home.join(".claude/settings.json"),
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
        settings_file.clone(),
        managed.join("managed-settings.json"),
        managed.join("managed-settings.d"),
        plugin.clone(),
        plugin.join(".claude-plugin/plugin.json"),
        plugin.join("hooks/hooks.json"),
        plugin.join("../shared/hooks.json"),
    ] {
        assert!(got.contains(&p), "{} not in {got:?}", p.display());
    }
    // Settings given as JSON text are no file to watch.
    let inline = claude::Claude::load(claude::Options {
        sources: claude::Sources {
            managed_dir: Some(managed.clone()),
            settings: Some("{}".into()),
            ..claude::Sources::default()
        },
        ..claude::Options::default()
    });
    assert_eq!(
        paths(&inline),
        sorted(vec![
            managed.join("managed-settings.d"),
            managed.join("managed-settings.json"),
        ])
    );

    // peen: each layer's hooks file, and the message file an inject
    // action reads (a file that is missing makes the layer skipped).
    let layers = dir.path().join("layers");
    write(
        &project.join(".agents/hooks.yaml"),
        "version: 1\nturnStart:\n  - name: hello\n    actions:\n      - name: say\n        type: inject\n        messageFile: messages/hello.md\n",
    );
    let peen = peen::Peen::load(peen::Options {
        config_dir: Some(layers.clone()),
        workspace: Some(project.clone()),
        ..peen::Options::default()
    });
    assert!(
        !peen.diagnostics().is_empty(),
        "the message file is missing"
    );
    assert_eq!(
        paths(&peen),
        sorted(vec![
            layers.join(".agents/hooks.yaml"),
            project.join(".agents/hooks.yaml"),
            project.join(".agents/messages/hello.md"),
        ])
    );

    // evener: the plugin directory and what its load looked for, the
    // hooks file its manifest names outside it included.
    let ev = evener::Evener::load(evener::Options {
        plugin_dirs: vec![plugin.clone()],
        ..evener::Options::default()
    });
    let got = paths(&ev);
    for p in [
        plugin.clone(),
        plugin.join(".claude-plugin/plugin.json"),
        plugin.join("../shared/hooks.json"),
    ] {
        assert!(got.contains(&p), "{} not in {got:?}", p.display());
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn a_harness_that_reloads_when_a_watched_file_appears_runs_its_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let sources = poolside::Sources {
        project: Some(dir.path().to_path_buf()),
        ..poolside::Sources::default()
    };
    let event = Event::tool_before("shell", json!({"cmd": "sudo ls"}));
    let session = Session::in_memory(None);

    let engine = Engine::new().with_dialect(poolside::Poolside::load(&sources));
    assert!(!engine.dispatch(&event, &session).await.unwrap().is_denied());
    let watched: Vec<PathBuf> = engine.dialects().flat_map(|d| d.config_paths()).collect();
    let settings = dir.path().join(".poolside/settings.yaml");
    assert!(watched.contains(&settings), "{watched:?}");

    // The project gains a settings file: one of the watched paths.
    write(
        &settings,
        "hooks:\n  PreToolUse:\n    - matcher: shell\n      command: \"echo no >&2; exit 2\"\n",
    );
    let engine = Engine::new().with_dialect(poolside::Poolside::load(&sources));
    assert!(engine.dispatch(&event, &session).await.unwrap().is_denied());
}
