#!/bin/sh
# Blocks sudo with exit 2: the failure text (stderr) becomes the deny reason.
input=$(cat)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.command // empty' 2>/dev/null) || cmd=""
case "$cmd" in
  *sudo*)
    echo "sudo is not allowed here (guard-plugin, exit 2)" >&2
    exit 2
    ;;
esac
exit 0
