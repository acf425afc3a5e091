#!/usr/bin/env bash
# On the GPU machine, from the repository root, before the scripts that run bundle/bin/ako:
# unpack the carried bundle-x/ (scripts/pack-bundle.sh's output) into bundle/{bin,lib}, so that
# scripts/gpu-check.sh, gpu-tune-abba.sh and the others find bundle/bin/ako as they would after
# carrying bundle/ itself (which no longer fits in a call beside the repository). The programs'
# rpath ($ORIGIN/../lib) finds bundle/lib. Checks each program against bundle-x/MANIFEST.
#   scripts/gpu-unpack-bundle.sh [--if-needed]   (BUNDLE=DIR / BUNDLE_X=DIR: other folders)
#     --if-needed  do nothing when bundle/bin/ako is there already or no bundle-x/ was carried (the
#                  GPU scripts call it so before they look for bundle/bin/ako)
# Exit 0: unpacked and checked (or, --if-needed, nothing to do); 1: a sha256 differs; 2: no
# bundle-x/ carried, or a wrong argument.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${BUNDLE_X:-bundle-x} DST=${BUNDLE:-bundle}
case $# in
  0) ;;
  1) [ "$1" = --if-needed ] || { sed -n 2,11p "$0" >&2; exit 2; }
     if [ -x "$DST/bin/ako" ] || [ ! -d "$SRC" ]; then exit 0; fi ;;
  *) sed -n 2,11p "$0" >&2; exit 2 ;;
esac
ls "$SRC"/*.xz > /dev/null 2>&1 || { echo "gpu-unpack-bundle: no $SRC/*.xz: carry bundle-x (scripts/pack-bundle.sh)" >&2; exit 2; }
case $DST in ""|/) echo "gpu-unpack-bundle: refusing BUNDLE='$DST'" >&2; exit 2 ;; esac
rm -rf "$DST"; mkdir -p "$DST"/bin
cp -r "$SRC"/lib "$DST"/lib
for x in "$SRC"/*.xz; do
  name=$(basename "$x" .xz)
  xz -dc "$x" > "$DST/bin/$name"
  chmod +x "$DST/bin/$name"
done
if [ -f "$SRC"/MANIFEST ]; then
  MANIFEST=$(realpath "$SRC"/MANIFEST)
  (cd "$DST"/bin && sha256sum --quiet --strict -c "$MANIFEST") ||
    { rm -rf "$DST"; echo "gpu-unpack-bundle: a program differs from $SRC/MANIFEST (removed $DST/)" >&2; exit 1; }
fi
echo "gpu-unpack-bundle: $DST/bin: $(ls "$DST"/bin | tr '\n' ' ')"
