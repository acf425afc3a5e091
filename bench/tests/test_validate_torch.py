"""bench/validate's torch side on the CPU: every model's block stack runs at toy dims through
the dispatch (torch backend) with each family at its sites; the torch forms agree with float64
math; the profiler attribution splits kernels by the markers; the ported wrappers are called
with the task's names (ops_ako._Entry, from the real task.json files). Skipped, with the reason,
where torch is not installed (the engine and ako backends and the timing run on the GPU)."""
import importlib.util
import json
import unittest

from bench.tests._path import ROOT

HAVE_TORCH = importlib.util.find_spec("torch") is not None
SKIP = "torch is not installed: the torch-side tests need it (pip install torch)"

SITES = {  # families each model's blocks call, by block kind
    "flux1": {"norm_scale_shift", "qknorm_rope", "residual_gate_norm_scale_shift", "gated_act"},
    "wan14b": {"norm_scale_shift", "qknorm", "rope", "residual_gate_norm_scale_shift", "rmsnorm", "gated_act"},
    "zimage": {"rmsnorm", "qknorm_rope", "gated_act"},
    "ltx-video": {"norm_scale_shift", "qknorm", "rope", "rmsnorm", "gated_act"},
}


@unittest.skipUnless(HAVE_TORCH, SKIP)
class StackTest(unittest.TestCase):
    def test_every_model_runs_at_toy_dims_with_its_families_at_their_sites(self):
        import torch
        from validate import models
        from validate.dispatch import Dispatch
        from validate.ops_torch import TorchOps
        from validate.stack import Stack
        for name in models.MODELS:
            with self.subTest(name):
                m = models.tiny(models.get(name))
                k = Dispatch(TorchOps())
                k.listing = True
                out = Stack(m, 1, torch.device("cpu")).step(k)
                self.assertTrue(bool(torch.isfinite(out.float()).all()))
                self.assertEqual(out.shape[-1], m.C)
                fams = {s["family"] for s in k.swapped()}
                if name in SITES:
                    self.assertEqual(fams, SITES[name])
                self.assertTrue(all(s["impl"] == "torch" for s in k.swapped()))

    def test_recording_keeps_one_copy_per_distinct_call_and_counts_them(self):
        import torch
        from validate import models
        from validate.dispatch import Dispatch
        from validate.ops_torch import TorchOps
        from validate.stack import Stack
        m = models.tiny(models.get("wan14b"))
        k = Dispatch(TorchOps())
        k.recording = True
        Stack(m, 1, torch.device("cpu")).step(k)
        qk = [r for r in k.records.values() if r["family"] == "qknorm"]
        self.assertEqual(len(qk), 1)
        q = qk[0]["args"][0]
        self.assertEqual(q.stride(), (3 * m.C, m.head_dim, 1), "a view of the packed qkv stays one")
        rg = [r for r in k.records.values() if r["family"] == "residual_gate_norm_scale_shift"]
        self.assertEqual(sorted(r["count"] for r in rg), [1, 1], "norm2 (gated) and norm3 (gate None) differ")


@unittest.skipUnless(HAVE_TORCH, SKIP)
class TorchFormsTest(unittest.TestCase):
    def test_norm_scale_shift_and_the_residual_form_with_fp32_modulation(self):
        import torch
        from validate import ops_torch
        g = torch.Generator().manual_seed(0)
        x, res = (torch.randn(1, 16, 64, generator=g).bfloat16() for _ in range(2))
        sc, sh, gate = (0.1 * torch.randn(1, 1, 64, generator=g) for _ in range(3))
        y, r = ops_torch.residual_gate_norm_scale_shift(res, x, gate, None, None, sc, sh, "layer", 1e-6)
        r64 = res.double() + x.double() * gate.double()
        self.assertLess((r.double() - r64).abs().max().item(), 3e-2)
        n = torch.nn.functional.layer_norm(r.double(), (64,), eps=1e-6)
        self.assertLess((y.double() - (n * (1 + sc.double()) + sh.double())).abs().max().item(), 5e-2)
        self.assertEqual((y.dtype, r.dtype), (torch.bfloat16, torch.bfloat16))

    def test_qknorm_across_heads_writes_the_views_of_the_packed_qkv_and_leaves_v(self):
        import torch
        from validate import ops_torch
        qkv = torch.randn(5, 3 * 64)
        v0 = qkv[:, 128:].clone()
        q, k, _ = (t.reshape(5, 2, 32) for t in qkv.split(64, -1))
        ops_torch.qknorm(q, k, torch.ones(64), torch.ones(64), 1e-6, True)
        row = qkv[:, :64]
        self.assertTrue(torch.allclose(row.pow(2).mean(-1), torch.ones(5), atol=1e-4))
        self.assertTrue(torch.equal(qkv[:, 128:], v0))

    def test_qknorm_rope_is_rms_per_head_then_the_interleaved_rotation(self):
        import torch
        from validate import ops_torch
        N, H, D = 6, 2, 8
        ang = torch.rand(N, D // 2, dtype=torch.float64)
        cache = torch.cat((ang.cos(), ang.sin()), 1).float()
        pos = torch.arange(N)
        q, k = torch.randn(N, H, D), torch.randn(N, H, D)
        qo, _ = ops_torch.qknorm_rope(q, k, torch.ones(D), torch.ones(D), cache, pos, 1e-6, False)
        qn = q.double() / q.double().pow(2).mean(-1, keepdim=True).add(1e-6).sqrt()
        c = torch.view_as_complex(qn.reshape(N, H, D // 2, 2).contiguous()) * torch.polar(torch.ones_like(ang), ang)[:, None]
        self.assertLess((qo.double() - torch.view_as_real(c).flatten(-2)).abs().max().item(), 1e-5)


@unittest.skipUnless(HAVE_TORCH, SKIP)
class AttributionTest(unittest.TestCase):
    def test_kernels_between_markers_go_to_the_family_they_bracket(self):
        from validate.measure import split
        M = "void at::native::bitwise_not_kernel_cuda"
        kernels = [(0, 1.0, M), (1, 50.0, "gemm"), (2, 1.0, M), (3, 7.0, "ako_rmsnorm"), (4, 1.0, M), (5, 40.0, "sdpa"),
                   (6, 1.0, M), (7, 60.0, "gemm"), (8, 1.0, M), (9, 9.0, "ako_rmsnorm"), (10, 1.0, M), (11, 1.0, "copy")]
        labels = ["<step>", "rmsnorm", None] * 2
        got = split(kernels, labels)
        self.assertEqual(got["steps"], 2)
        self.assertEqual(got["families"], {"rmsnorm": 8.0})
        self.assertEqual(got["other"], 75.5)
        self.assertEqual(got["total"], 83.5)

    def test_a_marker_count_that_does_not_match_the_sites_is_an_error(self):
        from validate.measure import split
        with self.assertRaisesRegex(RuntimeError, "marker"):
            split([(0, 1.0, "bitwise_not")], ["<step>", "rmsnorm"])


@unittest.skipUnless(HAVE_TORCH, SKIP)
class AkoEntryTest(unittest.TestCase):
    def entry(self, task):
        from validate.ops_ako import _Entry
        seen = {}
        spec = json.loads((ROOT / "tasks" / task / "task.json").read_text())
        e = _Entry(spec, lambda *a, **kw: seen.update(args=a, kw=kw) or True)
        return e, seen

    def test_the_residual_fusion_gets_its_gate_axis_renamed_and_its_affine_flag_left_out(self):
        e, seen = self.entry("residual_gate_norm_scale_shift")
        self.assertEqual(e.tensors, ["y", "residual_out", "residual", "x", "gate", "weight", "bias", "scale", "shift"])
        e({n: n for n in e.tensors}, {"affine": False}, {"norm": "layer", "layout": "bc", "gate": "none", "mod_dtype": "fp32"},
          {"eps": 1e-6})
        self.assertEqual(seen["args"], tuple(e.tensors))
        self.assertEqual(seen["kw"], {"eps": 1e-6, "norm": "layer", "layout": "bc", "gate_axis": "none", "mod_dtype": "fp32"})

    def test_qknorm_takes_the_views_and_its_flag_and_axis(self):
        e, seen = self.entry("qknorm")
        self.assertEqual(e.tensors, ["q", "k", "q_weight", "k_weight"])
        e({n: n for n in e.tensors}, {"across_heads": True}, {"head_dim": 128}, {"eps": 1e-5})
        self.assertEqual(seen["kw"], {"eps": 1e-5, "across_heads": True, "head_dim": 128})

    def test_rmsnorm_s_weight_flag_only_says_whether_the_tensor_is_there(self):
        e, seen = self.entry("rmsnorm")
        e({"out": 1, "x": 2, "weight": None}, {"weight": False}, {}, {"eps": 1e-6})
        self.assertEqual(seen["args"], (1, 2, None))
        self.assertEqual(seen["kw"], {"eps": 1e-6})


if __name__ == "__main__":
    unittest.main()
