"""The agent's own tools, which the harness runs rather than the workspace:
``delegate`` (a sub-agent), ``ask_user`` (a question to the user) and the
task list (``create_task``, ``complete_task``).

Fires ``subagent_start`` (then the sub-agent's steps fire their own
events, with ``subagent_stop`` in place of ``stop``: see loop.py),
``elicitation`` -> [``notification``] -> ``elicitation_result``,
``task_created`` and ``task_completed``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from latch_client import Event
from latch_client.types import ElicitationRequest, Task

from .outcomes import Deferred, Halted, Outcomes, blocked_text
from .tools import ToolResult

ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


class OwnTools(Outcomes):
    """The tools that are the agent's own."""

    def delegate(self, prompt: str, agent_type: str) -> ToolResult:
        """A sub-agent: its own conversation and steps, in this session and
        workspace; its last answer is the result."""
        from .loop import Agent  # the sub-agent is an Agent too (loop.py imports this module)

        top = self.top
        top.subagents += 1
        child = Agent(
            self.latch,
            self.model,
            self.workspace,
            self.policy,
            system_prompt=self.system_prompt,
            max_steps=self.max_steps,
            token_budget=self.token_budget,  # its conversation compacts too
            out=self.out,
            err=self.err,
            session_id=self.session_id,
            inbox=self.inbox,
            parent=self,
            agent_id=f"agent-{top.subagents}",
            agent_type=agent_type,
        )
        child.started, child.turn_id, child.system_context = True, self.turn_id, list(self.system_context)
        child.place(child.fire({"event": "subagent_start"}))  # first_user_message: its first input
        child.add_user(prompt)
        turn = child.loop()
        self.events += child.events  # undelivered session events come back to the session
        if turn.status == "deferred":  # the whole turn stops there
            raise Deferred
        if turn.status == "halted":  # so does it here; the halt's reason is for the user only
            raise Halted
        return ToolResult(turn.text, failed=turn.status != "done")

    def ask_user(self, question: str) -> ToolResult:
        """The model asks the user. This harness's own tool server
        (``harness``) asks as a tool server (MCP's ``elicitation/create``)
        does, so hooks may answer in place of the user."""
        form: ElicitationRequest = {
            "server": "harness",
            "message": question,
            "mode": "form",
            "id": f"ask-{uuid.uuid4().hex[:8]}",
            "requested_schema": ANSWER_SCHEMA,
        }
        asked = self.fire({"event": "elicitation", "elicitation": form})
        content: Any = None
        if "elicitation" in asked:  # a hook answered for the user
            action, content = asked["elicitation"]["action"], asked["elicitation"].get("content")
        elif asked["decision"] == "deny":
            action = "decline"
        elif self.policy.answerer is not None:
            self.notify(question, "elicitation_dialog")
            answer = self.policy.answerer(question)
            action, content = ("cancel", None) if answer is None else ("accept", {"answer": answer})
        else:  # no one to answer
            action = "cancel"
        reply: ElicitationRequest = {"server": "harness", "mode": "form", "id": form["id"], "action": action}
        if content is not None:
            reply["content"] = content
        answered = self.fire({"event": "elicitation_result", "elicitation": reply})
        if "elicitation" in answered:  # a hook changed the answer
            action, content = answered["elicitation"]["action"], answered["elicitation"].get("content")
        elif answered["decision"] == "deny":
            action = "decline"
        if action != "accept":
            return ToolResult(f"The user did not answer ({action}).")
        answer_text = content.get("answer") if isinstance(content, dict) else None
        return ToolResult(answer_text if isinstance(answer_text, str) else json.dumps(content))

    def create_task(self, subject: str, description: str) -> ToolResult:
        top = self.top
        task: Task = {"id": str(len(top.tasks) + 1), "subject": subject}
        if description:
            task["description"] = description
        event: Event = {"event": "task_created", "task": task}
        if top.team:
            event["team"] = top.team
        created = self.fire(event)
        if created["decision"] == "deny":  # not created: the tool fails with the hook's text
            return ToolResult(blocked_text(created), failed=True)
        top.tasks[task["id"]] = task
        return ToolResult(f"created task {task['id']}: {subject}")

    def complete_task(self, task_id: str) -> ToolResult:
        top = self.top
        if task_id not in top.tasks:
            return ToolResult(f"no task {task_id}", failed=True)
        event: Event = {"event": "task_completed", "task": top.tasks[task_id]}
        if top.team:
            event["team"] = top.team
        completed = self.fire(event)
        if completed["decision"] == "deny":  # stays open: the tool fails with the hook's text
            return ToolResult(blocked_text(completed), failed=True)
        top.done.add(task_id)
        return ToolResult(f"task {task_id} done")
