"""The peen examples (examples/peen/*): deny, inject, emitEvent, command;
and inline hooks for postUserMessage and turnCancelled."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import EXAMPLES, Example, Runner, call, texts
from harness import Reply


def test_no_rm_rf_and_test_reminder(run: Runner, example: Example) -> None:
    # test-reminder is peen's configuration layer, no-rm-rf the workspace.
    s = run(
        ["peen"],
        example("peen/no-rm-rf"),
        ["Clean up."],
        [
            Reply("", [call("runCommand", command="rm -rf /")]),
            Reply("Nothing to clean."),
        ],
        tools="peen",
        peen_config_dir=EXAMPLES / "peen/test-reminder",
    )
    assert s.turns == ["done"]
    # turnStart's inject lands in the system prompt, as a <hook> block.
    assert s.seen(0)[0]["content"].endswith(
        "<hook>\n<event>turnStart</event>\n\nRun make test before you say the work is done.\n</hook>"
    )
    # A peen deny: its reason, verbatim, is the tool result.
    assert s.seen(1)[-1]["content"] == "Refusing to run rm -rf on the filesystem root."


def test_no_rm_rf_refuses_absolute_paths_only(run: Runner, example: Example, tmp_path: Path) -> None:
    # The regex is unanchored: any `rm -rf /...` is refused, and does not run.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    project = example("peen/no-rm-rf")
    (project / "build").mkdir()
    s = run(
        ["peen"],
        project,
        ["Clean up."],
        [
            Reply("", [call("runCommand", command=f"rm -rf {outside}")]),
            Reply("", [call("runCommand", command="rm -rf build && echo removed")]),
            Reply("Cleaned build."),
        ],
        tools="peen",
    )
    assert s.turns == ["done"]
    assert s.tool_results() == ["Refusing to run rm -rf on the filesystem root.", "removed\n"]
    assert (outside / "keep.txt").read_text() == "keep\n"  # the denied call never ran
    assert not (project / "build").exists()  # a relative rm -rf is not the hook's business


def test_migration_event_and_gofmt(run: Runner, example: Example) -> None:
    project = example("peen/migration-changed")
    path = f"{EXAMPLES / 'peen/bin'}{os.pathsep}{os.environ['PATH']}"  # the gofmt stand-in
    s = run(
        ["peen"],
        project,
        ["Add a migration."],
        [
            Reply(
                "", [call("writeFile", path="db/migrations/002_users.sql", content="create table users();\n")]
            ),
            Reply("", [call("writeFile", path="main.go", content="package main\n")]),
            Reply("Added."),
        ],
        tools="peen",
        env={"PATH": path},
        peen_config_dir=EXAMPLES / "peen/gofmt",
    )
    # emitEvent: the published event reaches the model as data, in an <events> block.
    assert texts(s.seen(1)[-1]) == [
        '<events>\n{"type": "repo.migration.changed", "summary": "A migration file changed. Run make migrate-check."}\n</events>'
    ]
    # postWriteFile ran gofmt -l -w . in the workspace.
    assert (project / ".gofmt.log").read_text() == "-l\n-w\n.\n"
    assert s.turns == ["done"]


def test_migration_changed_only_for_migrations(run: Runner, example: Example) -> None:
    # `path: "db/migrations/*.sql"`: a write to db/seed.sql publishes nothing.
    s = run(
        ["peen"],
        example("peen/migration-changed"),
        ["Seed the users table, then add a migration."],
        [
            Reply("", [call("writeFile", path="db/seed.sql", content="insert into users values (1);\n")]),
            Reply(
                "", [call("writeFile", path="db/migrations/003_orders.sql", content="create table orders();\n")]
            ),
            Reply("Added."),
        ],
        tools="peen",
    )
    assert s.turns == ["done"]
    # After the seed: its result is the model's last input; no <events> block.
    assert s.seen(1)[-1]["role"] == "tool"
    assert "<events>" not in str(s.seen(1))
    # After the migration: the published event, as data.
    assert texts(s.seen(2)[-1]) == [
        '<events>\n{"type": "repo.migration.changed", "summary": "A migration file changed. Run make migrate-check."}\n</events>'
    ]


def test_rules_and_no_force_push(run: Runner, example: Example) -> None:
    # rules is the workspace (it needs jq); no-force-push peen's configuration layer.
    project = example("peen/rules")
    s = run(
        ["peen"],
        project,
        ["Add a hello program, then push it."],
        [
            Reply("", [call("writeFile", path="hello/main.go", content="package main\n")]),
            Reply("", [call("writeFile", path="hello/main.go", content="package main\n")]),
            Reply("", [call("runCommand", command="git push --force origin main")]),
            Reply("Written; not pushed."),
        ],
        tools="peen",
        peen_config_dir=EXAMPLES / "peen/no-force-push",
    )
    assert s.turns == ["done"]
    rule = (project / ".agents/peen-hooks/rules/go.md").read_text()
    # preWriteFile: the first write of a new .go file is denied with the
    # rule as the reason; the second goes through (the rule's marker is in
    # the session's state directory, keyed by the context size we send).
    first, second = s.tool_results()[:2]
    assert first == rule
    assert second == "wrote 13 bytes to hello/main.go"
    # postWriteFile: the rule, refreshed, in a <hook> block after the result.
    assert texts(s.seen(2)[-1]) == [
        f"<hook>\n<event>postWriteFile</event>\n<tool>writeFile</tool>\n\n{rule}</hook>"
    ]
    # no-force-push: its reason, verbatim, is the result.
    assert s.tool_results()[2] == "Never force-push. Push a new commit instead."


def test_rules_refresh_after_compaction(run: Runner, example: Example) -> None:
    """rule-refresh.sh sends the rule after a .go write when this
    conversation never had it, not again while the context grew by less
    than REFRESH_TOKENS, and again once compaction shrank it."""
    project = example("peen/rules")
    s = run(
        ["peen"],
        project,
        ["Add a hello program.", "/compact", "Document it."],
        [
            Reply("", [call("writeFile", path="hello/main.go", content="package main\n")]),  # denied: the rule
            Reply("", [call("writeFile", path="hello/main.go", content="package main\n")]),
            Reply("", [call("writeFile", path="hello/util.go", content="package main\n")]),
            Reply("Written."),
            Reply("Wrote hello/main.go and hello/util.go."),  # the summary
            Reply("", [call("writeFile", path="hello/main.go", content="// Hello.\npackage main\n")]),
            Reply("Documented."),
        ],
        tools="peen",
    )
    assert s.turns == ["done", "done", "done"]
    rule = (project / ".agents/peen-hooks/rules/go.md").read_text()
    refreshed = f"<hook>\n<event>postWriteFile</event>\n<tool>writeFile</tool>\n\n{rule}</hook>"
    assert s.seen(1)[-1]["content"] == rule
    assert texts(s.seen(2)[-1]) == [refreshed]
    # hello/util.go: a new file, but the rule was delivered; not refreshed yet.
    assert (s.seen(3)[-1]["role"], s.seen(3)[-1]["content"]) == ("tool", "wrote 13 bytes to hello/util.go")
    # After /compact (the summary is all that is left of the first turn) the
    # context is smaller than when the rule was sent: it is sent again.
    assert [texts(m) for m in s.seen(5)[1:]] == [["Wrote hello/main.go and hello/util.go."], ["Document it."]]
    assert texts(s.seen(6)[-1]) == [refreshed]
    assert (project / "hello/main.go").read_text() == "// Hello.\npackage main\n"


HOOKS = """\
version: 1
postUserMessage:
  - name: style
    actions:
      - type: inject
        message: Answer in one sentence.
turnCancelled:
  - name: log-cancel
    actions:
      - type: command
        command: /bin/sh
        args: ["-c", "cat > cancelled.json"]
"""


def test_prompt_ready_and_cancelled_turn(run: Runner, tmp_path: Path) -> None:
    config = tmp_path / "peen-config"
    (config / ".agents").mkdir(parents=True)
    (config / ".agents" / "hooks.yaml").write_text(HOOKS)
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["peen"],
        project,
        ["Count the files.", "Count them again."],
        [Reply("", [call("runCommand", command="ls | wc -l")]), KeyboardInterrupt(), Reply("Two.")],
        tools="peen",
        peen_config_dir=config,
    )
    # Ctrl-C while the model works: turn_cancelled (turnCancelled ran), and
    # the next prompt is a new turn.
    assert s.turns == ["cancelled", "done"]
    cancelled = json.loads((project / "cancelled.json").read_text())
    assert (cancelled["event"], cancelled["input"]) == ("turnCancelled", {"reason": "cancelled"})
    # user_prompt_ready: postUserMessage's inject is in this turn's system prompt.
    style = "<hook>\n<event>postUserMessage</event>\n\nAnswer in one sentence.\n</hook>"
    assert s.seen(0)[0]["content"].endswith(style)
    assert s.seen(2)[0]["content"].endswith(style) and s.seen(2)[0]["content"].count(style) == 1
