"""One user message as Claude Code sends it to the model, built from what a
turn made: tool results, the texts of tool events' hooks, and the texts
Claude Code keeps as attachments.

latch's claude ``context`` texts are Claude Code's, byte for byte, but
Claude Code folds most of them into a tool result instead of sending them
as blocks of their own, and a text block may end with one more ``"\\n"``.
Both depend on the rest of the message, which only the harness knows. A
harness that builds Claude Code's request itself gets the same blocks from
:func:`user_message`: give it the pieces in the order they were made (for
each call its ``PreToolUse`` texts, its result, its ``PostToolUse``
texts; then the batch's ``PostToolBatch`` texts), and it merges them as
Claude Code 2.1.332 does before each request. The rule is in latch's
``docs/dialects/claude.md``, "One user message"; this is the Python twin
of ``latch::dialect::claude::message``.

::

    from latch_client.claude import ToolResult, piece_from_context, user_message

    def texts(outcome):
        return [p for c in outcome.get("context", []) if (p := piece_from_context(c))]

    # One call: tool_before's texts, its result, tool_after's; then tool_batch's.
    pieces = [*texts(before), ToolResult("toolu_1", output), *texts(after), *texts(batch)]
    request["messages"].append({"role": "user", "content": user_message(pieces)})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Literal, Optional, TypedDict, Union

from .types import Context

__all__ = [
    "Attachment",
    "Block",
    "Message",
    "Piece",
    "TextBlock",
    "ToolResult",
    "ToolResultBlock",
    "piece_from_context",
    "user_message",
]


@dataclass(frozen=True)
class ToolResult:
    """A tool's result, a message of its own."""

    tool_use_id: str
    """The ``tool_use`` block's id."""
    content: Union[str, List[Any]]
    """The result as the model reads it: text, or an MCP tool's content
    blocks."""
    is_error: Optional[bool] = None
    """Whether the call failed or was denied. ``None``: ``false`` for a
    text result, and no key for a list, as Claude Code writes them."""


@dataclass(frozen=True)
class Message:
    """A text that is a message of its own: the user's prompt, and the
    reminder after a result a ``PermissionDenied`` hook lets the model
    retry."""

    text: str


@dataclass(frozen=True)
class Attachment:
    """A text Claude Code keeps as an attachment until the request: what a
    tool event's hooks give the model (``PreToolUse``, ``PostToolUse`` and
    ``PostToolUseFailure`` context and blocking errors, ``PostToolBatch``
    context), the answers of ``async`` hooks, and ``UserPromptSubmit``,
    ``UserPromptExpansion``, ``SessionStart`` and ``SubagentStart``
    context."""

    text: str


Piece = Union[ToolResult, Message, Attachment]
"""What Claude Code merges into one user message, each piece as it was made."""


class _ToolResultFields(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: Union[str, List[Any]]


class ToolResultBlock(_ToolResultFields, total=False):
    """A tool result block, with any attachment folded into it (an MCP
    tool's result, a list, has no ``is_error`` unless one was given)."""

    is_error: bool


class TextBlock(TypedDict):
    """A text block."""

    type: Literal["text"]
    text: str


Block = Union[ToolResultBlock, TextBlock]
"""A content block of the user message, as the Messages API reads it."""


#: Placements whose texts are no part of a user message (``compaction_prompt``
#: belongs to the compaction request).
_NOT_IN_A_MESSAGE = ("compaction_prompt", "system_prompt", "after_compaction")

def piece_from_context(entry: Context) -> Optional[Union[Message, Attachment]]:
    """The piece a claude outcome's ``context`` entry is: ``None`` for a text
    that is no part of a user message (``compaction_prompt``), a
    :class:`Message` for an entry marked ``own_message`` (the
    ``PermissionDenied`` retry reminder), else an :class:`Attachment`."""
    if entry["placement"] in _NOT_IN_A_MESSAGE:
        return None
    if entry["placement"] == "after_tool_result" and entry.get("own_message", False):
        return Message(entry["text"])
    return Attachment(entry["text"])


def user_message(pieces: Iterable[Piece]) -> List[Block]:
    """The content blocks of the user message Claude Code sends for
    ``pieces``, given in the order they were made.

    - Each attachment moves back to just after the last tool result made
      before it (or to the front).
    - A piece that is a message of its own, when it starts with a text and
      the blocks so far end with a text, adds ``"\\n"`` to that earlier
      text.
    - An attachment never adds one: it is folded into a tool result that
      ends the blocks so far (a text: the result trimmed, a blank line, the
      text trimmed; an MCP tool's list: its last text block gets ``"\\n"``
      and the text joins the list as a block), or else becomes a text block.
    - Tool results always come first.
    """
    blocks: List[Block] = []
    for piece in _attachments_moved_back(list(pieces)):
        if isinstance(piece, ToolResult):
            result: ToolResultBlock = {
                "type": "tool_result",
                "tool_use_id": piece.tool_use_id,
                "content": piece.content,
            }
            is_error = piece.is_error
            if is_error is None and isinstance(piece.content, str):
                is_error = False
            if is_error is not None:
                result["is_error"] = is_error
            _push_message(blocks, result)
        elif isinstance(piece, Message):
            _push_message(blocks, {"type": "text", "text": piece.text})
        else:
            _push_attachment(blocks, piece.text)
        # Stable: tool results first, everything else in its order.
        blocks.sort(key=lambda b: b["type"] != "tool_result")
    return blocks


def _attachments_moved_back(pieces: List[Piece]) -> List[Piece]:
    """Each attachment moved back to just after the last tool result made
    before it, or to the front when there is none (Claude Code's walk from
    the end, which holds attachments until it meets a tool result)."""
    out: List[Piece] = []
    held: List[Piece] = []
    for piece in reversed(pieces):
        if isinstance(piece, Attachment):
            held.append(piece)
        elif isinstance(piece, ToolResult):
            out.extend(held)
            held.clear()
            out.append(piece)
        else:
            out.append(piece)
    out.extend(held)
    out.reverse()
    return out


def _push_message(blocks: List[Block], block: Block) -> None:
    """Merges a message of its own: a text meeting a text gets ``"\\n"``."""
    if blocks and block["type"] == "text":
        last = blocks[-1]
        if last["type"] == "text":
            last["text"] += "\n"
    blocks.append(block)


def _push_attachment(blocks: List[Block], text: str) -> None:
    """Merges an attachment: into a tool result that ends the blocks so
    far, or as a text block of its own."""
    if blocks:
        last = blocks[-1]
        if last["type"] == "tool_result":
            content = last["content"]
            if isinstance(content, str):
                parts = (_js_trim(content), _js_trim(text))
                last["content"] = "\n\n".join(p for p in parts if p)
                return
            # A list takes the text in as a block of its own, after a
            # newline on its last text (recorded: r12_mcp_list_*), unless
            # it holds a block Claude Code keeps apart. A new list: the
            # piece's stays as it was.
            if not any(_kept_apart(b) for b in content):
                folded = list(content)
                if folded and _is_text(folded[-1]):
                    folded[-1] = {**folded[-1], "text": folded[-1]["text"] + "\n"}
                last["content"] = [*folded, {"type": "text", "text": text}]
                return
    blocks.append({"type": "text", "text": text})


def _is_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def _kept_apart(block: Any) -> bool:
    """A block that keeps Claude Code from folding anything into the list
    holding it: a ``tool_reference`` or a ``search_result``."""
    return isinstance(block, dict) and block.get("type") in ("tool_reference", "search_result")


# JavaScript's `String.prototype.trim`: Unicode White_Space but U+0085,
# plus U+FEFF (Python's `str.strip()` also takes U+001C..U+001F and U+0085).
_JS_SPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)
