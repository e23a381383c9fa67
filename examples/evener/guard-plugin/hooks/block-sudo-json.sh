#!/bin/sh
# Blocks sudo with a JSON decision on exit 0.
input=$(cat)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.command // empty' 2>/dev/null) || cmd=""
case "$cmd" in
  *sudo*)
    jq -n '{hookSpecificOutput: {permissionDecision: "deny", permissionDecisionReason: "sudo is not allowed here (guard-plugin, JSON deny)"}}'
    ;;
esac
exit 0
