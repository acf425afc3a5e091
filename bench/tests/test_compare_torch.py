"""scripts/compare_torch.py joins an ako run with bench/peer_timing.py's JSON on shape, dtype,
flags and axes, on their IQMs (a file written before the IQM on its medians), and keeps reading
bench/torch_rmsnorm.py's older format. scripts/compare_runs.py compares two runs' IQMs."""
import contextlib
import importlib.util
import io
import json
import sys
import tempfile
import unittest

from bench.tests._path import ROOT

spec = importlib.util.spec_from_file_location("compare_torch", ROOT / "scripts/compare_torch.py")
compare_torch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_torch)
spec = importlib.util.spec_from_file_location("compare_runs", ROOT / "scripts/compare_runs.py")
compare_runs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_runs)


def timed(iqm_us):
    """A timing as ako and peer_timing write it now: the IQM, and a median 3% off it (two modes),
    so that a script reading the median gets every number below wrong."""
    return {"iqm_us": iqm_us, "median_us": iqm_us * 1.03}


def ako_case(shape, axes, sol_us, base=None):
    c = {"kind": "compare", "shape": shape, "dims": {"B": 1, "L": 32760, "C": 1536, "F": 21}, "dtype": "bf16",
         "flags": {}, "axes": axes, "solution_time": timed(sol_us), "bytes": 201_000_000,
         "pct_copy_bw": 201e6 / (sol_us * 1e-6) / 1e9 / 4200 * 100, "baselines": []}
    if base:
        c["baselines"].append(base)
    return c


def run(ako, peers):
    with tempfile.TemporaryDirectory() as d:
        a, p = f"{d}/a.json", f"{d}/p.json"
        json.dump(ako, open(a, "w"))
        json.dump(peers, open(p, "w"))
        out, argv = io.StringIO(), sys.argv
        sys.argv = ["compare_torch.py", a, p]
        try:
            with contextlib.redirect_stdout(out):
                compare_torch.main()
        finally:
            sys.argv = argv
        return out.getvalue()


class CompareTest(unittest.TestCase):
    def test_joins_peers_and_baselines_by_axes(self):
        base = {"name": "sglang_modulate", "verdict": "correct", "time": timed(60.0)}
        ako = {"task": "scale_shift", "device": {"name": "H200", "copy_bandwidth_gbs": 4200.0},
               "cases": [ako_case("wan13b-480p", {"layout": "bc"}, 50.0, base),
                         ako_case("wan13b-480p", {"layout": "bf1c"}, 52.0,
                                  {"name": "sglang_modulate", "verdict": "skipped", "reason": "not applicable to this case (when: ...)"})]}
        peers = {"schema": "ako.peer_bench/1", "task": "scale_shift", "torch": "2.11", "timer": "profiler", "l2": "cold",
                 "peers": [{"name": "torch"}, {"name": "sglang_triton"}],
                 "cases": [{"shape": "wan13b-480p", "dtype": "bf16", "flags": {}, "axes": {"layout": "bf1c"},
                            "peers": {"torch": {"verdict": "correct", "time": timed(150.0)},
                                      "sglang_triton": {"verdict": "not_applicable", "reason": "per token"}}},
                           {"shape": "wan13b-480p", "dtype": "bf16", "flags": {}, "axes": {"layout": "bc"},
                            "peers": {"torch": {"verdict": "correct", "time": timed(100.0)},
                                      "sglang_triton": {"verdict": "correct", "time": timed(45.0)}}}]}
        text = run(ako, peers)
        bc = next(l for l in text.splitlines() if "layout=bc" in l)
        self.assertRegex(bc, r"100\.00 .* 2\.00x .* 45\.00 .* 0\.90x .* 60\.00 .* 1\.20x")
        bf1c = next(l for l in text.splitlines() if "layout=bf1c" in l)
        self.assertRegex(bf1c, r"150\.00 .* 2\.88x +n/a +n/a")
        self.assertIn("wan13b-480p bf16 layout=bc (sglang_triton)", text)
        self.assertIn("sglang_triton: not_applicable on 1 case(s): per token", text)

    def test_elements_are_the_activation_not_every_dim(self):
        # rope's dims carry the cache's rows P: ako's count is q's N x H x D, never N H D R P.
        rope = {"dims": {"N": 118800, "H": 24, "D": 128, "R": 128, "P": 118800}, "elements": 118800 * 24 * 128}
        self.assertEqual(compare_torch.elements(rope), 118800 * 24 * 128)
        # results written before ako counted it: from the dims' names
        self.assertEqual(compare_torch.elements({"dims": {"N": 4608, "H": 24, "D": 128, "R": 128, "P": 4608}}), 4608 * 24 * 128)
        self.assertEqual(compare_torch.elements({"dims": {"N": 6144, "Hq": 32, "Hk": 8, "D": 64}}), 6144 * 32 * 64)
        self.assertEqual(compare_torch.elements({"dims": {"rows": 3, "cols": 5}, "elements": 0}), 15)
        self.assertEqual(compare_torch.elements({"dims": {"B": 2, "L": 3, "C": 4, "F": 21}}), 24)

    def test_video_rope_meets_the_95_percent_bar_by_its_activation(self):
        # hunyuan-720p rope at 94% of copy is under the video bar (95%, > 50M elements); flux1's
        # 14.2M elements are under 16M, so no bar, where every dim multiplied (N H D R P = 3e11)
        # held it to the video one.
        def case(shape, n, pct):
            return {"kind": "compare", "shape": shape, "dims": {"N": n, "H": 24, "D": 128, "R": 128, "P": n},
                    "elements": n * 24 * 128, "dtype": "bf16", "flags": {"neox": False}, "axes": {},
                    "solution_time": {"median_us": 100.0}, "bytes": 1e8, "pct_copy_bw": pct, "baselines": []}
        ako = {"task": "rope", "device": {"name": "H200", "copy_bandwidth_gbs": 4200.0},
               "cases": [case("hunyuan-720p", 118800, 94.0), case("flux1", 4608, 80.0)]}
        text = run(ako, {"schema": "ako.peer_bench/1", "task": "rope", "peers": [], "cases": []})
        self.assertIn("hunyuan-720p bf16 noneox (94.0% < 95%)", text)
        self.assertNotIn("flux1 bf16 noneox (", text)
        self.assertRegex(next(l for l in text.splitlines() if l.startswith("hunyuan-720p")), r" 365\.0M ")

    def test_other_task_is_refused(self):
        with self.assertRaisesRegex(SystemExit, "task"):
            run({"task": "a", "device": {"name": "x", "copy_bandwidth_gbs": 1.0}, "cases": []},
                {"schema": "ako.peer_bench/1", "task": "b", "peers": [], "cases": []})

    def test_reads_the_torch_rmsnorm_format(self):
        rows, names = compare_torch.peer_cases({"schema": "ako.torch_bench/1", "cases": [
            {"shape": {"name": "zimage", "rows": 4096, "cols": 3840}, "dtype": "fp16", "weight": False, "median_us": 9.5}]})
        self.assertEqual(names, ["torch"])
        self.assertEqual(rows[compare_torch.case_key("zimage", "fp16", {"weight": False}, {})]["torch"]["us"], 9.5)


if __name__ == "__main__":
    unittest.main()

class BeforeTheIqmTest(unittest.TestCase):
    def test_a_run_and_peers_without_iqm_are_read_on_their_medians(self):
        case = ako_case("wan13b-480p", {"layout": "bc"}, 50.0)
        case["solution_time"] = {"median_us": 50.0}
        ako = {"task": "scale_shift", "device": {"name": "H200", "copy_bandwidth_gbs": 4200.0}, "cases": [case]}
        peers = {"schema": "ako.peer_bench/1", "task": "scale_shift", "peers": [{"name": "torch"}],
                 "cases": [{"shape": "wan13b-480p", "dtype": "bf16", "flags": {}, "axes": {"layout": "bc"},
                            "peers": {"torch": {"verdict": "correct", "time": {"median_us": 100.0}}}}]}
        line = next(l for l in run(ako, peers).splitlines() if "layout=bc" in l)
        self.assertRegex(line, r" 50\.00 .* 100\.00 .* 2\.00x")


class CompareRunsTest(unittest.TestCase):
    def doc(self, sol, base=None):
        c = {"kind": "compare", "shape": "s", "dtype": "bf16", "flags": {}, "solution_time": sol, "baselines": []}
        if base:
            c["baselines"].append({"name": "flashinfer", "time": base})
        return {"cases": [c]}

    def test_compares_iqms_and_falls_back_to_medians(self):
        a = compare_runs.centres(self.doc(timed(50.0), timed(80.0)))
        self.assertEqual(a[("s", "bf16", "{}", "solution")], 50.0)
        self.assertEqual(a[("s", "bf16", "{}", "flashinfer")], 80.0)
        old = compare_runs.centres(self.doc({"median_us": 51.0}))
        self.assertEqual(old[("s", "bf16", "{}", "solution")], 51.0)

    def test_cases_that_differ_by_an_axis_only_stay_apart(self):
        doc = {"cases": [{**self.doc(timed(50.0))["cases"][0], "axes": {"act": "geglu"}},
                         {**self.doc(timed(30.0))["cases"][0], "axes": {"act": "silu_and_mul"}}]}
        got = compare_runs.centres(doc)
        self.assertEqual(got[("s", "bf16", '{"act": "geglu"}', "solution")], 50.0)
        self.assertEqual(got[("s", "bf16", '{"act": "silu_and_mul"}', "solution")], 30.0)

