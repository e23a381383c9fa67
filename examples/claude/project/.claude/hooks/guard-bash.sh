#!/bin/sh
# PreToolUse(Bash): refuse destructive commands with exit 2 (stderr is the
# reason Claude Code shows the model), rewrite `npm test` to `make test`,
# and let everything else through. Reads the payload on stdin.
payload=$(cat)
case "$payload" in
  *'"command":"rm -rf /'*|*'"command":"rm -rf ~'*)
    echo "Refusing to delete the whole tree; name the files instead." >&2
    exit 2 ;;
  *'"command":"npm test"'*)
    echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "make test is the test runner here", "updatedInput": {"command": "make test"}}}'
    exit 0 ;;
esac
exit 0
