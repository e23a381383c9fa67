#!/bin/sh
# PreToolUse(Write): ask before writing a file outside the project.
payload=$(cat)
case "$payload" in
  *"\"file_path\":\"$CLAUDE_PROJECT_DIR/"*) exit 0 ;;
esac
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "This writes outside the project."}}'
