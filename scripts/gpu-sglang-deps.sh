#!/usr/bin/env bash
# On the GPU machine: gather the parts of scripts/fetch-sglang-deps.sh's archive that this call
# carried (.sglang-deps/py<VER>-<N>/) into /tmp/sglang-deps/, and once every part named in
# the MANIFEST is there, check the hashes and unpack the packages to /tmp/sglang-deps/site, which
# bench/peer_timing.py takes as --deps (nvidia-cutlass-dsl and apache-tvm-ffi for SGLang's CuTe
# DSL kernels).
#
#   scripts/gpu-sglang-deps.sh            # in every call that carries a part; prints the state
#
# A device call carries at most 64 MiB, the repository included, so the parts come one per call:
# call 1 carries .sglang-deps/py312-1 and runs this script; each next call, started while the
# machine is still warm (within about 30 s), carries the next part and runs it again; the call
# with the last part (small: it has room for bundle/ and peers/) runs the benchmark. /tmp survives between calls only while the machine stays warm; a fresh machine starts
# over (the script says which parts it has).
# Exit 0: unpacked (prints the --deps folder). Exit 3: parts still missing. Exit 1: a hash differs.
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${SGLANG_DEPS_STORE:-/tmp/sglang-deps}
mkdir -p "$STORE/parts"
fail() { echo "gpu-sglang-deps: error: $*" >&2; exit 1; }

for d in .sglang-deps/py*-*/; do
  [ -d "$d" ] || continue
  cp "$d"MANIFEST "$STORE/MANIFEST"
  cp "$d"site.tar.xz.part* "$STORE/parts/"
done
[ -f "$STORE/MANIFEST" ] || { echo "gpu-sglang-deps: no part carried yet (carry .sglang-deps/py312-1)"; exit 3; }
if [ -d "$STORE/site" ] && [ -f "$STORE/site/.unpacked" ] && cmp -s "$STORE/site/.unpacked" "$STORE/MANIFEST"; then
  echo "gpu-sglang-deps: ready: --deps $STORE/site"
  exit 0
fi

missing=$(grep -o 'site\.tar\.xz\.part[0-9]*' "$STORE/MANIFEST" | while read -r p; do [ -f "$STORE/parts/$p" ] || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "gpu-sglang-deps: have $(ls "$STORE/parts" | wc -l) part(s); still missing: $(echo $missing)." \
       "Carry the next .sglang-deps/py*-N in a call started within ~30 s (the machine must stay warm)."
  exit 3
fi
(cd "$STORE/parts" && grep 'site\.tar\.xz\.part' "$STORE/MANIFEST" | sha256sum --check --quiet --strict) ||
  fail "a part's sha256 differs from the MANIFEST"
cat $(grep -o 'site\.tar\.xz\.part[0-9]*' "$STORE/MANIFEST" | sort | sed "s|^|$STORE/parts/|") >"$STORE/site.tar.xz"
(cd "$STORE" && grep ' site\.tar\.xz$' MANIFEST | sha256sum --check --quiet --strict) || fail "the archive's sha256 differs"
rm -rf "$STORE/site"
tar xJf "$STORE/site.tar.xz" -C "$STORE"
cp "$STORE/MANIFEST" "$STORE/site/.unpacked"
rm -f "$STORE/site.tar.xz"
echo "gpu-sglang-deps: ready: --deps $STORE/site ($(du -sh "$STORE/site" | cut -f1))"
