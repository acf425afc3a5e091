#!/usr/bin/env bash
# Session 8, call 2: does a host-side pause before each sample's launch (random or fixed)
# change the wan13b two-mode mix and its window-to-window spread?
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=bundle-exp/bin/ako
L=$OUT/logs; mkdir -p $L
$B run task rmsnorm --shapes wan13b-480p --dtypes bf16 --no-checks --no-progress > $L/warm.txt 2>&1
go() { local name=$1; shift
  for i in 1 2; do
    env "$@" AKO_EXP_REPEATS=8 AKO_EXP_LOG=$OUT/modes-$name.jsonl $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/$name-$i.txt 2>&1
  done
}
go j0 X=1
go j20 AKO_EXP_JITTER_US=20
go j200 AKO_EXP_JITTER_US=200
go d50 AKO_EXP_DELAY_US=50
go j1000 AKO_EXP_JITTER_US=1000
go j0b X=1
AKO_SAMPLE_LOG=$L/samples-j200 AKO_EXP_JITTER_US=200 $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/samples-j200.txt 2>&1
AKO_SAMPLE_LOG=$L/samples-j0 $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/samples-j0.txt 2>&1
python3 - <<'PY' > $OUT/summary.txt
import json, os, collections, statistics as st
for name in ["j0", "j20", "j200", "d50", "j1000", "j0b"]:
    p = os.path.join(os.environ["OUT"], f"modes-{name}.jsonl")
    if not os.path.exists(p): print(name, "missing"); continue
    rows = [json.loads(l) for l in open(p)]
    by = collections.defaultdict(list)
    for r in rows: by[r["label"]].append(r)
    print("==", name)
    for label, rs in sorted(by.items()):
        v = [r["solution"]["iqm"] for r in rs]; n = [r["solution"]["n"] for r in rs]
        ref = [r["reference"]["iqm"] for r in rs if "reference" in r]
        print(f"  {label:28} sol min {min(v):.2f} max {max(v):.2f} spread {100*(max(v)/min(v)-1):.2f}% sd {100*st.stdev(v)/st.mean(v):.2f}% mean {st.mean(v):.2f} n {min(n)}-{max(n)}"
              + (f" | ref spread {100*(max(ref)/min(ref)-1):.2f}% mean {st.mean(ref):.2f}" if ref else ""))
PY
cat $OUT/summary.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
