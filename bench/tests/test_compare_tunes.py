"""scripts/compare_tunes.py: two tunes of one search compared: winners, each scored in the other
run, pairs measured twice, records per GPU, and the cases one run measured >5% slower grouped by
the minute recorded (the slow window of bench/RESULTS.md, 2026-11-29 13:04 UTC)."""
import contextlib
import importlib.util
import io
import json
import pathlib
import tempfile
import unittest
from unittest import mock

from bench.tests._path import ROOT

spec = importlib.util.spec_from_file_location("compare_tunes", ROOT / "scripts/compare_tunes.py")
compare_tunes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_tunes)

A, B = {"V": 1}, {"V": 2}


def record(params, shape, us, at, gpu):
    return {"params": params, "shape": shape, "verdict": "correct", "recorded_at": at, "gpu_uuid": gpu,
            "cases": [{"label": f"{shape} bf16", "iqm_us": us}]}


class CompareTunes(unittest.TestCase):
    def run_script(self, one_records, two_records, one_winner, two_winner):
        with tempfile.TemporaryDirectory() as d:
            d = pathlib.Path(d)
            files = []
            for name, records, winner, wall in (("one", one_records, one_winner, 100.0), ("two", two_records, two_winner, 50.0)):
                (d / f"{name}.json").write_text(json.dumps(
                    {"wall_s": wall, "classes": [{"name": "c", "shapes": ["s"], "winner": winner}, {"name": "untuned", "shapes": []}]}))
                (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
                files += [str(d / f"{name}.json"), str(d / f"{name}.jsonl")]
            out = io.StringIO()
            with contextlib.redirect_stdout(out), mock.patch("sys.argv", ["compare_tunes.py"] + files):
                self.assertEqual(compare_tunes.main(), 0)
            return out.getvalue()

    def test_a_window_is_found_and_the_winners_cross_scored(self):
        one = [record(A, "s", 10.0, "2026-11-29T13:15:01Z", "GPU-e409fd3b"), record(B, "s", 16.0, "2026-11-29T13:16:12Z", "GPU-e409fd3b")]
        two = [record(A, "s", 10.1, "2026-11-29T13:07:00Z", "GPU-e409fd3b"), record(B, "s", 9.9, "2026-11-29T13:07:00Z", "GPU-42ffaac1")]
        out = self.run_script(one, two, A, B)
        self.assertIn("classes with a winner in both: 1; same winner: 0; same fastest point: 0", out)
        # one's winner A in two's run / two's winner B: 10.1 / 9.9; B in one's / A in one's: 16 / 10
        self.assertRegex(out, r"c\s+False\s+1\.0202\s+1\.6000\s+False")
        self.assertIn("A / B 2.00x", out)
        self.assertIn("A: 2 records, 0 pairs measured twice", out)
        self.assertIn("'GPU-e409fd3b': 1, 'GPU-42ffaac1': 1", out)
        self.assertIn("A more than 5% slower on 1 cases; by minute recorded and GPU: 2026-11-29T13:16 fd3b: 1", out)
        self.assertIn("B more than 5% slower on 0 cases", out)

    def test_a_pair_measured_twice_is_counted(self):
        one = [record(A, "s", 10.0, "t", "GPU-e409fd3b")] * 2
        out = self.run_script(one, [record(A, "s", 10.0, "t", "GPU-e409fd3b")], A, A)
        self.assertIn("A: 2 records, 1 pairs measured twice", out)
        self.assertIn("same winner: 1; same fastest point: 1", out)

    def test_an_unreadable_file_is_said_in_one_line(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), mock.patch("sys.argv", ["compare_tunes.py"] + ["/nonexistent"] * 4):
            self.assertEqual(compare_tunes.main(), 2)
        self.assertIn("compare_tunes: ", err.getvalue())


if __name__ == "__main__":
    unittest.main()
