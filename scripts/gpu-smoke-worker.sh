#!/usr/bin/env bash
# GPU smoke test of ako-worker on its own (no ako, no NVRTC): launch, validation, fault
# handling, CUPTI timing and copy bandwidth, driven by hand-written worker jobs.
#
#   scripts/gpu-smoke-worker.sh prepare   on the CPU machine: builds ako-worker in build-worker,
#                                         compiles the test cubins (nvcc, sm_90a) and writes the
#                                         jobs into build-worker/smoke/
#   scripts/gpu-smoke-worker.sh           on the GPU machine: runs the jobs, checks every
#                                         verdict, writes logs under $OUT (default ./out/smoke-worker)
#                                         and prints a short summary last; exit 1 on a failed check
#
# Device transfer: carry build-worker/ako-worker and build-worker/smoke.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${AKO_WORKER_BUILD:-$ROOT/build-worker}
SMOKE=$BUILD/smoke
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# ---------------------------------------------------------------------------------------------
prepare() {
  cmake -S "$ROOT" -B "$BUILD" -DAKO_BUILD_BENCH=OFF -DAKO_BUILD_TESTS=OFF >/dev/null
  cmake --build "$BUILD" -j1 --target ako-worker
  mkdir -p "$SMOKE"

  # The harness's support kernels, instantiated for every dtype.
  cat > "$SMOKE/support.cu" <<'EOF'
#include "support_kernels.cuh"
#define AKO_INSTANTIATE(T)                                                                          \
  template __global__ void ako_fill_normal<T>(T*, unsigned long long, unsigned long long, float, float); \
  template __global__ void ako_fill_uniform<T>(T*, unsigned long long, unsigned long long, float, float); \
  template __global__ void ako_poison<T>(T*, unsigned long long);                                   \
  template __global__ void ako_compare<T>(const T*, const T*, unsigned long long, float, float, AkoCompareStats*);
AKO_INSTANTIATE(float)
AKO_INSTANTIATE(__half)
AKO_INSTANTIATE(__nv_bfloat16)
EOF

  # Test kernels: references, correct and broken candidates (extern "C": plain names).
  cat > "$SMOKE/kernels.cu" <<'EOF'
#include <cuda_bf16.h>
#define GRID_STRIDE(i, n) \
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < (n); i += 1ull * gridDim.x * blockDim.x)

// out = in * s, the plain way: the reference.
extern "C" __global__ void scale_f32(float* out, const float* in, unsigned long long n, float s) {
  GRID_STRIDE(i, n) out[i] = in[i] * s;
}
// Same result with 16-byte accesses (n % 4 == 0): a correct, different candidate, and the
// "copy-like" kernel of the 512 MiB timing case.
extern "C" __global__ void scale_f32_vec4(float* out, const float* in, unsigned long long n, float s) {
  const unsigned long long n4 = n / 4;
  GRID_STRIDE(i, n4) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    reinterpret_cast<float4*>(out)[i] = v;
  }
  GRID_STRIDE(i, n - 4 * n4) out[4 * n4 + i] = in[4 * n4 + i] * s;
}
// Wrong by 5%: incorrect.
extern "C" __global__ void scale_f32_wrong(float* out, const float* in, unsigned long long n, float s) {
  GRID_STRIDE(i, n) out[i] = in[i] * s * 1.05f;
}
// Leaves the last 100 elements unwritten: the poison (NaN) must fail it.
extern "C" __global__ void scale_f32_skip_tail(float* out, const float* in, unsigned long long n, float s) {
  GRID_STRIDE(i, n - 100) out[i] = in[i] * s;
}
// Writes 4 TB past its output: CUDA_ERROR_ILLEGAL_ADDRESS, a sticky fault.
extern "C" __global__ void scale_f32_illegal(float* out, const float* in, unsigned long long n, float s) {
  GRID_STRIDE(i, n) out[i + (1ull << 40)] = in[i] * s;
}
// Thread 0 traps.
extern "C" __global__ void scale_f32_trap(float* out, const float* in, unsigned long long n, float s) {
  if (blockIdx.x == 0 && threadIdx.x == 0) __trap();
  GRID_STRIDE(i, n) out[i] = in[i] * s;
}
extern "C" __global__ void scale_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, unsigned long long n, float s) {
  GRID_STRIDE(i, n) out[i] = __float2bfloat16_rn(__bfloat162float(in[i]) * s);
}
extern "C" __global__ void scale_bf16_x2(__nv_bfloat16* out, const __nv_bfloat16* in, unsigned long long n, float s) {
  const unsigned long long n2 = n / 2;
  GRID_STRIDE(i, n2) {
    const float2 f = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(in)[i]);
    reinterpret_cast<__nv_bfloat162*>(out)[i] = __floats2bfloat162_rn(f.x * s, f.y * s);
  }
  GRID_STRIDE(i, n - 2 * n2) out[2 * n2 + i] = __float2bfloat16_rn(__bfloat162float(in[2 * n2 + i]) * s);
}
// RMSNorm, one block of 256 threads per row, fp32 accumulation: checked against the CPU
// double reference of op "rmsnorm" (verify/cpu).
extern "C" __global__ void rmsnorm_bf16(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                        int rows, int cols, float eps) {
  __shared__ float partial[256];
  const int r = blockIdx.x;
  if (r >= rows) return;
  const __nv_bfloat16* xr = x + static_cast<long long>(r) * cols;
  float sum = 0.f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) { const float v = __bfloat162float(xr[j]); sum += v * v; }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    const float wj = w ? __bfloat162float(w[j]) : 1.f;
    out[static_cast<long long>(r) * cols + j] = __float2bfloat16_rn(__bfloat162float(xr[j]) * inv * wj);
  }
}
EOF
  "$CUDA_HOME/bin/nvcc" -cubin -arch=sm_90a -I"$ROOT/harness/verify/gpu" -o "$SMOKE/support.cubin" "$SMOKE/support.cu"
  "$CUDA_HOME/bin/nvcc" -cubin -arch=sm_90a -o "$SMOKE/kernels.cubin" "$SMOKE/kernels.cu"
  write_jobs
  # Every name the jobs use must be in its cubin.
  for name in $(grep -h -o '"function": *"[^"]*"' "$SMOKE"/*.json | sed 's/.*"function": *"//; s/"$//' | sort -u) \
              $(grep -h -o '"_Z[^"]*"' "$SMOKE"/*.json | tr -d '"' | sort -u); do
    grep -q -a "$name" "$SMOKE/kernels.cubin" "$SMOKE/support.cubin" || { echo "missing kernel $name" >&2; exit 1; }
  done
  echo "prepared $SMOKE: $(ls "$SMOKE" | tr '\n' ' ')"
}

# --- hand-written jobs --------------------------------------------------------------------------
launch() {  # module function grid block args-json
  printf '{"module": "%s", "function": "%s", "grid": [%s, 1, 1], "block": [%s, 1, 1], "shared_bytes": 0, "args": %s}' \
    "build-worker/smoke/$1" "$2" "$3" "$4" "$5"
}
# a scale case over n elements of dtype: buffers 0 = out, 1 = in; args (out, in, n, 0.5)
scale_case() {  # index dtype n reference-fn solution-fn grid time [solution-block]
  local esize=4
  [ "$2" = fp32 ] || esize=2
  local args='[{"kind": "buffer", "buffer": 0}, {"kind": "buffer", "buffer": 1}, {"kind": "i64", "value": '"$3"'}, {"kind": "f32", "value": 0.5}]'
  cat <<EOF
    {"index": $1, "kind": "compare", "label": "scale $2 n=$3 $5", "dims": {"n": $3},
     "buffers": [{"name": "out", "role": "output", "dtype": "$2", "count": $3},
                 {"name": "in", "role": "input", "dtype": "$2", "count": $3, "init": {"dist": "normal", "a": 0.0, "b": 1.0}}],
     "reference": $(launch kernels.cubin "$4" "$6" 256 "$args"),
     "solution": $(launch kernels.cubin "$5" "$6" "${8:-256}" "$args"),
     "tolerance": {"atol": 1e-2, "rtol": 1e-2}, "trials": 3, "seed": $((1000 + $1)), "time": $7,
     "bytes": $(( 2 * $3 * esize ))}
EOF
}
support_json() {
  local fns="" t
  for t in fp32:f bf16:13__nv_bfloat16 fp16:6__half; do
    local d=${t%%:*} m=${t#*:} s2='S3_'
    [ "$d" = fp32 ] && s2='S2_'
    fns+="\"fill_normal:$d\": \"_Z15ako_fill_normalI${m}EvPT_yyff\", "
    fns+="\"fill_uniform:$d\": \"_Z16ako_fill_uniformI${m}EvPT_yyff\", "
    fns+="\"poison:$d\": \"_Z10ako_poisonI${m}EvPT_y\", "
    fns+="\"compare:$d\": \"_Z11ako_compareI${m}EvPKT_${s2}yffP15AkoCompareStats\", "
  done
  printf '{"module": "build-worker/smoke/support.cubin", "functions": {%s}}' "${fns%, }"
}
timing_json() {  # use_cupti hot
  printf '{"hot": %s, "use_cupti": %s, "warmup_runs": 3, "warmup_ms": 20, "min_samples": 10, "max_samples": 2000, "max_time_s": 0.25, "target_ci_rel": 0.005}' "$2" "$1"
}
job() {  # file use_cupti hot cases...
  local file=$1 cupti=$2 hot=$3; shift 3
  {
    printf '{"protocol": "ako.worker/1", "cache_dir": "%s", "remeasure_bandwidth": false,\n' '$CACHE_DIR'
    printf ' "support": %s,\n "timing": %s,\n "cases": [\n' "$(support_json)" "$(timing_json "$cupti" "$hot")"
    local first=1 c
    for c in "$@"; do
      [ $first = 1 ] || printf ',\n'
      first=0
      printf '%s' "$c"
    done
    printf '\n]}\n'
  } > "$SMOKE/$file"
}

BIG=134217728   # 512 MiB of fp32 in, 512 MiB out
SMALL=4194304   # 16 MiB of fp32
write_jobs() {
  local big_grid=$((132 * 16)) rms_args
  rms_args='[{"kind": "buffer", "buffer": 2}, {"kind": "buffer", "buffer": 0}, {"kind": "buffer", "buffer": 1}, {"kind": "i32", "value": 7}, {"kind": "i32", "value": 3072}, {"kind": "f32", "value": 1e-6}]'
  local rms_case='    {"index": 5, "kind": "reference_check", "op": "rmsnorm", "label": "rmsnorm 7x3072 bf16 vs CPU",
     "dims": {"rows": 7, "cols": 3072}, "scalars": {"eps": 1e-6},
     "buffers": [{"name": "x", "role": "input", "dtype": "bf16", "count": 21504, "init": {"dist": "normal", "a": 0.0, "b": 1.0}},
                 {"name": "weight", "role": "weight", "dtype": "bf16", "count": 3072, "init": {"dist": "uniform", "a": 0.5, "b": 1.5}},
                 {"name": "out", "role": "output", "dtype": "bf16", "count": 21504}],
     "reference": '"$(launch kernels.cubin rmsnorm_bf16 7 256 "$rms_args")"',
     "tolerance": {"atol": 1e-2, "rtol": 1e-2}, "trials": 2, "seed": 7, "time": true}'
  local unknown_op=${rms_case//\"index\": 5/\"index\": 6}
  unknown_op=${unknown_op//\"op\": \"rmsnorm\"/\"op\": \"no_such_op\"}

  # Job A: verdicts of every kind, CUPTI timing, then a sticky fault (exit 3; case 9 never runs).
  job main.json true false \
    "$(scale_case 0 fp32 1048576 scale_f32 scale_f32 1024 true)" \
    "$(scale_case 1 bf16 1048577 scale_bf16 scale_bf16_x2 1024 true)" \
    "$(scale_case 2 fp32 1048576 scale_f32 scale_f32_wrong 1024 true)" \
    "$(scale_case 3 fp32 1048576 scale_f32 scale_f32_skip_tail 1024 true)" \
    "$(scale_case 4 fp32 1048576 scale_f32 scale_f32 1024 true 2048)" \
    "$rms_case" "$unknown_op" \
    "$(scale_case 7 fp32 $BIG scale_f32_vec4 scale_f32_vec4 $big_grid true)" \
    "$(scale_case 8 fp32 $SMALL scale_f32_vec4 scale_f32_vec4 $big_grid true)" \
    "$(scale_case 9 fp32 1048576 scale_f32 scale_f32_illegal 1024 true)" \
    "$(scale_case 10 fp32 1048576 scale_f32 scale_f32 1024 false)"
  # Job B: __trap(), to see which CUDA error it becomes.
  job trap.json true false "$(scale_case 0 fp32 1048576 scale_f32 scale_f32_trap 1024 false)"
  # Job C: the same large and small kernels timed with CUDA events (CUPTI off).
  job events.json false false \
    "$(scale_case 7 fp32 $BIG scale_f32_vec4 scale_f32_vec4 $big_grid true)" \
    "$(scale_case 8 fp32 $SMALL scale_f32_vec4 scale_f32_vec4 $big_grid true)"
  # Job D: hot L2 (no flush) for the 16 MiB kernel.
  job hot.json true true "$(scale_case 8 fp32 $SMALL scale_f32_vec4 scale_f32_vec4 $big_grid true)"
}

# ---------------------------------------------------------------------------------------------
run_on_gpu() {
  OUT=${OUT:-$ROOT/out/smoke-worker}
  mkdir -p "$OUT/jobs" "$OUT/cache"
  local worker=$BUILD/ako-worker
  # The build's rpath names this machine's toolkit lib folder; the GPU image may lay it out
  # differently (targets/x86_64-linux/lib), so fall back to its folders when CUPTI is missing.
  if ldd "$worker" | grep -q 'libcupti.*not found'; then
    export LD_LIBRARY_PATH="$CUDA_HOME/lib64:$CUDA_HOME/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  {
    echo "== ldd"; ldd "$worker" | grep -E 'libcuda|libcupti|not found' || true
    echo "== nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
  } | tee "$OUT/env.txt"
  ldd "$worker" | grep -q 'libcuda.so.1 => /' || { echo "libcuda.so.1 does not resolve" >&2; exit 1; }

  local j rc
  for j in main trap events hot; do
    sed "s|\$CACHE_DIR|$OUT/cache|" "$SMOKE/$j.json" > "$OUT/jobs/$j.json"
    set +e
    ( cd "$ROOT" && "$worker" "$OUT/jobs/$j.json" > "$OUT/$j.jsonl" 2> "$OUT/$j.stderr" )
    rc=$?
    set -e
    echo "$rc" > "$OUT/$j.rc"
    echo "== $j: exit $rc, $(wc -l < "$OUT/$j.jsonl") lines"
    if [ -s "$OUT/$j.stderr" ]; then head -c 2000 "$OUT/$j.stderr"; fi
  done
  python3 - "$OUT" <<'EOF'
import json, sys, os
out = sys.argv[1]
def load(name):
    ev = [json.loads(l) for l in open(os.path.join(out, name + ".jsonl")) if l.strip()]
    rc = int(open(os.path.join(out, name + ".rc")).read())
    return ev, rc
fails = []
def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond: fails.append(what)
def results(ev): return {e["index"]: e["result"] for e in ev if e["event"] == "result"}
def t(r, k): return r.get(k) or {}

def section_main():
    global R, dev
    main, rc = load("main")
    dev = next(e for e in main if e["event"] == "device")["device"]
    note = next(e for e in main if e["event"] == "device").get("message", "")
    R = results(main)
    print(f"device {dev['name']} {dev['arch']} {dev['uuid']} SMs {dev['sm_count']} L2 {dev['l2_bytes']} "
          f"driver {dev['driver_version']} copy {dev['copy_bandwidth_gbs']:.1f} GB/s ({dev['copy_bandwidth_source']}) note='{note}'")
    for i in sorted(R):
        r = R[i]
        rt, st = t(r, "reference_time"), t(r, "solution_time")
        def fmt(x): return (f"{x['method']} med {x['median_us']:.2f}us n={x['samples']} ci {100*x['ci_rel']:.2f}% "
                            f"k/s {x['kernels_per_sample']:.2f} stable {x['stable']}") if x else "-"
        print(f"  case {i}: {r['verdict']} fault='{r.get('fault','')}' | ref {fmt(rt)} | sol {fmt(st)}")
        if r.get("reason"): print(f"    reason: {r['reason']}")
    check(rc == 3, f"main: exit 3 after the sticky fault (got {rc})")
    check(R[0]["verdict"] == "correct", "case 0 (kernel equals reference) correct")
    check(R[1]["verdict"] == "correct", "case 1 (bf16, vectorised candidate) correct")
    check(R[2]["verdict"] == "incorrect" and R[2]["error"]["mismatches"] > 0, "case 2 (wrong by 5%) incorrect")
    check(R[3]["verdict"] == "incorrect" and R[3]["error"]["nonfinite"] == 300, "case 3 (unwritten tail) incorrect, 3 trials x 100 NaN")
    check(R[4]["verdict"] == "failed" and R[4]["fault"] == "invalid_value", "case 4 (block 2048) failed invalid_value, worker went on")
    check(R[5]["verdict"] == "correct" and R[5]["error"]["checked"] == 2 * 21504, "case 5 rmsnorm reference vs CPU double correct")
    check(R[6]["verdict"] == "failed" and "no_such_op" in R[6]["reason"], "case 6 unknown op failed with a reason")
    check(R[9]["verdict"] == "failed" and R[9]["fault"] == "illegal_address", "case 9 illegal address failed")
    check(10 not in R, "case 10 not run after the sticky fault")
    for i in (0, 1, 7, 8):
        for k in ("reference_time", "solution_time"):
            x = t(R[i], k)
            check(x.get("method") == "cupti" and x.get("kernels_per_sample") == 1.0,
                  f"case {i} {k}: cupti, 1 kernel per sample ({x.get('method')}, {x.get('kernels_per_sample')})")
    for i in (0, 7, 8):  # reference and solution are the same kernel in these cases
        a, b = t(R[i], "reference_time")["median_us"], t(R[i], "solution_time")["median_us"]
        print(f"  same kernel timed twice, case {i}: {a:.2f} us vs {b:.2f} us ({100 * (b / a - 1):+.2f}%)")
    big = t(R[7], "solution_time")["median_us"]
    big_gbs = 2 * 134217728 * 4 / (big * 1e-6) / 1e9
    print(f"512 MiB copy-like kernel, cold L2: {big:.1f} us = {big_gbs:.0f} GB/s = "
          f"{100 * big_gbs / dev['copy_bandwidth_gbs']:.1f}% of copy bandwidth {dev['copy_bandwidth_gbs']:.0f} GB/s")

def section_trap():
    trap, trc = load("trap")
    T = results(trap)
    check(trc == 3 and T[0].get("fault") == "trap", f"trap: fault 'trap' and exit 3 (got {T[0].get('fault')}, {trc})")
    print(f"  trap: fault='{T[0].get('fault')}' reason: {T[0].get('reason')}")

def section_events():
    ev, erc = load("events")
    E = results(ev)
    edev = next(e for e in ev if e["event"] == "device")
    check(erc == 0, f"events: exit 0 (got {erc})")
    check(edev["device"]["copy_bandwidth_source"].startswith("cached"), "events job reused the cached copy bandwidth")
    print(f"  events note: {edev.get('message', '')}")
    for i, name in ((7, "512 MiB"), (8, "16 MiB")):
        c = t(R[i], "solution_time"); e = t(E[i], "solution_time")
        check(e.get("method") == "events", f"{name}: events job used events")
        print(f"  {name} cold: cupti {c['median_us']:.2f} us (sd {c['stdev_us']:.2f}), events {e['median_us']:.2f} us "
              f"(sd {e['stdev_us']:.2f}), events/cupti {e['median_us'] / c['median_us']:.4f}")
    ratio = t(E[7], "solution_time")["median_us"] / t(R[7], "solution_time")["median_us"]
    check(abs(ratio - 1) < 0.02, f"large kernel: events and CUPTI agree within 2% ({100*(ratio-1):+.2f}%)")

def section_hot():
    hot, hrc = load("hot")
    H = results(hot)
    h = t(H[8], "solution_time")
    check(hrc == 0 and h.get("cold_l2") is False, "hot job: exit 0, cold_l2 false")
    print(f"  16 MiB: cold {t(R[8], 'solution_time')['median_us']:.2f} us, hot {h['median_us']:.2f} us")

R, dev = {}, {}
for section in (section_main, section_trap, section_events, section_hot):
    try:
        section()
    except Exception as e:  # a missing line or field: report it, go on with the next section
        check(False, f"{section.__name__}: {type(e).__name__}: {e}")
print("SUMMARY: " + ("all checks passed" if not fails else f"{len(fails)} failed: " + "; ".join(fails)))
sys.exit(1 if fails else 0)
EOF
}

case "${1:-run}" in
  prepare) prepare ;;
  run) run_on_gpu ;;
  *) echo "usage: $0 [prepare|run]" >&2; exit 2 ;;
esac
