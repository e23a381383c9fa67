#!/bin/sh
set -eu
invocation="$(cat)"
field() { printf '%s' "$invocation" | jq -r "$1"; }
target="$(field '.paths[0] // ""')"
[ -n "$target" ] && [ ! -e "$target" ] || exit 0
marker="$(field '.stateDirectory')/rule-$RULE_ID-$(field '.agentRunId // "root"')"
tokens="$(field '.contextTokens')"
if [ -f "$marker" ] && [ "$tokens" -ge "$(cat "$marker")" ]; then
	exit 0
fi
printf '%s' "$tokens" >"$marker"
exec jq -n --rawfile rule "$RULE_FILE" '{decision: "deny", reason: $rule}'
