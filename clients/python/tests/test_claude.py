"""``latch_client.claude.user_message``: the rule on its own, then the
recorded batches run through a real ``latch serve`` (as latch's
``tests/it/claude_message.rs`` runs them through ``latch fire``), each of
which must give the user message Claude Code 2.1.332 sent byte for byte
(``recordings/claude-2.1.332/messages.json``; the settings and the model's
script are the cases', ``recordings/claude/<case>/``).

The recordings are found through ``$LATCH_RECORDINGS_DIR`` (``run-tests.sh``
sets it, as the tests run from a copy), else in the source tree.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from latch_client import Client, Event, ToolCall
from latch_client.claude import Attachment, Message, Piece, ToolResult, piece_from_context, user_message
from latch_client.types import Context


def text(t: str) -> Dict[str, Any]:
    return {"type": "text", "text": t}


def result(tool_use_id: str, content: str, is_error: bool = False) -> Dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}


# --- The rule ------------------------------------------------------------------


@pytest.mark.no_latch
def test_texts_made_before_the_result_follow_it_as_they_are() -> None:
    # r3_deny_slow_plus_context_fast: a denied call's two PreToolUse
    # contexts, made before its result, follow it with no newline.
    blocks = user_message([Attachment("B"), Attachment("A"), ToolResult("t", "DENY reason", is_error=True)])
    assert blocks == [result("t", "DENY reason", True), text("B"), text("A")]


@pytest.mark.no_latch
def test_attachments_right_after_a_result_are_folded_into_it() -> None:
    # r10_seam_single_post_ctx_batch: the PostToolUse text, then the batch
    # text, folded into the result, each trimmed.
    blocks = user_message([ToolResult("t", "hi\n"), Attachment("POST"), Attachment("  BATCH\n")])
    assert blocks == [result("t", "hi\n\nPOST\n\nBATCH")]


@pytest.mark.no_latch
def test_after_a_text_attachments_are_blocks_without_a_newline() -> None:
    # r10_seam_two_pre_post_batch: [TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH].
    pieces: List[Piece] = [
        Attachment("PRE1"),
        ToolResult("t1", "one"),
        Attachment("POST1"),
        Attachment("PRE2"),
        ToolResult("t2", "two"),
        Attachment("POST2"),
        Attachment("BATCH"),
    ]
    assert user_message(pieces) == [
        result("t1", "one"),
        result("t2", "two"),
        *map(text, ["PRE1", "POST1", "PRE2", "POST2", "BATCH"]),
    ]


@pytest.mark.no_latch
def test_attachments_move_back_to_the_last_result_before_them() -> None:
    # r3_post_tool_batch_two_contexts: each call's PostToolUse text is
    # folded into its result, then the batch texts into the last one.
    pieces: List[Piece] = [ToolResult("t1", "one"), Attachment("POST"), ToolResult("t2", "two"), Attachment("POST")]
    blocks = user_message([*pieces, Attachment("B"), Attachment("A")])
    assert blocks == [result("t1", "one\n\nPOST"), result("t2", "two\n\nPOST\n\nB\n\nA")]


@pytest.mark.no_latch
def test_attachments_without_a_result_go_first() -> None:
    # A turn's first message: the prompt, then SessionStart and UserPromptSubmit texts.
    blocks = user_message([Message("prompt"), Attachment("SessionStart"), Attachment("UserPromptSubmit")])
    assert blocks == [text("SessionStart"), text("UserPromptSubmit\n"), text("prompt")]


@pytest.mark.no_latch
def test_a_message_after_a_result_is_a_block_of_its_own() -> None:
    # r3_permission_denied_retry: the retry reminder is a message, a block
    # of its own after the denied result; after a text it ends that text
    # with "\n", as any message does (read from Claude Code's code).
    denied = ToolResult("t", "denied", is_error=True)
    assert user_message([denied, Message("RETRY")]) == [result("t", "denied", True), text("RETRY")]
    assert user_message([Attachment("PRE"), denied, Message("RETRY")])[1:] == [text("PRE\n"), text("RETRY")]


@pytest.mark.no_latch
def test_folding_trims_as_javascript_does() -> None:
    # U+FEFF and U+3000 are trimmed; U+0085 and U+001F are not (Python's
    # str.strip() would take them); an empty result leaves the text alone.
    blocks = user_message([ToolResult("t", "\ufeff\u3000out\u0085\x1f \n"), Attachment("\u2028X\ufeff")])
    assert blocks == [result("t", "out\u0085\x1f\n\nX")]
    assert user_message([ToolResult("t", " \n"), Attachment("X")]) == [result("t", "X")]


@pytest.mark.no_latch
def test_an_error_result_keeps_its_flag_and_the_pieces_are_not_changed() -> None:
    pieces: List[Piece] = [ToolResult("t", "failed", is_error=True), Attachment("X")]
    blocks = user_message(pieces)
    assert blocks == [result("t", "failed\n\nX", True)]
    assert pieces == [ToolResult("t", "failed", True), Attachment("X")]
    assert json.loads(json.dumps(blocks)) == blocks


@pytest.mark.no_latch
def test_attachments_after_an_mcp_result_join_its_list() -> None:
    # r12_mcp_list_post_and_batch: each text joins the list as a block,
    # after a newline on the list's last text; the piece's list is left as
    # it was.
    blocks = [{"type": "text", "text": "MCP_RESULT"}]
    assert user_message([ToolResult("t", blocks), Attachment("POST"), Attachment("BATCH")]) == [
        {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": [text("MCP_RESULT\n"), text("POST\n"), text("BATCH")],
        }
    ]
    assert blocks == [{"type": "text", "text": "MCP_RESULT"}]


@pytest.mark.no_latch
def test_a_list_takes_texts_in_unless_it_holds_a_block_kept_apart() -> None:
    # Read from Claude Code's code: after an image the text joins the list
    # with no newline; a list holding a tool_reference or a search_result
    # takes nothing in.
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    assert user_message([ToolResult("t", [image]), Attachment("X")]) == [
        {"type": "tool_result", "tool_use_id": "t", "content": [image, text("X")]}
    ]
    for kind in ("tool_reference", "search_result"):
        held = [{"type": kind}, text("R")]
        assert user_message([ToolResult("t", held), Attachment("X")]) == [
            {"type": "tool_result", "tool_use_id": "t", "content": held},
            text("X"),
        ], kind


def test_context_entries_are_attachments_but_the_retry_reminder(tmp_path: Path) -> None:
    def entry(placement: Any) -> Context:
        return {"hook": "h", "placement": placement, "text": "T"}

    for placement in ("after_tool_result", "append_to_tool_result", "with_prompt", "first_user_message"):
        assert piece_from_context(entry(placement)) == Attachment("T")
    for placement in ("compaction_prompt", "system_prompt", "after_compaction"):
        assert piece_from_context(entry(placement)) is None
    # The retry reminder as latch gives it, after a PermissionDenied hook's
    # retry: a message.
    project, home, managed, state = (tmp_path / n for n in ("project", "home", "managed", "state"))
    for directory in (project / ".claude", home, managed):
        directory.mkdir(parents=True)
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": True}}
    handler = {"type": "command", "command": f"printf '%s' '{json.dumps(answer)}'"}
    settings = {"hooks": {"PermissionDenied": [{"hooks": [handler]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    with Client(dialects=["claude"], project=project, home=home, claude_managed_dir=managed, state_dir=state) as latch:
        tool: ToolCall = {"name": "Bash", "input": {"command": "rm -rf x"}, "call_id": "toolu_1"}
        outcome = latch.fire({"event": "permission_denied", "session_id": "s1", "tool": tool, "reason": "no"})
    [retry] = outcome["context"]
    assert retry["placement"] == "after_tool_result"
    assert retry.get("own_message") is True
    assert piece_from_context(retry) == Message(retry["text"])
    assert retry["text"].startswith("<system-reminder>\nThe refusal above is not final for this call:")
    # The mark makes the message, not the words.
    unmarked: Context = {"hook": "h", "placement": "after_tool_result", "text": retry["text"]}
    assert piece_from_context(unmarked) == Attachment(retry["text"])


# --- The recorded batches, through latch serve ----------------------------------

#: The fixture hook in place of the recording harness's: prints `--stdout`
#: (and a newline) after `--sleep`; `--label` and other flags are ignored.
HOOK = r"""#!/bin/sh
out=""; sleep_s=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stdout) out=$2; shift 2;;
    --sleep) sleep_s=$2; shift 2;;
    --label) shift 2;;
    *) shift;;
  esac
done
cat >/dev/null
[ "$sleep_s" = 0 ] || sleep "$sleep_s"
[ -z "$out" ] || printf '%s\n' "$out"
exit 0
"""


def recordings_dir() -> Optional[Path]:
    """``recordings``: ``$LATCH_RECORDINGS_DIR``, else the source tree's."""
    given = os.environ.get("LATCH_RECORDINGS_DIR")
    if given:
        return Path(given)
    in_tree = Path(__file__).resolve().parent.parent.parent.parent / "recordings"
    return in_tree if in_tree.is_dir() else None


def recordings() -> Path:
    base = recordings_dir()
    if base is None:
        pytest.skip("no recordings: set LATCH_RECORDINGS_DIR")
    return base


def recording(case: str) -> Path:
    return recordings() / "claude" / case


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def recorded_settings(case: str, hook: Path) -> Dict[str, Any]:
    """The recording's settings, its harness hook (``@HOOK@ --label L --out
    @OUT@ …``) swapped for the fixture hook, which takes the same flags."""
    settings: Dict[str, Any] = read_json(recording(case) / "settings.json")
    for groups in settings["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                found = re.fullmatch(r"@HOOK@ --label (\S+) --out @OUT@(.*)", handler["command"], re.S)
                assert found, handler["command"]
                label, args = found.groups()
                handler["command"] = f"{hook} --label {label} {args.lstrip()}".rstrip()
    return settings


def recorded_calls(case: str) -> List[Tuple[str, Any]]:
    """The tool calls of the recorded model's first turn: (name, input)."""
    turn = read_json(recording(case) / "script.json")["turns"][0]
    uses = turn["tool_uses"] if "tool_uses" in turn else [turn["tool_use"]]
    return [(u["name"], u["input"]) for u in uses]


def recorded_message(case: str) -> Any:
    """The last user message of the case's last request as Claude Code
    2.1.332 sent it, without its own ``<total_tokens>`` reminder."""
    message = read_json(recordings() / "claude-2.1.332" / "messages.json")[case]
    return without_total_tokens(message)


def is_total_tokens(text: Any) -> bool:
    """Whether ``text`` is the reminder of the tokens left that Claude Code
    adds to every request."""
    return (
        isinstance(text, str)
        and text.startswith("<system-reminder>\n<total_tokens>")
        and text.endswith("</total_tokens>\n</system-reminder>")
    )


def without_total_tokens(message: List[Any]) -> List[Any]:
    """Takes off the ``<total_tokens>`` reminder, an attachment latch has no
    part in, which Claude Code folds in last: from a text result with the
    blank line before it, from a list with the newline its folding gave the
    list's last text, or as a text block."""
    kept = [b for b in message if not is_total_tokens(b.get("text"))]
    for block in kept:
        content = block.get("content")
        if isinstance(content, str):
            head, _, last = content.rpartition("\n\n")
            if head and is_total_tokens(last):
                block["content"] = head
        elif isinstance(content, list) and content and is_total_tokens(content[-1].get("text")):
            content.pop()
            if content and isinstance(content[-1].get("text"), str):
                content[-1]["text"] = content[-1]["text"].removesuffix("\n")
    return kept


def pieces_of(outcome: Any) -> List[Piece]:
    return [p for c in outcome.get("context", []) if (p := piece_from_context(c))]



def in_turn(event: Event) -> Event:
    """``event``, with the fields every event of the recorded turn carries."""
    event.update({"session_id": "s1", "prompt_id": "p1", "permission_mode": "bypassPermissions"})
    return event

def rebuilt_message(tmp_path: Path, case: str, outputs: Sequence[Any]) -> Any:
    """Runs the recorded batch through latch as a harness would (for each
    call ``tool_before``, the tool, ``tool_after``; then ``tool_batch``),
    and builds the message from the tool results and the outcomes' texts."""
    project, home, managed, state = (tmp_path / n for n in ("project", "home", "managed", "state"))
    for directory in (project / ".claude", home, managed):
        directory.mkdir(parents=True)
    hook = tmp_path / "hook.sh"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    (project / ".claude" / "settings.json").write_text(json.dumps(recorded_settings(case, hook)))
    calls = recorded_calls(case)
    assert len(calls) == len(outputs), f"{case}: one output per call"
    pieces: List[Piece] = []
    batch: List[ToolCall] = []
    with Client(dialects=["claude"], project=project, home=home, claude_managed_dir=managed, state_dir=state) as latch:
        for i, ((name, tool_input), output) in enumerate(zip(calls, outputs)):
            call_id = f"toolu_fake_00_{i:02d}"
            tool: ToolCall = {"name": name, "input": tool_input, "call_id": call_id}
            before = latch.fire(in_turn({"event": "tool_before", "tool": tool}))
            pieces += pieces_of(before)
            if before["decision"] == "deny":
                pieces.append(ToolResult(call_id, before["notices"][0]["text"], is_error=True))
                continue
            pieces.append(ToolResult(call_id, output))
            after = latch.fire(in_turn({"event": "tool_after", "tool": {**tool, "output": output}}))
            pieces += pieces_of(after)
            batch.append({**tool, "output": output})
        if batch:
            done = latch.fire(in_turn({"event": "tool_batch", "tool_calls": batch}))
            pieces += pieces_of(done)
    return json.loads(json.dumps(user_message(pieces)))


# The MCP server's answer in the round-12 recordings.
MCP_ANSWER = [{"type": "text", "text": "MCP_RESULT echo_tool ORIGINAL_MCP_SENTINEL"}]

CASES: List[Tuple[str, List[Any]]] = [
    # Two PreToolUse contexts on a denied call follow its result, no newline.
    ("r3_deny_slow_plus_context_fast", ["hi"]),
    # PostToolUse contexts on two calls and two PostToolBatch contexts: each
    # call's text folded into its result, then the batch texts into the last.
    ("r3_post_tool_batch_two_contexts", ["one", "two"]),
    ("r3_post_tool_batch_posttooluse_ctx_only", ["one", "two"]),
    # Nothing but tool results before it: the batch text is folded into the last result.
    ("r3_post_tool_batch_context", ["one", "two"]),
    # After a PreToolUse text nothing is folded: [TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH].
    ("r10_seam_two_pre_post_batch", ["one", "two"]),
    ("r10_seam_two_post_first_only_batch", ["one", "two"]),
    ("r10_seam_single_post_ctx_batch", ["hi"]),
    ("r10_seam_single_pre_ctx_batch", ["hi"]),
    # After an MCP tool's list of blocks the texts join the list.
    ("r12_mcp_list_batch_ctx", [MCP_ANSWER]),
    ("r12_mcp_list_post_and_batch", [MCP_ANSWER]),
    ("r12_bash_string_batch_ctx", ["hi"]),
]


@pytest.mark.parametrize(("case", "outputs"), CASES, ids=[c for c, _ in CASES])
def test_the_recorded_message_is_rebuilt(tmp_path: Path, case: str, outputs: List[Any]) -> None:
    recorded = recorded_message(case)
    assert rebuilt_message(tmp_path, case, outputs) == recorded
