#!/usr/bin/env bash
c=$1; cd /tmp/drift/harness
s=$(date +%s.%N)
./run_case.sh cases/$c > cases/$c/run_case.log 2>&1
e=$(date +%s.%N)
echo "$c $(python3 -c "print(round($e-$s,1))") $(tail -1 cases/$c/run_case.log | grep -o 'claude exit [0-9-]*')" >> ${PROGRESS:-/tmp/drift/progress.log}
