"""Binding cases to the families' ops, the forms the engine receives, and which engine kernel
applies where (bench/peers/family.py and the family modules), all without torch."""
import unittest

from bench.tests._path import FIXTURES, ROOT
from peers import (cases, family, gated_act, layernorm, norm_scale_shift, qknorm_rope, residual_gate_norm_scale_shift,
                   rmsnorm, rope, scale_shift)


def one(spec_file, label):
    spec = cases.load_task(spec_file)
    return next(c for c in cases.expand(spec) if c.label == label)


def peer(module, name):
    return next(p for p in module.PEERS if p.name == name)


class FormTest(unittest.TestCase):
    def form(self, shape, B=2, L=12, C=8):
        buf = cases.Buffer("scale", "in", "bf16", shape, True, {}, (0, 0))
        return family.mod_form(type("C", (), {"task": "t"})(), buf, B, L, C)

    def test_every_broadcast_form(self):
        self.assertEqual(self.form((1,)), (1,))
        self.assertEqual(self.form((1, 1, 1, 1)), (1,))
        self.assertEqual(self.form((8,)), (8,))
        self.assertEqual(self.form((2, 8)), (2, 8))
        self.assertEqual(self.form((2, 1, 8)), (2, 8))
        self.assertEqual(self.form((2, 1, 1, 8)), (2, 8))
        self.assertEqual(self.form((1, 1, 12, 8)), (1, 12, 8))
        self.assertEqual(self.form((12, 8)), (1, 12, 8))
        self.assertEqual(self.form((2, 12, 8)), (2, 12, 8))
        self.assertEqual(self.form((2, 3, 1, 8)), (2, 3, 1, 8))
        self.assertEqual(self.form((2, 1, 1, 8), B=2), (2, 8))  # one frame: per batch

    def test_refuses_what_is_no_broadcast(self):
        with self.assertRaisesRegex(family.BindError, "does not end in C"):
            self.form((2, 7))
        with self.assertRaisesRegex(family.BindError, "no multiple"):
            self.form((2, 5, 1, 8))
        with self.assertRaisesRegex(family.BindError, "no broadcast"):
            self.form((3, 1, 8))


class BindTest(unittest.TestCase):
    def test_rmsnorm_binds_out_as_y(self):
        c = cases.expand(cases.load_task(ROOT / "tasks/rmsnorm/task.json"))[1]
        b = rmsnorm.bind(c)
        self.assertEqual(b.outputs, {"y": "out"})
        self.assertIsNone(b.weight)
        self.assertEqual((b.B, b.L, b.C), (1, 512, 3072))

    def test_layernorm_triton_applies(self):
        c = one(FIXTURES / "layernorm.json", "flux2-single bf16 affine")
        b = layernorm.bind(c)
        self.assertIsNotNone(b.weight)
        self.assertEqual(b.norm, "layer")
        self.assertIsNone(peer(layernorm, "sglang_triton").applies(b))

    def test_scale_shift_triton_refuses_a_per_frame_shift(self):
        c = one(FIXTURES / "scale_shift.json", "wan13b-480p bf16 layout=bf1c mod_dtype=fp32")
        b = scale_shift.bind(c)
        self.assertEqual(b.forms["scale"], (1, 21, 1, 1536))
        self.assertRegex(peer(scale_shift, "sglang_triton").applies(b), "per token")
        c = one(FIXTURES / "scale_shift.json", "text-512-cfg fp16 layout=bc mod_dtype=same")
        self.assertIsNone(peer(scale_shift, "sglang_triton").applies(scale_shift.bind(c)))

    def test_norm_scale_shift_peers(self):
        ln_mod, cute = peer(norm_scale_shift, "sglang_ln_modulate"), peer(norm_scale_shift, "sglang_cute")
        b = norm_scale_shift.bind(one(FIXTURES / "norm_scale_shift.json", "flux1-single bf16 noaffine layout=bc mod_dtype=same norm=layer"))
        self.assertEqual(b.norm, "layer")
        self.assertIsNone(ln_mod.applies(b))
        self.assertIsNone(cute.applies(b))
        b = norm_scale_shift.bind(one(FIXTURES / "norm_scale_shift.json", "flux1-single fp16 noaffine layout=bc mod_dtype=same norm=layer"))
        self.assertRegex(ln_mod.applies(b), "bf16 only")
        b = norm_scale_shift.bind(one(FIXTURES / "norm_scale_shift.json", "wan13b-480p bf16 noaffine layout=bf1c mod_dtype=fp32 norm=rms"))
        self.assertEqual(b.norm, "rms")
        self.assertRegex(ln_mod.applies(b), "without affine|LayerNorm")
        self.assertIsNone(cute.applies(b))
        b = norm_scale_shift.bind(one(FIXTURES / "norm_scale_shift.json", "text-512 bf16 affine layout=bc mod_dtype=fp32 norm=layer"))
        self.assertIsNotNone(b.bias)
        self.assertRegex(ln_mod.applies(b), "affine")

    def test_cute_guard_on_width(self):
        spec = cases.load_task(FIXTURES / "residual_gate_norm_scale_shift.json")
        shape = dict(spec["check_shapes"][1])  # C = 100
        c = cases.build_case(spec, shape, "bf16", {"affine": False}, {"gate_layout": "bc", "layout": "bc", "mod_dtype": "same"})
        b = residual_gate_norm_scale_shift.bind(c)
        self.assertEqual(b.outputs, {"y": "y", "residual_out": "residual_out"})
        self.assertRegex(peer(residual_gate_norm_scale_shift, "sglang_cute").applies(b), "C % 256 == 0")
        c = cases.build_case(spec, shape, "bf16", {"affine": False}, {"gate_layout": "none", "layout": "bc", "mod_dtype": "same"})
        self.assertIsNone(residual_gate_norm_scale_shift.bind(c).gate)

    def test_gated_act_binds_both_halves_and_the_triton_swiglu_applies_to_bf16_silu_only(self):
        spec = ROOT / "tasks/gated_act/task.json"
        b = gated_act.bind(one(spec, "flux2-single bf16 act=silu_and_mul"))
        self.assertEqual(b.outputs, {"y": "out"})
        self.assertEqual((b.L, b.C), (4608, 2 * 18432))
        triton = peer(gated_act, "sglang_triton")
        self.assertIsNone(triton.applies(b))
        self.assertRegex(triton.applies(gated_act.bind(one(spec, "flux2-single fp16 act=silu_and_mul"))), "bf16 only")
        self.assertRegex(triton.applies(gated_act.bind(one(spec, "zimage bf16 act=geglu"))), "silu_and_mul only")
        plain = gated_act.bind(one(spec, "hunyuan-720p bf16 act=gelu_tanh"))
        self.assertEqual((plain.L, plain.C), (118800, 12288))

    def test_missing_role_says_what_was_looked_for(self):
        spec = cases.load_task(FIXTURES / "scale_shift.json")
        spec["buffers"][1]["name"] = "s"
        c = cases.expand(spec)[0]
        with self.assertRaisesRegex(family.BindError, "no buffer for the op's 'scale'"):
            family.find(c, "scale")


if __name__ == "__main__":
    unittest.main()


class RopeTest(unittest.TestCase):
    """The rope family binds q and k as its outputs; SGLang's Triton kernel applies where
    _apply_rotary_emb runs it: interleaved pairs over the whole head."""
    def case(self, label):
        return one(ROOT / "tasks/rope/task.json", label)

    def test_binds_q_and_k_with_the_dims(self):
        b = rope.bind(self.case("partial-r64 bf16 neox pos_dtype=i32"))
        self.assertEqual((b.N, b.H, b.D, b.R, b.neox), (333, 5, 128, 64, True))
        self.assertEqual(b.outputs, {"q": "q", "k": "k"})

    def test_triton_applies_to_interleaved_full_rotary_only(self):
        triton = peer(rope, "sglang_triton")
        self.assertIsNone(triton.applies(rope.bind(self.case("flux1 bf16 noneox pos_dtype=i64"))))
        self.assertIn("NeoX", triton.applies(rope.bind(self.case("ltx2-video bf16 neox pos_dtype=i64"))))
        self.assertIn("partial rotary", triton.applies(rope.bind(self.case("partial-r64 bf16 noneox pos_dtype=i64"))))
        self.assertIsNone(peer(rope, "torch").applies(rope.bind(self.case("partial-r64 bf16 neox pos_dtype=i64"))))


class QknormRopeTest(unittest.TestCase):
    def test_binds_q_and_k_with_eps(self):
        c = one(ROOT / "tasks/qknorm_rope/task.json", "neox-r32 fp16 neox pos_dtype=i32")
        b = qknorm_rope.bind(c)
        self.assertEqual((b.N, b.H, b.D, b.R, b.neox), (45, 4, 128, 32, True))
        self.assertEqual(b.outputs, {"q": "q", "k": "k"})
        self.assertAlmostEqual(b.eps, 1e-6)
