//! The prompt handler against a small OpenAI-compatible server on 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::evener_util::{Plugins, pre};

/// What the server saw: the request line and headers, and the JSON body.
struct Seen {
    head: String,
    body: Value,
}

/// Serves `replies` (status, body) to successive requests, after `delay`.
fn server(replies: Vec<(u16, String)>, delay: Duration) -> (String, mpsc::Receiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (status, reply) in replies {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut len = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            let _ = tx.send(Seen {
                head,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            });
            std::thread::sleep(delay);
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (url, rx)
}

fn chat_reply(content: &str) -> String {
    json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string()
}

fn prompt_plugin(timeout: u64) -> Plugins {
    Plugins::new().plugin(
        "judge",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt",
            "prompt": "Tool $TOOL_NAME with $TOOL_INPUT; prompt=$USER_PROMPT; result=$TOOL_RESULT.",
            "model": "openai/gpt-5.4-mini", "timeout": timeout}]}]}})
        .to_string(),
    )
}

#[test]
fn the_reply_is_parsed_like_a_command_output() {
    let deny = r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"too risky"}}"#;
    let (url, seen) = server(vec![(200, chat_reply(deny))], Duration::ZERO);
    let p = prompt_plugin(10);
    let f = p.fire_with(
        &pre("shell", json!({"command": "rm -rf /"})),
        &["--prompt-base-url", &url],
        &[("LATCH_PROMPT_API_KEY", "test-key")],
    );
    assert_eq!(f.outcome["decision"], "deny", "{}", f.stderr);
    assert_eq!(f.reasons(), ["too risky"]);
    let req = seen.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(
        req.head.starts_with("POST /v1/chat/completions "),
        "{}",
        req.head
    );
    assert!(
        req.head
            .to_ascii_lowercase()
            .contains("authorization: bearer test-key")
    );
    assert_eq!(req.body["model"], "gpt-5.4-mini");
    assert_eq!(
        req.body["messages"],
        json!([{"role": "user", "content": "Tool Bash with {\"command\":\"rm -rf /\"}; prompt=; result=."}])
    );
}

#[test]
fn plain_text_and_empty_replies() {
    let (url, _seen) = server(
        vec![(200, chat_reply("")), (200, chat_reply("looks fine"))],
        Duration::ZERO,
    );
    let p = prompt_plugin(10);
    let f = p.fire_with(&pre("shell", json!({})), &["--prompt-base-url", &url], &[]);
    assert_eq!(f.runs()[0]["status"], "ok");
    let f = p.fire_with(&pre("shell", json!({})), &["--prompt-base-url", &url], &[]);
    assert_eq!(f.warnings(), ["PreToolUse hook judge: looks fine"]);
}

#[test]
fn an_http_error_is_a_non_blocking_prompt_error() {
    let (url, _seen) = server(
        vec![(500, "{\"error\":\"boom\"}".to_owned())],
        Duration::ZERO,
    );
    let f =
        prompt_plugin(10).fire_with(&pre("shell", json!({})), &["--prompt-base-url", &url], &[]);
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.runs()[0]["error"], "prompt_error");
    assert!(
        f.warnings()[0].contains("the endpoint answered 500"),
        "{:?}",
        f.warnings()
    );
}

#[test]
fn a_slow_endpoint_times_out() {
    let (url, _seen) = server(vec![(200, chat_reply("{}"))], Duration::from_secs(5));
    let started = std::time::Instant::now();
    let f = prompt_plugin(1).fire_with(&pre("shell", json!({})), &["--prompt-base-url", &url], &[]);
    assert!(started.elapsed() < Duration::from_secs(4));
    // The category every run past its timeout has, not `prompt_error`.
    assert_eq!(f.runs()[0]["error"], "timeout", "{:?}", f.runs());
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(
        f.warnings().iter().any(|w| w.contains("timed out")),
        "{:?}",
        f.warnings()
    );
}

/// SIGTERM while the model is being asked cancels the call: the run is
/// `cancelled`, as a command's would be, and `latch fire` still answers.
#[test]
fn sigterm_cancels_a_prompt_call() {
    let (url, seen) = server(vec![(200, chat_reply("{}"))], Duration::from_secs(30));
    let p = prompt_plugin(60);
    let child = p.spawn_fire(&pre("shell", json!({})), &["--prompt-base-url", &url]);
    // The request has reached the endpoint: the call is in flight.
    seen.recv_timeout(Duration::from_secs(10)).unwrap();
    let started = std::time::Instant::now();
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(0));
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["decision"], "proceed", "{outcome}");
    assert_eq!(outcome["runs"][0]["error"], "cancelled", "{outcome}");
}

#[test]
fn no_endpoint_configured_is_a_prompt_error() {
    let f = prompt_plugin(10).fire_with(
        &pre("shell", json!({})),
        &[],
        &[("LATCH_PROMPT_BASE_URL", ""), ("OPENAI_BASE_URL", "")],
    );
    assert_eq!(f.runs()[0]["error"], "prompt_error");
    assert!(f.warnings()[0].contains("no model endpoint configured"));
}

fn prompt_on_user_prompt() -> Plugins {
    Plugins::new().plugin(
        "judge",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "prompt",
            "prompt": "Say something about $USER_PROMPT", "timeout": 20}]}]}})
        .to_string(),
    )
}

fn user_prompt() -> Value {
    json!({"event": "user_prompt", "session_id": "s", "prompt": "hi"})
}

#[test]
fn an_8_mb_reply_is_not_read_whole_nor_injected() {
    let huge = "a".repeat(8 * 1000 * 1000);
    let (url, _seen) = server(vec![(200, chat_reply(&huge))], Duration::ZERO);
    let f = prompt_on_user_prompt().fire_with(
        &user_prompt(),
        &["--prompt-base-url", &url],
        &[("LATCH_PROMPT_MODEL", "m")],
    );
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.stderr);
    assert_eq!(f.runs()[0]["error"], "prompt_error", "{:?}", f.runs());
    assert!(f.context_texts().is_empty(), "the reply was injected");
    assert!(
        f.warnings()
            .iter()
            .any(|w| w.contains("the reply is larger than 4 MiB; latch read no further")),
        "{:?}",
        f.warnings()
    );
}

#[test]
fn a_reply_text_over_1_mib_is_cut_to_1_mib() {
    let long = "é".repeat(1024 * 1024);
    let (url, _seen) = server(vec![(200, chat_reply(&long))], Duration::ZERO);
    let f = prompt_on_user_prompt().fire_with(
        &user_prompt(),
        &["--prompt-base-url", &url],
        &[("LATCH_PROMPT_MODEL", "m")],
    );
    let texts = f.context_texts();
    assert_eq!(texts.len(), 1, "{}", f.stderr);
    let wrapper = "<SYSTEM-REMINDER>\n\n</SYSTEM-REMINDER>".len();
    assert_eq!(texts[0].len(), 1024 * 1024 + wrapper);
    assert_eq!(f.runs()[0]["stdout_truncated"], true);
    assert!(
        f.warnings().contains(
            &"UserPromptSubmit hook judge replied with more than 1 MiB; latch kept the first 1 MiB"
                .to_owned()
        ),
        "{:?}",
        f.warnings()
    );
}
