#!/bin/sh
# The marker lives in the project (the hook's working directory); set
# DRIVE_ONCE_MARKER to put it elsewhere.
MARKER="${DRIVE_ONCE_MARKER:-$PWD/.hook-continued}"
if [ -f "$MARKER" ]; then
  exit 0
fi
touch "$MARKER" 2>/dev/null || true
jq -n '{continue: true, hook_specific_output: {additional_context: "You stopped early. Please also write a one-line summary to SUMMARY.md, then stop."}}'
