#!/usr/bin/env bash
# Session 35, call 15 (nvidia-h200; no carry). The SASS of variants/ss-bf16-fp16-twins.cu's two kernels (nvcc, sm_90a,
# cuobjdump -sass on the GPU machine, which has it; this CPU machine's toolkit does not): why the bf16 one runs 8-11%
# slower than its fp16 twin at that launch point (calls 13-14: not the tensors' placement).
# Back: summary.txt (printed last), sass.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
D=bench/results/2026-12-01-h200-session35
nvcc -arch=sm_90a -cubin -O3 -o /tmp/twins.cubin $D/variants/ss-bf16-fp16-twins.cu > $OUT/nvcc.txt 2>&1; echo "nvcc rc=$?" >> $S
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CUOBJ" -sass /tmp/twins.cubin > $OUT/sass.txt 2>&1; echo "cuobjdump rc=$? ($(wc -l < $OUT/sass.txt) lines)" >> $S
python3 - $OUT/sass.txt >> $S <<'PY'
import re, sys
fns, cur = {}, None
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m: cur = "bf16" if "bfloat" in m.group(1) else "fp16"; fns[cur] = []; continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+([^;]+);", line)
    if cur and m: fns[cur].append(m.group(1).strip())
for k, ins in fns.items():
    mem = [(i, x) for i, x in enumerate(ins) if re.match(r"(@\S+\s+)?(LDG|STG|LDC|ULDC|LD|ST)\b", x)]
    print(f"{k}: {len(ins)} instructions; memory ops at: " + ", ".join(f"{i}:{x.split()[0] if not x.startswith('@') else x.split()[1]}" for i, x in mem))
PY
cat $S
