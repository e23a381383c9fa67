#!/bin/sh
# Run the example harness's tests in a fresh virtual environment.
#
#   examples/harness/run-tests.sh [VENV_DIR]
#
# VENV_DIR defaults to a temporary directory, removed afterwards. latch-client
# is installed from clients/python (from a copy, so that nothing is written
# there), with pytest 9 and mypy 2 from PyPI (the major versions the tests
# and the typing were checked with); the tests run against $LATCH_BIN,
# by default ../../target/debug/latch relative to this script, and then
# `mypy --strict` checks the harness and its tests. Extra pytest arguments
# can be given in $PYTEST_ADDOPTS.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}

if [ -z "${LATCH_BIN:-}" ]; then
    LATCH_BIN="$here/../../target/debug/latch"
fi
if [ ! -x "$LATCH_BIN" ]; then
    echo "run-tests.sh: no latch binary at $LATCH_BIN (build it, or set LATCH_BIN)" >&2
    exit 2
fi
LATCH_BIN=$(cd "$(dirname "$LATCH_BIN")" && pwd)/$(basename "$LATCH_BIN")
export LATCH_BIN

work=$(mktemp -d "${TMPDIR:-/tmp}/latch-harness.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
    venv=$1
else
    venv=$work/venv
fi

"$python" -m venv "$venv"
pip() { "$venv/bin/python" -m pip --quiet --disable-pip-version-check "$@"; }
cp -R "$here/../../clients/python" "$work/client"
pip install "$work/client" "pytest>=9,<10" "mypy>=2,<3"

# Caches go nowhere (pytest, bytecode) or into $work (mypy).
cd "$here"
export PYTHONDONTWRITEBYTECODE=1
echo "run-tests.sh: latch at $LATCH_BIN"
"$venv/bin/python" -m pytest -p no:cacheprovider tests
"$venv/bin/python" -m mypy --strict --cache-dir "$work/mypy-cache" harness tests
