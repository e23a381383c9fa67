//! What `latch serve` does with wrong request params, and `latch fire`
//! with the same wrong flags: refused, naming the key, before anything is
//! loaded or run.

use std::time::Duration;

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings};
use crate::serve::Server;

fn message(r: &Value) -> &str {
    r["error"]["message"].as_str().unwrap_or_default()
}

/// What `latch fire` with `flags` said on stderr, as it refused them
/// (exit 2) before reading any configuration.
fn fire_refused(flags: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("latch")
        .unwrap()
        .arg("fire")
        .args(flags)
        .write_stdin(r#"{"event": "stop"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An empty path used to read the server's working directory: with the
/// server started in the project, `home: ""` loaded the project's own
/// settings as the user's, which need no approval, and ran them under
/// `trust: ["require"]`. Every path key is refused when empty or when it
/// holds a NUL byte, and the server stays uninitialized.
#[test]
fn initialize_refuses_empty_and_nul_paths_naming_the_key() {
    let c = Claude::new().project_settings(&settings("Stop", None, &["echo ran"]));
    let mut s = Server::start_in_dir(&c.project());
    let mut id = 0;
    for key in [
        "project",
        "home",
        "settings",
        "claude_managed_dir",
        "tool_vocabulary",
        "peen_config_dir",
        "state_dir",
    ] {
        for bad in ["", "a\u{0}b"] {
            id += 1;
            let r = s.request(
                id,
                "initialize",
                json!({"dialects": ["claude"], "trust": ["require"], key: bad}),
            );
            assert_eq!(r["error"]["code"], -32602, "{key}: {r}");
            let why = if bad.is_empty() {
                "the path is empty"
            } else {
                "the path contains a NUL byte"
            };
            assert!(
                message(&r).starts_with(&format!("invalid params: `{key}`: {why}")),
                "{key}: {r}"
            );
        }
    }
    let r = s.request(99, "initialize", json!({"plugin_dirs": ["/p", ""]}));
    assert!(
        message(&r).starts_with("invalid params: `plugin_dirs`: the path is empty"),
        "{r}"
    );
    // Nothing was initialized by the refusals.
    let r = s.request(100, "fire", json!({"event": "stop", "session_id": "s"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(s.close(), 0);
    // `latch fire`'s flags alike.
    for flag in ["--home", "--project", "--state-dir", "--claude-managed-dir"] {
        let err = fire_refused(&[flag, ""]);
        assert!(err.contains("the path is empty"), "{flag}: {err}");
    }
}

/// A relative path is taken from the server's directory once, at
/// `initialize`, and kept absolute: what a hook's record and a trust
/// approval name is the file that was read.
#[test]
fn relative_paths_are_made_absolute() {
    let c = Claude::new();
    c.write(
        "rel-home/.claude/settings.json",
        &settings("Stop", None, &["true"]).to_string(),
    );
    let mut s = Server::start_in_dir(c.root.path());
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": "rel-home",
            "claude_managed_dir": "managed", "state_dir": "state"}),
    );
    assert!(r["result"].is_object(), "{r}");
    let r = s.request(2, "fire", json!({"event": "stop", "session_id": "s"}));
    let file = c.root.path().join("rel-home/.claude/settings.json");
    assert_eq!(
        r["result"]["runs"][0]["source"]["file"],
        file.to_str().unwrap(),
        "{r}"
    );
    assert!(c.root.path().join("state/sessions").is_dir());
    assert_eq!(s.close(), 0);

    // `latch fire` does the same with its flags.
    let out = assert_cmd::Command::cargo_bin("latch")
        .unwrap()
        .current_dir(c.root.path())
        .args(["fire", "--dialect", "claude", "--home", "rel-home"])
        .arg("--project")
        .arg(c.project())
        .args(["--claude-managed-dir", "managed", "--state-dir", "state"])
        .env_remove("LATCH_STATE_DIR")
        .write_stdin(r#"{"event": "stop", "session_id": "s"}"#)
        .output()
        .unwrap();
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        outcome["runs"][0]["source"]["file"],
        file.to_str().unwrap(),
        "{outcome}"
    );
}

/// A trust policy for a dialect that does not exist would leave the one
/// meant unguarded: `CLAUDE=require` is refused, as `latch fire --trust`
/// refuses it.
#[test]
fn a_trust_policy_must_name_a_dialect() {
    let mut s = Server::start(&[]);
    for (id, spec) in [(1, "CLAUDE=require"), (2, "bogus=warn"), (3, "=warn")] {
        let r = s.request(id, "initialize", json!({"trust": [spec]}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let dialect = spec.split('=').next().unwrap();
        assert_eq!(
            message(&r),
            format!(
                "invalid params: `trust`: `{dialect}` is not a dialect (poolside, peen, evener, claude)"
            ),
            "{r}"
        );
    }
    assert_eq!(s.close(), 0);
    let err = fire_refused(&["--trust", "CLAUDE=require"]);
    assert!(err.contains("`CLAUDE` is not a dialect"), "{err}");
}

/// A prompt endpoint that cannot be reached would fail every prompt hook,
/// and a failed prompt hook lets the call through: refused at once.
#[test]
fn the_prompt_endpoint_and_model_are_checked() {
    let mut s = Server::start(&[]);
    for (id, params, key) in [
        (1, json!({"prompt_base_url": ""}), "prompt_base_url"),
        (
            2,
            json!({"prompt_base_url": "file:///etc/passwd"}),
            "prompt_base_url",
        ),
        (3, json!({"prompt_base_url": "https://"}), "prompt_base_url"),
        (4, json!({"prompt_model": ""}), "prompt_model"),
        (5, json!({"claude_settings": ""}), "claude_settings"),
    ] {
        let r = s.request(id, "initialize", params);
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(
            message(&r).starts_with(&format!("invalid params: `{key}`: ")),
            "{r}"
        );
    }
    let r = s.request(
        6,
        "initialize",
        json!({"prompt_base_url": "http://127.0.0.1:9/v1", "prompt_model": "m"}),
    );
    assert!(r["result"].is_object(), "{r}");
    assert_eq!(s.close(), 0);
    let err = fire_refused(&["--prompt-base-url", "ftp://example.org"]);
    assert!(err.contains("is not an http:// or https:// URL"), "{err}");
}

/// A value of the wrong type is named by its key, in `initialize` and in
/// the trust methods; params by position are refused where the method
/// takes an object, and a cancel by position cancels nothing.
#[test]
fn wrong_params_are_named_and_params_by_position_are_refused() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["sleep 1; echo no >&2; exit 2"],
    ));
    let mut s = Server::start(&[]);
    let r = s.request(1, "initialize", json!({"project": 5}));
    assert!(
        message(&r).starts_with("invalid params: `project`: invalid type: integer `5`"),
        "{r}"
    );
    // An unknown key is named by its message, once.
    let r = s.request(11, "initialize", json!({"dialect": ["claude"]}));
    assert!(
        message(&r).starts_with("invalid params: unknown field `dialect`, expected one of"),
        "{r}"
    );
    let r = s.request(2, "initialize", json!({"dialects": [5]}));
    assert!(
        message(&r).starts_with("invalid params: `dialects[0]`: "),
        "{r}"
    );
    let mut s = s.for_claude_trusting(&c);
    let r = s.request(3, "trust/approve", json!({"hooks": null}));
    assert!(message(&r).starts_with("invalid params: `hooks`: "), "{r}");
    let r = s.request(4, "trust/approve", json!([["x"], false]));
    assert_eq!(message(&r), "params must be an object", "{r}");
    let r = s.request(5, "trust/revoke", json!([true]));
    assert_eq!(message(&r), "params must be an object", "{r}");
    let r = s.request(55, "trust/approve", json!({"hooks": ["true"], "all": true}));
    assert_eq!(message(&r), "name the hooks or select all, not both", "{r}");

    // `[6]` is not `{"id": 6}`: the fire runs to its deny.
    let r = s.request(6, "trust/approve", json!({"all": true}));
    assert!(r["result"].is_object(), "{r}");
    s.fire(7, bash_before("ls"));
    std::thread::sleep(Duration::from_millis(200));
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": [7]}));
    // (Skipping the reload notice of the approval.)
    let r = loop {
        let m = s.recv();
        if m["id"] == 7 {
            break m;
        }
    };
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert!(r["result"].get("warnings").is_none(), "{r}");
    assert_eq!(s.close(), 0);
}

/// Trust requests run one after another, in the order they arrived: an
/// approve and a revoke sent back to back leave the hook revoked (they
/// once raced, and the approve could land last).
#[test]
fn trust_requests_run_in_the_order_they_arrive() {
    let c = Claude::new().project_settings(&settings("Stop", None, &["true"]));
    let mut s = Server::start(&[]).for_claude_trusting(&c);
    for round in 0..10 {
        let base = 10 + round * 3;
        for (id, method) in [(base, "trust/approve"), (base + 1, "trust/revoke")] {
            s.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"all": true}}));
        }
        let r = s.request(base + 2, "trust/list", json!(null));
        let hook = &r["result"][0];
        assert_eq!(hook["needs_approval"], true, "round {round}: {r}");
        assert_ne!(
            hook["trust"]["state"], "approved",
            "round {round}: the approve landed after the revoke: {r}"
        );
    }
    assert_eq!(s.close(), 0);
}
