#!/bin/sh
# FileChanged on .envrc: hand its exports to later Bash calls through
# CLAUDE_ENV_FILE (only `export NAME=value` lines are kept).
payload=$(cat)
case "$payload" in
  *'"event":"unlink"'*) exit 0 ;;
esac
envrc="$CLAUDE_PROJECT_DIR/.envrc"
[ -f "$envrc" ] && [ -n "$CLAUDE_ENV_FILE" ] || exit 0
grep -E '^export [A-Za-z_][A-Za-z0-9_]*=' "$envrc" >> "$CLAUDE_ENV_FILE"
