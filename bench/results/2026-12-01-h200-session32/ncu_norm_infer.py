"""Session 32, call 10: SGLang 0.5.23's Triton norm_infer on zimage's bf16 no-affine LayerNorm (4096 x 3840, eps 1e-6),
launched a few times for ncu to profile one launch (bench/peers/sglang_loader.py imports the kernel module from
peers/sglang-0.5.23 without the sglang package)."""
import sys

sys.path.insert(0, "bench")
import torch  # noqa: E402
from peers.sglang_loader import load  # noqa: E402

norm_infer = load("kernels.ops.diffusion.norm.norm_triton", needs=("triton",)).norm_infer
x = torch.randn(4096, 3840, dtype=torch.bfloat16, device="cuda")
for _ in range(4):
    y = norm_infer(x, None, None, eps=1e-6, is_rms_norm=False)
torch.cuda.synchronize()
ref = torch.nn.functional.layer_norm(x.float(), (3840,), eps=1e-6)
print("max abs diff against torch fp32:", (y.float() - ref).abs().max().item())
