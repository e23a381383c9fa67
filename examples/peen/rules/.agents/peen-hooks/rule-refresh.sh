#!/bin/sh
set -eu
invocation="$(cat)"
field() { printf '%s' "$invocation" | jq -r "$1"; }
marker="$(field '.stateDirectory')/refresh-$RULE_ID-$(field '.agentRunId // "root"')"
tokens="$(field '.contextTokens')"
if [ -f "$marker" ]; then
	sent="$(cat "$marker")"
	if [ "$tokens" -ge "$sent" ] && [ $((tokens - sent)) -lt "$REFRESH_TOKENS" ]; then
		exit 0
	fi
fi
printf '%s' "$tokens" >"$marker"
exec jq -n --rawfile rule "$RULE_FILE" '{message: $rule}'
