#!/bin/sh
input=$(cat)
out=$(printf '%s' "$input" | jq -r '.tool_output // empty' 2>/dev/null) || out=""
case "$out" in
  *sudo*)
    printf '%s' "$input" | jq -c '{hook_specific_output: {updated_tool_output: (((.tool_output // "") | gsub("sudo"; "[sudo-redacted]")) + "\n-- reviewed by redact hook")}}'
    ;;
  *)
    exit 0
    ;;
esac
