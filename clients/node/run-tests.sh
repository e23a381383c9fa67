#!/bin/sh
# Installs, builds and tests the Node client against a latch binary.
# LATCH_BIN: the binary under test (default: ../../target/debug/latch from
# this script's directory; a relative value is taken from the current one).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LATCH_BIN=${LATCH_BIN:-$here/../../target/debug/latch}
case $LATCH_BIN in
  /*) ;;
  *) LATCH_BIN=$(pwd)/$LATCH_BIN ;;
esac
if [ ! -x "$LATCH_BIN" ]; then
  echo "run-tests.sh: no latch binary at $LATCH_BIN (build it, or set LATCH_BIN)" >&2
  exit 1
fi
export LATCH_BIN
cd "$here"
npm ci --no-audit --no-fund
npm test
