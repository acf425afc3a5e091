#!/usr/bin/env bash
# Build, on this CPU machine, a bundle that runs on the GPU machine (Ubuntu 24.04, CUDA 13.0,
# no libgit2 or other -dev packages there): libgit2 and its dependencies linked statically,
# the few shared libraries the GPU machine lacks (or has in another version) shipped in
# bundle/lib with an rpath of $ORIGIN/../lib. NVRTC, CUPTI and the driver come from that
# machine's own /usr/local/cuda and driver.
#   scripts/make-bundle.sh      -> bundle/{bin,lib}, and bundle-x/ (scripts/pack-bundle.sh) to carry
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=build-bundle
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DAKO_BUNDLE=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target ako ako-worker ako_gpu_tests ako_bench

rm -rf bundle
mkdir -p bundle/bin bundle/lib
cp "$BUILD_DIR"/ako "$BUILD_DIR"/ako-worker "$BUILD_DIR"/tests/ako_gpu_tests "$BUILD_DIR"/bench/ako_bench bundle/bin/
strip --strip-debug bundle/bin/*
# Ship what the GPU machine lacks: fmt 9 (it has the same soname, but shipping it removes the
# doubt) and Google Benchmark 1.7.1 (it has 1.8.3, another soname).
for lib in libfmt.so.9 libbenchmark.so.1debian; do
  # awk reads to the end: an early exit could stop ldconfig by SIGPIPE, and with pipefail the
  # assignment's failure ended the script without a word (seen 2026-11-30).
  src=$(ldconfig -p | awk -v l="$lib" '$1 == l && f == "" {f = $NF} END {print f}')
  [ -n "$src" ] || { echo "make-bundle: $lib not found here" >&2; exit 2; }
  cp -L "$src" bundle/lib/
done

# Everything but the driver must resolve here (the driver is the GPU machine's).
missing=$(for b in bundle/bin/*; do ldd "$b" | grep "not found" | grep -v libcuda.so.1 || true; done)
if [ -n "$missing" ]; then
  echo "make-bundle: unresolved libraries:" >&2; echo "$missing" >&2; exit 2
fi
if ldd bundle/bin/ako | grep libgit2 > /dev/null; then  # not grep -q: ldd's SIGPIPE would read as no
  echo "make-bundle: ako links libgit2 dynamically; the GPU machine has none" >&2; exit 2
fi
du -sh bundle
# bundle/ (about 18 MiB) no longer fits in a device call beside the repository: carry bundle-x/.
scripts/pack-bundle.sh
echo "make-bundle: bundle/ ready; carry [\"bundle-x\"] and run scripts/gpu-unpack-bundle.sh there first"
