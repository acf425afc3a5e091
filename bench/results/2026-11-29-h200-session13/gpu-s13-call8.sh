#!/usr/bin/env bash
# Session 13, call 8 (carry .sgl-proof of scale_shift, peers): scripts/sglang_port_timing.py after
# it learned to write its JSON after every case: the same port check and engine timing as call 7.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
t0=$(date +%s)
OUT=$OUT/port timeout 300 scripts/sglang-gpu-check.sh --task scale_shift --no-wrapper --engine-timing > $L/port.txt 2>&1
echo "port + engine timing rc=$? $(( $(date +%s) - t0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E 'cases timed' $L/port.txt >> $S
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('json complete', d['complete'], len(d['cases']), 'cases')" \
  $OUT/port/engine-timing-scale_shift.json >> $S 2>&1
ls $OUT/port/*.tmp 2>/dev/null >> $S
python3 scripts/engine_table.py $OUT/port/engine-timing-scale_shift.json | grep -E '^ako vs' >> $S
date -u +%FT%TZ > $L/end.txt
[ -d $OUT/port ] && mv $OUT/port $L/
tar cJf $OUT/call8.tar.xz -C $OUT logs && rm -rf $L
cat $S
