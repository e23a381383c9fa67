#!/bin/sh
input=$(cat)
src=$(printf '%s' "$input" | jq -r '.source // "unknown"' 2>/dev/null) || src="unknown"
jq -n --arg s "$src" '{hook_specific_output: {additional_context: ("Workspace policy (source=" + $s + "): sudo is forbidden in this workspace; hooks are active.")}}'
