#!/usr/bin/env bash
# Here, after scripts/make-bundle.sh: pack bundle/ into bundle-x/ for the GPU machine. A device
# call carries at most 64 MiB with the repository (56 MiB now), and bundle/ is about 18 MiB; its
# binaries xz'd are about 5.5. bundle-x/ holds NAME.xz for each of bundle/bin's programs, lib/ as
# is, and a MANIFEST of the unpacked programs' sha256, which scripts/gpu-unpack-bundle.sh checks.
#   scripts/pack-bundle.sh            -> bundle-x/   (BUNDLE=DIR / BUNDLE_X=DIR: other folders)
set -euo pipefail
[ $# -eq 0 ] || { sed -n 2,6p "$0" >&2; exit 2; }
cd "$(dirname "$0")/.."
SRC=${BUNDLE:-bundle} DST=${BUNDLE_X:-bundle-x}
ls "$SRC"/bin/* > /dev/null 2>&1 || { echo "pack-bundle: no $SRC/bin/*: run scripts/make-bundle.sh first" >&2; exit 2; }
case $DST in ""|/) echo "pack-bundle: refusing BUNDLE_X='$DST'" >&2; exit 2 ;; esac
rm -rf "$DST"; mkdir -p "$DST"
cp -r "$SRC"/lib "$DST"/lib
: > "$DST"/MANIFEST
for b in "$SRC"/bin/*; do
  name=$(basename "$b")
  xz -9 -T0 -c "$b" > "$DST/$name.xz"
  (cd "$SRC"/bin && sha256sum "$name") >> "$DST"/MANIFEST
done
echo "pack-bundle: $DST/ ($(du -sh "$DST" | cut -f1)): $(ls "$SRC"/bin | tr '\n' ' ')"
echo "pack-bundle: carry [\"$DST\"] and run scripts/gpu-unpack-bundle.sh there first"
