"""Compaction: the conversation replaced by a summary the model writes,
when it is over ``--token-budget`` (``auto``) or on ``/compact``
(``manual``).

Fires ``compact_before`` (its ``compaction_prompt`` and
``after_compaction`` context are applied here) and ``compact_after``.
"""

from __future__ import annotations

from typing import Literal

from latch_client.types import Compaction

from .models import ModelError
from .outcomes import Outcomes
from .state import Turn, user_message

COMPACT_PROMPT = (
    "Summarize the conversation so far for your own later use: the task, what was done, "
    "what is left, and every fact you still need. Answer with the summary only."
)


class Compacting(Outcomes):
    """Compacting the conversation."""

    def maybe_compact(self, step: int) -> Turn | None:
        """Compact when the conversation is over the token budget, before
        the turn's model round STEP. A Turn when the turn must end: peen
        refused the compaction; else the turn goes on, compacted or not.
        A refused compaction is tried again (``compact_before`` fired, the
        refusal shown) each round the conversation is still over the
        budget, as Claude Code fires PreCompact again while its context
        stays over the limit."""
        if self.token_budget is None or len(self.messages) < 2 or self.estimate() <= self.token_budget:
            return None
        compacted = self.compact("auto", step=step)
        if compacted.status == "denied" and "peen" in self.latch.dialects:
            return Turn("failed", compacted.text)  # peen: a refused compaction fails the turn
        return None

    def compact(self, trigger: Literal["auto", "manual"], instructions: str = "", step: int = 1) -> Turn:
        """Replace the conversation with a summary the model writes, at the
        turn's model round STEP (``/compact``: its first). How it went:
        ``done``, ``denied`` (a hook refused it) or ``failed`` (the summary
        request failed); unless done, the conversation stays as it was."""
        if len(self.messages) < 2:
            self.say("latch", "nothing to compact")
            return Turn("done", "nothing to compact")
        self.top.compactions += 1
        figures: Compaction = {
            "estimated_tokens": self.estimate(),
            "round": step,  # the model round within the turn
            "messages_covered": len(self.messages),
        }
        if self.token_budget is not None:
            figures["budget_tokens"] = self.token_budget
        if instructions:
            figures["instructions"] = instructions
        before = self.fire({"event": "compact_before", "trigger": trigger, "compaction": figures})
        if before["decision"] == "deny":  # no compaction; whether the turn goes on is the caller's
            return Turn("denied", self.show_refusal(before))
        contexts = before.get("context", [])
        extra = [c["text"] for c in contexts if c["placement"] == "compaction_prompt"]
        request = COMPACT_PROMPT
        if instructions or extra:
            request += "\n\nAdditional Instructions:\n" + "\n".join(
                [*([instructions] if instructions else []), *extra]
            )
        try:
            summary = self.model.complete([*self.conversation(), user_message([request])], []).text
        except ModelError as error:
            self.say("latch", f"compaction failed: {error.details}")
            return Turn("failed", f"compaction failed: {error.details}")
        blocks = [
            summary,
            *(n["text"] for n in before.get("notices", [])),  # a system reminder after compaction
            *(c["text"] for c in contexts if c["placement"] == "after_compaction"),
        ]
        self.messages = [user_message(blocks)]
        self.place(before, notices=False)  # any other placement
        done = f"compacted {figures['messages_covered']} messages"
        self.say("latch", done)
        self.fire(
            {
                "event": "compact_after",
                "trigger": trigger,
                "compaction": {**figures, "summary": summary, "summary_tokens": len(summary) // 4},
            }
        )
        return Turn("done", done)
