"""``python -m harness``: run prompts through the loop, print the transcript.

    python -m harness --dialect claude --project ../claude/project "Run the tests"
    python -m harness --dialect poolside --project ../poolside --script turns.json "Install it"

Each prompt is a turn; ``/compact [instructions]``, ``/add-dir PATH``,
``/model NAME`` and ``/NAME ARGS`` (``.harness/commands/NAME.md``, whose
``!`cmd` `` run as it expands) are commands. Without
``--script`` the model is an OpenAI-compatible endpoint
(``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``).
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import sys
from pathlib import Path

from latch_client import Client, Config, LatchError, LatchNotFound
from latch_client.types import Team

from .loop import Agent
from .models import Model, ModelError, OpenAIModel, Reply, ScriptedModel, ToolUse
from .outcomes import describe
from .state import Approval, Note, Policy
from .tools import DEFAULT_NAMES, TOOL_NAMES, Workspace


def load_script(path: Path) -> ScriptedModel:
    """A JSON list of replies: ``[{"text": "...", "calls": [{"name", "input"}]}]``;
    ``{"error": "rate_limit"}`` is a failed request."""
    replies: list[Reply | BaseException] = [
        (
            ModelError(r["error"], f"scripted {r['error']}")
            if "error" in r
            else Reply(
                r.get("text", ""), [ToolUse(c["name"], c.get("input", {})) for c in r.get("calls", [])]
            )
        )
        for r in json.loads(path.read_text())
    ]
    return ScriptedModel(replies)


def ask_terminal(request: Approval) -> bool:
    why = "".join(f"{reason}\n" for reason in request.reasons)  # a hook's reasons to ask
    answer = input(f"{why}Allow {request.action} {json.dumps(request.input)}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def answer_terminal(question: str) -> str | None:
    return input(f"{question}\n> ").strip() or None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m harness", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("prompts", nargs="*", help="one turn per prompt")
    p.add_argument("--dialect", action="append", required=True, choices=sorted(DEFAULT_NAMES))
    p.add_argument("--project", type=Path, default=Path("."), help="the hooks' project, and the workspace")
    p.add_argument("--home", type=Path, help="latch --home (default: yours)")
    p.add_argument("--plugin-dir", type=Path, action="append", default=[], help="evener/claude plugins")
    p.add_argument("--state-dir", type=Path, help="latch's session state")
    p.add_argument("--script", type=Path, help="a scripted model (JSON) instead of an endpoint")
    p.add_argument("--tools", choices=sorted(TOOL_NAMES), help="tool naming (default: by dialect)")
    p.add_argument("--ask", action="append", default=[], metavar="TOOL", help="ask before running TOOL")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--approve", action="store_true", help="approve every permission prompt")
    who.add_argument("-i", "--interactive", action="store_true", help="ask on the terminal")
    p.add_argument("--init", action="store_true", help="set the workspace up first (setup: init)")
    p.add_argument("--maintenance", action="store_true", help="run maintenance first (setup: maintenance)")
    p.add_argument("--worktree", metavar="NAME", help="work in a new worktree NAME")
    p.add_argument("--team", metavar="NAME", help="run as a teammate of agent team NAME")
    p.add_argument("--teammate", metavar="NAME", default="agent", help="this teammate's name")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--token-budget", type=int, help="compact above this many tokens")
    p.add_argument("-v", "--verbose", action="store_true", help="log every hook run")
    args = p.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING, format="%(name)s: %(message)s"
    )

    project = args.project.resolve()
    model: Model = load_script(args.script) if args.script else OpenAIModel()
    names = TOOL_NAMES[args.tools or DEFAULT_NAMES[args.dialect[0]]]
    # Paths from here, not from the server's directory (the project).
    plugin_dirs = [d.resolve() for d in args.plugin_dir]
    config: Config = {"dialects": args.dialect, "project": project, "plugin_dirs": plugin_dirs}
    if args.home:
        config["home"] = args.home.resolve()
    if args.state_dir:
        config["state_dir"] = args.state_dir.resolve()
    policy = Policy(frozenset(args.ask))
    if args.approve:
        policy.approver = lambda request: True
    if args.interactive:
        policy.approver, policy.answerer = ask_terminal, answer_terminal
    team: Team | None = {"team_name": args.team, "teammate_name": args.teammate} if args.team else None
    # The client's notifications, for the agent to tell the user between
    # steps: async hooks that finished, and the hooks reloaded after an edit.
    inbox: queue.SimpleQueue[Note] = queue.SimpleQueue()
    try:
        with Client(config, cwd=project, on_async_result=inbox.put, on_diagnostics=inbox.put) as latch:
            for diagnostic in latch.diagnostics:
                print(f"latch: {describe(diagnostic)}", file=sys.stderr)
            agent = Agent(
                latch,
                model,
                Workspace(project, names),
                policy,
                max_steps=args.max_steps,
                token_budget=args.token_budget,
                inbox=inbox,
                team=team,
            )
            try:
                status = session(agent, args)
            except LatchError:
                raise  # the hooks cannot run now, session_end's either
            except BaseException:
                agent.end()
                raise
            agent.end()
            return status
    except KeyboardInterrupt:  # Ctrl-C outside a turn (a turn's own cancels only that turn)
        print("harness: interrupted", file=sys.stderr)
        return 130
    except LatchNotFound as missing:
        print(f"harness: {missing}; set LATCH_BIN to the latch binary, or put latch on PATH", file=sys.stderr)
        return 2
    except LatchError as error:
        # latch died, did not answer in time, or refused a request. Fail
        # closed: every tool call goes through latch's hooks first, and
        # without an answer no hook can refuse one, so nothing more runs.
        print(f"harness: {error}", file=sys.stderr)
        print("harness: stopped: without latch no hook can check a tool call, so none runs", file=sys.stderr)
        return 2


def session(agent: Agent, args: argparse.Namespace) -> int:
    """Setup, the worktree, then one turn per prompt: the exit status."""
    if args.init:
        agent.setup("init")
    if args.maintenance and not agent.halted:
        agent.setup("maintenance")
    if agent.halted:  # a hook stopped the agent before its first prompt (claude `continue: false`)
        return 1
    if args.worktree:
        problem = agent.create_worktree(args.worktree)
        if problem:
            print(f"harness: no worktree: {problem}", file=sys.stderr)
            return 1
    status = "done"
    for prompt in args.prompts:
        turn = agent.run(prompt)
        status = turn.status
        print(f"[turn] {turn.status}", file=sys.stderr)
    return 0 if status == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
