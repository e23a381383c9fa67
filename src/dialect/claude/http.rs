//! `http` handlers: the payload POSTed to a URL, the reply read like a
//! command's stdout (recorded: `r2_http_pre_deny`, `r2_http_errors`,
//! `r2_http_500_deny_body`).
//!
//! - The body is the payload (without the newline a command gets);
//!   `content-type: application/json` and
//!   `accept: application/json, text/plain, */*` are sent with the
//!   configured headers.
//! - In a header value `$VAR` and `${VAR}` (upper-case names) expand
//!   only for variables named in `allowedEnvVars`; any other variable
//!   becomes the empty string, with a warning; CR, LF and NUL are removed.
//! - A 2xx reply with an empty body is a success that says nothing; a 2xx
//!   JSON object is read like a command's JSON; anything else (another
//!   status, a body that is not JSON, a refused connection, a timeout) is a
//!   non-blocking error. A status never blocks.

use std::time::{Duration, Instant};

use crate::outcome::ErrorCategory;
use crate::run::Cancel;

use super::judge::Verdict;

/// The most of a reply latch reads.
const MAX_REPLY: u64 = 1 << 20;

/// Headers with their variables expanded, and a warning per variable that
/// was not allowed.
pub fn expand_headers(
    headers: &[(String, String)],
    allowed: &[String],
    env: impl Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut warnings = Vec::new();
    let expanded = headers
        .iter()
        .map(|(k, v)| (k.clone(), expand(v, allowed, &env, &mut warnings)))
        .collect();
    (expanded, warnings)
}

/// One header value with its variables expanded, as Claude Code 2.1.197
/// does it (read from its code): `${NAME}` or `$NAME` where `NAME` is
/// `[A-Z_][A-Z0-9_]*` (upper case only: `$lower` and `$1` stay as
/// written); then every CR, LF and NUL is removed from the value, so a
/// variable cannot add a header.
fn expand(
    value: &str,
    allowed: &[String],
    env: &impl Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) if name_length(&inner[..end]) == end && end > 0 => {
                    (&inner[..end], end + 2)
                }
                _ => ("", 0),
            },
            None => {
                let end = name_length(after);
                (&after[..end], end)
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            out.push_str(&env(name).unwrap_or_default());
        } else {
            warnings.push(format!(
                "env var ${name} not in allowedEnvVars, skipping interpolation"
            ));
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out.retain(|c| !matches!(c, '\r' | '\n' | '\0'));
    out
}

/// The length of the variable name `s` starts with: `[A-Z_][A-Z0-9_]*`
/// (0: none).
fn name_length(s: &str) -> usize {
    let bytes = s.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_uppercase() || *b == b'_' => bytes
            .iter()
            .position(|b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_'))
            .unwrap_or(bytes.len()),
        _ => 0,
    }
}

/// What one HTTP handler call gave.
pub struct Called {
    /// The reply, read.
    pub verdict: Verdict,
    /// The HTTP status, when there was a reply.
    pub status: Option<u16>,
    /// How long the call took.
    pub took: Duration,
}

/// POSTs `body` to `url` and reads the reply; cancelled by `cancel`.
pub async fn call(
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    timeout: Duration,
    cancel: &Cancel,
) -> Called {
    let started = Instant::now();
    let shown = url.clone();
    let request = tokio::task::spawn_blocking(move || post(&url, &headers, &body, timeout));
    let outcome = tokio::select! {
        r = tokio::time::timeout(timeout + Duration::from_millis(200), request) => match r {
            Err(_) => Err(Verdict::timed_out(timeout.as_secs_f64())),
            Ok(Err(e)) => Err(Verdict::NonBlocking(format!("the request thread failed: {e}"))),
            Ok(Ok(reply)) => reply,
        },
        _ = cancel.cancelled() => Err(Verdict::cancelled()),
    };
    let took = started.elapsed();
    match outcome {
        Err(verdict) => Called {
            verdict,
            status: None,
            took,
        },
        Ok((status, text)) => Called {
            verdict: read_reply(status, &text, &shown),
            status: Some(status),
            took,
        },
    }
}

/// A reply as a verdict.
pub fn read_reply(status: u16, text: &str, url: &str) -> Verdict {
    if !(200..300).contains(&status) {
        return Verdict::NonBlocking(format!("HTTP {status} from {url}"));
    }
    let body = super::text::js_trim(text);
    if body.is_empty() {
        return Verdict::Plain(String::new());
    }
    super::judge::read_object(body, super::judge::Channel::Http).unwrap_or_else(|| {
        Verdict::NonBlocking(format!(
            "HTTP hook must return JSON, but got non-JSON response body: {}",
            crate::text::summary(body, 200)
        ))
    })
}

fn post(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    timeout: Duration,
) -> Result<(u16, String), Verdict> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent
        .post(url)
        .header("accept", "application/json, text/plain, */*")
        .header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let mut resp = req.send(body).map_err(|e| transport_error(&e, url))?;
    let status = resp.status().as_u16();
    let text = resp
        .body_mut()
        .with_config()
        .limit(MAX_REPLY)
        .read_to_string()
        .map_err(|e| {
            let message = format!("reading the reply from {url} failed: {e}");
            match e {
                ureq::Error::Timeout(_) => Verdict::Stopped(ErrorCategory::Timeout, message),
                _ => Verdict::NonBlocking(message),
            }
        })?;
    Ok((status, text))
}

/// Transport errors in Claude Code's words where it has them.
fn transport_error(e: &ureq::Error, url: &str) -> Verdict {
    // ureq's own timeout (the whole request, as `timeout_global`).
    if let ureq::Error::Timeout(_) = e {
        return Verdict::Stopped(
            ErrorCategory::Timeout,
            "Hook timed out and was cancelled".to_owned(),
        );
    }
    Verdict::NonBlocking(match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            let host = url
                .split_once("://")
                .map_or(url, |(_, r)| r)
                .split(['/', '?'])
                .next()
                .unwrap_or("");
            format!("connect ECONNREFUSED {host}")
        }
        other => format!("request to {url} failed: {other}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_expand_only_allowed_variables() {
        // Recorded: `r2_http_pre_deny`.
        let env = |k: &str| match k {
            "HOOK_TOKEN" => Some("tok123".to_owned()),
            "HOOK_LINES" => Some("a\r\nX-Evil: 1\0".to_owned()),
            _ => None,
        };
        let headers = vec![
            ("X-Literal".to_owned(), "literal-value".to_owned()),
            ("Authorization".to_owned(), "Bearer $HOOK_TOKEN".to_owned()),
            ("X-Braced".to_owned(), "${HOOK_TOKEN}".to_owned()),
            ("X-Not-Allowed".to_owned(), "$SECRET_VAR".to_owned()),
            ("X-Price".to_owned(), "$5 and $".to_owned()),
            // Lower-case names are not variables; neither is `${}`.
            ("X-Lower".to_owned(), "a$lower-${lower}-${}".to_owned()),
            // A name ends at the first character that cannot be in one.
            ("X-Tail".to_owned(), "$HOOK_TOKENabc".to_owned()),
            // A value cannot break into a second header.
            ("X-Split".to_owned(), "${HOOK_LINES}".to_owned()),
        ];
        let allowed = ["HOOK_TOKEN".to_owned(), "HOOK_LINES".to_owned()];
        let (got, warnings) = expand_headers(&headers, &allowed, env);
        let values: Vec<&str> = got.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            [
                "literal-value",
                "Bearer tok123",
                "tok123",
                "",
                "$5 and $",
                "a$lower-${lower}-${}",
                "tok123abc",
                "aX-Evil: 1"
            ]
        );
        assert_eq!(
            warnings,
            ["env var $SECRET_VAR not in allowedEnvVars, skipping interpolation"]
        );
    }

    #[test]
    fn replies_read_like_claude_code() {
        assert_eq!(read_reply(200, "  ", "u"), Verdict::Plain(String::new()));
        assert_eq!(
            read_reply(404, "{}", "http://h/x"),
            Verdict::NonBlocking("HTTP 404 from http://h/x".into())
        );
        assert!(
            matches!(read_reply(200, "ok", "u"), Verdict::NonBlocking(m) if m == "HTTP hook must return JSON, but got non-JSON response body: ok")
        );
        assert!(matches!(
            read_reply(500, r#"{"decision":"block"}"#, "u"),
            Verdict::NonBlocking(_)
        ));
        assert!(matches!(
            read_reply(200, r#"{"decision":"block","reason":"r"}"#, "u"),
            Verdict::Json(_)
        ));
        // An answer that fails the schema: Claude Code's message ends with
        // the answer, without the schema a command hook's shows (its `nuo`).
        assert_eq!(
            read_reply(200, r#"{"continue":null}"#, "u"),
            Verdict::NonBlocking(
                "Hook JSON output validation failed \u{2014} continue: expected boolean, received null\n\nThe hook's output was: {\n  \"continue\": null\n}".into()
            )
        );
    }
}
