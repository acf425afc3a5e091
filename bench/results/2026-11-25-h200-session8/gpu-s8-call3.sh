#!/usr/bin/env bash
# Session 8, call 3: the memset flush enqueued right before the launch (no host gap between
# flush and kernel) against today's flush -> sync -> launch; window-to-window spread on wan13b.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=bundle-exp/bin/ako
L=$OUT/logs; mkdir -p $L
$B run task rmsnorm --no-checks --no-progress > $L/warm.txt 2>&1
go() { local name=$1; shift
  for i in 1 2 3; do
    env "$@" AKO_EXP_REPEATS=8 AKO_EXP_LOG=$OUT/modes-$name.jsonl $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/$name-$i.txt 2>&1
  done
}
go j0 X=1
go fiw AKO_EXP_FLUSH_IN_WINDOW=1
go j0b X=1
go fiwb AKO_EXP_FLUSH_IN_WINDOW=1
AKO_SAMPLE_LOG=$L/samples-fiw AKO_EXP_FLUSH_IN_WINDOW=1 $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/samples-fiw.txt 2>&1
for i in 1 2; do
  $B run task rmsnorm --no-progress --json $L/full-j0-$i.json > $L/full-j0-$i.txt 2>&1
  AKO_EXP_FLUSH_IN_WINDOW=1 $B run task rmsnorm --no-progress --json $L/full-fiw-$i.json > $L/full-fiw-$i.txt 2>&1
done
python3 - <<'PY' > $OUT/summary.txt
import json, os, collections, statistics as st
O = os.environ["OUT"]
for name in ["j0", "fiw", "j0b", "fiwb"]:
    p = os.path.join(O, f"modes-{name}.jsonl")
    if not os.path.exists(p): print(name, "missing"); continue
    rows = [json.loads(l) for l in open(p)]
    by = collections.defaultdict(list)
    for r in rows: by[r["label"]].append(r)
    print("==", name)
    for label, rs in sorted(by.items()):
        v = [r["solution"]["iqm"] for r in rs]; n = [r["solution"]["n"] for r in rs]
        ref = [r["reference"]["iqm"] for r in rs if "reference" in r]
        fi = [r["baseline flashinfer"]["iqm"] for r in rs if "baseline flashinfer" in r]
        print(f"  {label:28} sol spread {100*(max(v)/min(v)-1):.2f}% sd {100*st.stdev(v)/st.mean(v):.2f}% mean {st.mean(v):.2f} n {min(n)}-{max(n)}"
              + (f" | ref spread {100*(max(ref)/min(ref)-1):.2f}% mean {st.mean(ref):.2f}" if ref else "")
              + (f" | fi spread {100*(max(fi)/min(fi)-1):.2f}% mean {st.mean(fi):.2f}" if fi else ""))
L = os.path.join(O, "logs")
def load(f):
    j = json.load(open(os.path.join(L, f)))
    return {c["label"] if "label" in c else (c["shape"], c["dtype"], json.dumps(c.get("flags"))): c for c in j["cases"] if c["kind"] == "compare"}
try:
    a1, a2, b1, b2 = (load(f"full-{m}-{i}.json") for m, i in [("j0",1),("j0",2),("fiw",1),("fiw",2)])
    print("== full rmsnorm: solution IQM, today (two runs) vs flush-in-window (two runs); worst run-to-run")
    wa = wb = 0
    for k in a1:
        x1, x2 = a1[k]["solution_time"]["iqm_us"], a2[k]["solution_time"]["iqm_us"]
        y1, y2 = b1[k]["solution_time"]["iqm_us"], b2[k]["solution_time"]["iqm_us"]
        wa = max(wa, abs(x1/x2-1)); wb = max(wb, abs(y1/y2-1))
        print(f"  {str(k)[:60]:60} {x1:8.2f} {x2:8.2f} | {y1:8.2f} {y2:8.2f}  fiw/today {((y1+y2)/(x1+x2)):.3f}")
    print(f"  worst run-to-run: today {100*wa:.2f}%  fiw {100*wb:.2f}%")
except Exception as e:
    print("full compare failed:", e)
PY
grep -h "^wall\|SPEEDUP" $L/full-*.txt >> $OUT/summary.txt
cat $OUT/summary.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
