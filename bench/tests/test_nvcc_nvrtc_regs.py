"""scripts/nvcc_nvrtc_regs.py: `ako compile`'s solution rows parsed as the tool reads them, the
occupancy arithmetic, and the tool run for real on two layernorm kernels (NVRTC through build/ako
and its C API, nvcc with SGLang's JIT flags), whose counts agree and whose machine code is the
same bytes (since layernorm addresses its shared memory itself, ITERATIONS.md layernorm iteration 7)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

spec = importlib.util.spec_from_file_location("nvcc_nvrtc_regs", ROOT / "scripts/nvcc_nvrtc_regs.py")
regs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regs)

COMPILE_OUT = """\
role       kernel                                                        regs  spill B  stack B  smem B  cache
solution   residual_gate_norm_scale_shift_kernel<__half, __half, Norm::layer, Layout::lc, Layout::bc, false, 256, 8, 2, 3, 1, 0, 0, 1, 0>      64        0        0      64  hit
solution   layernorm_kernel<float, true, 512, 8, 1, 1, 0, 1, 0, 1>     47        4        8     128  523 ms
solution   norm_scale_shift_kernel<__half, float, Norm::rms, Layout::bf1c, true, 128, 8, 2, 3, 4, 0, 1, 2, 0, 1>    56        0       96   15392  164 ms
reference  layernorm_reference<float, true>                             16        0        0       0  hit
COMPILED: yes
"""


class ParseTest(unittest.TestCase):
    def test_solution_rows_give_registers_spill_stores_and_stack_apart(self):
        rows = regs.parse_compile_rows(COMPILE_OUT)
        self.assertEqual(rows, {
            "residual_gate_norm_scale_shift_kernel<__half, __half, Norm::layer, Layout::lc, Layout::bc, false, "
            "256, 8, 2, 3, 1, 0, 0, 1, 0>": (64, 0, 0),
            "layernorm_kernel<float, true, 512, 8, 1, 1, 0, 1, 0, 1>": (47, 4, 8),
            # session 30's two-loop variant: a 96-byte stack frame (its row indexed at run time), no spills
            "norm_scale_shift_kernel<__half, float, Norm::rms, Layout::bf1c, true, 128, 8, 2, 3, 4, 0, 1, 2, 0, 1>":
                (56, 0, 96)})

    def test_blocks_an_sm_follow_ptxas_arithmetic(self):
        # The counts of iteration 17: 64 / 66 registers at 256 threads (4 / 3 blocks), 48 / 54 at
        # 64 threads (20 / 18: 48 registers allow 42 warps, 40 once split over four schedulers,
        # which is why __launch_bounds__(64, 21) made ptxas cap at 40 and (64, 20) at 48).
        self.assertEqual(regs.blocks_per_sm(64, 256), 4)
        self.assertEqual(regs.blocks_per_sm(66, 256), 3)
        self.assertEqual(regs.blocks_per_sm(48, 64), 20)
        self.assertEqual(regs.blocks_per_sm(54, 64), 18)
        self.assertEqual(regs.blocks_per_sm(40, 64), 24)
        self.assertEqual(regs.blocks_per_sm(16, 64), 32)    # the 32-block limit
        self.assertEqual(regs.blocks_per_sm(16, 1024), 2)   # the 2048-thread limit

    def test_block_size_read_through_the_task_template(self):
        spec = json.load(open(ROOT / "tasks/norm_scale_shift/task.json"))
        size = regs.block_size_of(spec)
        self.assertEqual(size("norm_scale_shift_kernel<__half, __half, Norm::rms, Layout::bf1c, false, 64, 8, 1, 3, 1, 20, "
                              "1, 1, 0, 0, 1, 1, 0>"), 64)
        self.assertEqual(size("norm_scale_shift_kernel<__nv_bfloat16, float, Norm::layer, Layout::c, true, 256, 4, 1, 3, "
                              "0, 0, 0, 2, 0, 0, 8, 4, 1>"), 256)
        self.assertIsNone(size("layernorm_kernel<float, true, 512, 8, 1, 1, 0, 1, 0, 1>"))

    def test_block_size_in_akos_expression_language_over_a_string_axis(self):
        # gated_act's block is C's ?: and || over its `act` axis, which the kernel name spells Act::<act>
        size = regs.block_size_of(json.load(open(ROOT / "tasks/gated_act/task.json")))
        self.assertEqual(size("gated_act_kernel<__half, Act::silu_and_mul, 64, 8, 2, 256, 1>"), 256)   # MUL_BLOCK
        self.assertEqual(size("gated_act_kernel<__half, Act::gelu_tanh, 64, 8, 2, 256, 1>"), 64)       # BLOCK
        self.assertEqual(size("gated_act_kernel<__nv_bfloat16, Act::geglu, 128, 8, 2, 256, 1>"), 128)


class RunTest(unittest.TestCase):
    def test_two_layernorm_kernels_compile_with_both_and_agree(self):
        ako = ROOT / "build/ako"
        if not os.access(ako, os.X_OK) or not os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
            self.skipTest("needs build/ako and /usr/local/cuda/bin/nvcc")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "regs.json")
            r = subprocess.run([sys.executable, str(ROOT / "scripts/nvcc_nvrtc_regs.py"), "layernorm", "--shapes", "text-512",
                                "--dtypes", "bf16", "-j", "2", "--ako", str(ako), "--json", out, "--sass", "--strict"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("layernorm: 2 kernels compiled by both (0 failed with nvcc)", r.stdout)
            self.assertIn("fewer blocks an SM under nvcc on 0", r.stdout)
            # layernorm addresses its shared memory itself (iteration 7): both compilers emit the same bytes.
            self.assertIn("the same machine code on 2 of 2", r.stdout)
            table = json.load(open(out))
        self.assertEqual(len(table), 2)
        for kernel, counts in table.items():
            self.assertTrue(kernel.startswith("layernorm_kernel<__nv_bfloat16, "), kernel)
            self.assertEqual(counts["nvrtc"], counts["nvcc"], kernel)
            self.assertEqual(counts["nvrtc_blocks"], counts["nvcc_blocks"], kernel)
            self.assertEqual((counts["nvrtc_spill"], counts["nvrtc_stack"]), (counts["nvcc_spill"], counts["nvcc_stack"]), kernel)
            self.assertIs(counts["same_sass"], True, kernel)
            self.assertEqual(counts["threads"], int(kernel.split(", ")[2]), kernel)  # layernorm_kernel<T, AFFINE, BLOCK, ...>
            self.assertGreater(counts["nvrtc"], 0)


if __name__ == "__main__":
    unittest.main()
