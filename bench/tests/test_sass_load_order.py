"""scripts/sass_load_order.py: global loads before and after each kernel's first store in cuobjdump -sass output,
on the SASS session 35 read on the GPU machine (scale_shift's bf16 / fp16 twins at 64 x 8 x 2, ROW_CACHE 1) and on
a synthetic listing with predicated instructions."""
import lzma
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

SCRIPT = str(ROOT / "scripts/sass_load_order.py")
CALLS = ROOT / "bench/results/2026-12-01-h200-session35"


def run(text):
    return subprocess.run([sys.executable, SCRIPT, "-"], input=text, capture_output=True, text=True)


class SassLoadOrderTest(unittest.TestCase):
    def test_the_bf16_twin_issues_one_load_fewer_before_its_first_store(self):
        r = run(lzma.open(CALLS / "call15/sass.txt.xz", "rt").read())
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {("bf16" if "bfloat16" in line else "fp16"): line.split()[0] for line in r.stdout.splitlines()}
        self.assertEqual(rows, {"fp16": "4", "bf16": "3"})
        # Call 16's clamped loads: both twins then issue three before the store.
        r = run(lzma.open(CALLS / "call16/sass.txt.xz", "rt").read())
        self.assertEqual([line.split()[0] for line in r.stdout.splitlines()], ["3", "3"])

    def test_predicated_loads_and_stores_count_and_kernels_are_kept_apart(self):
        r = run("\t\tFunction : k1\n"
                "        /*0010*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
                "        /*0020*/              @!P1 LDG.E.128 R8, desc[UR4][R6.64] ;\n"
                "        /*0030*/               @P0 STG.E.128 desc[UR4][R2.64], R4 ;\n"
                "        /*0040*/                   LDG.E R9, desc[UR4][R6.64] ;\n"
                "        /*0050*/                   LDS R1, [R2] ;\n"
                "\t\tFunction : k2\n"
                "        /*0010*/                   STG.E desc[UR4][R2.64], R4 ;\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([line.split()[0:1] + line.split()[6:7] + line.split()[-1:] for line in r.stdout.splitlines()],
                         [["2", "1", "k1"], ["0", "0", "k2"]])

    def test_a_file_without_kernels_is_named_in_one_line(self):
        r = run("Address,Source\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not cuobjdump -sass output", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_a_missing_file_is_named_in_one_line(self):
        r = subprocess.run([sys.executable, SCRIPT, "/nonexistent/sass.txt"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read /nonexistent/sass.txt", r.stderr)


if __name__ == "__main__":
    unittest.main()
