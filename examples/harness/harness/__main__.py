"""``python -m harness``: run prompts through the loop, print the transcript.

    python -m harness --dialect claude --project ../claude/project "Run the tests"
    python -m harness --dialect poolside --project ../poolside --script turns.json "Install it"

Without ``--script`` the model is an OpenAI-compatible endpoint
(``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from latch_client import Client

from .loop import Agent, Policy
from .models import Model, OpenAIModel, Reply, ScriptedModel, ToolUse
from .tools import DEFAULT_NAMES, TOOL_NAMES, Workspace


def load_script(path: Path) -> ScriptedModel:
    """A JSON list of replies: ``[{"text": "...", "calls": [{"name", "input"}]}]``."""
    replies = [
        Reply(r.get("text", ""), [ToolUse(c["name"], c.get("input", {})) for c in r.get("calls", [])])
        for r in json.loads(path.read_text())
    ]
    return ScriptedModel(replies)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m harness", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("prompts", nargs="+", help="one turn per prompt")
    p.add_argument("--dialect", action="append", required=True, choices=sorted(DEFAULT_NAMES))
    p.add_argument("--project", type=Path, default=Path("."), help="the hooks' project, and the workspace")
    p.add_argument("--home", type=Path, help="latch --home (default: yours)")
    p.add_argument("--plugin-dir", type=Path, action="append", default=[], help="evener/claude plugins")
    p.add_argument("--state-dir", type=Path, help="latch's session state")
    p.add_argument("--script", type=Path, help="a scripted model (JSON) instead of an endpoint")
    p.add_argument("--tools", choices=sorted(TOOL_NAMES), help="tool naming (default: by dialect)")
    p.add_argument("--ask", action="append", default=[], metavar="TOOL", help="ask before running TOOL")
    p.add_argument("--approve", action="store_true", help="approve every permission prompt")
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
    config = {"dialects": args.dialect, "project": project, "plugin_dirs": args.plugin_dir}
    if args.home:
        config["home"] = args.home
    if args.state_dir:
        config["state_dir"] = args.state_dir
    policy = Policy(frozenset(args.ask), (lambda name, a: True) if args.approve else Policy().approver)
    with Client(config, cwd=project) as latch:
        for diagnostic in latch.diagnostics:
            print(f"latch: {diagnostic['severity']}: {diagnostic['message']}", file=sys.stderr)
        agent = Agent(
            latch,
            model,
            Workspace(project, names),
            policy,
            max_steps=args.max_steps,
            token_budget=args.token_budget,
        )
        status = "done"
        try:
            for prompt in args.prompts:
                turn = agent.run(prompt)
                status = turn.status
                print(f"[turn] {turn.status}", file=sys.stderr)
                if turn.status == "halted":
                    break
        finally:
            agent.end()
    return 0 if status == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
