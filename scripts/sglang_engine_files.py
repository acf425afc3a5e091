#!/usr/bin/env python3
"""SGLang 0.5.23's own files that `ako validate`'s engine backend builds and imports on the GPU
machine (bench/validate/engine_jit.py), taken from the sglang wheel by
`scripts/sglang-gpu-check.sh --prepare` into .sgl-proof beside the ported kernels.

  python3 scripts/sglang_engine_files.py extract SGLANG_WHEEL KERNELS_DIR
      writes each file below and the #include closure of its CUDA sources (sgl_kernel headers
      under jit/include, csrc-relative includes) under KERNELS_DIR (a payload's
      sglang/python/sglang/kernels); a file already there with other bytes is an error (the
      ported kernels were checked against those headers); prints every file of the closure
      (kernels-relative), one a line, for the MANIFEST.

Why these (SGLang's diffusion runtime on CUDA, sglang/multimodal_gen/runtime/layers/layernorm.py):
  ops/layernorm/norm.py               rmsnorm (JIT RMSNorm) and fused_inplace_qknorm with its guard
                                      can_use_fused_inplace_qknorm (apply_qk_norm)
  ops/diffusion/rope/qknorm_rope_jit.py   fused_inplace_qknorm_rope with its guard
                                      can_use_fused_inplace_qknorm_rope (apply_qk_norm_rope)
  ops/activation/activation.py        silu_and_mul (SiluAndMul.forward_cuda: Z-Image's SwiGLU)
  kernel_api_logging.py               debug_kernel_api, which norm.py's entry points wear
and the CUDA sources those wrappers' load_jit calls name. No torch needed (stdlib only)."""
import pathlib
import re
import sys
import zipfile

WHEEL_ROOT = "sglang/kernels/"
PYTHON = ("ops/layernorm/norm.py", "ops/diffusion/rope/qknorm_rope_jit.py", "ops/activation/activation.py",
          "kernel_api_logging.py")
CUDA = ("jit/csrc/elementwise/rmsnorm.cuh", "jit/csrc/elementwise/qknorm.cuh", "jit/csrc/diffusion/qknorm_rope.cuh",
        "jit/csrc/elementwise/activation.cuh")
INCLUDE_ROOT = "jit/include/"
INCLUDE_RE = re.compile(r'#\s*include\s*[<"]([^>"]+)[>"]')


def closure(read, names):
    """The files (kernels-relative) of PYTHON, CUDA and every header a CUDA one reaches that the
    wheel holds (<sgl_kernel/...> under jit/include, "x.cuh" beside the includer); system and
    tvm-ffi headers are not SGLang's and are not followed."""
    out, todo = [], list(PYTHON) + list(CUDA)
    while todo:
        rel = todo.pop(0)
        if rel in out:
            continue
        if rel not in names:
            raise SystemExit(f"{WHEEL_ROOT}{rel}: not in the sglang wheel")
        out.append(rel)
        if rel.endswith(".py"):
            continue
        here = pathlib.PurePosixPath(rel).parent
        for m in INCLUDE_RE.finditer(read(rel).decode("utf-8", "replace")):
            for cand in (INCLUDE_ROOT + m.group(1), str(here / m.group(1))):
                if cand in names:
                    todo.append(cand)
                    break
    return out


def extract(wheel, dest):
    z = zipfile.ZipFile(wheel)
    names = {n[len(WHEEL_ROOT):] for n in z.namelist() if n.startswith(WHEEL_ROOT)}

    def read(rel):
        return z.read(WHEEL_ROOT + rel)

    files = closure(read, names)
    for rel in files:
        data, path = read(rel), dest / rel
        if path.exists():
            if path.read_bytes() != data:
                raise SystemExit(f"{path}: differs from the wheel's {WHEEL_ROOT}{rel} (the engine tree is not this release)")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def main(argv):
    if len(argv) != 3 or argv[0] != "extract":
        raise SystemExit(f"usage: {pathlib.Path(__file__).name} extract SGLANG_WHEEL KERNELS_DIR")
    for rel in extract(argv[1], pathlib.Path(argv[2])):
        print(rel)


if __name__ == "__main__":
    main(sys.argv[1:])
