//! One handler's run, read by Claude Code's rules.
//!
//! - Exit 2 is a blocking error whatever stdout holds (recorded: `o3`); its
//!   message is stderr, or `No stderr output` (`r2_pre_exit2_empty_stderr`).
//!   A valid JSON answer counts beside it; an invalid one is ignored
//!   (Claude Code 2.1.332).
//! - Exit 0: stdout whose first non-blank character is `{` is read as JSON
//!   (as `JSON.parse` reads it: deep nesting and lone surrogates are
//!   JSON, see [`output_json`]); if it does not parse, it is plain text
//!   (but for a `{…}` that does not parse: `broken_json`, 2.1.332),
//!   without an error (`m`).
//! - Any other exit is a non-blocking error, unless stdout holds a valid
//!   JSON object, which then decides alone.
//! - A timeout, a failed start or a cancelled run is a non-blocking error:
//!   no decision, the event goes on (`k`).
//! - JSON whose fields have the wrong types is a non-blocking error too,
//!   in Claude Code's words: the first wrong field, the answer, the schema
//!   (see [`answer_schema`](super::answer_schema)), and, after an exit
//!   other than 0, the hook's stderr.
//! - A first stdout line `{"async":true}` turns the run into an `async`
//!   one, whatever follows (`r2_async_first_line`).

use std::time::Duration;

use serde_json::{Map, Value};

use super::answer_schema::check;
use super::text::{js_trim, js_trim_start};
use crate::dialect::output_json::{self, Parsed};
use crate::outcome::ErrorCategory;
use crate::run::{Exit, FirstLine, RunResult, SpawnFailure, Termination};

/// What one run said.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Exit 2 without a JSON answer: the message (stderr as written, or
    /// `No stderr output`).
    Blocking(String),
    /// A JSON answer.
    Json(Box<HookJson>),
    /// Plain stdout on exit 0, trimmed (possibly empty).
    Plain(String),
    /// A failure that decides nothing; the message is for the user.
    NonBlocking(String),
    /// Like [`Verdict::NonBlocking`], for a hook that latch stopped: it ran
    /// out of time ([`ErrorCategory::Timeout`]) or the dispatch was
    /// cancelled ([`ErrorCategory::Cancelled`]). The category is the run
    /// record's, never guessed from the message (a hook may print "timed
    /// out" itself).
    Stopped(ErrorCategory, String),
    /// An exit 2 that Claude Code takes for a missing script (an empty
    /// stdout, `no such file` or `can't open` in stderr, on the events
    /// that allow it): a non-blocking error, with the stderr (trimmed) and
    /// the plugin's name its text quotes.
    MissingScript {
        /// stderr, trimmed.
        stderr: String,
        /// The plugin's name, for a plugin's hook.
        plugin: Option<String>,
    },
    /// The first stdout line was `{"async":true}`: the hook went to the
    /// background, and what it printed after that line is an `async`
    /// hook's answer.
    Async(String),
}

impl Verdict {
    /// The verdict of a hook stopped at its timeout, in Claude Code's words.
    pub fn timed_out(timeout_secs: f64) -> Verdict {
        Verdict::Stopped(
            ErrorCategory::Timeout,
            format!("Hook timed out after {timeout_secs}s and was cancelled"),
        )
    }

    /// The verdict of a hook stopped because the dispatch was cancelled.
    pub fn cancelled() -> Verdict {
        Verdict::Stopped(ErrorCategory::Cancelled, "Hook was cancelled".to_owned())
    }
}

/// The fields of a JSON answer latch reads. Unknown fields are ignored, as
/// Claude Code ignores them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookJson {
    /// `continue` (default true): false ends the agent loop.
    pub continue_: Option<bool>,
    /// `stopReason`, shown to the user with `continue: false`.
    pub stop_reason: Option<String>,
    /// `systemMessage`, shown to the user.
    pub system_message: Option<String>,
    /// `terminalSequence`, for the user's terminal (see
    /// [`terminal`](super::terminal)).
    pub terminal_sequence: Option<String>,
    /// Top-level `decision`: `block` (or, on PreToolUse, the legacy
    /// `approve`/`block`).
    pub decision: Option<String>,
    /// Top-level `reason`.
    pub reason: Option<String>,
    /// `hookSpecificOutput`.
    pub specific: Map<String, Value>,
    /// Fields left out because they nest too deep to read (see
    /// [`output_json`]), as dotted paths.
    pub too_deep: Vec<String>,
    /// The hook also exited 2: the block its stderr makes (as
    /// [`Verdict::Blocking`] holds it), which counts where the answer
    /// gives no block of its own (recorded: `r8_exit2_json_*`).
    pub exit2: Option<String>,
}

impl HookJson {
    /// Whether the answer blocks by itself: a PreToolUse deny, or a
    /// `decision: "block"` (Claude Code's own blocking error).
    pub fn blocks(&self, event: &str) -> bool {
        let deny = event == "PreToolUse"
            && match self.specific_str("permissionDecision") {
                Some(d) => d == "deny",
                None => self.decision.as_deref() == Some("block"),
            };
        deny || (event != "PreToolUse" && self.decision.as_deref() == Some("block"))
    }
}

impl HookJson {
    /// A string field of `hookSpecificOutput`.
    pub fn specific_str(&self, key: &str) -> Option<&str> {
        self.specific.get(key).and_then(Value::as_str)
    }

    /// A permission decision's reason as Claude Code picks it,
    /// `permissionDecisionReason || reason`: an empty one counts as none.
    pub fn decision_reason(&self) -> Option<&str> {
        let non_empty = |r: &&str| !r.is_empty();
        self.specific_str("permissionDecisionReason")
            .filter(non_empty)
            .or(self.reason.as_deref().filter(non_empty))
    }
}

/// How Claude Code's message of a non-blocking error starts.
pub const NON_BLOCKING_LEAD: &str = "Failed with non-blocking status code: ";

/// A non-blocking error's message without [`NON_BLOCKING_LEAD`], trimmed:
/// what Claude Code quotes of it elsewhere (`LA(o.trim(), uXe)`).
pub fn without_lead(message: &str) -> &str {
    let text = js_trim(message);
    text.strip_prefix(NON_BLOCKING_LEAD).unwrap_or(text)
}

/// Stdout kept of a command hook: enough for any JSON answer a hook
/// means to give (texts over 10,000 characters reach the model as a
/// preview of a saved file anyway).
pub const MAX_STDOUT: usize = 8 << 20;

/// Reads one finished run of `program` (named in the text of a failed
/// start).
pub fn judge(result: &RunResult, timeout_secs: f64, program: &str) -> Verdict {
    judge_run(result, timeout_secs, program, true)
}

/// [`judge`] for a hook Claude Code runs to its end whatever it prints
/// (its forced synchronous execution: MessageDisplay hooks; Setup and
/// SessionStart ones too under `--init-only`, which latch has no
/// equivalent of; recorded: `r6_async_first_line_sessionstart_init_only`):
/// a first line `{"async":true}` is only part of stdout, read whole.
pub fn judge_forced_sync(result: &RunResult, timeout_secs: f64, program: &str) -> Verdict {
    judge_run(result, timeout_secs, program, false)
}

fn judge_run(result: &RunResult, timeout_secs: f64, program: &str, may_go: bool) -> Verdict {
    let stdout = String::from_utf8_lossy(&result.stdout.bytes);
    let stderr = String::from_utf8_lossy(&result.stderr.bytes);
    // Went on in the background: what it says, the first line's follower
    // reads once it ends (see `super::background`), not this verdict.
    if result.termination == Termination::Detached {
        return Verdict::Async(String::new());
    }
    if may_go && let Some(rest) = after_async_line(&stdout) {
        return Verdict::Async(rest.to_owned());
    }
    let code = match &result.termination {
        Termination::Exited(Exit::Code(c)) => *c,
        Termination::Exited(Exit::Signal(s)) => {
            return Verdict::NonBlocking(format!("Hook was killed by signal {s}"));
        }
        Termination::TimedOut { .. } => {
            return Verdict::timed_out(timeout_secs);
        }
        Termination::Cancelled { .. }
        | Termination::CancelledBeforeStart
        | Termination::Detached => {
            return Verdict::cancelled();
        }
        Termination::SpawnFailed { reason, message } => {
            return Verdict::NonBlocking(format!(
                "{NON_BLOCKING_LEAD}Error occurred while executing hook command: {}",
                spawn_error(*reason, message, program)
            ));
        }
    };
    if code == 2 {
        // Claude Code's text is stderr as written, trailing newline and
        // all (recorded: `r8_pre_missing_script_py`), or `No stderr
        // output` when there is none (`r2_pre_exit2_empty_stderr`).
        let text = if stderr.is_empty() {
            "No stderr output".to_owned()
        } else {
            stderr.into_owned()
        };
        // A JSON answer is read first (recorded: `r8_exit2_json_*`): a
        // valid one counts, the exit adding its block where the answer
        // gives none. One that fails Claude Code's checks is ignored, and
        // the exit blocks (2.1.332, recorded: `r13b_pre_exit2_*`,
        // `r13b_ups_exit2_reason_null`; 2.1.197 let the action go on).
        return match read_object(&stdout, Channel::Stdout) {
            Some(Verdict::Json(mut j)) => {
                j.exit2 = Some(text);
                Verdict::Json(j)
            }
            _ => Verdict::Blocking(text),
        };
    }
    if result.stdout.truncated && js_trim_start(&stdout).starts_with('{') {
        // Claude Code would read the whole answer, which may be a deny:
        // not plain text, but a failure the user is told of.
        return Verdict::NonBlocking(format!(
            "{NON_BLOCKING_LEAD}the hook printed more than {} MiB, and latch reads no JSON answer past that",
            MAX_STDOUT >> 20
        ));
    }
    if let Some(why) = broken_json(&stdout) {
        return Verdict::NonBlocking(with_stderr(&why, code, &stderr));
    }
    match (code, read_object(&stdout, Channel::Stdout)) {
        // An answer that fails the schema: the exit's code and stderr
        // follow Claude Code's message (its `Tan`).
        (_, Some(Verdict::NonBlocking(message))) => {
            Verdict::NonBlocking(with_stderr(&message, code, &stderr))
        }
        (_, Some(verdict)) => verdict,
        (0, _) => Verdict::Plain(js_trim(&stdout).to_owned()),
        // Claude Code's words (read from its 2.1.197 code): the whole
        // stderr, trimmed.
        (_, _) => {
            let text = js_trim(&stderr);
            Verdict::NonBlocking(format!(
                "{NON_BLOCKING_LEAD}{}",
                if text.is_empty() {
                    "No stderr output"
                } else {
                    text
                }
            ))
        }
    }
}

/// A verdict under `onFailure: "block"` (Claude Code 2.1.332) of a hook
/// that exited with `code` on `event`: a failure blocks as an exit 2 does,
/// saying so. A non-blocking error (an exit other than 0 and 2, an answer
/// that fails the schema, a failed start, a killed hook), a script that
/// seems missing, or an exit other than 0 and 2 beside a valid answer that
/// neither denies nor stops, reads `failed; blocking because onFailure is
/// "block"`, then, on a line of its own, the error's message without its
/// `Failed with non-blocking status code: ` lead (for a failed exit, the
/// hook's trimmed stderr, `No stderr output` without one); its own timeout
/// reads `timed out; …`. A cancelled dispatch is no
/// failure of the hook's (recorded: `drift_onfailure_block`).
pub fn failure_blocks(verdict: Verdict, stderr: &str, code: Option<i32>, event: &str) -> Verdict {
    const WHY: &str = "blocking because onFailure is \"block\"";
    failure_blocks_because(verdict, stderr, code, event, WHY, Detail::AsIs)
}

/// How the error's own words follow a blocking failure's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// As they are (`onFailure`).
    AsIs,
    /// With their URLs cut (a personal hook's, Claude Code's `Gg`; see
    /// [`personal::scrub_urls`](super::personal::scrub_urls)).
    UrlsCut,
    /// Hidden, for a personal http hook whose URL Claude Code does not
    /// show ([`personal::URL_HIDDEN`](super::personal::URL_HIDDEN)).
    Hidden,
}

impl Detail {
    fn of(self, text: &str) -> String {
        match self {
            _ if text.is_empty() => String::new(),
            Detail::AsIs => text.to_owned(),
            Detail::UrlsCut => super::personal::scrub_urls(text),
            Detail::Hidden => super::personal::URL_HIDDEN.to_owned(),
        }
    }
}

/// [`failure_blocks`] with its words after `failed; ` (or `timed out; `)
/// given, and how the error's own words follow: `onFailure`'s, or a
/// personal hook's under `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG` (see
/// [`personal`](super::personal); recorded: `rp01_user_exit1_pre`,
/// `rp02_user_timeout_pre`, `rp03_user_schema_fail_pre`,
/// `rp13_user_http_500`).
pub fn failure_blocks_because(
    verdict: Verdict,
    stderr: &str,
    code: Option<i32>,
    event: &str,
    why: &str,
    shown: Detail,
) -> Verdict {
    let stderr = js_trim(stderr);
    let stderr = if stderr.is_empty() {
        "No stderr output"
    } else {
        stderr
    };
    let with = |detail: &str| {
        let detail = shown.of(detail);
        if detail.is_empty() {
            Verdict::Blocking(format!("failed; {why}"))
        } else {
            Verdict::Blocking(format!("failed; {why}\n{detail}"))
        }
    };
    // An exit other than 0 and 2 fails even with a JSON answer: only the
    // answer's own deny or stop still counts (2.1.332's `dfe`).
    let failed_exit = code.is_some_and(|c| c != 0 && c != 2);
    match verdict {
        Verdict::Json(j) if failed_exit && !j.blocks(event) && j.continue_ != Some(false) => {
            with(stderr)
        }
        // The detail is the non-blocking error's message, without its
        // lead (`Fkn`): the stderr for a failed exit, the schema's or the
        // start's message otherwise.
        Verdict::NonBlocking(message) => {
            // JavaScript's `replace` of a string: the first only.
            let detail = without_lead(&message).replacen("Treating as non-blocking. ", "", 1);
            with(js_trim(&detail))
        }
        Verdict::MissingScript { .. } => with(stderr),
        Verdict::Stopped(ErrorCategory::Timeout, _) => {
            Verdict::Blocking(format!("timed out; {why}"))
        }
        other => other,
    }
}

/// Claude Code 2.1.332's error for stdout that looks like one JSON object
/// but does not parse (`k8`): trimmed, it starts with `{` and ends with
/// `}`, and it is not several lines that are each JSON which is `{}` or
/// not an answer (a hook that prints JSON lines of its own). Such stdout
/// is neither an answer nor plain text (recorded:
/// `drift_json_like_invalid_ups`; 2.1.197 read it as plain text). The
/// parser's message is latch's, where Claude Code's is Bun's.
fn broken_json(stdout: &str) -> Option<String> {
    let text = js_trim(stdout);
    if !(text.starts_with('{') && text.ends_with('}')) {
        return None;
    }
    let error = output_json::parse(text).err()?;
    let lines: Vec<&str> = text
        .split('\n')
        .map(js_trim)
        .filter(|l| !l.is_empty())
        .collect();
    let json_lines = lines.len() >= 2
        && lines.iter().all(|line| match output_json::parse(line) {
            Ok(Parsed {
                value: value @ Value::Object(_),
                ..
            }) => value.as_object().is_some_and(Map::is_empty) || check(&value).is_err(),
            _ => false,
        });
    (!json_lines).then(|| {
        format!(
            "Hook output looks like a JSON object but is not valid JSON \u{2014} JSON Parse error: {error}. Emit the payload with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than string concatenation so backslashes and quotes inside strings are escaped."
        )
    })
}

/// Claude Code 2.1.332's tail for an error of a hook that did not exit 0:
/// its code and stderr, trimmed (`Tan`).
fn with_stderr(message: &str, code: i32, stderr: &str) -> String {
    let stderr = js_trim(stderr);
    if code == 0 || stderr.is_empty() {
        message.to_owned()
    } else {
        format!("{message}\n\nHook exited {code} with stderr:\n{stderr}")
    }
}

/// A text read as a command hook's stdout on exit 0 (an `mcp_tool`
/// handler's result; recorded: `r2_mcp_tool_hook`): a JSON object decides,
/// anything else is plain text.
pub fn read_stdout(text: &str) -> Verdict {
    read_object(text, Channel::Stdout).unwrap_or_else(|| Verdict::Plain(js_trim(text).to_owned()))
}

/// A failed start in Node's words, as Claude Code reports it (recorded:
/// `r2_exec_args`, `ENOENT: no such file or directory, posix_spawn
/// '<program>'`); a failure Node would word otherwise keeps the operating
/// system's message.
fn spawn_error(reason: SpawnFailure, message: &str, program: &str) -> String {
    match reason {
        SpawnFailure::NotFound => {
            format!("ENOENT: no such file or directory, posix_spawn '{program}'")
        }
        SpawnFailure::NotExecutable => {
            format!("EACCES: permission denied, posix_spawn '{program}'")
        }
        SpawnFailure::BadWorkingDirectory | SpawnFailure::Other => message.to_owned(),
    }
}

/// How a JSON answer reached latch, which decides the words of one that
/// fails Claude Code's schema.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Channel {
    /// A command hook's stdout, or an `mcp_tool` handler's result: the
    /// message shows the expected schema.
    Stdout,
    /// An HTTP hook's reply: the message ends with the answer (Claude
    /// Code's `nuo`).
    Http,
}

/// The verdict of `text` when it is a JSON object, read as `JSON.parse`
/// reads it (see [`output_json`]); `None` for anything else.
pub fn read_object(text: &str, channel: Channel) -> Option<Verdict> {
    if !js_trim_start(text).starts_with('{') {
        return None;
    }
    match output_json::parse(js_trim(text)) {
        Ok(Parsed {
            value: value @ Value::Object(_),
            ignored,
        }) => Some(json_answer(value, ignored, channel)),
        _ => None,
    }
}

/// What follows a first line that is exactly a JSON object with `"async":
/// true`, if stdout starts so.
fn after_async_line(stdout: &str) -> Option<&str> {
    let (first, rest) = stdout.split_once('\n').unwrap_or((stdout, ""));
    async_line(js_trim(first)).map(|_| rest)
}

/// The object of a first line that asks to go on in the background:
/// `{"async": true, …}`, as `JSON.parse` and `async === true` read it.
fn async_line(line: &str) -> Option<Map<String, Value>> {
    if !line.starts_with('{') || !line.contains("async") {
        return None;
    }
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) if m.get("async") == Some(&Value::Bool(true)) => Some(m),
        _ => None,
    }
}

/// How long a hook whose first line sent it to the background may run on,
/// from then. Claude Code stops it only when the session ends: neither
/// the line's `asyncTimeout`, nor its 15 s default, nor the handler's
/// `timeout` applies any more (recorded: `r6_async_first_line_timeout`,
/// `_cfg_timeout`, `_over_default`). latch sees no session end it could
/// wait for, so it gives such a hook the default command timeout, counted
/// from when it went.
pub const DETACHED_LIMIT: Duration = super::combine::COMMAND_TIMEOUT;

/// The longest first line latch waits to see completed: Claude Code looks
/// at it again with every chunk until it holds a `}`; latch stops after a
/// megabyte, which no `{"async":true}` line needs.
const MAX_FIRST_LINE: usize = 1 << 20;

/// Claude Code's check of a command hook's first stdout line, as the
/// runner's [`crate::run::FirstLineRule`]: the text before the first
/// newline (or all of it), trimmed, is read once it holds a `}`; if it is
/// a JSON object whose `async` is `true`, the hook goes on in the
/// background, else it runs to its end as usual (recorded:
/// `r2_async_first_line`; `r6_async_first_line_split`: the event waits for
/// the `}`; `r6_async_first_line_no_newline`: no newline is needed).
pub fn first_line(stdout: &[u8]) -> FirstLine {
    let line = stdout.split(|&b| b == b'\n').next().unwrap_or_default();
    if !line.contains(&b'}') {
        // A whole first line without one never gets one.
        let whole = line.len() < stdout.len();
        return if whole || line.len() > MAX_FIRST_LINE {
            FirstLine::Stay
        } else {
            FirstLine::Wait
        };
    }
    let text = String::from_utf8_lossy(line);
    match async_line(js_trim(&text)) {
        Some(_) => FirstLine::Detach(DETACHED_LIMIT),
        None => FirstLine::Stay,
    }
}

/// The answer of a hook that ran in the background (an `async` handler,
/// or a first line `{"async":true}`), read as Claude Code reads it once
/// the hook ended: the first stdout line that is a JSON object without an
/// `async` key, whatever the exit code. `None` if there is none.
pub fn background_answer(stdout: &str) -> Option<Verdict> {
    stdout.split('\n').find_map(|line| {
        let line = js_trim(line);
        if !line.starts_with('{') {
            return None;
        }
        match output_json::parse(line) {
            Ok(Parsed {
                value: value @ Value::Object(_),
                ignored,
            }) if value.get("async").is_none() => {
                Some(json_answer(value, ignored, Channel::Stdout))
            }
            _ => None,
        }
    })
}

/// A JSON object answer (from stdout or an HTTP reply) as a verdict.
/// `ignored` names the fields left out for nesting too deep.
fn json_answer(answer: Value, ignored: Vec<String>, channel: Channel) -> Verdict {
    match read_json(answer, channel) {
        Ok(j) => Verdict::Json(Box::new(HookJson {
            too_deep: ignored,
            ..j
        })),
        Err(message) => Verdict::NonBlocking(message),
    }
}

/// A verdict as Claude Code takes it from a hook of `event`: a
/// `hookSpecificOutput` that passed the schema must name the event it
/// answers in `hookEventName` (recorded: `r4_event_name_post`: naming
/// another event fails to run). Without it, or for an event that takes no
/// `hookSpecificOutput` (`TaskCreated`, `TaskCompleted`, …; recorded:
/// `r3_task_completed_json`), the answer already failed the schema.
pub fn for_event(verdict: Verdict, event: &str) -> Verdict {
    let Verdict::Json(j) = &verdict else {
        return verdict;
    };
    // A `PreSkillShellCommand` hook may answer as a `PreToolUse` or a
    // `PermissionRequest` hook (Claude Code 2.1.332's `TWn`), so that one
    // guard script serves both.
    let skill_shell_alias = event == "PreSkillShellCommand"
        && matches!(
            j.specific_str("hookEventName"),
            Some("PreToolUse" | "PermissionRequest")
        );
    match j.specific_str("hookEventName") {
        Some(name) if name != event && !skill_shell_alias => Verdict::NonBlocking(format!(
            "Failed to run: Hook returned incorrect event name: expected '{event}' but got '{name}'"
        )),
        _ => verdict,
    }
}

/// Reads a JSON answer (an object) that passes Claude Code's schema
/// ([`answer_schema::check`](super::answer_schema::check)); the message of
/// one that does not, in Claude Code's words for `channel`.
fn read_json(answer: Value, channel: Channel) -> Result<HookJson, String> {
    use super::answer_schema::{is_async, refusal_text};
    if let Err(first) = check(&answer) {
        return Err(refusal_text(&first, &answer, channel == Channel::Stdout));
    }
    let Value::Object(mut obj) = answer else {
        return Ok(HookJson::default());
    };
    // Claude Code's other form, `{"async": true}`, keeps nothing else.
    if is_async(&obj) {
        return Ok(HookJson::default());
    }
    let mut take_str = |key: &str| match obj.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let mut j = HookJson {
        stop_reason: take_str("stopReason"),
        system_message: take_str("systemMessage"),
        terminal_sequence: take_str("terminalSequence"),
        decision: take_str("decision"),
        reason: take_str("reason"),
        ..HookJson::default()
    };
    j.continue_ = obj.get("continue").and_then(Value::as_bool);
    if let Some(Value::Object(m)) = obj.remove("hookSpecificOutput") {
        j.specific = m;
    }
    Ok(j)
}
