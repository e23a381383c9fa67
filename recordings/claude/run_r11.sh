#!/usr/bin/env bash
# run_r11.sh CASE...: run each r11 case with KEEP_TMP=1 (so persisted tool-results files can be listed),
# write r11_detail.json, timeline.txt, normalised debug.log, then remove the sandbox.
cd "$(dirname "$0")"
for c in "$@"; do
  c=$(basename "$c")
  KEEP_TMP=1 ./run_case.sh cases/$c 2>&1 | tail -1
  python3 r11_extract.py cases/$c
  python3 timeline.py cases/$c/last_run cases/$c/timeline.txt >/dev/null
  python3 normdebug.py cases/$c/last_run cases/$c/debug.log
  sb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sandbox"])' cases/$c/last_run/run.json)
  case "$sb" in /tmp/cchooks.*) rm -rf "$sb";; esac
done
