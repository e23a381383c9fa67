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

    def maybe_compact(self) -> Turn | None:
        """Compact when the conversation is over the token budget."""
        if self.token_budget is None or len(self.messages) < 2 or self.estimate() <= self.token_budget:
            return None
        return self.compact("auto")

    def compact(self, trigger: Literal["auto", "manual"], instructions: str = "") -> Turn | None:
        """Replace the conversation with a summary the model writes. A Turn
        when the turn must end (peen refused the compaction)."""
        if len(self.messages) < 2:
            self.say("latch", "nothing to compact")
            return None
        top = self.top
        top.compactions += 1
        figures: Compaction = {
            "estimated_tokens": self.estimate(),
            "round": top.compactions,
            "messages_covered": len(self.messages),
        }
        if self.token_budget is not None:
            figures["budget_tokens"] = self.token_budget
        if instructions:
            figures["instructions"] = instructions
        before = self.fire({"event": "compact_before", "trigger": trigger, "compaction": figures})
        if before["decision"] == "deny":
            if trigger == "auto" and "peen" in self.latch.dialects:  # peen: the turn fails
                return self.refuse_turn("failed", before)
            self.say(
                "latch", "compaction refused: " + "; ".join(r["text"] for r in before.get("reasons", []))
            )
            return None
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
            return None
        blocks = [
            summary,
            *(n["text"] for n in before.get("notices", [])),  # a system reminder after compaction
            *(c["text"] for c in contexts if c["placement"] == "after_compaction"),
        ]
        self.messages = [user_message(blocks)]
        self.place(before, notices=False)  # any other placement
        self.say("latch", f"compacted {figures['messages_covered']} messages")
        self.fire(
            {
                "event": "compact_after",
                "trigger": trigger,
                "compaction": {**figures, "summary": summary, "summary_tokens": len(summary) // 4},
            }
        )
        return None
