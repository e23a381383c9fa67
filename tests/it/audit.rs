//! The audit log: written by `latch fire`, read by `latch log`, through
//! the real binary.

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::util::{Project, latch};

const SECRET: &str = "hunter2-secret";

/// A project whose `guard` hook denies `sudo` (saying so on stderr, and
/// printing a secret on stdout when it allows), and a Stop hook.
fn project() -> Project {
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - {name: guard, matcher: shell, command: ./guard.sh}\n  Stop:\n    - {name: bye, command: 'true'}\n",
    );
    p.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\nif grep -q sudo; then echo 'no sudo {SECRET}' >&2; exit 2; fi\necho '{{\"note\": \"{SECRET}\"}}' >/dev/null\nexit 0\n"
        ),
    );
    p
}

fn shell(session: &str, cmd: &str) -> Value {
    json!({"event": "tool_before", "session_id": session,
        "tool": {"name": "shell", "input": {"cmd": cmd, "token": SECRET}}})
}

fn log_file(p: &Project, session: &str) -> std::path::PathBuf {
    p.state().join("sessions").join(session).join("audit.jsonl")
}

fn records(p: &Project, session: &str) -> Vec<Value> {
    std::fs::read_to_string(log_file(p, session))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `latch log ARGS --state-dir <state>`: (code, stdout, stderr).
fn log(p: &Project, args: &[&str]) -> (i32, String, String) {
    let out = latch()
        .arg("log")
        .args(args)
        .arg("--state-dir")
        .arg(p.state())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_hook_run_leaves_one_record_with_its_facts_and_nothing_it_printed() {
    let p = project();
    p.fire(&shell("s1", "sudo ls"));
    p.fire(&shell("s1", "ls"));
    p.fire(&json!({"event": "stop", "session_id": "s1"}));
    let r = records(&p, "s1");
    assert_eq!(r.len(), 3, "{r:?}");
    let deny = &r[0];
    assert_eq!(deny["session"], "s1");
    assert_eq!(deny["event"], "tool_before");
    assert_eq!(deny["hook_event"], "PreToolUse");
    assert_eq!(deny["dialect"], "poolside");
    assert_eq!(deny["hook"], "guard");
    assert_eq!(deny["status"], "blocked");
    assert_eq!(deny["exit_code"], 2);
    assert_eq!(deny["contributed"], json!(["deny"]));
    assert_eq!(deny["error"], "hook_blocked");
    let source = format!("{}:3:7", p.dir().join(".poolside/settings.yaml").display());
    assert_eq!(deny["source"], source);
    assert!(deny["duration_ms"].as_f64().unwrap() > 0.0);
    assert!(deny["time"].as_str().unwrap().ends_with('Z'));
    assert!(deny["event_id"].as_str().unwrap().starts_with("evt-"));
    assert_eq!(r[1]["status"], "ok");
    assert!(r[1].get("contributed").is_none());
    assert_eq!(r[2]["hook_event"], "Stop");
    let text = std::fs::read_to_string(log_file(&p, "s1")).unwrap();
    assert!(
        !text.contains(SECRET),
        "the log holds a payload or output: {text}"
    );
}

#[test]
fn full_mode_adds_what_the_hook_said_and_off_writes_nothing() {
    let p = project();
    p.fire_with(&shell("full", "sudo ls"), &["--audit", "full"]);
    let r = records(&p, "full");
    assert_eq!(r[0]["texts"], json!([format!("no sudo {SECRET}")]), "{r:?}");
    assert!(r[0]["message"].as_str().unwrap().contains(SECRET));
    p.fire_with(&shell("quiet", "sudo ls"), &["--audit", "off"]);
    assert!(!log_file(&p, "quiet").exists());
    let out = p.fire_raw(b"{}", &["--audit", "everything"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_event_without_a_session_leaves_no_log() {
    let p = project();
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(f.runs().len(), 1);
    let (code, out, _) = log(&p, &[]);
    assert_eq!(code, 0);
    assert!(out.starts_with("no session under"), "{out}");
}

#[test]
fn latch_log_prints_filters_and_lists() {
    let p = project();
    p.fire(&shell("s1", "sudo ls"));
    p.fire(&shell("s1", "ls"));
    p.fire(&json!({"event": "stop", "session_id": "s1"}));
    p.fire(&json!({"event": "stop", "session_id": "other/session"}));

    let (code, out, err) = log(&p, &["s1"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].contains("PreToolUse"), "{out}");
    assert!(lines[0].contains("guard"), "{out}");
    assert!(lines[0].contains("blocked"), "{out}");
    assert!(lines[0].contains("exit 2"), "{out}");
    assert!(lines[0].contains("deny"), "{out}");
    assert!(lines[0].contains(".poolside/settings.yaml:3:7"), "{out}");

    let (_, out, _) = log(&p, &["s1", "--status", "blocked"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let (_, out, _) = log(&p, &["s1", "--event", "Stop"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("bye"));
    let (_, out, _) = log(
        &p,
        &[
            "s1",
            "--event",
            "tool_before",
            "--hook",
            "guard",
            "--format",
            "json",
        ],
    );
    let parsed: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(parsed.len(), 2);
    assert!(parsed.iter().all(|r| r["hook"] == "guard"));

    let (code, out, _) = log(&p, &[]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.ends_with("  s1")), "{out}");
    assert!(out.lines().any(|l| l.ends_with("  other/session")), "{out}");
    let (code, _, err) = log(&p, &["nobody"]);
    assert_eq!(code, 2);
    assert!(err.contains("session `nobody` has no audit log"), "{err}");
}

#[test]
fn the_log_is_private_bounded_and_rotated() {
    let p = project();
    p.fire(&shell("big", "ls"));
    let file = log_file(&p, "big");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o077,
        0
    );
    // A log at its size limit moves aside whole; the next run starts a
    // new file, and `latch log` reads both, oldest first.
    let first = std::fs::read_to_string(&file).unwrap();
    let filler = format!("{}\n", first.trim_end()).repeat(4 * 1024 * 1024 / first.len() + 1);
    std::fs::write(&file, &filler).unwrap();
    p.fire(&shell("big", "sudo ls"));
    let previous = file.with_file_name("audit.1.jsonl");
    assert_eq!(std::fs::read_to_string(&previous).unwrap(), filler);
    let now = records(&p, "big");
    assert_eq!(now.len(), 1);
    assert_eq!(now[0]["status"], "blocked");
    let (_, out, _) = log(&p, &["big", "--status", "blocked"]);
    assert_eq!(out.lines().count(), 1);
    // Once more: the older file is replaced, never kept growing.
    std::fs::write(&file, &filler).unwrap();
    p.fire(&shell("big", "ls"));
    assert_eq!(std::fs::read_to_string(&previous).unwrap(), filler);
}

#[test]
fn a_planted_link_in_place_of_the_log_is_not_followed() {
    let p = project();
    p.fire(&shell("s1", "ls"));
    let target = p.dir().join("victim.txt");
    std::fs::write(&target, "untouched").unwrap();
    let file = log_file(&p, "s1");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&target, &file).unwrap();
    let f = p.fire(&shell("s1", "ls"));
    assert!(
        f.warnings_contain("latch could not write the audit log"),
        "{}",
        f.outcome
    );
    assert!(f.warnings_contain("symbolic link"), "{}", f.outcome);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
    assert_eq!(f.outcome["decision"], "proceed");
}

/// `latch fire` with the OTLP variables pointing at `stub`.
fn fire_traced(
    p: &Project,
    stub: &crate::claude_util::HttpStub,
    protocol: Option<&str>,
    event: &Value,
) -> crate::util::Fired {
    let mut cmd = latch();
    cmd.arg("fire")
        .arg("--project")
        .arg(p.dir())
        .arg("--home")
        .arg(p.home())
        .arg("--state-dir")
        .arg(p.state())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", stub.url(""))
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .write_stdin(event.to_string());
    if let Some(protocol) = protocol {
        cmd.env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol);
    }
    crate::util::Fired::from_output(&cmd.output().unwrap())
}

#[test]
fn each_dispatch_is_a_span_with_a_child_per_hook_run_over_otlp_http() {
    let stub = crate::claude_util::HttpStub::start(vec![("/v1/traces", 200, "{}")]);
    let p = project();
    let f = fire_traced(&p, &stub, Some("http/json"), &shell("traced", "sudo ls"));
    assert_eq!(f.outcome["decision"], "deny");
    let requests = stub.requests();
    assert_eq!(requests.len(), 1, "one export per fire");
    assert!(
        requests[0].line.starts_with("POST /v1/traces"),
        "{}",
        requests[0].line
    );
    let body: Value = serde_json::from_str(&requests[0].body).unwrap();
    let spans = body["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    let named = |name: &str| {
        spans
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {body}"))
    };
    let dispatch = named("latch dispatch tool_before");
    let hook = named("latch hook guard");
    assert_eq!(hook["parentSpanId"], dispatch["spanId"]);
    assert_eq!(hook["traceId"], dispatch["traceId"]);
    let attr = |span: &Value, key: &str| -> Value {
        span["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["key"] == key)
            .map(|a| a["value"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        attr(dispatch, "latch.decision"),
        json!({"stringValue": "deny"})
    );
    assert_eq!(
        attr(dispatch, "latch.session"),
        json!({"stringValue": "traced"})
    );
    assert_eq!(
        attr(hook, "latch.status"),
        json!({"stringValue": "blocked"})
    );
    assert_eq!(
        attr(hook, "latch.dialect"),
        json!({"stringValue": "poolside"})
    );
    assert_eq!(
        attr(hook, "latch.contributed"),
        json!({"stringValue": "deny"})
    );
    assert_eq!(attr(hook, "latch.exit_code"), json!({"intValue": "2"}));
    assert!(
        !requests[0].body.contains(SECRET),
        "a span holds a payload or output"
    );
    let service = &body["resourceSpans"][0]["resource"]["attributes"];
    assert!(service.to_string().contains("\"latch\""), "{service}");
}

#[test]
fn protobuf_is_the_default_protocol_and_no_endpoint_sends_nothing() {
    let stub = crate::claude_util::HttpStub::start(vec![("/v1/traces", 200, "")]);
    let p = project();
    fire_traced(&p, &stub, None, &shell("pb", "ls"));
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    let content_type = requests[0]
        .headers
        .iter()
        .find(|(k, _)| k == "content-type")
        .map(|(_, v)| v.as_str());
    assert_eq!(content_type, Some("application/x-protobuf"));
    // Protobuf keeps strings as they are: the attributes are there.
    assert!(requests[0].body.contains("latch.hook"));
    assert!(requests[0].body.contains("guard"));
    // Without the variables, nothing is exported (and nothing is built).
    let f = p.fire(&shell("pb", "ls"));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(stub.requests().len(), 1);
}
