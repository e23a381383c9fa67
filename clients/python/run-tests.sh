#!/bin/sh
# Run the latch-client test suite in a fresh virtual environment.
#
#   clients/python/run-tests.sh [VENV_DIR]
#
# VENV_DIR defaults to a temporary directory, removed afterwards. The
# package is installed from this directory (a real `pip install`, so the
# packaging is tested too) with pytest from PyPI, and the tests run against
# $LATCH_BIN, by default ../../target/debug/latch relative to this script.
# Extra pytest arguments can be given in $PYTEST_ADDOPTS.
#
# Then, if maturin is installed ($MATURIN, else `maturin` on PATH), the
# latch-bin wheel (bundled/) is built in the dev profile against the target
# directory $LATCH_BIN was built in, installed, and found by Client();
# without maturin that check is skipped, with a message.
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
# The committed schema the server's messages are checked against.
LATCH_SERVE_SCHEMA=${LATCH_SERVE_SCHEMA:-$here/../../schemas/serve.schema.json}
export LATCH_SERVE_SCHEMA
# The docs whose transcripts tests/test_transcripts.py replays.
LATCH_DOCS_DIR=${LATCH_DOCS_DIR:-$here/../../docs}
export LATCH_DOCS_DIR
# The recordings whose user messages tests/test_claude.py rebuilds.
LATCH_RECORDINGS_DIR=${LATCH_RECORDINGS_DIR:-$here/../../recordings}
export LATCH_RECORDINGS_DIR

if [ $# -ge 1 ]; then
    venv=$1
    cleanup=
else
    venv=$(mktemp -d "${TMPDIR:-/tmp}/latch-client-venv.XXXXXX")
    cleanup=$venv
fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
# A copy of the sources, so that building the package writes nothing here.
src=$(mktemp -d "${TMPDIR:-/tmp}/latch-client-src.XXXXXX")
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"; rm -rf "$src"' EXIT
cp -R "$here/pyproject.toml" "$here/README.md" "$here/LICENSE-MIT" "$here/LICENSE-APACHE" "$here/src" "$here/tests" "$src/"
# The packages' license files are copies of the repository's.
for dir in "$here" "$here/bundled"; do
    for license in LICENSE-MIT LICENSE-APACHE; do
        cmp "$dir/$license" "$here/../../$license"
    done
done
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$src[test]"

echo "run-tests.sh: latch-client $("$venv/bin/python" -c 'import latch_client; print(latch_client.__version__)'), latch at $LATCH_BIN"
cd "$src"
# The client's own sources type-check strictly (py.typed promises types),
# and so do its tests, which use them as a harness would.
"$venv/bin/python" -m mypy --strict --no-incremental "$src/src/latch_client" "$src/tests"
# Import the installed package, not the copy of the sources.
rm -rf "$src/src"
PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -p no:cacheprovider "$src/tests"

# The latch-bin wheel, built as bundled/README.md says but in the dev
# profile, against the target directory of $LATCH_BIN (nothing to compile
# again when it is up to date; maturin's output goes to a temporary dir).
maturin=${MATURIN:-$(command -v maturin || true)}
if [ -z "$maturin" ]; then
    echo "run-tests.sh: skipped the latch-bin wheel check: maturin is not installed (pip install \"maturin>=1.5,<2\", then put it on PATH or set MATURIN)"
    exit 0
fi
case $LATCH_BIN in
    */debug/latch) target=${LATCH_BIN%/debug/latch} ;;
    *) target=${CARGO_TARGET_DIR:-$here/../../target} ;;
esac
wheels=$src/wheels
(cd "$here/bundled" && CARGO_TARGET_DIR=$target "$maturin" build --quiet --profile dev --out "$wheels")
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$wheels"/latch_bin-*.whl
# Installed beside latch-client, with no $LATCH_BIN and no latch on PATH.
env -u LATCH_BIN PATH=/usr/bin:/bin "$venv/bin/python" - <<'PY'
import importlib.metadata
import shutil
import tempfile

from latch_bin import find_latch_bin
from latch_client import Client

assert shutil.which("latch") is None, shutil.which("latch")
with tempfile.TemporaryDirectory() as tmp, Client(project=tmp, home=tmp, state_dir=tmp) as latch:
    assert latch.fire({"event": "stop", "session_id": "s"})["decision"] == "proceed"
licenses = importlib.metadata.metadata("latch-bin").get_all("License-File")
assert sorted(licenses or []) == ["LICENSE-APACHE", "LICENSE-MIT"], licenses
print(f"run-tests.sh: the latch-bin wheel's latch ({find_latch_bin()}) is the one Client() found")
PY
"$venv/bin/python" -m pip uninstall --quiet --disable-pip-version-check --yes latch-bin
