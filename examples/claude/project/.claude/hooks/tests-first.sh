#!/bin/sh
# Stop: ask for one more round with the tests, once. `stop_hook_active` is
# true when the agent is already going on because of a Stop hook.
payload=$(cat)
case "$payload" in
  *'"stop_hook_active":true'*) exit 0 ;;
esac
echo '{"decision": "block", "reason": "Run make test and report the result before you finish."}'
