//! JSON-RPC 2.0 messages, one per line (the framing of MCP's stdio
//! transport), read with a bound on each line.
//!
//! Hand-written rather than a JSON-RPC crate: `jsonrpsee` has no stdio
//! transport and treats malformed input and notifications differently
//! from what `latch serve` documents; the protocol here is a few message
//! shapes.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Standard and latch error codes (documented in `docs/serve.md`).
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a request or notification, or is too large.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params are wrong (the message names the field).
    pub const INVALID_PARAMS: i64 = -32602;
    /// latch failed internally.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A request other than `initialize` before `initialize`.
    pub const NOT_INITIALIZED: i64 = -32002;
    /// A request after `shutdown`.
    pub const SHUTTING_DOWN: i64 = -32003;
    /// Every code above: the schema's `Error` lists these.
    pub const ALL: [i64; 7] = [
        PARSE_ERROR,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        INVALID_PARAMS,
        INTERNAL_ERROR,
        NOT_INITIALIZED,
        SHUTTING_DOWN,
    ];
}

/// One incoming message. Its params stay JSON text: an event is parsed
/// once, straight into the event type, never into a generic tree (a
/// large event would cost many times its size).
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request: it gets exactly one response.
    Request {
        /// Its id (a number or a string), echoed in the response.
        id: RequestId,
        /// The method.
        method: String,
        /// The params (`null` when absent).
        params: &'a RawValue,
    },
    /// A notification: no response.
    Notification {
        /// The method.
        method: String,
        /// The params (`null` when absent).
        params: &'a RawValue,
    },
}

/// The envelope of a message; other members are ignored. Every member is
/// kept as written, so that a member of the wrong type is told apart from
/// a message that is not an object, and the `id` still answers.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a RawValue>,
    /// Present (even `null`) or absent: a notification has no `id`.
    #[serde(default, deserialize_with = "present")]
    id: Option<Box<RawValue>>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// A member's value as a string, if it is one (escapes decoded).
fn string_of(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    serde_json::from_str::<Cow<'_, str>>(raw?.get()).ok()
}

/// A member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// A request's id exactly as the client wrote it, echoed so in the
/// response: JSON-RPC asks for the same id, and a number read into a float
/// would come back changed (`1E2` as `100.0`, a 24-digit number as
/// `1e+23`). Requests in flight are told apart by this text.
#[derive(Debug, Clone)]
pub struct RequestId(Box<RawValue>);

impl RequestId {
    /// `null`, for a response to a message whose id is unknown.
    pub fn null() -> RequestId {
        RequestId(RawValue::NULL.to_owned())
    }

    /// The id's JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// What tells requests in flight apart (and a cancel finds): a
    /// string by its value, as every JSON reader decodes it (`"a"` and
    /// `"\u0061"` are one id); a number by its text (`1E2` and `100` are
    /// two).
    pub fn key(&self) -> String {
        key_of(self.0.get())
    }

    /// The id of a number or a string, `None` for anything else.
    fn checked(raw: Box<RawValue>) -> Option<RequestId> {
        matches!(
            raw.get().as_bytes().first(),
            Some(b'"' | b'-' | b'0'..=b'9')
        )
        .then_some(RequestId(raw))
    }
}

/// [`RequestId::key`] of any id's JSON text (a cancel's too).
pub fn key_of(text: &str) -> String {
    // Only a string decodes; a number would build a decoding error (an
    // allocation and a message) for nothing, on every request.
    if !text.starts_with('"') {
        return text.to_owned();
    }
    match serde_json::from_str::<String>(text) {
        Ok(decoded) => serde_json::to_string(&decoded).unwrap_or_else(|_| text.to_owned()),
        Err(_) => text.to_owned(),
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// Reads one message from a line, or the error response to send.
pub fn parse(line: &[u8]) -> Result<Incoming<'_>, String> {
    // serde_json checks the strings it reads, not those it skips: bytes
    // that are not UTF-8 in a member the envelope ignores would pass.
    if let Err(e) = std::str::from_utf8(line) {
        return Err(error(
            &RequestId::null(),
            code::PARSE_ERROR,
            &format!(
                "parse error: the line is not UTF-8 (at line 1 column {})",
                e.valid_up_to() + 1
            ),
        ));
    }
    // A derived struct also reads an array, member by member: only an
    // object is a message (a batch is not supported).
    let object = line.trim_ascii_start().first() == Some(&b'{');
    let value: Envelope<'_> = match serde_json::from_slice(line) {
        Ok(v) if object => v,
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Err(error(
                &RequestId::null(),
                code::PARSE_ERROR,
                &format!("parse error: {e}"),
            ));
        }
        // An object whose envelope cannot be read: a member given twice.
        Err(e) if object => {
            return Err(error(
                &RequestId::null(),
                code::INVALID_REQUEST,
                &format!("invalid message: {e}"),
            ));
        }
        Ok(_) | Err(_) => {
            return Err(error(
                &RequestId::null(),
                code::INVALID_REQUEST,
                "a message must be a JSON object",
            ));
        }
    };
    let id = value.id.map(RequestId::checked);
    let invalid = |id: &Option<Option<RequestId>>, why: &str| {
        let null = RequestId::null();
        error(
            id.as_ref().and_then(Option::as_ref).unwrap_or(&null),
            code::INVALID_REQUEST,
            why,
        )
    };
    if string_of(value.jsonrpc).as_deref() != Some("2.0") {
        return Err(invalid(&id, "`jsonrpc` must be \"2.0\""));
    }
    let method = match value.method.map(|raw| (raw, string_of(Some(raw)))) {
        Some((_, Some(method))) => method,
        // A string that does not decode (a lone surrogate, `"\ud800"`).
        Some((raw, None)) if raw.get().starts_with('"') => {
            let why = serde_json::from_str::<String>(raw.get())
                .err()
                .map_or_else(String::new, |e| format!(": {e}"));
            return Err(invalid(
                &id,
                &format!("`method` is not a valid string{why}"),
            ));
        }
        _ => return Err(invalid(&id, "`method` must be a string")),
    };
    let method = method.into_owned();
    let params = value.params.unwrap_or(RawValue::NULL);
    match id {
        None => Ok(Incoming::Notification { method, params }),
        Some(Some(id)) => Ok(Incoming::Request { id, method, params }),
        Some(None) => Err(invalid(&None, "`id` must be a number or a string")),
    }
}

/// A success response line. The result is written straight into the
/// line: going through a `Value` first cost a second serialization and a
/// tree of allocations per `fire`.
pub fn result(id: &RequestId, result: &impl Serialize) -> String {
    response(id, "result", result)
}

/// An error response line.
pub fn error(id: &RequestId, code: i64, message: &str) -> String {
    response(
        id,
        "error",
        &serde_json::json!({"code": code, "message": message}),
    )
}

/// A response line with `value` as its `member` (`null` if it cannot be
/// serialized): the id goes in as its text (`json!` would read it into a
/// number again), the value is written in place, in a buffer a typical
/// outcome fits (an answer is on every fire's path).
fn response(id: &RequestId, member: &str, value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.text().as_bytes());
    out.extend_from_slice(br#",""#);
    out.extend_from_slice(member.as_bytes());
    out.extend_from_slice(br#"":"#);
    let start = out.len();
    if serde_json::to_writer(&mut out, value).is_err() {
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
    out.push(b'}');
    // The id's text, the member's name and serde_json's output are UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A notification line from the server.
pub fn notification(method: &str, params: &impl Serialize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":{},"params":{}}}"#,
        json_text(&method),
        json_text(params)
    )
}

/// `value` as JSON text; `null` if it cannot be (a map whose keys are not
/// strings, which latch's types never hold).
fn json_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

/// One line read with a bound.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n`.
    Text(Vec<u8>),
    /// A line longer than the bound: skipped to its end, never buffered
    /// whole. Holds how many bytes it had and its first [`HEAD`] bytes.
    TooLong(u64, Vec<u8>),
}

/// How much of an over-long line is kept to find its id.
pub const HEAD: usize = 4096;

/// The `id` of a message from its first bytes: the envelope's own `id`
/// member, when it comes before `params` (an over-long message is never
/// parsed whole); `null` otherwise.
pub fn id_in(head: &[u8]) -> RequestId {
    let text = String::from_utf8_lossy(head);
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                // A string: find its end, skipping escapes.
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let Some(key) = text.get(start..j.min(bytes.len())) else {
                    return RequestId::null();
                };
                i = j + 1;
                // A member name of the envelope: followed by `:`.
                let rest = text.get(i..).unwrap_or("").trim_start();
                if depth == 1
                    && let Some(value) = rest.strip_prefix(':')
                {
                    match key {
                        "params" => return RequestId::null(),
                        "id" => {
                            let mut values = serde_json::Deserializer::from_str(value)
                                .into_iter::<Box<RawValue>>();
                            return match values.next() {
                                Some(Ok(raw)) => {
                                    RequestId::checked(raw).unwrap_or_else(RequestId::null)
                                }
                                _ => RequestId::null(),
                            };
                        }
                        _ => {}
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    RequestId::null()
}

/// Reads stdin line by line, keeping at most `max` bytes of each line.
///
/// Cancel-safe: a line read in part is kept in the reader, not in the
/// future of [`LineReader::next`], so the server's main loop can race
/// `next` against its other work in `select!` and lose nothing. Reading
/// there, instead of in a task of its own that hands lines over a
/// channel, saves a fire a hand-over between tasks.
pub struct LineReader<R> {
    reader: BufReader<R>,
    max: usize,
    /// The part of the current line read so far (its first [`HEAD`]
    /// bytes, once it is over `max`).
    kept: Vec<u8>,
    /// The current line's length so far.
    total: u64,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Lines of `reader`, each bounded by `max`.
    pub fn new(reader: BufReader<R>, max: usize) -> LineReader<R> {
        LineReader {
            reader,
            max,
            kept: Vec::new(),
            total: 0,
        }
    }

    /// The next line; `None` at the end of input. A last line without
    /// `\n` still counts.
    pub async fn next(&mut self) -> std::io::Result<Option<Line>> {
        let max = self.max as u64;
        loop {
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                return Ok((self.total > 0).then(|| self.take_line()));
            }
            let (part, done) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (&chunk[..at], Some(at + 1)),
                None => (chunk, None),
            };
            self.total += part.len() as u64;
            if self.total <= max {
                self.kept.extend_from_slice(part);
            } else {
                // Over the bound: keep only the head (for the id) and count
                // the rest.
                let room = HEAD.saturating_sub(self.kept.len());
                self.kept.truncate(HEAD);
                self.kept.extend_from_slice(&part[..part.len().min(room)]);
            }
            let used = done.unwrap_or(chunk.len());
            self.reader.consume(used);
            if done.is_some() {
                return Ok(Some(self.take_line()));
            }
        }
    }

    /// The line read so far, taken: the next read starts a new one.
    fn take_line(&mut self) -> Line {
        let kept = std::mem::take(&mut self.kept);
        match std::mem::take(&mut self.total) {
            n if n <= self.max as u64 => Line::Text(kept),
            n => Line::TooLong(n, kept),
        }
    }

    /// Whether a whole further line was read already: it is in this
    /// reader's buffer, where a wait on stdin's descriptor does not see it
    /// arrive. (The rest of a line read in part, or the end of input,
    /// does make that descriptor readable.)
    pub fn holds_a_line(&self) -> bool {
        memchr::memchr(b'\n', self.reader.buffer()).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_their_errors() {
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"fire","params":{}}"#),
            Ok(Incoming::Request { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"exit"}"#),
            Ok(Incoming::Notification { .. })
        ));
        let e = parse(b"nope").unwrap_err();
        assert!(e.contains("-32700"), "{e}");
        let e = parse(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).unwrap_err();
        assert!(e.contains("-32600"), "{e}");
        let e = parse(br#"{"jsonrpc":"2.0","id":null,"method":"fire"}"#).unwrap_err();
        assert!(e.contains("-32600"), "{e}");
        let e = parse(br#"{"id":3,"method":"x"}"#).unwrap_err();
        assert!(e.contains(r#""id":3"#), "{e}");
    }

    #[test]
    fn an_array_is_not_a_message_and_a_member_of_the_wrong_type_keeps_the_id() {
        for batch in [
            &br#"["2.0",7,"fire",{"event":"stop"}]"#[..],
            br#" ["2.0",8,"shutdown"]"#,
            b"[]",
        ] {
            let e = parse(batch).unwrap_err();
            assert!(
                e.contains("-32600") && e.contains("must be a JSON object"),
                "{e}"
            );
            assert!(e.contains(r#""id":null"#), "{e}");
        }
        let e = parse(br#"{"jsonrpc":2.0,"id":5,"method":"fire"}"#).unwrap_err();
        assert!(
            e.contains(r#""id":5"#) && e.contains("`jsonrpc` must be"),
            "{e}"
        );
        let e = parse(br#"{"jsonrpc":"2.0","id":5,"method":"fire\ud800"}"#).unwrap_err();
        assert!(
            e.contains(r#""id":5"#) && e.contains("`method` is not a valid string: "),
            "{e}"
        );
        let e = parse(br#"{"jsonrpc":"2.0","id":5,"method":7}"#).unwrap_err();
        assert!(
            e.contains(r#""id":5"#) && e.contains("`method` must be a string"),
            "{e}"
        );
        let e = parse(br#"{"jsonrpc":"2.0","id":5,"id":6,"method":"fire"}"#).unwrap_err();
        assert!(
            e.contains("-32600") && e.contains("duplicate field `id`"),
            "{e}"
        );
        assert!(matches!(
            parse(br#"{"jsonrpc":"2\u002e0","id":1,"method":"f\u0069re"}"#),
            Ok(Incoming::Request { method, .. }) if method == "fire"
        ));
    }

    #[test]
    fn ids_are_found_in_the_head_of_a_message() {
        let id = |head: &[u8]| id_in(head).text().to_owned();
        assert_eq!(
            id(br#"{"jsonrpc":"2.0","id": 42,"method":"fire","params":{"#),
            "42"
        );
        assert_eq!(id(br#"{"id":"a-1","params":"#), r#""a-1""#);
        assert_eq!(id(br#"{"params":{"x":"#), "null");
        assert_eq!(id(br#"{"id":"a\"b","params":{}}"#), r#""a\"b""#);
        assert_eq!(id(br#"{"id": 1.5, "params":{}}"#), "1.5");
        assert_eq!(
            id(br#"{"method":"fire","params":{"tool":{"input":{"id":2}}},"id":9}"#),
            "null"
        );
        assert_eq!(id("{\"id\":\"é".as_bytes()), "null");
        assert_eq!(id(br#"{"id":1e400,"params":{}}"#), "1e400");
    }

    #[test]
    fn ids_are_echoed_as_written() {
        for written in [
            "1E2",
            "99999999999999999999999",
            "-0",
            "18446744073709551616",
            // Out of a double's range, still a JSON number.
            "444444444444444e44444444444444",
            r#""x""#,
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{written},"method":"m"}}"#);
            let Ok(Incoming::Request { id, .. }) = parse(line.as_bytes()) else {
                panic!("{line}")
            };
            let response = result(&id, &1);
            assert_eq!(
                response,
                format!(r#"{{"jsonrpc":"2.0","id":{written},"result":1}}"#)
            );
        }
    }

    #[test]
    fn long_lines_are_skipped_not_kept() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let input = format!("short\n{}\nlast", "x".repeat(100));
        let mut reader = LineReader::new(BufReader::with_capacity(8, input.as_bytes()), 10);
        runtime.block_on(async {
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::Text(b"short".to_vec()))
            );
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::TooLong(100, b"x".repeat(100)))
            );
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::Text(b"last".to_vec()))
            );
            assert_eq!(reader.next().await.unwrap(), None);
        });
    }

    #[test]
    fn a_line_read_in_part_survives_a_cancelled_read() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            use tokio::io::AsyncWriteExt;
            let (mut harness, server) = tokio::io::duplex(64);
            let mut reader = LineReader::new(BufReader::new(server), 100);
            harness.write_all(b"{\"id\":").await.unwrap();
            // The rest has not come: the read is dropped half way.
            let waited =
                tokio::time::timeout(std::time::Duration::from_millis(20), reader.next()).await;
            assert!(waited.is_err());
            assert!(!reader.holds_a_line());
            harness.write_all(b"1}\n{\"id\":2}\n{\"id\"").await.unwrap();
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::Text(br#"{"id":1}"#.to_vec()))
            );
            assert!(reader.holds_a_line());
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::Text(br#"{"id":2}"#.to_vec()))
            );
            // Only the start of the third.
            assert!(!reader.holds_a_line());
            harness.write_all(b":3}").await.unwrap();
            drop(harness);
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::Text(br#"{"id":3}"#.to_vec()))
            );
            assert_eq!(reader.next().await.unwrap(), None);
        });
    }

    #[test]
    fn a_last_line_without_its_newline_keeps_the_bound() {
        // Shorter than the head kept of a long line: once read whole as a
        // line (found by tests/it/serve_props.rs).
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut reader = LineReader::new(BufReader::with_capacity(4, &b"0123456789ab"[..]), 10);
        runtime.block_on(async {
            assert_eq!(
                reader.next().await.unwrap(),
                Some(Line::TooLong(12, b"0123456789ab".to_vec()))
            );
            assert_eq!(reader.next().await.unwrap(), None);
        });
    }
}
