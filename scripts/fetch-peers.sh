#!/usr/bin/env bash
# Fetch the headers of the peer kernels that tasks name as baselines, at pinned versions, into
# peers/ (git-ignored: nothing of them is committed). Today: FlashInfer, from the
# flashinfer-python wheel on PyPI.
#
#   scripts/fetch-peers.sh [--wheel FILE]
#
# flashinfer-python is pinned to the version sglang 0.5.23 requires (its wheel metadata says
# `Requires-Dist: flashinfer_python[cu13]==0.7.2`; 0.5.23 is the sglang release ako's port was
# checked against, context/sglang_port.md). The wheel is downloaded with pip, its sha256 checked
# against the value below, and only the #include closure of the ROOTS (the headers FlashInfer
# ships under flashinfer/data/include/) is extracted to peers/flashinfer-python-<VER>/include/,
# with the wheel's LICENSE and a MANIFEST (wheel hash, roots, sha256 of every extracted file).
#
# A second call finds the MANIFEST matching and the files intact and does nothing. --wheel FILE
# uses a wheel already on disk (a machine without network); its hash is checked the same way.
# Exit 0: the headers are in place. Exit 1: download failed, hash differs, or extraction failed.
set -euo pipefail

FLASHINFER_VERSION=0.7.2
FLASHINFER_WHEEL_NAME=flashinfer_python-$FLASHINFER_VERSION-py3-none-any.whl
FLASHINFER_SHA256=770550a0aa92b2f10e6c9a1f048dd43713f0f3bb6a12710186fcf8e4e9c99bd8
# Headers (relative to the wheel's flashinfer/data/include/) whose closure is extracted. norm.cuh
# holds RMSNorm, QKRMSNorm, FusedAddRMSNorm, GemmaRMSNorm and LayerNorm; activation.cuh the
# act_and_mul_kernel under silu_and_mul / gelu_tanh_and_mul / gelu_and_mul; pos_enc.cuh the RoPE
# kernels behind apply_rope_with_cos_sin_cache_inplace.
FLASHINFER_ROOTS="flashinfer/norm.cuh flashinfer/activation.cuh flashinfer/pos_enc.cuh"
# act_and_mul_kernel takes its activation as a function pointer whose definitions FlashInfer keeps
# as C++ text in its Python JIT generator (flashinfer/jit/activation.py: act_func_def_str), not in
# a header. They are written, verbatim, to gen/flashinfer_act_funcs.cuh under the same folder.
FLASHINFER_ACT_FUNCS="flashinfer/jit/activation.py"

REPO=$(cd "$(dirname "$0")/.." && pwd)
WHEEL=
while [ $# -gt 0 ]; do
  case $1 in
    --wheel) WHEEL=${2:?--wheel needs a file}; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--wheel FILE]" >&2; exit 2 ;;
  esac
done

DEST_REL=peers/flashinfer-python-$FLASHINFER_VERSION
DEST=$REPO/$DEST_REL
MANIFEST=$DEST/MANIFEST

fail() { echo "fetch-peers: error: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 is needed (to read the wheel)"

# The MANIFEST's first lines name what was extracted; the rest are "sha256  path" per file.
manifest_head() {
  printf 'wheel %s\nsha256 %s\nroots %s; %s\n' "$FLASHINFER_WHEEL_NAME" "$FLASHINFER_SHA256" "$FLASHINFER_ROOTS" "$FLASHINFER_ACT_FUNCS"
}

up_to_date() {
  [ -f "$MANIFEST" ] || return 1
  [ "$(head -n 3 "$MANIFEST")" = "$(manifest_head)" ] || return 1
  (cd "$DEST" && tail -n +4 MANIFEST | sha256sum --check --quiet --strict >/dev/null 2>&1)
}

if up_to_date; then
  echo "fetch-peers: flashinfer-python $FLASHINFER_VERSION: up to date in $DEST_REL/include ($(tail -n +4 "$MANIFEST" | grep -c ' include/') headers)"
  exit 0
fi
[ -e "$DEST" ] && echo "fetch-peers: $DEST_REL differs from its MANIFEST (or has none): extracting again"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ -z "$WHEEL" ]; then
  command -v pip >/dev/null || fail "pip is needed to download flashinfer-python==$FLASHINFER_VERSION (or pass --wheel FILE)"
  echo "fetch-peers: downloading flashinfer-python==$FLASHINFER_VERSION with pip ..."
  if ! pip download --no-deps --only-binary=:all: "flashinfer-python==$FLASHINFER_VERSION" \
      -d "$TMP" >"$TMP/pip.log" 2>&1; then
    tail -n 5 "$TMP/pip.log" >&2
    fail "pip could not download flashinfer-python==$FLASHINFER_VERSION (offline, or no access to PyPI?). On a machine without network, copy the wheel and pass --wheel FILE."
  fi
  WHEEL=$TMP/$FLASHINFER_WHEEL_NAME
  [ -f "$WHEEL" ] || fail "pip did not produce $FLASHINFER_WHEEL_NAME (got: $(ls "$TMP" | tr '\n' ' '))"
fi
[ -f "$WHEEL" ] || fail "no such wheel: $WHEEL"

GOT=$(sha256sum "$WHEEL" | cut -d' ' -f1)
[ "$GOT" = "$FLASHINFER_SHA256" ] ||
  fail "sha256 of $(basename "$WHEEL") is $GOT, expected $FLASHINFER_SHA256 (pinned in $0). Not extracted."

STAGE=$TMP/stage
python3 - "$WHEEL" "$STAGE" "$FLASHINFER_ACT_FUNCS" $FLASHINFER_ROOTS <<'PY'
# Extract the #include closure of the roots from the wheel's flashinfer/data/include/.
# Every #include is followed, conditional or not (a superset of what one configuration needs);
# a name not found in the wheel is a toolkit or C++ header and stays outside.
import pathlib, posixpath, re, sys, zipfile

wheel, stage, act_funcs, roots = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
PREFIX = "flashinfer/data/include/"
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)

def resolve(current, spelled):
    for base in (posixpath.dirname(current), ""):
        cand = posixpath.normpath(posixpath.join(base, spelled))
        if PREFIX + cand in names:
            return cand
    return None

todo, seen = list(roots), set()
for r in roots:
    if PREFIX + r not in names:
        sys.exit(f"fetch-peers: error: root {r} is not in the wheel under {PREFIX}")
while todo:
    f = todo.pop()
    if f in seen:
        continue
    seen.add(f)
    text = z.read(PREFIX + f).decode("utf-8")
    todo += [p for p in (resolve(f, m) for m in include.findall(text)) if p]

for f in sorted(seen):
    out = stage / "include" / f
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(z.read(PREFIX + f))
# The activation functions' C++ definitions, read (never imported) from the generator's module:
# every string bound in its act_func_def_str dict, joined in the dict's order.
import ast
if act_funcs not in names:
    sys.exit(f"fetch-peers: error: {act_funcs} is not in the wheel")
tree = ast.parse(z.read(act_funcs).decode("utf-8"))
strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
           and isinstance(n.value.value, str) for t in n.targets if isinstance(t, ast.Name)}
table = next((n.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
              and any(isinstance(t, ast.Name) and t.id == "act_func_def_str" for t in n.targets)), None)
if table is None:
    sys.exit(f"fetch-peers: error: no act_func_def_str dict in {act_funcs}")
parts = []
for k, v in zip(table.keys, table.values):
    if not (isinstance(k, ast.Constant) and isinstance(v, ast.Name) and v.id in strings):
        sys.exit(f"fetch-peers: error: {act_funcs}: act_func_def_str holds something other than named strings")
    parts.append(f"// act_func_def_str[{k.value!r}] = {v.id}{strings[v.id]}")
gen = stage / "include" / "gen" / "flashinfer_act_funcs.cuh"
gen.parent.mkdir(parents=True, exist_ok=True)
gen.write_text(f"// Generated by scripts/fetch-peers.sh from the wheel's {act_funcs}: the activation\n"
               "// functions FlashInfer's JIT pastes before act_and_mul_kernel's launcher, verbatim.\n"
               "#pragma once\n" + "\n".join(parts))
lic = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
if lic:
    (stage / "LICENSE").write_bytes(z.read(lic[0]))
PY

{
  manifest_head
  (cd "$STAGE" && find . -type f ! -name MANIFEST | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum)
} >"$STAGE/MANIFEST"

rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$STAGE" "$DEST"
echo "fetch-peers: flashinfer-python $FLASHINFER_VERSION (sha256 $FLASHINFER_SHA256)"
echo "fetch-peers: $(find "$DEST/include" -type f | wc -l) headers, $(du -sh "$DEST/include" | cut -f1) -> $DEST_REL/include"
echo "fetch-peers: closure of: $FLASHINFER_ROOTS; file list and hashes in $DEST_REL/MANIFEST"
