"""The peen examples (examples/peen/*): deny, inject, emitEvent, command."""

from __future__ import annotations

import os

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
