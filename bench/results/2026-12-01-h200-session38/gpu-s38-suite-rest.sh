#!/usr/bin/env bash
# Session 38, call 2: the GPU tests call 1 (shard 0 of 2, gpu-s38-suite.sh) did not reach, i.e. the
# rest of shard 0 from ResidualGateNormScaleShift.SureChunks* and all of shard 1. Correctness tests
# first, in three gtest processes side by side (their time is mostly NVRTC compiles of cold
# kernels; ako's compile cache takes concurrent writers), then every test that times or
# profiles, alone, one after another.
#   OUT=$OUT bash bench/results/2026-12-01-h200-session38/gpu-s38-suite-rest.sh   (carry bundle-x, peers)
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
scripts/gpu-unpack-bundle.sh --if-needed >"$OUT/unpack.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/device.txt" 2>&1
export AKO_CACHE_DIR=/tmp/ako-cache AKO_NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
export AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD
T=bundle/bin/ako_gpu_tests
# Shard 0 ran every test of these suites but the ones named here (call 1's log).
RGN=ResidualGateNormScaleShift
p1="$RGN.TokenGroupsAreCorrectAcrossBatchAndFrameBoundaries"
p2="$RGN.WalkedRowsAreCorrectAcrossBatchAndFrameBoundaries:$RGN.SureChunksAreCorrectAcrossBatchAndFrameBoundaries:$RGN.FrameBlindGateMakesResidualOutIncorrect"
p3="NormScaleShift.FoldedRowsAreCorrectAcrossBatchAndFrameBoundaries:NormScaleShift.SureChunksAreCorrectAcrossBatchAndFrameBoundaries:NormScaleShift.FrameBlindCandidateIsIncorrectExactlyOnPerFrameCases"
p4="ScaleShift.*:RunQknorm.EveryShapeDtypeAndFormIsCorrect:RunQknorm.KScaledByQsWeightIsIncorrect:RunRope.*:RunLayernorm.OddWidthsTakeEveryPathAndAreCorrect:RunLayernorm.StreamedPathIsCorrectOnTheTaskWidths:RunGatedAct.NarrowVectorsAndPartialTilesAreCorrect:RunGatedAct.SwappedHalvesAreIncorrectOnEveryGatedCase:RunQknormRope.OtherLaneWidthsAndHeadsPerGroupAreCorrect:RunRmsnorm.EveryShapeAndDtypeIsCorrect:Rmsnorm/AttackKernel.*:Rmsnorm/BrokenKernel.*:Tasks/*:NewKinds/*:Rmsnorm/HonestKernel.*:AttackKernels.HonestSolutionRaisesNoAlarm-Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/hang"
timed="GateGpu.*:InterleavedTiming.TheClockIsReadAndNotThrottled:SizeCopy.*:RunRmsnorm.TimingRepeatsWithinTwoPercentOnLargeShapes:RunRmsnorm.TwoModeShapesStopEarlyAndRepeatWithinOnePercent:RunRmsnorm.WarmCacheRunTakesUnderTenSeconds:Precision.CostOfAFullWarmRmsnormRun:MultiGpuTune.*:KillTune.*:IterateGpu.BaselineIterationAndBestOnAViewTask:AttackKernels.HangIsStoppedOnTheReferencesScale:Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/hang"
t0=$(date +%s)
for i in 1 2 3 4; do
  f=p$i
  timeout ${PAR_TIMEOUT:-330} $T --gtest_filter="${!f}" --gtest_output="json:$OUT/p$i.json" >"$OUT/p$i.log" 2>&1 &
done
wait
t1=$(date +%s)
timeout ${TIMED_TIMEOUT:-230} $T --gtest_filter="$timed" --gtest_output="json:$OUT/timed.json" >"$OUT/timed.log" 2>&1
rc=$?
t2=$(date +%s)
{
  echo "device: $(tail -1 "$OUT/device.txt")"
  echo "correctness, four processes side by side: $((t1 - t0)) s; timing tests alone: $((t2 - t1)) s (rc $rc)"
  for l in p1 p2 p3 p4 timed; do
    echo "$l: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$l.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]|^\[  SKIPPED \]' "$OUT/$l.log" | sed 's/^/    /' | sort -u
    last=$(grep -E '^\[ RUN' "$OUT/$l.log" | tail -1); grep -qE '^\[  (PASSED|FAILED) ' "$OUT/$l.log" || echo "    cut during: $last"
  done
  echo "OK in all: $(cat "$OUT"/p?.log "$OUT/timed.log" | grep -c '^\[       OK \]')"
} | tee "$OUT/summary.txt"
