"""scripts/ncu_stalls.py: warp-stall shares and hottest SASS lines from an ncu source-page CSV (a synthetic one
in ncu's layout: a kernel-name line, then the header, then one row per instruction)."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

SCRIPT = str(ROOT / "scripts/ncu_stalls.py")


def sass_csv(path, rows):
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
              "Instructions Executed", "stall_long_sb", "stall_long_sb (Not Issued)", "stall_barrier", "stall_wait"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["Kernel Name", "void k<int>(int *)", ""])
        w.writerow(header)
        for r in rows:
            w.writerow(r)


class NcuStallsTest(unittest.TestCase):
    def run_on(self, rows):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "k-sass.csv")
            sass_csv(p, rows)
            return subprocess.run([sys.executable, SCRIPT, p], capture_output=True, text=True)

    def test_shares_leave_out_the_not_issued_columns_and_the_hottest_line_comes_first(self):
        r = self.run_on([
            ["0x10", "LDG.E.128 R4, [R2.64]", "5", "5", "100", "0", "0", "0", "5"],
            ["0x20", "FADD R8, R4, 1", "60", "50", "100", "60", "50", "0", "0"],
            ["0x30", "BAR.SYNC 0x0", "35", "30", "100", "0", "0", "35", "0"]])
        self.assertEqual(r.returncode, 0, r.stderr)
        stall_line, hot_line = r.stdout.splitlines()
        # 60 + 35 + 5 issued-column samples: the Not Issued 50 would have made long_sb 73% of 150
        self.assertIn("long_sb 60%, barrier 35%, wait 5%", stall_line)
        self.assertNotIn("Not Issued", stall_line)
        self.assertTrue(hot_line.strip().startswith("hottest: 60% FADD R8, R4, 1 | 35% BAR.SYNC 0x0"), hot_line)

    def test_a_file_that_is_not_an_ncu_source_csv_is_named_without_a_traceback(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "notes.md")
            with open(p, "w") as f:
                f.write("not a csv of ncu's\n")
            r = subprocess.run([sys.executable, SCRIPT, p, os.path.join(tmp, "missing.csv")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("notes.md has no \"Address\" header", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
