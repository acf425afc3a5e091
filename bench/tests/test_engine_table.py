"""scripts/engine_table.py: the issue-14/15 table from one interleaved engine timing, its bars
counted exactly (slower, under 1.1x where the engine is under 90% of copy, the copy bar)."""
import contextlib
import importlib.util
import io
import json
import tempfile
import unittest

from bench.tests._path import ROOT

spec = importlib.util.spec_from_file_location("engine_table", ROOT / "scripts/engine_table.py")
engine_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(engine_table)

BW = 4000.0  # GB/s: a case of 400 MB at 100 us is exactly 100% of copy


def case(shape, elements, ako_us, torch_us, cute):
    peers = {"ako_port": {"verdict": "correct", "time": {"iqm_us": ako_us}},
             "torch": {"verdict": "correct", "time": {"iqm_us": torch_us}}}
    peers["sglang_cute"] = ({"verdict": "correct", "time": {"iqm_us": cute}} if isinstance(cute, float)
                            else {"verdict": cute, "reason": "why"})
    return {"shape": shape, "dims": {}, "dtype": "bf16", "flags": {"affine": False}, "axes": {"norm": "layer"},
            "label": shape, "bytes": 400_000_000, "elements": elements, "peers": peers}


def doc(cases):
    return {"schema": "ako.peer_bench/1", "task": "norm_scale_shift", "device": "NVIDIA H200", "timer": "profiler-interleaved",
            "samples": 100, "l2": "cold", "copy_bandwidth_gbs": BW, "interleaved": True,
            "peers": [{"name": "ako_port"}, {"name": "torch"}, {"name": "sglang_cute"}], "cases": cases}


class EngineTableTest(unittest.TestCase):
    def test_bars_are_counted_case_by_case(self):
        d = doc([
            case("video-fast", 100e6, 100.0, 300.0, 105.0),   # 100% of copy, engine at 95%: 1.05x is enough
            case("video-slow", 100e6, 110.0, 300.0, 108.0),   # behind the engine; 90.9% < 95% copy bar
            case("image-weak", 20e6, 100.0, 300.0, 120.0),    # engine at 83% of copy: 1.2x clears 1.1x
            case("image-close", 20e6, 100.0, 300.0, 115.0 - 10.0),  # engine at 95%: 1.05x, no 1.1x needed
            case("image-under", 20e6, 120.0, 300.0, 125.0),   # engine at 80%: 1.04x is under 1.1x; ako 83% < 90%
            case("small", 1e6, 10.0, 30.0, "not_applicable"),  # no copy bar, no engine column
        ])
        a = engine_table.analyse(d)
        self.assertEqual([m.split(" ")[0] for m in a["misses"]["slower"]], ["video-slow"])
        self.assertEqual([m.split(" ")[0] for m in a["misses"]["under_1_1x"]], ["image-under"])
        self.assertEqual([m.split(" ")[0] for m in a["misses"]["copy"]], ["video-slow", "image-under"])
        s = a["summary"]["sglang_cute"]
        self.assertEqual((s["cases"], s["behind"]), (5, 1))
        self.assertAlmostEqual(s["min"], 108.0 / 110.0)
        self.assertEqual(a["summary"]["torch"]["cases"], 6)

    def test_text_and_markdown_name_every_case_and_column(self):
        d = doc([case("video-fast", 100e6, 100.0, 300.0, 105.0), case("small", 1e6, 10.0, 30.0, "unavailable")])
        text = engine_table.render(d)
        self.assertIn("100.0", text)          # ako's % of copy
        self.assertIn("1.050x", text)         # over the engine
        self.assertIn("unavail", text)
        md = engine_table.render(d, markdown=True).splitlines()
        rows = [line for line in md if line.startswith("| ") and "---" not in line]
        self.assertEqual(len(rows), 3)        # the head and two cases
        self.assertEqual(rows[0].count("|"), rows[1].count("|"))
        self.assertIn("noaffine norm=layer", rows[1])

    def test_by_shape_gives_each_shape_its_ranges_and_cases_behind(self):
        d = doc([case("video", 100e6, 100.0, 300.0, 105.0), case("video", 100e6, 110.0, 300.0, 108.0),
                 case("small", 1e6, 10.0, 30.0, "not_applicable")])
        rows = engine_table.by_shape(d).splitlines()
        self.assertEqual(len(rows), 4)  # head, rule, two shapes
        video = rows[2].split(" | ")
        self.assertEqual(video[:3], ["| video", "2", "90.9-100.0"])
        self.assertEqual(video[-1], "1 |")                   # one case behind the engine
        self.assertIn("0.982x / ", rows[2])                  # 108 / 110, the min over the engine
        self.assertTrue(rows[3].endswith("| n/a | 0 |"), rows[3])

    def test_a_file_without_the_port_is_refused(self):
        with tempfile.TemporaryDirectory() as t:
            f = f"{t}/p.json"
            d = doc([])
            d["peers"] = [{"name": "torch"}]
            with open(f, "w") as fh:
                json.dump(d, fh)
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()):
                engine_table.main([f])
            self.assertIn("no engine timing", str(e.exception))
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()):
                engine_table.main([f"{t}/missing.json"])
            self.assertIn("cannot read", str(e.exception))


if __name__ == "__main__":
    unittest.main()
