#!/usr/bin/env bash
# Pack what SGLang 0.5.23's CuTe DSL kernels need at run time and the GPU machine lacks
# (nvidia-cutlass-dsl 4.8.0 and apache-tvm-ffi 0.1.11, the versions sglang 0.5.23 pins) into an
# xz archive under the git-ignored .sglang-deps/ (not peers/: carrying peers must stay small),
# cut into parts small enough to carry one per call.
#
#   scripts/fetch-sglang-deps.sh [--python 3.12] [--wheels DIR] [--part-mib 15]
#   scripts/fetch-sglang-deps.sh --resplit [--python 3.12] [--part-mib 15]
#
# --resplit joins the parts already under .sglang-deps/py<VER>-*/, checks the archive's sha256
# against their MANIFEST and cuts it again into parts of --part-mib (no download, no repacking).
#
# The wheels are downloaded with pip (--no-deps, for CPython 3.12 on manylinux x86_64 unless
# --python says otherwise; --wheels DIR takes them from DIR instead), their sha256 checked against
# the values below (3.12 only; another --python has no pins and says so), unpacked without their
# .dist-info, the aarch64/QNX link stubs, the static archive and the iket profiler package (none
# of which the JIT path imports), packed with xz -9e (several minutes; about 63 MiB for 3.12) and
# cut into parts of at most --part-mib MiB, one per folder .sglang-deps/py<VER>-<N>/, each
# with the same MANIFEST (wheel names and hashes, the archive's and every part's hash).
# nvidia-cutlass-dsl itself (a .pth file) and its libs-cu12 are left out: the .pth is replaced by
# peer_timing's --deps, cu13 matches the machine's CUDA 13. cuda-python, einops and
# typing-extensions, which the kernels also import, are on the H200 machine already.
#
# Why parts: a device call carries at most 64 MiB, the repository included (about 43 MiB on disk
# on 2026-11-29, most of it bench/results/: 30 MiB parts no longer fit beside it; 15 MiB parts,
# five for 3.12, do, and the last, small, leaves room for bundle/, peers/ and .sgl-proof/). On the GPU machine,
# scripts/gpu-sglang-deps.sh keeps the parts each call brings in /tmp (kept while the machine stays
# warm, about 30 s between calls) and unpacks the archive once all are there.
# Exit 0: the parts are in place. Exit 1: download failed, a hash differs, or packing failed.
set -euo pipefail

PY=3.12
WHEELS=
PART_MIB=15
RESPLIT=
while [ $# -gt 0 ]; do
  case $1 in
    --python) PY=${2:?--python needs a version, e.g. 3.12}; shift 2 ;;
    --wheels) WHEELS=${2:?--wheels needs a folder}; shift 2 ;;
    --part-mib) PART_MIB=${2:?--part-mib needs a size}; shift 2 ;;
    --resplit) RESPLIT=1; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--resplit] [--python 3.12] [--wheels DIR] [--part-mib 15]" >&2; exit 2 ;;
  esac
done
TAG=${PY//./}
REQS="nvidia-cutlass-dsl-libs-core==4.8.0 nvidia-cutlass-dsl-libs-base==4.8.0 nvidia-cutlass-dsl-libs-cu13==4.8.0 apache-tvm-ffi==0.1.11"
# sha256 of the CPython 3.12 manylinux x86_64 wheels, as PyPI serves them.
PINS_312="
b32716d2ed10c185cdbbb6b5c6fca26a3113a60e6e2fe4e2f0cb15966422b621  nvidia_cutlass_dsl_libs_core-4.8.0-py3-none-any.whl
5bdc80989b0fbbac3d58960057e74e2ce8676fafa76b852d9422b9c4b9b74bdd  nvidia_cutlass_dsl_libs_base-4.8.0-cp312-cp312-manylinux_2_28_x86_64.whl
463cd7f0c452ffeeecb530a15aeb1b10cbbd2c8da6c5aa2fecf65f836258a732  nvidia_cutlass_dsl_libs_cu13-4.8.0-cp312-cp312-manylinux_2_28_x86_64.whl
2843f084cdc94dedacd8b257a395a2b71b8a3dc7fc99711b148bf1d161983128  apache_tvm_ffi-0.1.11-cp312-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl
"

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST_REL=.sglang-deps/py$TAG
fail() { echo "fetch-sglang-deps: error: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 is needed (to read the wheels)"
command -v xz >/dev/null || fail "xz is needed to pack the archive"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LIST=$TMP/list
if [ -n "$RESPLIT" ]; then
  OLD=$(ls -d "$REPO/$DEST_REL"-* 2>/dev/null | head -1 || true)  # no match: ls fails, and set -e would exit silently
  [ -n "$OLD" ] && [ -f "$OLD/MANIFEST" ] || fail "--resplit: no parts under $DEST_REL-*/ to join"
  cp "$OLD/MANIFEST" "$TMP/MANIFEST.old"
  for p in $(grep -o 'site\.tar\.xz\.part[0-9]*' "$TMP/MANIFEST.old"); do
    f=$(ls "$REPO/$DEST_REL"-*/"$p" 2>/dev/null | head -1 || true)
    [ -n "$f" ] || fail "--resplit: $p (named in the MANIFEST) is not under $DEST_REL-*/"
    cat "$f" >>"$TMP/site.tar.xz"
  done
  want=$(awk '$2 == "site.tar.xz" {print $1}' "$TMP/MANIFEST.old")
  [ "$(sha256sum "$TMP/site.tar.xz" | cut -d' ' -f1)" = "$want" ] || fail "--resplit: the joined archive's sha256 differs from the MANIFEST"
  grep '\.whl$' "$TMP/MANIFEST.old" >"$LIST"
else
  if [ -z "$WHEELS" ]; then
    command -v pip >/dev/null || fail "pip is needed to download the wheels (or pass --wheels DIR)"
    echo "fetch-sglang-deps: downloading $REQS for CPython $PY with pip (--no-deps) ..."
    # shellcheck disable=SC2086
    if ! pip download --no-deps --only-binary=:all: --python-version "$PY" --implementation cp \
        --platform manylinux_2_28_x86_64 $REQS -d "$TMP/wheels" >"$TMP/pip.log" 2>&1; then
      tail -n 5 "$TMP/pip.log" >&2
      fail "pip could not download the wheels (offline?); copy them and pass --wheels DIR"
    fi
    WHEELS=$TMP/wheels
  fi
  [ -d "$WHEELS" ] || fail "no such folder: $WHEELS"

  if [ "$TAG" = 312 ]; then
    printf '%s\n' "$PINS_312" | sed '/^$/d' >"$LIST"
    (cd "$WHEELS" && sha256sum --check --strict "$LIST" >/dev/null 2>"$TMP/sum.err") ||
      fail "a wheel is missing from $WHEELS or its sha256 differs from the pin in $0: $(cat "$TMP/sum.err")"
  else
    echo "fetch-sglang-deps: no pinned hashes for CPython $PY: packing what pip gave, hashes recorded unchecked" >&2
    (cd "$WHEELS" && ls *.whl | LC_ALL=C sort | xargs sha256sum) >"$LIST"
  fi

  python3 - "$WHEELS" "$TMP/site" "$LIST" <<'PY'
import pathlib, sys, zipfile
wheels, site, listing = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
skip = (".dist-info/", "/lib/stubs/", "dsl_packages/iket/")
for line in open(listing):
    name = line.split()[1]
    z = zipfile.ZipFile(wheels / name)
    for info in z.infolist():
        if any(s in info.filename for s in skip) or info.filename.endswith(".a"):
            continue
        z.extract(info, site)
        if info.external_attr >> 16 & 0o111:
            (site / info.filename).chmod(0o755)
PY

  echo "fetch-sglang-deps: packing $(du -sh "$TMP/site" | cut -f1) with xz -9e (a few minutes) ..."
  (cd "$TMP" && tar cf - --sort=name --mtime=@0 --owner=0 --group=0 site | xz -9e -T2 >"$TMP/site.tar.xz")
fi
# Two-digit suffixes: parts of 6 MiB or less are more than ten (one digit ran out there).
(cd "$TMP" && split -b "${PART_MIB}M" -d -a 2 site.tar.xz site.tar.xz.part)
{
  echo "python $PY"
  cat "$LIST"
  (cd "$TMP" && sha256sum site.tar.xz site.tar.xz.part*)
} >"$TMP/MANIFEST"
rm -rf "$REPO/$DEST_REL"-*
mkdir -p "$REPO/.sglang-deps"
n=0
for part in "$TMP"/site.tar.xz.part*; do
  n=$((n + 1))
  mkdir -p "$REPO/$DEST_REL-$n"
  cp "$TMP/MANIFEST" "$REPO/$DEST_REL-$n/"
  mv "$part" "$REPO/$DEST_REL-$n/"
done
echo "fetch-sglang-deps: $(du -h "$TMP/site.tar.xz" | cut -f1) archive in $n part(s) of at most $PART_MIB MiB:"
for d in "$REPO/$DEST_REL"-*; do echo "  ${d#"$REPO"/} ($(du -sh "$d" | cut -f1))"; done
echo "fetch-sglang-deps: on the GPU machine, carry one part per call with scripts/gpu-sglang-deps.sh (see its help)"
