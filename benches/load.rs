//! Loading large configurations: 10,000 hooks per dialect, valid and
//! invalid. The target is at most 200 ms per load.
//!
//! Each dialect's configuration is written once to a temp directory and
//! loaded through the dialect's own `load` (file discovery, bounded read,
//! YAML or JSON parse, validation, pattern checks, indexing):
//!
//! - poolside: one `.poolside/settings.yaml` with 10,000 PreToolUse hooks.
//!   `valid` cycles the matcher kinds of `benches/select.rs` (`*`, exact
//!   names, pipe lists, three shapes of regex); `oversized` gives every
//!   hook a distinct regex far over the size limit
//!   (`(?:\w{100}x17){100}`); `budget` gives every hook a distinct regex
//!   just under the limit (`x17.{1500}`), so the file's pattern budget runs
//!   out after about 44 of them.
//! - evener: one plugin whose `hooks/hooks.json` has 10,000 PreToolUse
//!   matcher groups of one command handler each, `valid` and `oversized`
//!   as for poolside.
//! - peen: one workspace `.agents/hooks.yaml` with 250 groups (peen allows
//!   256) of 40 actions each, every action with a `when`. `valid` cycles a
//!   `path` glob, an input `regex` check, an exact `tool` and `extensions`
//!   (5,000 patterns, within the file's pattern budget); `oversized` gives
//!   every action a glob and an oversized regex check (the file is
//!   invalid, with 10,000 located problems).
//!
//! Run with `cargo bench --bench load`; `benches/load-timing.sh` times a
//! whole `latch fire` process on the same configurations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use latch::dialect::Dialect;
use latch::dialect::evener::{self, Evener};
use latch::dialect::peen::{self, Peen};
use latch::dialect::poolside::{Poolside, Sources};

/// Hooks per configuration.
const HOOKS: usize = 10_000;

/// A valid matcher of hook `i`, as in `benches/select.rs`.
fn valid_matcher(i: usize) -> String {
    match i % 8 {
        0 => "*".to_owned(),
        1 | 5 => format!("tool_{i}"),
        2 | 6 => format!("read_{i}|write_{i}|edit_{i}"),
        3 => format!("mcp__srv{i}__.*"),
        4 => format!("web_(fetch|search)_{i}"),
        _ => format!("(?i)bash_{i}.*"),
    }
}

fn oversized_matcher(i: usize) -> String {
    format!(r"(?:\w{{100}}x{i}){{100}}")
}

fn budget_matcher(i: usize) -> String {
    format!("x{i}.{{1500}}")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn poolside_project(matcher: fn(usize) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::from("hooks:\n  PreToolUse:\n");
    for i in 0..HOOKS {
        yaml.push_str(&format!(
            "    - {{name: h{i}, matcher: {:?}, command: \"true\"}}\n",
            matcher(i)
        ));
    }
    write(dir.path(), ".poolside/settings.yaml", &yaml);
    dir
}

fn evener_plugin(matcher: fn(usize) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let groups: Vec<serde_json::Value> = (0..HOOKS)
        .map(|i| {
            serde_json::json!({"matcher": matcher(i),
                "hooks": [{"type": "command", "command": "true"}]})
        })
        .collect();
    write(
        dir.path(),
        ".claude-plugin/plugin.json",
        r#"{"name": "many"}"#,
    );
    write(
        dir.path(),
        "hooks/hooks.json",
        &serde_json::json!({"hooks": {"PreToolUse": groups}}).to_string(),
    );
    dir
}

fn peen_workspace(oversized: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::from("version: 1\npreToolUse:\n");
    for g in 0..HOOKS / 40 {
        yaml.push_str(&format!("  - name: g{g}\n    actions:\n"));
        for a in 0..40 {
            let i = g * 40 + a;
            let when = if oversized {
                format!(
                    "path: 'src/d{i}/**/*.{{rs,go}}'\n          input:\n            /command: {{regex: '{}'}}",
                    oversized_matcher(i)
                )
            } else {
                match i % 4 {
                    0 => format!("path: 'src/d{i}/**/*.{{rs,go}}'"),
                    1 => format!("input:\n            /command: {{regex: '^rm{i} .*'}}"),
                    2 => format!("tool: tool_{i}"),
                    _ => "extensions: [.md]".to_owned(),
                }
            };
            yaml.push_str(&format!(
                "      - type: inject\n        message: m{i}\n        when:\n          {when}\n"
            ));
        }
    }
    write(dir.path(), ".agents/hooks.yaml", &yaml);
    dir
}

fn load_poolside(dir: &Path) -> Poolside {
    Poolside::load(&Sources {
        project: Some(dir.to_path_buf()),
        ..Default::default()
    })
}

fn load_evener(dir: &Path) -> Evener {
    Evener::load(evener::Options {
        plugin_dirs: vec![dir.to_path_buf()],
        ..Default::default()
    })
}

fn load_peen(dir: &Path) -> Peen {
    Peen::load(peen::Options {
        workspace: Some(dir.to_path_buf()),
        ..Default::default()
    })
}

fn bench_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_10k");
    group.sample_size(10);

    let valid = poolside_project(valid_matcher);
    assert!(load_poolside(valid.path()).diagnostics().is_empty());
    group.bench_function("poolside/valid", |b| b.iter(|| load_poolside(valid.path())));
    let oversized = poolside_project(oversized_matcher);
    assert_eq!(load_poolside(oversized.path()).diagnostics().len(), HOOKS);
    group.bench_function("poolside/oversized", |b| {
        b.iter(|| load_poolside(oversized.path()))
    });
    let budget = poolside_project(budget_matcher);
    assert_eq!(load_poolside(budget.path()).diagnostics().len(), 1);
    group.bench_function("poolside/budget", |b| {
        b.iter(|| load_poolside(budget.path()))
    });

    let valid = evener_plugin(valid_matcher);
    assert!(load_evener(valid.path()).diagnostics().is_empty());
    group.bench_function("evener/valid", |b| b.iter(|| load_evener(valid.path())));
    let oversized = evener_plugin(oversized_matcher);
    assert_eq!(load_evener(oversized.path()).diagnostics().len(), HOOKS);
    group.bench_function("evener/oversized", |b| {
        b.iter(|| load_evener(oversized.path()))
    });

    let valid = peen_workspace(false);
    assert!(load_peen(valid.path()).diagnostics().is_empty());
    group.bench_function("peen/valid", |b| b.iter(|| load_peen(valid.path())));
    let oversized = peen_workspace(true);
    assert_eq!(load_peen(oversized.path()).diagnostics().len(), HOOKS);
    group.bench_function("peen/oversized", |b| b.iter(|| load_peen(oversized.path())));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = bench_load
}
criterion_main!(benches);
