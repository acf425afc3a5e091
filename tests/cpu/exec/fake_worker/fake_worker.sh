#!/usr/bin/env bash
# Stand-in for ako-worker in the worker-client tests: speaks the worker protocol
# (harness/exec/protocol/job.hpp) from a script instead of running kernels.
#
#   [--await] $1       the job file the client wrote (--await: started before it existed, it
#                      waits for it); each case's label names its behaviour
#   FAKE_WORKER_DIR    folder prepared by the test: device.json and result-<index>.json (whole
#                      event lines made by the C++ serialisers), early-report.json (optional: the
#                      --await worker's device report); this script appends the case indices of
#                      every start it sees to starts.log
#   FAKE_WORKER_START  comma list, one entry per start (the last repeats): ok | die | fatal | hang
#
# Case labels: ok, hang (never answers), crash (SIGSEGV mid-case), sticky (failed result, then
# exit 3), silent_exit (exit 0 mid-case), garbage (noise lines between the events),
# baseline_sticky (the first baseline-<index>-<name>.json, a baseline_failed event, whose baseline
# the job still lists, then exit 3), baseline_oob (every such event, each followed by the case's
# begin again, as a worker whose context survived runs the case again at once).
set -u
ulimit -c 0   # the crash case must not leave core files behind
dir=${FAKE_WORKER_DIR:?FAKE_WORKER_DIR is not set}
if [ "$1" = --await ]; then   # started ahead of its job (PrestartedWorker): wait for the file
  echo "$2" >> "$dir/awaited.log"
  # The early device report (exec/protocol/device_report.hpp), when the test prepared one.
  if [ -e "$dir/early-report.json" ]; then cp "$dir/early-report.json" "$2.device.tmp" && mv "$2.device.tmp" "$2.device"; fi
  while [ ! -e "$2" ]; do sleep 0.01; done
  shift
fi
job=$1

# The client writes compact JSON; each case has exactly one "index" and one "label" key.
mapfile -t indices < <(grep -o '"index":[0-9]*' "$job" | cut -d: -f2)
mapfile -t labels < <(grep -o '"label":"[^"]*"' "$job" | cut -d'"' -f4)
echo "${indices[*]}" >> "$dir/starts.log"
start=$(wc -l < "$dir/starts.log")

IFS=, read -ra plan <<< "${FAKE_WORKER_START:-ok}"
mode=${plan[$(( start <= ${#plan[@]} ? start - 1 : ${#plan[@]} - 1 ))]}
case $mode in
  die) echo "fake worker: cannot create a context (start $start)" >&2; exit 1 ;;
  fatal) echo '{"event":"fatal","message":"no CUDA device"}'; echo "fake worker: giving up" >&2; exit 2 ;;
  hang) sleep 30; exit 0 ;;
esac
cat "$dir/device.json"

for k in "${!indices[@]}"; do
  i=${indices[$k]}
  echo "{\"event\":\"begin\",\"index\":$i}"
  echo "{\"event\":\"phase\",\"index\":$i,\"phase\":\"validate\"}"
  case ${labels[$k]} in
    hang) sleep 30 ;;
    crash) echo "fake worker: illegal memory access in case $i" >&2; kill -SEGV $$ ;;
    sticky) cat "$dir/result-$i.json"; echo "fake worker: sticky fault, exiting" >&2; exit 3 ;;
    silent_exit) exit 0 ;;
    baseline_sticky)   # the first blame file whose baseline the job still lists, then exit
      for f in "$dir"/baseline-"$i"-*.json; do
        [ -e "$f" ] || continue
        name=${f##*/baseline-"$i"-}; name=${name%.json}
        if grep -q "\"name\":\"$name\"" "$job"; then cat "$f"; echo "fake worker: trap in baseline $name" >&2; exit 3; fi
      done ;;
    baseline_oob)   # each blame file, each followed by the case's new begin
      for f in "$dir"/baseline-"$i"-*.json; do
        [ -e "$f" ] || continue
        cat "$f"; echo "{\"event\":\"begin\",\"index\":$i}"
      done ;;
    garbage) echo "not json at all"; echo ""; echo '{"event": "begin", "index":'; echo '{"event":"bogus"}' ;;
  esac
  echo "{\"event\":\"phase\",\"index\":$i,\"phase\":\"time_reference\"}"
  cat "$dir/result-$i.json"
done
exit 0
