//! Hook selection: [`Poolside::select`] for one `tool_before` event among 256
//! configured PreToolUse hooks with mixed matchers.
//!
//! The 256 hooks cycle through the matcher kinds poolside users write:
//! exact names (`tool_17`), pipe lists (`read_18|write_18|edit_18`),
//! regexes (`mcp__srv19__.*`, `web_(fetch|search)_20`, `(?i)bash_21.*`) and
//! `*`. Four tool names are measured: one that hits an exact name, one that
//! hits a pipe list, one that hits a regex, and one that hits nothing but the
//! `*` hooks. The target is at most 2 µs per event.
//!
//! Each case is measured twice: warm (the same config selects over and over,
//! as in a long-lived harness) and `_cold` (each iteration selects on a fresh
//! clone of the config, so the regex engines' lazy caches start empty, as in
//! a `latch fire` process that selects once).
//!
//! A second group measures evener's selection among 256 matcher groups
//! spread over 4 plugins (pipe lists and regexes mixed), with the same
//! target.
//!
//! Run with `cargo bench --bench select`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};

use latch::Event;
use latch::dialect::Dialect;
use latch::dialect::evener::{self, Evener};
use latch::dialect::poolside::{Poolside, Sources};

/// How many PreToolUse hooks are configured.
const HOOKS: usize = 256;

/// The matcher of hook `i`: 1 in 8 is `*`, the rest split between exact
/// names, pipe lists and three shapes of regex.
fn matcher(i: usize) -> String {
    match i % 8 {
        0 => "*".to_owned(),
        1 | 5 => format!("tool_{i}"),
        2 | 6 => format!("read_{i}|write_{i}|edit_{i}"),
        3 => format!("mcp__srv{i}__.*"),
        4 => format!("web_(fetch|search)_{i}"),
        _ => format!("(?i)bash_{i}.*"),
    }
}

fn load() -> (tempfile::TempDir, Poolside) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut yaml = String::from("hooks:\n  PreToolUse:\n");
    for i in 0..HOOKS {
        yaml.push_str(&format!(
            "    - name: h{i}\n      matcher: {:?}\n      command: \"true\"\n",
            matcher(i)
        ));
    }
    std::fs::create_dir(dir.path().join(".poolside")).expect("mkdir .poolside");
    std::fs::write(dir.path().join(".poolside/settings.yaml"), yaml).expect("write settings");
    let pool = Poolside::load(&Sources {
        project: Some(dir.path().to_path_buf()),
        ..Default::default()
    });
    assert!(
        pool.diagnostics().is_empty(),
        "settings load cleanly: {:?}",
        pool.diagnostics()
    );
    (dir, pool)
}

fn bench_select(c: &mut Criterion) {
    let (_dir, pool) = load();
    let any = HOOKS.div_ceil(8);
    // (label, tool name, expected number of selected hooks)
    let cases = [
        ("exact", "tool_17", any + 1),
        ("list", "write_18", any + 1),
        ("regex", "mcp__srv19__search", any + 1),
        ("only_star", "no_such_tool", any),
    ];
    let mut group = c.benchmark_group(format!("select/{HOOKS}_hooks"));
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (label, tool, expected) in cases {
        let event = Event::tool_before(tool, serde_json::json!({"cmd": "ls"})).with_session("s");
        let selected = latch::dialect::poolside::select(&pool, &event);
        assert_eq!(selected.len(), expected, "{tool}");
        group.bench_with_input(BenchmarkId::new(label, tool), &event, |b, event| {
            b.iter(|| black_box(latch::dialect::poolside::select(&pool, black_box(event))));
        });
        // `latch fire` selects once per process, with the regex caches cold:
        // a clone of the config starts with fresh caches (the clone itself is
        // setup, not timed).
        group.bench_with_input(
            BenchmarkId::new(format!("{label}_cold"), tool),
            &event,
            |b, event| {
                b.iter_batched(
                    || pool.clone(),
                    |fresh| {
                        black_box(latch::dialect::poolside::select(&fresh, black_box(event)).len());
                        fresh
                    },
                    BatchSize::SmallInput,
                );
            },
        );
    }
    group.finish();
}

/// The matcher of evener group `i`: Claude tool names, pipe lists and
/// regexes mixed (regexes are searched anywhere in the name, as Go does).
fn evener_matcher(i: usize) -> String {
    match i % 4 {
        0 => format!("Tool{i}|Read{i}|Write{i}"),
        1 => format!("^mcp__srv{i}__.*"),
        2 => format!("Edit{i}|MultiEdit{i}"),
        _ => format!("^Web(Fetch|Search){i}$"),
    }
}

/// 256 groups across 4 plugins of 64 groups each.
fn load_evener() -> (tempfile::TempDir, Evener) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut plugin_dirs = Vec::new();
    for p in 0..4 {
        let groups: Vec<serde_json::Value> = (p * 64..(p + 1) * 64)
            .map(|i| {
                serde_json::json!({"matcher": evener_matcher(i),
                    "hooks": [{"type": "command", "command": "true"}]})
            })
            .collect();
        let plugin = dir.path().join(format!("plugin{p}"));
        std::fs::create_dir_all(plugin.join("hooks")).expect("mkdir");
        std::fs::write(
            plugin.join("hooks/hooks.json"),
            serde_json::json!({"hooks": {"PreToolUse": groups}}).to_string(),
        )
        .expect("write hooks.json");
        plugin_dirs.push(plugin);
    }
    let evener = Evener::load(evener::Options {
        plugin_dirs,
        ..evener::Options::default()
    });
    assert!(
        evener
            .diagnostics()
            .iter()
            .all(|d| d.severity == latch::Severity::Info),
        "plugins load cleanly: {:?}",
        evener.diagnostics()
    );
    (dir, evener)
}

fn bench_select_evener(c: &mut Criterion) {
    let (_dir, evener) = load_evener();
    // (label, canonical tool name, expected number of selected groups)
    let cases = [
        ("list", "Read16", 1),
        ("regex", "mcp__srv21__search", 1),
        ("regex_anchored", "WebSearch23", 1),
        ("none", "shell", 0),
    ];
    let mut group = c.benchmark_group(format!("select_evener/{HOOKS}_groups"));
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (label, tool, expected) in cases {
        let event = Event::tool_before(tool, serde_json::json!({})).with_session("s");
        assert_eq!(
            latch::dialect::evener::select(&evener, &event).len(),
            expected,
            "{tool}"
        );
        group.bench_with_input(BenchmarkId::new(label, tool), &event, |b, event| {
            b.iter(|| black_box(latch::dialect::evener::select(&evener, black_box(event))));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_select, bench_select_evener);
criterion_main!(benches);
