#!/usr/bin/env bash
# run_r14k.sh CASE...: each case runs in its OWN private mount namespace (unshare -m --propagation private)
# where /etc is an overlay (lower = real /etc, upper/work = fresh dirs under /tmp/r14k/ovl/<case>), so the
# managed settings file written to /etc/claude-code exists only inside that namespace. Afterwards it checks,
# from outside, that the real /etc/claude-code does not exist.
cd "$(dirname "$0")"
for c in "$@"; do
  c=$(basename "$c")
  [ -e /etc/claude-code ] && { echo "ABORT: real /etc/claude-code exists before $c" >&2; exit 9; }
  o=/tmp/r14k/ovl/$c; rm -rf "$o"; mkdir -p "$o/u" "$o/w"
  unshare -m --propagation private bash -c '
    set -e
    mount -t overlay overlay -o lowerdir=/etc,upperdir='"$o"'/u,workdir='"$o"'/w /etc
    export R14K_PRIVATE_ETC=1
    ./run_r13.sh '"$c"'
  '
  if [ -e /etc/claude-code ]; then echo "ALERT: real /etc/claude-code exists after $c" >&2; exit 9; fi
  echo "   outside check after $c: /etc/claude-code absent (ok)"
done
