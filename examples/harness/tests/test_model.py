"""OpenAIModel against a stand-in OpenAI-compatible endpoint, which also
answers the evener prompt-plugin's prompt hook (examples/evener), there and
under a scripted model."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, Runner, call

from harness import TOOL_NAMES, ModelError, OpenAIModel, Reply
from harness.tools import tool_specs

DENY = {
    "hookSpecificOutput": {
        "permissionDecision": "deny",
        "permissionDecisionReason": "it deletes files outside the project",
    }
}


class Endpoint:
    """``/v1/chat/completions`` on 127.0.0.1: the agent's requests get the
    scripted answers in turn (a message; an int, an HTTP error; a string,
    the whole body as is); a prompt hook's requests (they offer no tools)
    get a deny for `rm -rf`, else ``{}``."""

    def __init__(self, answers: list[dict[str, Any] | int | str]) -> None:
        self.answers = answers
        self.requests: list[tuple[str, str, dict[str, Any]]] = []  # (who, Authorization, body)
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                who = "agent" if "tools" in body else "hook"
                endpoint.requests.append((who, self.headers["Authorization"], body))
                if who == "hook":
                    verdict = DENY if "rm -rf" in body["messages"][0]["content"] else {}
                    answer: dict[str, Any] | int | str = {"role": "assistant", "content": json.dumps(verdict)}
                else:
                    answer = endpoint.answers.pop(0)
                if isinstance(answer, int):
                    self.send_response(answer)
                    self.end_headers()
                    self.wfile.write(b'{"error": {"message": "slow down"}}')
                    return
                reply = {"choices": [{"message": answer, "finish_reason": "stop"}]}
                data = answer.encode() if isinstance(answer, str) else json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def agent_requests(self) -> list[dict[str, Any]]:
        return [body for who, _, body in self.requests if who == "agent"]


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    e = Endpoint([])
    yield e
    e.server.shutdown()
    e.server.server_close()


def tool_call(id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


CALLS = [tool_call("c1", "shell", command="rm -rf ../other"), tool_call("c2", "shell", command="echo hi")]


def test_openai_model_and_prompt_hook(run: Runner, endpoint: Endpoint, tmp_path: Path) -> None:
    endpoint.answers += [
        {"role": "assistant", "content": None, "tool_calls": CALLS},
        {"role": "assistant", "content": "Cleaned up."},
        429,  # the second prompt's request is rate limited
    ]
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Clean up.", "Again."],
        [],
        tools="command",
        model=OpenAIModel("test-model", endpoint.url, "sk-agent"),
        plugin_dirs=[EXAMPLES / "evener" / "prompt-plugin"],
        config={"prompt_base_url": endpoint.url},
        env={"LATCH_PROMPT_API_KEY": "sk-hook"},
    )
    assert s.turns == ["done", "failed"]
    first, second, third = endpoint.agent_requests()
    # The agent's requests: the model, the conversation, every tool.
    assert first["model"] == "test-model"
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert [t["function"]["name"] for t in first["tools"]] == [
        "shell",
        "write_file",
        "delegate",
        "ask_user",
        "create_task",
        "complete_task",
    ]
    # The prompt hook asked the same endpoint (its own model and key) about
    # each Bash call, and denied the rm -rf: its reason is the result.
    hooks = [(auth, body["model"]) for who, auth, body in endpoint.requests if who == "hook"]
    assert hooks == [("Bearer sk-hook", "gpt-5.4-mini")] * 2
    assert second["messages"][-3:] == [
        {"role": "assistant", "content": None, "tool_calls": CALLS},
        {"role": "tool", "tool_call_id": "c1", "content": "it deletes files outside the project"},
        {"role": "tool", "tool_call_id": "c2", "content": "hi\n"},
    ]
    assert {auth for who, auth, _ in endpoint.requests if who == "agent"} == {"Bearer sk-agent"}
    # HTTP 429: stop_failure (rate_limit) instead of stop; the turn failed.
    assert third["messages"][-1]["content"] == [{"type": "text", "text": "Again."}]
    assert "[latch] model request failed (rate_limit): HTTP 429: " in s.out


PROMPT = (
    "A coding agent wants to run the Bash tool with input {input}. If it deletes files outside the project, "
    'reply with {{"hookSpecificOutput":{{"permissionDecision":"deny","permissionDecisionReason":"<why>"}}}}; '
    "otherwise reply with {{}}. Reply with JSON only."
)


def test_prompt_plugin_with_scripted_model(run: Runner, endpoint: Endpoint, tmp_path: Path) -> None:
    # The endpoint is the prompt hook's model only: the agent's is scripted.
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("keep\n")
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Clean up."],
        [
            Reply("", [call("shell", command="rm -rf ../other")]),
            Reply("", [call("write_file", path="NOTES.md", content="kept ../other\n")]),
            Reply("", [call("shell", command="echo hi")]),
            Reply("Done."),
        ],
        tools="command",
        plugin_dirs=[EXAMPLES / "evener" / "prompt-plugin"],
        config={"prompt_base_url": endpoint.url},
        env={"LATCH_PROMPT_API_KEY": "sk-hook"},
    )
    assert s.turns == ["done"]
    # Only the Bash calls (matcher "Bash") were put to the model: the
    # `openai/` prefix removed, $TOOL_NAME and $TOOL_INPUT filled in.
    assert endpoint.requests == [
        (
            "hook",
            "Bearer sk-hook",
            {"model": "gpt-5.4-mini", "messages": [{"role": "user", "content": PROMPT.format(input=i)}]},
        )
        for i in ('{"command":"rm -rf ../other"}', '{"command":"echo hi"}')
    ]
    # Its deny: the reason is the result, and nothing was deleted; its {}
    # lets the other call run.
    assert s.tool_results() == ["it deletes files outside the project", "wrote 14 bytes to NOTES.md", "hi\n"]
    assert (other / "keep.txt").exists()
    assert s.agent.warnings == []


MALFORMED = [
    '{"choices": []}',
    '{"choices": [{"message": "Hello."}]}',
    '{"choices": [{"message": {"content": 7}}]}',
    '{"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function"}]}}]}',
    '{"choices": [{"message": {"tool_calls": [{"function": {"name": "shell", "arguments": "{}"}}]}}]}',
    '{"choices": [{"message": {"tool_calls": [{"id": 1, "function": {"name": "shell", "arguments": "{}"}}]}}]}',
    '{"choices": [{"message": {"tool_calls": "shell"}}]}',
    "[]",
    "not JSON",
]


@pytest.mark.parametrize("body", MALFORMED)
def test_a_malformed_reply_is_a_failed_request(endpoint: Endpoint, body: str) -> None:
    """Whatever shape the endpoint's answer has, a reply that is not one is
    a ModelError (the loop's stop_failure), never a KeyError."""
    endpoint.answers.append(body)
    with pytest.raises(ModelError) as failed:
        OpenAIModel("test-model", endpoint.url, "sk-agent").complete(
            [{"role": "user", "content": "Hi."}], tool_specs(TOOL_NAMES["cmd"])
        )
    assert failed.value.error == "unknown"
