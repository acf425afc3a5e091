#!/usr/bin/env python3
"""The per-task piece of the real-SGLang proof of `ako port` (scripts/sglang-port-check.sh on the
CPU, scripts/sglang-gpu-check.sh on the GPU): what cannot be read from tasks/<task>/task.json.
Everything else (shapes, dtypes, flags, axes, buffers, tolerances, the ported entry points) comes
from the task and the port; the reference is bench/peers/<task>.py's float64 one.

Per task:
  mirror       the engine file `ako mirror` records in sglang 0.5.23's layout: the kernel SGLang
               runs for this family on the DiT path (context/sglang_modulation.md); a .py one
               (Triton, CuTe DSL) is recorded only, a .cuh one is also compiled by NVRTC
  quick        the shapes --quick keeps (the biggest shape stays in any case)
  extra_shapes shapes beyond the task's (same dims) that reach baked config classes the task's
               shapes and check shapes do not; the GPU check lists the classes still unreached
A task not listed here is ported with `mirror` unknown (the CPU script says so) and checked on
every shape.

    python3 scripts/sglang_port_tasks.py mirror TASK   # prints the mirror path
    python3 scripts/sglang_port_tasks.py tasks         # the tasks listed here, in order
"""
import sys

KERNELS = "python/sglang/kernels"

# the classes C-1024, C-4096, C-8192 and wider of the norm fusions' default.json
_NORM_FUSION_CLASSES = [
    {"name": "cls-1024", "B": 2, "L": 9, "C": 1024, "F": 3}, {"name": "cls-4096", "B": 2, "L": 10, "C": 4096, "F": 5},
    {"name": "cls-8192", "B": 2, "L": 6, "C": 8192, "F": 3}, {"name": "cls-wider", "B": 2, "L": 4, "C": 12288, "F": 2},
]

TASKS = {
    "rmsnorm": {
        "mirror": f"{KERNELS}/jit/csrc/elementwise/rmsnorm.cuh",
        "quick": ["text-512", "flux1-single", "wan14b-480p", "qknorm-flux", "check-3x100"],
        # the classes of rmsnorm's configs the task shapes miss (scripts/sglang_gpu_check.py's CLASS_SHAPES)
        "extra_shapes": [
            {"name": "cls-odd", "rows": 257, "cols": 4097}, {"name": "cls-mult2", "rows": 129, "cols": 514},
            {"name": "cls-mult4", "rows": 3, "cols": 100}, {"name": "cls-hd64", "rows": 6144 * 32, "cols": 64},
            {"name": "cls-hd256", "rows": 4097, "cols": 256}, {"name": "cls-512", "rows": 1000, "cols": 512},
            {"name": "cls-1024", "rows": 999, "cols": 1024}, {"name": "cls-4096", "rows": 6144, "cols": 4096},
            {"name": "cls-8192", "rows": 513, "cols": 8192}, {"name": "cls-default", "rows": 300, "cols": 16384},
        ],
    },
    "layernorm": {
        # SGLang's LayerNorm.forward_cuda -> norm_infer (Triton); Wan's FP32LayerNorm is torch's
        "mirror": f"{KERNELS}/ops/diffusion/norm/norm_triton.py",
        "quick": ["text-512", "flux2-single", "wan14b-480p", "check-5x99", "check-2x130"],
        "extra_shapes": [
            {"name": "cls-256", "rows": 1000, "cols": 256}, {"name": "cls-512", "rows": 777, "cols": 512},
            {"name": "cls-1024", "rows": 999, "cols": 1024}, {"name": "cls-4096", "rows": 2049, "cols": 4096},
            {"name": "cls-8192", "rows": 513, "cols": 8192}, {"name": "cls-default", "rows": 97, "cols": 12288},
        ],
    },
    "scale_shift": {
        # MulAdd.forward_cuda (k = 1) -> fuse_scale_shift_kernel (Triton), every broadcast form
        "mirror": f"{KERNELS}/ops/diffusion/modulate/scale_shift_triton.py",
        "quick": ["text-512-cfg", "flux2-single", "wan14b-480p", "check-2x7x13-f7", "check-3x10x100-f5"],
        "extra_shapes": [
            {"name": "cls-c-mult-2", "B": 2, "L": 9, "C": 42, "F": 3},
            {"name": "cls-c512", "B": 2, "L": 100, "C": 1536, "F": 5},
            {"name": "cls-c1280", "B": 2, "L": 10, "C": 1280, "F": 5},  # the H200 config's shape classes take zimage
        ],
    },
    # The norm fusions: the CuTe DSL kernels SGLang runs (fused_norm_scale_shift /
    # fused_scale_residual_norm_scale_shift, one file). Their check shapes include widths no
    # vector width of the config divides (37, 1539): the ported entry must refuse those.
    "norm_scale_shift": {
        "mirror": f"{KERNELS}/ops/diffusion/norm/scale_residual_norm_cutedsl.py",
        "quick": ["text-512-cfg", "zimage", "wan13b-480p", "check-2x6x40-f3", "check-2x12x3072-f3"],
        "extra_shapes": _NORM_FUSION_CLASSES,
    },
    # RoPE: SGLang's CUDA path is FlashInfer's apply_rope_with_cos_sin_cache_inplace (not in the
    # sglang tree); the Triton kernel _apply_rotary_emb runs (HunyuanVideo, Z-Image) is recorded.
    "rope": {
        "mirror": f"{KERNELS}/ops/diffusion/rope/rotary_triton.py",
        "quick": ["flux1", "ltx2-video", "partial-r40", "odd-r36-d96", "check-d30"],
        "extra_shapes": [],
    },
    # Fused QK-norm + RoPE: SGLang's JIT qknorm_rope.cuh behind qknorm_rope_jit.py; the wrapper
    # is recorded (the .cuh's kernel takes a __grid_constant__ struct: context/qknorm_rope.md).
    "qknorm_rope": {
        "mirror": f"{KERNELS}/ops/diffusion/rope/qknorm_rope_jit.py",
        "quick": ["flux1", "partial-r64", "neox-r32", "d64", "check-r96"],
        "extra_shapes": [],
    },
    "residual_gate_norm_scale_shift": {
        "mirror": f"{KERNELS}/ops/diffusion/norm/scale_residual_norm_cutedsl.py",
        "quick": ["text-512-cfg", "zimage", "wan13b-480p", "check-2x6x40-f3", "check-2x12x3072-f3"],
        "extra_shapes": _NORM_FUSION_CLASSES,
    },
    # The gated activations: SiluAndMul.forward_cuda's JIT kernel (Z-Image's SwiGLU; FlashInfer's
    # act_and_mul_kernel under sgl-kernel is the same math), context/gated_act.md. The task's shapes
    # and check shapes miss two classes of its default.json: widths of 4 mod 8 and the catch-all.
    "gated_act": {
        "mirror": f"{KERNELS}/jit/csrc/elementwise/activation.cuh",
        "quick": ["text-512", "zimage", "flux2-single", "check-5x99", "check-2x130"],
        "extra_shapes": [{"name": "cls-mult4", "rows": 3, "cols": 100}, {"name": "cls-wide", "rows": 5, "cols": 8200}],
    },
    # QK RMSNorm in place on q / k views of the packed qkv: apply_qk_norm -> fused_inplace_qknorm
    # (JIT CUDA, context/qknorm.md). The check shapes reach D = 256 and the narrow across-heads class.
    "qknorm": {
        "mirror": f"{KERNELS}/jit/csrc/elementwise/qknorm.cuh",
        "quick": ["flux1", "ltx-video", "hunyuan-720p", "check-5x3x1x128", "check-7x4x4x256"],
        "extra_shapes": [],
    },
}


def piece(task):
    return {"mirror": None, "quick": [], "extra_shapes": [], **TASKS.get(task, {})}


if __name__ == "__main__":
    if sys.argv[1:2] == ["tasks"]:
        print("\n".join(TASKS))
    elif sys.argv[1:2] == ["mirror"] and len(sys.argv) == 3:
        m = piece(sys.argv[2])["mirror"]
        if not m:
            sys.exit(f"no mirror path for task {sys.argv[2]} in {__file__}")
        print(m)
    else:
        sys.exit(__doc__)
