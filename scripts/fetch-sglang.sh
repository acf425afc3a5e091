#!/usr/bin/env bash
# Fetch the parts of SGLang that ako times or compiles as the engine's own kernels of the norm
# and modulation families, at a pinned version, into peers/ (git-ignored: nothing of SGLang is
# committed). From the sglang wheel on PyPI.
#
#   scripts/fetch-sglang.sh [--wheel FILE]
#
# sglang is pinned to 0.5.23, the release ako's port was checked against (context/sglang_port.md).
# The wheel is downloaded with pip (--no-deps), its sha256 checked against the value below, and
# only these are extracted to peers/sglang-<VER>/, under the paths they have in the wheel:
#   - PY_FILES: the kernel modules bench/peer_timing.py imports (Triton, CuTe DSL) and the
#     light modules they import; bench/peers/sglang_loader.py loads them without running
#     sglang's package __init__ files (which pull in transformers and the server) and says
#     which few helpers it stands in for;
#   - the #include closure of CUDA_ROOTS (JIT CUDA kernels that tasks compile as in-run
#     NVRTC baselines), searched in the wheel's sglang/kernels/jit/{include,csrc};
#   - DOC_FILES: the layers that choose those kernels, for context/sglang_modulation.md's and
#     context/gated_act.md's file:line references (read, never imported);
# plus the wheel's LICENSE and a MANIFEST (wheel hash, then sha256 of every extracted file).
#
# A second call finds the MANIFEST matching and the files intact and does nothing. --wheel FILE
# uses a wheel already on disk (a machine without network); its hash is checked the same way.
# Exit 0: the files are in place. Exit 1: download failed, hash differs, or extraction failed.
set -euo pipefail

SGLANG_VERSION=0.5.23
SGLANG_WHEEL_NAME=sglang-$SGLANG_VERSION-cp311-cp311-manylinux_2_34_x86_64.whl
SGLANG_SHA256=00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937
PY_FILES="
sglang/kernels/numerics.py
sglang/kernels/kda_kernels/__init__.py
sglang/kernels/kda_kernels/norm_scale_shift_jit.py
sglang/kernels/kda_kernels/layernorm_modulate_triton.py
sglang/kernels/ops/diffusion/common/__init__.py
sglang/kernels/ops/diffusion/common/platform.py
sglang/kernels/ops/diffusion/common/fallback_torch.py
sglang/kernels/ops/diffusion/common/fast_launch.py
sglang/kernels/ops/diffusion/norm/__init__.py
sglang/kernels/ops/diffusion/norm/norm_triton.py
sglang/kernels/ops/diffusion/norm/cutedsl_utils.py
sglang/kernels/ops/diffusion/norm/scale_residual_norm_cutedsl.py
sglang/kernels/ops/diffusion/norm/cutedsl_common/__init__.py
sglang/kernels/ops/diffusion/norm/cutedsl_common/norm_fusion.py
sglang/kernels/ops/diffusion/norm/cutedsl_common/reduce.py
sglang/kernels/ops/diffusion/modulate/__init__.py
sglang/kernels/ops/diffusion/modulate/scale_shift_triton.py
sglang/kernels/ops/diffusion/modulate/modulate_scale_shift_jit.py
sglang/kernels/ops/diffusion/activation/__init__.py
sglang/kernels/ops/diffusion/activation/silu_mul_bitexact.py
sglang/kernels/ops/diffusion/rope/rotary_triton.py
"
CUDA_ROOTS="csrc/diffusion/modulate_scale_shift.cuh csrc/elementwise/qknorm.cuh csrc/diffusion/qknorm_rope.cuh
csrc/elementwise/activation.cuh"
DOC_FILES="
sglang/kernels/ops/diffusion/__init__.py
sglang/kernels/ops/diffusion/README.md
sglang/multimodal_gen/runtime/layers/layernorm.py
sglang/kernels/ops/layernorm/norm.py
sglang/multimodal_gen/runtime/layers/elementwise.py
sglang/multimodal_gen/runtime/models/dits/flux.py
sglang/multimodal_gen/runtime/models/dits/flux_2.py
sglang/multimodal_gen/runtime/models/dits/wanvideo.py
sglang/multimodal_gen/runtime/models/dits/qwen_image.py
sglang/multimodal_gen/runtime/models/dits/hunyuanvideo.py
sglang/multimodal_gen/runtime/models/dits/zimage.py
sglang/multimodal_gen/runtime/layers/activation.py
sglang/multimodal_gen/runtime/layers/mlp.py
sglang/kernels/ops/activation/activation.py
sglang/kernels/ops/diffusion/sites/fused_linear_gelu_site.py
sglang/kernels/jit/csrc/elementwise/activation.cuh
sglang/multimodal_gen/runtime/layers/rotary_embedding/base.py
sglang/multimodal_gen/runtime/layers/rotary_embedding/utils.py
"

REPO=$(cd "$(dirname "$0")/.." && pwd)
WHEEL=
while [ $# -gt 0 ]; do
  case $1 in
    --wheel) WHEEL=${2:?--wheel needs a file}; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--wheel FILE]" >&2; exit 2 ;;
  esac
done

DEST_REL=peers/sglang-$SGLANG_VERSION
DEST=$REPO/$DEST_REL
MANIFEST=$DEST/MANIFEST

fail() { echo "fetch-sglang: error: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 is needed (to read the wheel)"

# The MANIFEST's first lines name what was extracted; the rest are "sha256  path" per file.
# The lists are hashed (one line each) so a changed list re-extracts.
list_hash() { printf '%s\n' $PY_FILES $CUDA_ROOTS $DOC_FILES | sha256sum | cut -d' ' -f1; }
manifest_head() {
  printf 'wheel %s\nsha256 %s\nlists %s\n' "$SGLANG_WHEEL_NAME" "$SGLANG_SHA256" "$(list_hash)"
}

up_to_date() {
  [ -f "$MANIFEST" ] || return 1
  [ "$(head -n 3 "$MANIFEST")" = "$(manifest_head)" ] || return 1
  (cd "$DEST" && tail -n +4 MANIFEST | sha256sum --check --quiet --strict >/dev/null 2>&1)
}

if up_to_date; then
  echo "fetch-sglang: sglang $SGLANG_VERSION: up to date in $DEST_REL ($(tail -n +4 "$MANIFEST" | wc -l) files)"
  exit 0
fi
[ -e "$DEST" ] && echo "fetch-sglang: $DEST_REL differs from its MANIFEST (or has none): extracting again"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ -z "$WHEEL" ]; then
  command -v pip >/dev/null || fail "pip is needed to download sglang==$SGLANG_VERSION (or pass --wheel FILE)"
  echo "fetch-sglang: downloading sglang==$SGLANG_VERSION with pip (--no-deps) ..."
  # The wheel is tagged cp311 manylinux_2_34 x86_64: ask for that one whatever python runs pip.
  if ! pip download --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
      --platform manylinux_2_34_x86_64 "sglang==$SGLANG_VERSION" -d "$TMP" >"$TMP/pip.log" 2>&1; then
    tail -n 5 "$TMP/pip.log" >&2
    fail "pip could not download sglang==$SGLANG_VERSION (offline, or no access to PyPI?). On a machine without network, copy the wheel and pass --wheel FILE."
  fi
  WHEEL=$TMP/$SGLANG_WHEEL_NAME
  [ -f "$WHEEL" ] || fail "pip did not produce $SGLANG_WHEEL_NAME (got: $(ls "$TMP" | tr '\n' ' '))"
fi
[ -f "$WHEEL" ] || fail "no such wheel: $WHEEL"

GOT=$(sha256sum "$WHEEL" | cut -d' ' -f1)
[ "$GOT" = "$SGLANG_SHA256" ] ||
  fail "sha256 of $(basename "$WHEEL") is $GOT, expected $SGLANG_SHA256 (pinned in $0). Not extracted."

STAGE=$TMP/stage
python3 - "$WHEEL" "$STAGE" "$PY_FILES" "$CUDA_ROOTS" "$DOC_FILES" <<'PY'
# Extract the listed files and the #include closure of the CUDA roots. Every #include is
# followed, conditional or not (a superset of what one configuration needs); a name found in
# neither the wheel's include/ nor csrc/ is a toolkit, tvm-ffi or C++ header and stays outside.
import pathlib, posixpath, re, sys, zipfile

wheel, stage = sys.argv[1], pathlib.Path(sys.argv[2])
py_files, cuda_roots, doc_files = (a.split() for a in sys.argv[3:6])
JIT = "sglang/kernels/jit/"
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)

def resolve(current, spelled):
    for base in (posixpath.dirname(current), JIT + "include", JIT + "csrc"):
        cand = posixpath.normpath(posixpath.join(base, spelled))
        if cand in names:
            return cand
    return None

wanted = set()
for f in py_files + doc_files:
    if f not in names:
        sys.exit(f"fetch-sglang: error: {f} is not in the wheel")
    wanted.add(f)
todo = []
for r in cuda_roots:
    if JIT + r not in names:
        sys.exit(f"fetch-sglang: error: CUDA root {r} is not in the wheel under {JIT}")
    todo.append(JIT + r)
while todo:
    f = todo.pop()
    if f in wanted:
        continue
    wanted.add(f)
    todo += [p for p in (resolve(f, m) for m in include.findall(z.read(f).decode("utf-8"))) if p]

for f in sorted(wanted):
    out = stage / f
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(z.read(f))
lic = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
if not lic:
    sys.exit("fetch-sglang: error: the wheel has no .dist-info/licenses/LICENSE")
(stage / "LICENSE").write_bytes(z.read(lic[0]))
PY

{
  manifest_head
  (cd "$STAGE" && find . -type f ! -name MANIFEST | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum)
} >"$STAGE/MANIFEST"

rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$STAGE" "$DEST"
echo "fetch-sglang: sglang $SGLANG_VERSION (sha256 $SGLANG_SHA256)"
echo "fetch-sglang: $(tail -n +4 "$MANIFEST" | wc -l) files, $(du -sh "$DEST" | cut -f1) -> $DEST_REL"
echo "fetch-sglang: file list and hashes in $DEST_REL/MANIFEST"
