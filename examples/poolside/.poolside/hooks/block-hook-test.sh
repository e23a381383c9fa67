#!/bin/sh
input=$(cat)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.cmd // empty' 2>/dev/null) || cmd=""
case "$cmd" in
  *"echo hook-test"*)
    echo "The hook test command was blocked (blocked by block-hook-test hook)" >&2
    exit 2
    ;;
esac
exit 0
