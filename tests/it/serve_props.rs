//! Property tests for what `latch serve` reads from a harness: the line
//! framing and the JSON-RPC envelope. Both take untrusted bytes.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::Value;
use serde_json::value::RawValue;

use latch::cli::serve::rpc::{self, HEAD, Incoming, Line};

/// The lines [`rpc::LineReader`] must find in `bytes`, from a plain split
/// at `\n`: a last line without `\n` counts unless it is empty, and a
/// line over `max` bytes is its length and its first [`HEAD`] bytes.
fn expected_lines(bytes: &[u8], max: usize) -> Vec<Line> {
    let mut parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if parts.last().is_some_and(|last| last.is_empty()) {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|line| {
            if line.len() <= max {
                Line::Text(line.to_vec())
            } else {
                Line::TooLong(line.len() as u64, line[..line.len().min(HEAD)].to_vec())
            }
        })
        .collect()
}

/// Every line of `bytes`, read with [`rpc::LineReader`] through a buffer
/// of `capacity` bytes (so each read sees at most that much).
fn read_all(bytes: &[u8], capacity: usize, max: usize) -> Vec<Line> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let mut reader =
        rpc::LineReader::new(tokio::io::BufReader::with_capacity(capacity, bytes), max);
    runtime.block_on(async {
        let mut lines = Vec::new();
        while let Some(line) = reader.next().await.expect("a read") {
            lines.push(line);
        }
        lines
    })
}

/// Every line of `bytes`, written in pieces of `piece` bytes through an
/// in-memory pipe while the reader is raced against a yield, as the
/// server's main loop races it against its other work: most reads are
/// dropped half way, and nothing may be lost for it.
fn read_all_cancelled(bytes: &[u8], piece: usize, max: usize) -> Vec<Line> {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (mut harness, server) = tokio::io::duplex(piece.max(1));
        let input = bytes.to_vec();
        let writer = tokio::spawn(async move {
            for part in input.chunks(piece.max(1)) {
                harness.write_all(part).await.expect("a write");
                tokio::task::yield_now().await;
            }
        });
        let mut reader = rpc::LineReader::new(tokio::io::BufReader::with_capacity(64, server), max);
        let mut lines = Vec::new();
        loop {
            tokio::select! {
                biased;
                line = reader.next() => match line.expect("a read") {
                    Some(line) => lines.push(line),
                    None => break,
                },
                () = tokio::task::yield_now() => {}
            }
        }
        writer.await.expect("the writer");
        lines
    })
}

/// Input made of a few runs of one byte, some ended by `\n`: lines from
/// empty to past [`HEAD`], so that the bound and the head both matter.
fn runs() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((0usize..6000, any::<u8>(), any::<bool>()), 0..6).prop_map(|runs| {
        let mut bytes = Vec::new();
        for (len, byte, newline) in runs {
            bytes.extend(std::iter::repeat_n(byte, len));
            if newline {
                bytes.push(b'\n');
            }
        }
        bytes
    })
}

/// The bound on a line: small, around [`HEAD`], or large.
fn bound() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..64, (HEAD - 2)..(HEAD + 3), Just(1 << 20)]
}

/// A JSON value of a few shapes, as text.
fn json_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just(r#"{"event":"stop","session_id":"s"}"#.to_owned()),
        Just(r#"[1,"two",{"3":[4]}]"#.to_owned()),
        (-1_000_000i64..1_000_000).prop_map(|n| n.to_string()),
        "[a-z\u{e9}\u{1F600} ]{0,8}".prop_map(|s| Value::from(s).to_string()),
    ]
}

/// A request id as a harness may write it: numbers in any JSON spelling,
/// strings with escapes.
fn id_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..u64::MAX).prop_map(|n| n.to_string()),
        (-1000i64..0).prop_map(|n| n.to_string()),
        Just("1E2".to_owned()),
        Just("-0".to_owned()),
        Just("99999999999999999999999".to_owned()),
        // Past a double's range: still a JSON number, echoed as written.
        Just("1e400".to_owned()),
        Just("1.5".to_owned()),
        "[a-z0-9-]{0,8}".prop_map(|s| format!("\"{s}\"")),
        Just(r#""a\"b""#.to_owned()),
        Just(r#""\u0061""#.to_owned()),
    ]
}

/// A member of an envelope, well-typed or not.
fn member() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#""jsonrpc":"2.0""#.to_owned()),
        Just(r#""jsonrpc":2.0"#.to_owned()),
        Just(r#""jsonrpc":"1.0""#.to_owned()),
        id_text().prop_map(|id| format!(r#""id":{id}"#)),
        Just(r#""id":null"#.to_owned()),
        Just(r#""id":{}"#.to_owned()),
        Just(r#""id":[1]"#.to_owned()),
        "[a-z/$]{0,10}".prop_map(|m| format!(r#""method":"{m}""#)),
        Just(r#""method":7"#.to_owned()),
        Just(r#""method":"fire\ud800""#.to_owned()),
        json_text().prop_map(|p| format!(r#""params":{p}"#)),
        Just(r#""other":true"#.to_owned()),
    ]
}

/// A line a harness might send: an envelope of any members, or bytes.
fn message() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(member(), 0..6)
            .prop_map(|members| format!("{{{}}}", members.join(",")).into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => "\\PC{0,120}".prop_map(String::into_bytes),
    ]
}

/// A response's members, each as JSON text: ids are compared as text, as
/// JSON's grammar gives numbers no range (`1e400` is one).
fn members(response: &str) -> HashMap<String, Box<RawValue>> {
    serde_json::from_str(response).expect("a response is a JSON object")
}

/// Whether `text` is what a response's id may be: JSON `null`, a number
/// or a string.
fn is_response_id(text: &str) -> bool {
    serde_json::from_str::<Box<RawValue>>(text).is_ok()
        && matches!(
            text.as_bytes().first(),
            Some(b'n' | b'"' | b'-' | b'0'..=b'9')
        )
}

proptest! {
    /// However the input arrives, each line comes out whole when it fits
    /// the bound, and otherwise as its length and head, never buffered.
    #[test]
    fn lines_come_out_whole_or_counted_whatever_the_reads(
        bytes in runs(),
        capacity in prop_oneof![1usize..16, 4000usize..9000],
        max in bound(),
    ) {
        prop_assert_eq!(read_all(&bytes, capacity, max), expected_lines(&bytes, max));
    }

    /// A read dropped half way (the main loop's `select!` took another
    /// branch) loses nothing: the next read goes on where it stopped.
    #[test]
    fn lines_come_out_whole_when_reads_are_dropped_half_way(
        bytes in runs(),
        piece in 1usize..700,
        max in bound(),
    ) {
        prop_assert_eq!(read_all_cancelled(&bytes, piece, max), expected_lines(&bytes, max));
    }

    /// Any line is a request, a notification or an error response: a JSON
    /// object with `"jsonrpc": "2.0"`, an id, and an error with a
    /// documented code and a message. A request's id is echoed as written.
    #[test]
    fn any_line_is_a_message_or_answered_with_an_error(line in message()) {
        match rpc::parse(&line) {
            Err(response) => {
                let m = members(&response);
                prop_assert_eq!(m["jsonrpc"].get(), r#""2.0""#);
                prop_assert!(is_response_id(m["id"].get()), "{}", response);
                prop_assert!(!m.contains_key("result"), "{}", response);
                let v: Value = serde_json::from_str(m["error"].get()).expect("an error object");
                let code = v["code"].as_i64().expect("a code");
                prop_assert!(
                    [rpc::code::PARSE_ERROR, rpc::code::INVALID_REQUEST].contains(&code),
                    "{}",
                    response
                );
                prop_assert!(v["message"].is_string(), "{}", response);
            }
            Ok(Incoming::Request { id, params, .. }) => {
                let answer = rpc::result(&id, &1);
                let echoed = members(&answer);
                prop_assert_eq!(echoed["id"].get(), id.text());
                prop_assert!(is_response_id(id.text()) && !id.text().starts_with('n'), "{}", answer);
                let _ = rpc::key_of(id.text());
                prop_assert!(serde_json::from_str::<Box<RawValue>>(params.get()).is_ok());
            }
            Ok(Incoming::Notification { params, .. }) => {
                prop_assert!(serde_json::from_str::<Box<RawValue>>(params.get()).is_ok());
            }
        }
    }

    /// A well-formed request is read as written: its method, its params'
    /// text and its id's text, whatever the order of the members.
    #[test]
    fn well_formed_requests_are_read_as_written(
        id in id_text(),
        method in "[a-z/$]{1,12}",
        params in json_text(),
        reversed in any::<bool>(),
    ) {
        let mut members = [
            r#""jsonrpc":"2.0""#.to_owned(),
            format!(r#""id":{id}"#),
            format!(r#""method":"{method}""#),
            format!(r#""params":{params}"#),
        ];
        if reversed {
            members.reverse();
        }
        let line = format!("{{{}}}", members.join(","));
        match rpc::parse(line.as_bytes()) {
            Ok(Incoming::Request { id: read, method: m, params: p }) => {
                prop_assert_eq!(read.text(), id.as_str());
                prop_assert_eq!(m, method);
                prop_assert_eq!(p.get(), params.as_str());
            }
            other => prop_assert!(false, "{line}: {other:?}"),
        }
    }

    /// The id found in the head of an over-long line is always one a
    /// response may carry, whatever the bytes.
    #[test]
    fn the_id_in_any_head_is_null_a_number_or_a_string(head in message()) {
        let id = rpc::id_in(&head);
        prop_assert!(is_response_id(id.text()), "{}", id.text());
    }
}
