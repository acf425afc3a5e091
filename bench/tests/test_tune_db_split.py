"""scripts/tune_db_split.py: the fewest parameter sets of a tune database that keep every case
within a percentage of its own best, each case's fastest variants, whole-word label matching, an
incorrect case left out, and a database it cannot use named."""
import json
import lzma
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

SCRIPT = str(ROOT / "scripts/tune_db_split.py")


def record(params, times, shape="s", wrong=()):
    """One `ako tune` database line: a variant timed on every case of its shape."""
    return {"schema": "ako.tune/1", "shape": shape, "params": params, "verdict": "correct",
            "cases": [{"label": lb, "iqm_us": us, "verdict": "incorrect" if lb in wrong else "correct"}
                      for lb, us in times.items()]}


# Four cases A-D. X=4 is fastest on B, C and D (its 90 us on A is incorrect: not counted); X=1 is
# best on A, X=3 within 0.5% of it there. A cover within 0.5% takes X=4 first (three cases), then
# for A the set nearest its best (X=1 at 1.0 before X=3 at 1.004).
A, B, C, D = "s bf16 affine norm=layer", "s fp16 affine norm=layer", "s bf16 noaffine norm=layer", "s bf16 affine norm=rms"
DB = [record({"X": 1}, {A: 100.0, B: 100.0, C: 101.0, D: 103.0}),
      record({"X": 2}, {A: 103.0, B: 103.0, C: 100.0, D: 100.0}),
      record({"X": 3}, {A: 100.4, B: 100.3, C: 100.3, D: 102.0}),
      record({"X": 4}, {A: 90.0, B: 99.0, C: 99.0, D: 99.0}, wrong=(A,)),    # its 90 us on A is wrong: not counted
      record({"X": 9}, {A: 1.0}, shape="other")]


class TuneDbSplitTest(unittest.TestCase):
    def run_script(self, records, *args, xz=False):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tune.jsonl" + (".xz" if xz else ""))
            opener = lzma.open if xz else open
            with opener(path, "wt") as f:
                for r in records:
                    f.write(json.dumps(r) + "\n")
            return subprocess.run([sys.executable, SCRIPT, path, *args], capture_output=True, text=True)

    def test_the_cover_takes_the_set_that_keeps_most_cases_near_their_best_first(self):
        r = self.run_script(DB, "--shape", "s", "--within", "0.5", xz=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4 variants, 4 cases; 2 parameter set(s) keep every case within 0.5% of its best:", r.stdout)
        first, second = r.stdout.split("\n1. ")[1].split("\n2. ")
        self.assertTrue(first.startswith("X=4\n"), first)   # 99 us on B, C, D: the best there; A is wrong for it
        self.assertIn(f"{B}: 99.00 us (1.0000 of its best)", first)
        self.assertNotIn(A, first)
        self.assertTrue(second.startswith("X=1\n"), second)
        self.assertIn(f"{A}: 100.00 us (1.0000 of its best)", second)
        r = self.run_script(DB, "--shape", "s", "--within", "5")   # X=3 is within 5% of every best
        self.assertIn("1 parameter set(s) keep every case within 5.0%", r.stdout)
        r = self.run_script(DB[:3], "--shape", "s", "--within", "2.5")   # without X=4: X=3 covers all four
        self.assertIn("1 parameter set(s) keep every case within 2.5%", r.stdout)
        self.assertIn("1. X=3\n", r.stdout)

    def test_whole_word_match_and_the_fastest_variants_per_case(self):
        r = self.run_script(DB, "--shape", "s", "--match", "affine norm=layer", "--top", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4 variants, 2 cases;", r.stdout)   # 'affine' is not 'noaffine'; norm=rms left out
        self.assertIn(f"{A}:\n   100.00 us  X=1\n   100.40 us  X=3\n", r.stdout)

    def test_another_shape_and_a_database_it_cannot_use_are_named(self):
        r = self.run_script(DB, "--shape", "other")
        self.assertIn("1 variants, 1 cases; 1 parameter set(s)", r.stdout)
        r = self.run_script(DB, "--within", "-1")   # no case could be covered: refused, not an empty cover
        self.assertEqual(r.returncode, 2)
        self.assertIn("--within and --top take a value of 0 or more", r.stderr)
        r = self.run_script(DB, "--match", "fp32")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no correct case in", r.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "tune.jsonl")
            with open(bad, "w") as f:
                f.write("{not json\n")
            r = subprocess.run([sys.executable, SCRIPT, bad], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read", r.stderr)


if __name__ == "__main__":
    unittest.main()
