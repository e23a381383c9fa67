#!/usr/bin/env python3
"""messages.py [CASE...] : messages.json, the user messages latch's tests
rebuild (tests/it/claude_message.rs and the clients' tests), taken from
observed-2.1.332.tar.gz as recorded: for each case, the content of the last
user message of its last main request. Without arguments, the cases already
in messages.json are taken again."""
import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "messages.json")


def last_user_message(observed):
    last = observed["api_main_requests"][-1]
    return [m for m in last["new_messages"] if m["role"] == "user"][-1]["content"]


def main(cases):
    if not cases:
        with open(OUT) as f:
            cases = list(json.load(f))
    messages = {}
    with tarfile.open(os.path.join(HERE, "observed-2.1.332.tar.gz")) as tar:
        for case in sorted(cases):
            f = tar.extractfile(f"cases/{case}/observed.json")
            if f is None:
                sys.exit(f"messages.py: no recording of {case}")
            messages[case] = last_user_message(json.load(f))
    with open(OUT, "w") as f:
        json.dump(messages, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"messages.json: {len(messages)} cases")


if __name__ == "__main__":
    main(sys.argv[1:])
