#!/usr/bin/env bash
# run_managed.sh CASE...: each case in its OWN private mount namespace whose /etc is an overlay
# (lower = real /etc, upper/work under /tmp/rec-managed/ovl/<case>); checks from outside, before and after
# each case, that the real /etc/claude-code does not exist.
cd "$(dirname "$0")"
for c in "$@"; do
  c=$(basename "$c")
  [ -e /etc/claude-code ] && { echo "ABORT: real /etc/claude-code exists before $c" >&2; exit 9; }
  o=/tmp/rec-managed/ovl/$c; rm -rf "$o"; mkdir -p "$o/u" "$o/w"
  unshare -m --propagation private bash -c '
    set -e
    mount -t overlay overlay -o lowerdir=/etc,upperdir='"$o"'/u,workdir='"$o"'/w /etc
    export R14K_PRIVATE_ETC=1
    ./run_case.sh cases/'"$c"' > cases/'"$c"'.log 2>&1 || echo "run_case rc=$?"
    [ -f cases/'"$c"'/last_run/debug.log ] && cp cases/'"$c"'/last_run/debug.log cases/'"$c"'/debug.log || true
  '
  if [ -e /etc/claude-code ]; then echo "ALERT: real /etc/claude-code exists after $c" >&2; exit 9; fi
  echo "$c: $(tail -1 cases/$c.log) ; /etc/claude-code absent outside (ok)"
done
