"""scripts/abba_cases.py: per case the mean of the B runs over the mean of the A runs (A1 B1 B2 A2),
the two summary lines scripts/gpu-tune-abba.sh puts in its summary, and a missing run named."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

SCRIPT = str(ROOT / "scripts/abba_cases.py")


def run_json(times):
    """An `ako run --json` document: one compare case per (shape, time); a failed case and a check left out."""
    cases = [{"kind": "compare", "verdict": "correct", "shape": shape, "dtype": "bf16", "flags": {"affine": True},
              "axes": {}, "solution_time": {"iqm_us": t}} for shape, t in times.items()]
    cases.append({"kind": "compare", "verdict": "failed", "shape": "broken", "dtype": "bf16", "solution_time": None})
    cases.append({"kind": "reference_check", "verdict": "correct", "shape": "check", "dtype": "bf16"})
    return {"cases": cases}


class AbbaCasesTest(unittest.TestCase):
    def run_script(self, docs, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, doc in enumerate(docs):
                path = os.path.join(tmp, f"r{i}.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                paths.append(path)
            return subprocess.run([sys.executable, SCRIPT, *paths, *extra], capture_output=True, text=True)

    def test_ratios_per_case_and_the_two_summary_lines(self):
        a1, b1, b2, a2 = (run_json({"x": 10.0, "y": 20.0}), run_json({"x": 9.0, "y": 22.0}),
                          run_json({"x": 9.0, "y": 22.0}), run_json({"x": 10.0, "y": 20.2}))
        r = self.run_script([a1, b1, b2, a2], "--label", "ABBA after / before")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("B/A 0.900", lines[0])  # x: 9 over 10
        self.assertIn("B/A 1.095", lines[1])  # y: 22 over 20.1 (1.0945)
        self.assertTrue(lines[2].startswith("ABBA after / before: 2 cases, geomean 0.9925, faster >1%: 1, slower >1%: 1, "
                                            "min 0.9000 (x bf16 affine=True)"), lines[2])
        self.assertTrue(lines[3].startswith("noise A2 / A1: 2 cases, geomean 1.0050"), lines[3])

    def test_a_missing_run_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "gone.json")
            r = subprocess.run([sys.executable, SCRIPT, missing, missing, missing, missing], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"run {missing} is missing or unreadable", r.stderr)


if __name__ == "__main__":
    unittest.main()
