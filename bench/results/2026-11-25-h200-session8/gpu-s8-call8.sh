#!/usr/bin/env bash
# Session 8, call 8: norm fusions with TOKEN_LOOP (a block loops over tokens on the same
# columns, keeping scale / shift in registers) against the committed configs.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L
run() { local task=$1 shape=$2 name=$3; shift 3
  bundle/bin/ako run task $task --shapes $shape --dtypes bf16 --no-checks --no-progress --json $L/$task-$shape-$name.json "$@" > $L/$task-$shape-$name.txt 2>&1
  echo "$task $shape $name rc=$? $(python3 -c "
import json
j=json.load(open('$L/$task-$shape-$name.json'))
print(' '.join('%.2f(%.1f%%)'%(c['solution_time']['iqm_us'],c.get('pct_copy_bw') or 0) if c.get('solution_time') else c['verdict'] for c in j['cases'] if c['kind']=='compare'))" 2>&1 | tail -1)" | tee -a $OUT/summary.txt
}
P() { echo --param BLOCK=$1 --param ROWS_PER_BLOCK=$2 --param CHUNKS=$3 --param VEC=8 --param EARLY_MOD=$4 --param TOKEN_LOOP=$5 --param MIN_BLOCKS=${6:-0}; }
T=norm_scale_shift
run $T wan14b-480p base
run $T wan14b-480p 640-1-1-em1-tl1 $(P 640 1 1 1 1)
run $T wan14b-480p 640-1-1-em1-tl8 $(P 640 1 1 1 8)
run $T wan14b-480p 640-2-2-em1-tl4 $(P 640 2 2 1 4)
run $T wan13b-480p base
run $T wan13b-480p 384-2-1-em1-tl1 $(P 384 2 1 1 1)
run $T wan13b-480p 384-2-1-em1-tl4 $(P 384 2 1 1 4)
run $T wan13b-480p 384-2-1-em1-tl16 $(P 384 2 1 1 16)
run $T wan13b-480p 768-4-1-em1-tl8 $(P 768 4 1 1 8)
T=residual_gate_norm_scale_shift
run $T wan13b-480p base
run $T wan13b-480p 384-2-1-em1-tl4 $(P 384 2 1 1 4)
run $T wan13b-480p 384-2-1-em1-tl16 $(P 384 2 1 1 16)
run $T wan14b-480p base
run $T wan14b-480p 640-1-1-em1-tl8 $(P 640 1 1 1 8)
run $T wan13b-480p base2
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
