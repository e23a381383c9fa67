"""Typed shapes of the JSON that ``latch serve`` reads and writes.

Every type here is a :class:`typing.TypedDict`, so a value is a plain
``dict``: what the server sends is handed over as parsed, unknown keys
included, and a newer latch that adds fields keeps working. The keys that
latch always writes are required; every other key is absent when latch
has nothing to say (``outcome.get("tool_input")``).

The meaning of each field is documented in latch's ``docs/events.md``
(the event), ``docs/outcome.md`` (the outcome), ``docs/serve.md`` (the
protocol) and ``docs/lint.md`` (diagnostics).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Literal, NotRequired, Optional, Required, Sequence, TypedDict, Union

__all__ = [
    "AsyncResult",
    "Compaction",
    "Config",
    "Context",
    "Continuation",
    "Decision",
    "Diagnostic",
    "DisplayChunk",
    "ElicitationAnswer",
    "ElicitationRequest",
    "Event",
    "EventKind",
    "ExplainEntry",
    "TrustedHook",
    "ExplainIgnored",
    "Expansion",
    "ModelSwitch",
    "Halt",
    "InitializeResult",
    "Instructions",
    "Notice",
    "NoticeKind",
    "Outcome",
    "Placement",
    "PublishedEvent",
    "Reason",
    "Run",
    "RunStatus",
    "ServerInfo",
    "Severity",
    "Source",
    "StrPath",
    "Task",
    "Team",
    "ToolCall",
    "Worktree",
    "is_cancelled",
]

StrPath = Union[str, "os.PathLike[str]"]
"""A path given as text or as a :class:`os.PathLike` (``pathlib.Path``)."""

# --------------------------------------------------------------------------
# Configuration (the params of ``initialize``)
# --------------------------------------------------------------------------


class Config(TypedDict, total=False):
    """The configuration sent with ``initialize``: ``latch fire``'s flags.

    Every key is optional; latch's defaults are ``latch fire``'s. Paths may
    be :class:`str` or :class:`os.PathLike`. A key latch does not know is
    refused by the server with :class:`~latch_client.InvalidParams`.
    """

    dialects: Sequence[str]
    """Dialects to load: ``poolside``, ``peen``, ``evener``, ``claude``."""
    project: StrPath
    home: StrPath
    settings: StrPath
    plugin_dirs: Sequence[StrPath]
    peen_config_dir: StrPath
    prompt_base_url: str
    prompt_model: str
    claude_settings: StrPath
    """A claude settings file, or JSON text starting with ``{``."""
    claude_managed_dir: StrPath
    claude_hide_commands: bool
    tool_vocabulary: StrPath
    audit: Literal["off", "runs", "full"]
    """What the session's audit log records (``latch fire --audit``; docs/audit.md)."""
    trust: Sequence[str]
    """Trust policies: ``off``, ``warn`` or ``require`` for every dialect, or
    ``DIALECT=POLICY`` for one (``latch fire --trust``; see docs/trust.md)."""
    state_dir: StrPath


# --------------------------------------------------------------------------
# The event (the params of ``fire`` and ``explain``)
# --------------------------------------------------------------------------

EventKind = Literal[
    "session_start",
    "user_prompt",
    "user_prompt_ready",
    "turn_start",
    "tool_before",
    "permission_request",
    "tool_after",
    "tool_failure",
    "stop",
    "turn_cancelled",
    "subagent_start",
    "subagent_stop",
    "compact_before",
    "compact_after",
    "notification",
    "session_end",
    "setup",
    "instructions_loaded",
    "prompt_expansion",
    "message_display",
    "model_switch_before",
    "model_switch_after",
    "skill_shell_before",
    "permission_denied",
    "tool_batch",
    "task_created",
    "task_completed",
    "teammate_idle",
    "stop_failure",
    "config_change",
    "cwd_changed",
    "directory_added",
    "file_changed",
    "worktree_create",
    "worktree_remove",
    "elicitation",
    "elicitation_result",
]
"""Every event kind latch knows (``docs/events.md``)."""


class ToolServer(TypedDict):
    """The tool server (MCP) a tool belongs to."""

    name: str
    source: str


class ToolCall(TypedDict, total=False):
    """A tool call: required on the tool events."""

    name: Required[str]
    input: Any
    call_id: str
    output: Any
    error: str
    duration_ms: int
    interrupted: bool
    server: ToolServer


class Compaction(TypedDict, total=False):
    """Compaction figures of ``compact_before`` / ``compact_after``."""

    estimated_tokens: int
    budget_tokens: int
    round: int
    units_covered: int
    messages_covered: int
    summary_tokens: int
    instructions: str
    summary: str


class Expansion(TypedDict, total=False):
    """The command a ``prompt_expansion`` expanded, or the skill whose shell
    command a ``skill_shell_before`` is about to run."""

    kind: str
    command_name: str
    command_args: str
    command_source: str
    invoked_by: str
    """On ``skill_shell_before``: ``user``, ``claude`` or ``other``."""


# Functional syntax: ``from`` is a Python keyword.
ModelSwitch = TypedDict(
    "ModelSwitch",
    {
        "from": str,
        "to": str,
        "requested": str,
        # ``False`` runs every claude matcher group (a model the harness
        # does not know).
        "known": bool,
        "prompt_cache_warm": bool,
        "cache_ttl": str,
        "pricing": str,
    },
    total=False,
)
"""The change of model on ``model_switch_before`` / ``model_switch_after``."""


class Instructions(TypedDict, total=False):
    """The file an ``instructions_loaded`` event loaded."""

    file_path: StrPath
    memory_type: str
    load_reason: str
    globs: List[str]
    trigger_file_path: StrPath
    parent_file_path: StrPath


class Worktree(TypedDict, total=False):
    """The worktree of ``worktree_create`` (``name``) / ``worktree_remove`` (``path``)."""

    name: str
    path: StrPath


class Task(TypedDict, total=False):
    """The task of ``task_created`` / ``task_completed``."""

    id: str
    subject: str
    description: str


class Team(TypedDict, total=False):
    """The agent-team member of task events and ``teammate_idle``."""

    teammate_name: str
    team_name: str


class ElicitationRequest(TypedDict, total=False):
    """A tool server's request for user input (``elicitation`` events)."""

    server: str
    message: str
    mode: str
    url: str
    id: str
    requested_schema: Any
    action: str
    content: Any


class DisplayChunk(TypedDict, total=False):
    """The text about to be shown on ``message_display``."""

    message_id: str
    index: int
    final: bool
    delta: str


class Event(TypedDict, total=False):
    """One event, as ``latch fire`` reads it. Only ``event`` is required,
    and ``tool`` on the tool events.

    latch rejects unknown keys at every level, so a misspelled key fails
    with :class:`~latch_client.InvalidParams` naming it; a type checker
    refuses it first, in an event written as a literal where an ``Event``
    is expected (``fire``'s argument). Paths may be :class:`os.PathLike`.
    """

    event: Required[EventKind]
    id: str
    session_id: str
    cwd: StrPath
    transcript_path: StrPath
    scratchpad_dir: StrPath
    request_id: str
    turn_id: str
    agent_run_id: str
    model: str
    effort: str
    permission_mode: str
    prompt_id: str
    agent_id: str
    agent_type: str
    agent_transcript_path: StrPath
    last_assistant_message: str
    title: str
    session_title: str
    tool: ToolCall
    prompt: str
    reason: str
    finish_reason: str
    source: str
    trigger: str
    message: str
    notification_type: str
    context_tokens: int
    seconds_since_last_response: int
    prompt_cache_likely_expired: bool
    estimated_cache_write_usd: float
    compaction: Compaction
    pending_questions: bool
    tool_calls: List[ToolCall]
    error: str
    error_details: str
    expansion: Expansion
    model_switch: ModelSwitch
    instructions: Instructions
    file_path: StrPath
    change: str
    old_cwd: StrPath
    directory: StrPath
    worktree: Worktree
    task: Task
    team: Team
    elicitation: ElicitationRequest
    display: DisplayChunk
    permission_suggestions: Any
    """On ``permission_request``: the rules the harness would offer with its prompt."""


# --------------------------------------------------------------------------
# The outcome (the result of ``fire``)
# --------------------------------------------------------------------------

Decision = Literal["proceed", "allow", "ask", "defer", "deny"]
Placement = Literal[
    "system_prompt",
    "with_prompt",
    "after_tool_result",
    "after_compaction",
    "first_user_message",
    "append_to_tool_result",
    "compaction_prompt",
]
NoticeKind = Literal["rewrite", "block", "continuation", "failure", "ignored", "rejected"]
RunStatus = Literal["ok", "blocked", "continued", "failed", "skipped", "untrusted"]
Severity = Literal["error", "warning", "info"]


class Source(TypedDict, total=False):
    """Where a hook (or a diagnostic) is declared."""

    file: Required[str]
    line: int
    column: int


class Reason(TypedDict):
    """A deny reason: the hook's label and its text."""

    hook: str
    text: str


class Context(TypedDict, total=False):
    """Text a hook asked to show the model, and where it goes."""

    hook: Required[str]
    placement: Required[Placement]
    text: Required[str]
    own_message: bool
    """``True`` when the agent sends the text as a message of its own rather
    than folding it into the tool result before it (only claude's
    ``PermissionDenied`` retry reminder); absent otherwise."""


class Notice(TypedDict):
    """What the model must be told about a hook; use ``text`` verbatim."""

    hook: str
    event: str
    kind: NoticeKind
    text: str


class PublishedEvent(TypedDict, total=False):
    """A session event a hook published (peen's ``emitEvent``)."""

    type: Required[str]
    summary: Required[str]
    data: Dict[str, Any]
    delivery: str
    source: Required[str]


class Continuation(TypedDict):
    """On ``stop``: keep working, with ``prompt`` as the next input."""

    prompt: str
    hooks: List[str]


class Halt(TypedDict, total=False):
    """claude's ``continue: false``: end the agent loop after this event."""

    hooks: Required[List[str]]
    reason: str
    #: On a prompt: what the user reads.
    message: str
    #: With ``message``: what the conversation keeps after the prompt.
    kept: str


class ElicitationAnswer(TypedDict, total=False):
    """A hook's answer to a tool server in place of the user's."""

    hook: Required[str]
    action: Required[str]
    content: Any


class PermissionUpdates(TypedDict):
    """On ``permission_request``: permission rules one hook asks the harness
    to change (claude: ``updatedPermissions``), as the hook wrote them."""

    hook: str
    updates: List[Any]


class Run(TypedDict, total=False):
    """One record per hook that matched the event, for logs."""

    hook: Required[str]
    dialect: Required[str]
    event: Required[str]
    status: Required[RunStatus]
    source: Source
    exit_code: int
    signal: int
    duration_ms: Required[float]
    error: str
    message: str
    stdout_truncated: bool
    stderr_truncated: bool
    ignored_fields: List[str]
    trust: Literal["not_required", "approved", "new", "changed", "unknown"]
    """Only when a trust policy checked the hook (docs/trust.md)."""


class Outcome(TypedDict, total=False):
    """What the harness must do after an event (``docs/outcome.md``).

    ``event``, ``decision`` and ``runs`` are always present; every other
    key is absent when there is nothing to do.
    """

    event: Required[str]
    decision: Required[Decision]
    runs: Required[List[Run]]
    reasons: List[Reason]
    tool_input: Any
    tool_output: str
    prompt: str
    context: List[Context]
    notices: List[Notice]
    warnings: List[str]
    events: List[PublishedEvent]
    continuation: Continuation
    shell_env: Dict[str, str]
    halt: Halt
    retry: bool
    watch_paths: List[str]
    worktree_path: str
    elicitation: ElicitationAnswer
    display: str
    permission_updates: List[PermissionUpdates]
    session_title: str
    initial_user_message: str
    reload_skills: bool
    terminal_sequences: List[str]


def is_cancelled(outcome: Outcome) -> bool:
    """Whether ``outcome`` answers a dispatch that was cancelled.

    A cancelled ``fire`` (a timeout, or ``$/cancelRequest``) is still
    answered with the outcome of what ran, with a ``dispatch cancelled``
    warning; this looks for that warning.
    """
    return any(w.startswith("dispatch cancelled") for w in outcome.get("warnings", ()))


# --------------------------------------------------------------------------
# explain, initialize, diagnostics and notifications
# --------------------------------------------------------------------------


class ExplainIgnored(TypedDict):
    """A key of a hook's configuration that latch ignores, and why."""

    key: str
    why: str


class TrustedHook(TypedDict, total=False):
    """One hook as ``trust_list`` returns it (``latch trust --format json``;
    docs/trust.md): where it is declared, what it runs, the scripts it names
    and its trust state, ``{"state": "not_required" | "approved" | "new"}``
    or ``{"state": "changed", "changes": [...]}``."""

    dialect: Required[str]
    event: Required[str]
    hook: Required[str]
    source: Required[str]
    needs_approval: Required[bool]
    matcher: str
    runs: Required[Dict[str, Any]]
    scripts: List[str]
    #: Other settings that change what runs, by name.
    settings: Dict[str, str]
    trust: Required[Dict[str, Any]]


class ExplainEntry(TypedDict, total=False):
    """One configured hook, as ``latch explain --format json`` prints it."""

    dialect: Required[str]
    event: Required[str]
    hook: Required[str]
    #: Where it was declared (``None`` when nothing declares it in a file).
    source: Optional[Source]
    runs: Required[bool]
    reason: Required[str]
    summary: str
    ignored: List[ExplainIgnored]
    #: The time limit it would run under, in milliseconds.
    timeout_ms: Optional[int]


class Diagnostic(TypedDict, total=False):
    """A load diagnostic, as ``latch lint --format json`` writes it."""

    severity: Required[Severity]
    message: Required[str]
    file: str
    line: int
    column: int
    dialect: str
    hook: str
    event: str
    hint: str


class ServerInfo(TypedDict):
    """The server's name and version."""

    name: str
    version: str


class InitializeResult(TypedDict):
    """The result of ``initialize``."""

    server: ServerInfo
    dialects: List[str]
    diagnostics: List[Diagnostic]


class AsyncResult(TypedDict):
    """The params of ``latch/asyncResult``: an ``async`` hook finished."""

    session_id: str
    dialect: str
    hook: str
    event: str
    texts: List[str]
    warnings: NotRequired[List[str]]
    """Why the texts could not be kept for the session's next event (its
    state cannot be used): they are then all there is of the answer."""
