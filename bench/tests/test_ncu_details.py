"""scripts/ncu_details.py: the headline metrics of an ncu details-page CSV (a synthetic one in ncu's layout: one
row per metric, the kernel's name on every row, a metric that several sections list given more than once)."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

SCRIPT = str(ROOT / "scripts/ncu_details.py")


def details_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"])
        for section, name, unit, value in rows:
            w.writerow(["0", "void k<float>(float *)", section, name, unit, value])


class NcuDetailsTest(unittest.TestCase):
    def run_on(self, rows=None, text=None):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "k.csv")
            if text is None:
                details_csv(p, rows)
            else:
                open(p, "w").write(text)
            return subprocess.run([sys.executable, SCRIPT, p], capture_output=True, text=True)

    def test_metrics_in_their_fixed_order_each_at_its_first_value(self):
        r = self.run_on([
            ("Occupancy", "Achieved Occupancy", "%", "45.2"),
            ("GPU Speed Of Light Throughput", "Duration", "us", "48.35"),
            ("GPU Speed Of Light Throughput", "DRAM Throughput", "%", "76.5"),
            ("Launch Statistics", "Registers Per Thread", "register/thread", "64"),
            ("Other", "Duration", "us", "99.99"),  # a later listing of the same metric is not the one shown
            ("Other", "Unrelated Metric", "", "1")])
        self.assertEqual(r.returncode, 0, r.stderr)
        kernel, values = r.stdout.splitlines()
        self.assertIn("void k<float>(float *)", kernel)
        self.assertEqual(values.strip(), "Duration: 48.35 us; DRAM Throughput: 76.5 %; "
                                         "Registers Per Thread: 64 register/thread; Achieved Occupancy: 45.2 %")

    def test_a_file_that_is_not_a_details_csv_is_named_in_one_line(self):
        r = self.run_on(text="Address,Source\n0x10,FADD\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not an ncu details-page CSV", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_a_missing_file_is_named_in_one_line(self):
        r = subprocess.run([sys.executable, SCRIPT, "/nonexistent/k.csv"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read /nonexistent/k.csv", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_without_arguments_it_prints_its_usage(self):
        r = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Usage: scripts/ncu_details.py", r.stderr)


if __name__ == "__main__":
    unittest.main()
