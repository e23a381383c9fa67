#!/bin/sh
input=$(cat)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.cmd // empty' 2>/dev/null) || cmd=""
case "$cmd" in
  *sudo*)
    echo "sudo is forbidden in this workspace (blocked by block-sudo hook)" >&2
    exit 2
    ;;
esac
exit 0
