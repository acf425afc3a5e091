"""scripts/engine_table.py: the issue-14/15 table from one interleaved engine timing, its bars
counted exactly (slower, under 1.1x where the engine is under 90% of copy, the copy bar), each
miss labelled beyond a copy / within reach / no size copy by the case's size copy, from
sglang_port_timing.py's layout and from `ako run --size-copy --json`'s; and
scripts/sglang_port_timing.py timing that size copy in the kernels' own rotation (torch faked) and
merging the rounds of --placements."""
import contextlib
import importlib.util
import io
import json
import os
import pathlib
import sys
import tempfile
import types
import unittest
from unittest import mock

from bench.tests._path import ROOT
from peers import timing


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / f"scripts/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


engine_table = load("engine_table")
port_timing = load("sglang_port_timing")

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


# The size-copy labels. A case of 400 MB at BW: 100 us is 100% of copy. Each size copy is given
# at a byte count other than the case's (half or double), so a rule that compared its raw time
# instead of its rate's time for the case's bytes lands on the other side.
NEED = 125.0 / 1.1   # ako's time for 1.1x over an engine kernel at 125 us (80% of copy): 113.64 us


def size_copy(case_us, scale):
    """A size copy of scale x the case's bytes whose rate copies the case's 400 MB in case_us."""
    return {"bytes": 400_000_000 * scale, "time": {"iqm_us": case_us * scale}}


def labelled(c, sc):
    c["size_copy"] = sc
    return c


def label_cases():
    small, video = 1e6, 100e6   # no copy bar; the 95% bar
    return [
        # under 1.1x (ako 120 us: 1.042x over 125 us): 1.1x needs 113.64 us
        labelled(case("u-beyond", small, 120.0, 300.0, 125.0), size_copy(NEED + 0.06, 0.5)),   # a copy takes 113.70
        labelled(case("u-within", small, 120.0, 300.0, 125.0), size_copy(NEED - 0.09, 2)),     # a copy takes 113.55
        case("u-none", small, 120.0, 300.0, 125.0),
        # the copy bar (95%; ako at 110 us: 90.9%), the engine not applicable
        labelled(case("c-beyond", video, 110.0, 300.0, "not_applicable"), size_copy(100 / 0.949, 2)),  # copy at 94.9%
        labelled(case("c-within", video, 110.0, 300.0, "not_applicable"), size_copy(100 / 0.951, 0.5)),  # at 95.1%
        case("c-none", video, 110.0, 300.0, "not_applicable"),
        # slower than the engine: within reach, even beside a size copy slower than the engine itself
        labelled(case("s-slow-copy", small, 130.0, 300.0, 128.0), size_copy(200.0, 1)),
        case("s-none", small, 130.0, 300.0, 128.0),
    ]


def ako_run_doc(cases):
    """`ako run --size-copy --json`'s layout (schema ako.run/1) of engine-timing cases: the
    solution's time as solution_time, sglang_cute a baseline (skipped where not applicable), the
    size copy as size_copy_time and size_copy_bytes; with a reference_check case and an incorrect
    compare case that must add no miss."""
    out = [{"kind": "reference_check", "verdict": "correct", "shape": "x", "bytes": 1.0}]
    for c in cases:
        e = c["peers"]["sglang_cute"]
        sc = c.get("size_copy")
        out.append({"kind": "compare", "verdict": "correct", "shape": c["shape"], "dtype": c["dtype"],
                    "axes": c["axes"], "flags": c["flags"], "dims": {}, "bytes": c["bytes"], "elements": c["elements"],
                    "solution_time": c["peers"]["ako_port"]["time"], "pct_copy_bw": 0.0,
                    "size_copy_time": sc["time"] if sc else None, "size_copy_bytes": sc["bytes"] if sc else 0.0,
                    "baselines": [{"name": "sglang_cute", "verdict": "correct" if "time" in e else "skipped",
                                   "time": e.get("time"), "pct_copy_bw": 0.0}]})
    out.append({**out[1], "shape": "wrong", "verdict": "incorrect", "solution_time": {"iqm_us": 1.0}})
    return {"schema": "ako.run/1", "task": "norm_scale_shift", "options": {"l2_flush": "memset", "hot": False},
            "config": {"file": "solution/x.json"}, "device": {"name": "NVIDIA H200", "copy_bandwidth_gbs": BW},
            "cases": out}


class SizeCopyLabelTest(unittest.TestCase):
    WANT = {"slower": {"s-slow-copy": "within reach", "s-none": "within reach"},
            "under_1_1x": {"u-beyond": "beyond a copy", "u-within": "within reach", "u-none": "no size copy"},
            "copy": {"c-beyond": "beyond a copy", "c-within": "within reach", "c-none": "no size copy"}}

    def check(self, d):
        a = engine_table.analyse(d)
        for key, want in self.WANT.items():
            got = {m.split(" ")[0]: how for m, how in zip(a["misses"][key], a["labels"][key])}
            self.assertEqual(got, want, key)
            for m, how in zip(a["misses"][key], a["labels"][key]):
                self.assertTrue(m.endswith(f"; {how})"), m)   # each listed case carries its label
        text = engine_table.render(d)
        self.assertIn("under 90% of copy: 3 (1 beyond a copy, 1 within reach, 1 no size copy): u-beyond", text)
        self.assertIn("(16M+ elements: 90%, over 50M: 95%): 3 (1 beyond a copy, 1 within reach, 1 no size copy)", text)
        self.assertIn("slower than torch or an engine kernel: 2 (0 beyond a copy, 2 within reach): ", text)
        self.assertIn("1.1x needs 113.64 us, a copy 113.70 us; beyond a copy)", text)
        self.assertIn("(90.9% < 95%; the size copy at 94.9%; beyond a copy)", text)
        md = engine_table.render(d, markdown=True)
        self.assertIn("3 (1 beyond a copy, 1 within reach, 1 no size copy): u-beyond", md)
        return a, text, md

    def test_a_case_already_under_its_copy_is_not_beyond_it(self):
        # ako 115 us, 1.043x over 120 us (83% of copy): 1.1x needs 109.09 us, a copy of the bytes
        # takes 125 us; ako already runs under it (a latency-bound case, the copy's fixed costs),
        # so the copy is no floor there: within reach (the old rule said beyond), and the line says why.
        # The same times on a case with a copy bar (20M elements, bandwidth-bound): the copy stays
        # its floor, beyond a copy as before.
        d = doc([labelled(case("u-under-copy", 1e6, 115.0, 300.0, 120.0), size_copy(125.0, 1)),
                 labelled(case("u-big-under-copy", 20e6, 115.0, 300.0, 120.0), size_copy(125.0, 1))])
        a = engine_table.analyse(d)
        self.assertEqual(a["labels"]["under_1_1x"], ["within reach", "beyond a copy"])
        self.assertIn("1.1x needs 109.09 us, a copy 125.00 us, ako 115.00 us already under it; within reach)",
                      a["misses"]["under_1_1x"][0])

    def test_engine_timing_layout(self):
        a, text, _ = self.check(doc(label_cases()))
        self.assertEqual(a["cols"], ["torch", "sglang_cute"])
        self.assertNotIn("size_copy", text)   # no column of its own

    def test_ako_run_layout(self):
        d = ako_run_doc(label_cases())
        a, text, md = self.check(d)
        self.assertEqual(a["cols"], ["sglang_cute"])   # no torch column in ako run's layout
        self.assertEqual(len(a["rows"]), 9)             # the compare cases, the incorrect one too
        self.assertIn("| wrong | bf16 | noaffine norm=layer | correct | WRONG | - | - | - |", md)
        self.assertIn("cold (memset flush) L2", text)
        self.assertNotIn("torch us", md)
        self.assertNotIn("ako vs torch", md)
        with tempfile.TemporaryDirectory() as t:
            f = f"{t}/run.json"
            with open(f, "w") as fh:
                json.dump(d, fh)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                engine_table.main([f])
                engine_table.main([f, "--by-shape"])
            self.assertIn("3 (1 beyond a copy, 1 within reach, 1 no size copy)", out.getvalue())
            self.assertIn("| shape | cases | ako % copy | sglang_cute % copy | ako vs sglang_cute (min / geomean) |",
                          out.getvalue())

    def test_a_miss_without_size_copies_keeps_its_count(self):
        # an engine timing written before the size copy: every bar miss says so, nothing guessed
        text = engine_table.render(doc([case("image-under", 20e6, 120.0, 300.0, 125.0)]))
        self.assertIn("under 90% of copy: 1 (0 beyond a copy, 0 within reach, 1 no size copy): image-under", text)
        self.assertIn("95%): 1 (0 beyond a copy, 0 within reach, 1 no size copy)", text)
        self.assertIn("slower than torch or an engine kernel: 0\n", text)

    def test_runs_say_which_misses_stay_and_which_come_and_go(self):
        run1 = doc([case("video-slow", 100e6, 110.0, 300.0, 108.0),      # behind, under the copy bar
                    case("tie", 100e6, 100.0, 300.0, 99.8)])              # behind by noise
        run2 = doc([case("video-slow", 100e6, 111.0, 300.0, 108.5),
                    case("tie", 100e6, 100.0, 300.0, 100.3)])             # ahead this time
        text = engine_table.stability([run1, run2])
        lines = text.splitlines()
        self.assertEqual(lines[0], "norm_scale_shift: 2 runs")
        self.assertIn("slower than torch or an engine kernel: 2 missed in some run, 1 in every run that timed them", lines)
        slower = lines.index("slower than torch or an engine kernel: 2 missed in some run, 1 in every run that timed them")
        self.assertTrue(lines[slower + 1].startswith("  video-slow bf16 noaffine norm=layer vs sglang_cute: 2/2 runs "
                                                     "(2 within reach); 0.982x 0.977x"), lines[slower + 1])
        self.assertTrue(lines[slower + 2].startswith("  tie bf16 noaffine norm=layer vs sglang_cute: 1/2 runs"), text)
        self.assertTrue(lines[slower + 2].endswith("; 0.998x 1.003x"), text)
        self.assertIn("  video-slow bf16 noaffine norm=layer: 2/2 runs (2 no size copy); 90.9% 90.1%", lines)
        self.assertIn("under 1.1x where the engine kernel is under 90% of copy: 0 missed in some run, 0 in every run "
                      "that timed them", lines)
        part = doc([case("tie", 100e6, 100.0, 300.0, 99.9)])   # a run of fewer shapes: video-slow not timed
        lines = engine_table.stability([run1, part]).splitlines()
        self.assertIn("slower than torch or an engine kernel: 2 missed in some run, 2 in every run that timed them", lines)
        self.assertIn("  video-slow bf16 noaffine norm=layer vs sglang_cute: 1/1 runs (1 within reach); 0.982x -", lines)
        other = doc([])
        other["task"] = "layernorm"
        with self.assertRaises(ValueError):
            engine_table.stability([run1, other])
        with tempfile.TemporaryDirectory() as t:   # the command line: --runs over files
            for i, d in enumerate((run1, run2, other)):
                with open(f"{t}/{i}.json", "w") as fh:
                    json.dump(d, fh)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                engine_table.main([f"{t}/0.json", f"{t}/1.json", "--runs"])
            self.assertEqual(out.getvalue(), text + "\n")
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()):
                engine_table.main([f"{t}/0.json", f"{t}/2.json", "--runs"])
            self.assertIn("different tasks", str(e.exception))

    def test_write_puts_the_three_tables_in_a_folder_and_prints_the_summary(self):
        d = ako_run_doc(label_cases())
        with tempfile.TemporaryDirectory() as t:
            f = f"{t}/norm_scale_shift.json"
            with open(f, "w") as fh:
                json.dump(d, fh)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                engine_table.main([f, "--write", f"{t}/tables"])
            files = sorted(os.listdir(f"{t}/tables"))
            self.assertEqual(files, ["norm_scale_shift-by-shape.md", "norm_scale_shift-table.md",
                                     "norm_scale_shift-table.txt"])
            with open(f"{t}/tables/norm_scale_shift-table.txt") as fh:
                self.assertEqual(fh.read(), engine_table.render(d) + "\n")   # the whole table there
            with open(f"{t}/tables/norm_scale_shift-by-shape.md") as fh:
                self.assertEqual(fh.read(), engine_table.by_shape(d) + "\n")
            printed = out.getvalue()
            self.assertTrue(printed.startswith("norm_scale_shift: NVIDIA H200"), printed)
            self.assertIn("ako vs sglang_cute:", printed)
            self.assertIn("under 90% of copy: 3 (1 beyond a copy, 1 within reach, 1 no size copy)", printed)
            self.assertNotIn("u-within bf16", printed.split("\n")[1])   # no per-case rows, only the summary
            self.assertTrue(all(len(line) <= 300 for line in printed.split("\n")))


# scripts/sglang_port_timing.py's size copy, timed by the real Timer on a faked torch: every call
# to the fake GPU appends a kernel (or memcpy) of a set duration to one stream, which the fake
# profiler hands back as kineto would.
MEMCPY = "Memcpy DtoD (Device -> Device)"
COPY_RATE = 2000.0   # bytes per us each way of the fake copy


class FakeGPU:
    def __init__(self):
        self.events, self.clock, self.profiled_from = [], 0, None

    def run(self, name, us):
        self.events.append((self.clock, us, name))
        self.clock += int(us * 1000) + 100


def fake_torch(gpu):
    cuda_type = object()

    class Event:
        def __init__(self, start, us, name):
            self.start, self.us, self.n = start, us, name

        def device_type(self):
            return cuda_type

        def name(self):
            return self.n

        def start_ns(self):
            return self.start

        def duration_ns(self):
            return self.us * 1000

    class Tensor:
        def __init__(self, nbytes):
            self.nbytes = nbytes

        def zero_(self):   # the L2 flush
            gpu.run("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<unsigned char>>", 30.0)

        def bitwise_not_(self):   # the marker
            gpu.run("void at::native::vectorized_elementwise_kernel<4, at::native::bitwise_not_kernel_cuda>", 1.0)

        def copy_(self, src):
            assert src.nbytes == self.nbytes
            gpu.run(MEMCPY, self.nbytes / COPY_RATE)

    class Profile:
        def __init__(self, activities):
            pass

        def __enter__(self):
            self.first = gpu.profiled_from = len(gpu.events)
            self.profiler = types.SimpleNamespace(kineto_results=types.SimpleNamespace(
                events=lambda: [Event(*e) for e in gpu.events[self.first:]]))
            return self

        def __exit__(self, *exc):
            return False

    torch = types.ModuleType("torch")
    torch.uint8 = "uint8"
    torch.zeros = torch.empty = lambda n, dtype=None, device=None: Tensor(n)
    torch.empty_like = lambda t: Tensor(t.nbytes)
    torch.cuda = types.SimpleNamespace(synchronize=lambda: None, current_device=lambda: 0,
                                       get_device_properties=lambda i: types.SimpleNamespace(L2_cache_size=1 << 20))
    torch.autograd = types.SimpleNamespace(DeviceType=types.SimpleNamespace(CUDA=cuda_type))
    torch.profiler = types.ModuleType("torch.profiler")
    torch.profiler.ProfilerActivity = types.SimpleNamespace(CUDA="cuda")
    torch.profiler.profile = Profile
    return torch


class SizeCopyTimingTest(unittest.TestCase):
    def test_size_copy_half_rounds_as_ako(self):
        # half the bytes to the nearest whole 64 KiB, as harness/exec/worker/case_timing.cpp;
        # ako's size_copy_bytes for these qknorm cases (bench/results/2026-11-26-h200-session11)
        self.assertEqual(2 * port_timing.size_copy_half(113258496), 113246208)
        self.assertEqual(2 * port_timing.size_copy_half(169316352), 169345024)
        self.assertEqual(port_timing.size_copy_half(1000), 65536)   # at least one granule

    def test_the_size_copy_runs_in_the_kernels_rotation_and_lands_in_the_json(self):
        gpu = FakeGPU()
        torch = fake_torch(gpu)

        def engine():   # a peer's own memcpy stays uncharged, as before
            gpu.run(MEMCPY, 5.0)
            gpu.run("engine_kernel", 50.0)
        fns = {"ako_port": lambda: gpu.run("ako_kernel", 40.0), "sglang_cute": engine}
        row = {"shape": "video", "dtype": "bf16", "flags": {}, "axes": {}, "bytes": 400_001_000, "elements": 1e6,
               "peers": {"ako_port": {}, "sglang_cute": {}, "torch": {"verdict": "not_applicable"}}}
        with mock.patch.dict(sys.modules, {"torch": torch, "torch.profiler": torch.profiler}):
            timer = timing.Timer(samples=6, warmup=2)
            stats = port_timing.time_case(torch, timer, fns, row, "cuda")
        half = 3052 * 65536   # 200000500 bytes each way, to the nearest 64 KiB
        self.assertEqual(set(stats), {"ako_port", "sglang_cute"})
        self.assertEqual(row["size_copy"]["bytes"], 2 * half)
        self.assertAlmostEqual(row["size_copy"]["time"]["iqm_us"], half / COPY_RATE)
        self.assertEqual(row["size_copy"]["time"]["samples"], 6)
        self.assertEqual(row["peers"]["sglang_cute"]["time"]["iqm_us"], 50.0)
        self.assertEqual(row["peers"]["ako_port"]["verdict"], "correct")
        self.assertAlmostEqual(row["peers"]["ako_port"]["gbps"], 400_001_000 / 40e-6 / 1e9)
        # the profiled stream: each sample [marker][flush][its work], the size copy one callable of
        # the same rotation (round r starts at the r-th of ako_port, sglang_cute, size_copy)
        samples = timing.split_samples(gpu.events[gpu.profiled_from:], flush=True)
        who = {("ako_kernel",): "ako_port", (MEMCPY, "engine_kernel"): "sglang_cute", (MEMCPY,): "size_copy"}
        self.assertEqual([who[tuple(n for _, n in x)] for x in samples],
                         [n for r in range(6) for n in timing.rotation(["ako_port", "sglang_cute", "size_copy"], r)])
        flushes = [b for a, b in zip(gpu.events[gpu.profiled_from:], gpu.events[gpu.profiled_from + 1:])
                   if "bitwise_not" in a[2]]
        self.assertEqual(len(flushes), 18)
        self.assertTrue(all("FillFunctor" in f[2] for f in flushes))
        # the JSON: write() keeps the row's size_copy, and engine_table reads it, not as a peer
        with tempfile.TemporaryDirectory() as t:
            args = types.SimpleNamespace(out=pathlib.Path(t))
            run = types.SimpleNamespace(config=types.SimpleNamespace(name="cfg"))
            peers = [types.SimpleNamespace(name=n, description="") for n in ("torch", "sglang_cute")]
            head = {"schema": "ako.peer_bench/1", "device": "fake", "copy_bandwidth_gbs": BW, "samples": 6}
            port_timing.write(args, head, "norm_scale_shift", run, peers, [row], complete=True)
            d = json.loads((pathlib.Path(t) / "engine-timing-norm_scale_shift.json").read_text())
        self.assertEqual(d["cases"][0]["size_copy"]["bytes"], 2 * half)
        self.assertEqual([p["name"] for p in d["peers"]], ["ako_port", "torch", "sglang_cute"])
        self.assertAlmostEqual(engine_table.copy_us(d["cases"][0]), 400_001_000 / COPY_RATE / 2)
        self.assertEqual(engine_table.analyse(d)["cols"], ["torch", "sglang_cute"])


if __name__ == "__main__":
    unittest.main()


class PlacementsTest(unittest.TestCase):
    """--placements: each kernel's time is its median round, every round kept; the table says so."""

    @staticmethod
    def round_(ako, engine, copy, port_verdict="correct"):
        port = {"entry": "k", "class": "c", "verdict": port_verdict}
        if port_verdict == "correct":
            port["time"] = {"iqm_us": ako}
        else:
            port["reason"] = "max|err| over the tolerance"
        return {"peers": {"ako_port": port, "sglang_cute": {"verdict": "correct", "time": {"iqm_us": engine}},
                          "torch": {"verdict": "unavailable", "reason": "why"}},
                "size_copy": {"bytes": 2, "time": {"iqm_us": copy}}}

    def test_each_kernel_takes_its_own_median_round_and_keeps_every_round(self):
        row = {"peers": {}}
        timed = port_timing.merge_placements(row, [self.round_(10.4, 12.0, 9.0), self.round_(10.0, 11.0, 9.5),
                                                   self.round_(10.2, 13.0, 8.0)])
        self.assertEqual(timed, ["ako_port", "sglang_cute"])
        self.assertEqual(row["peers"]["ako_port"]["time"]["iqm_us"], 10.2)     # not the engine's median round
        self.assertEqual(row["peers"]["sglang_cute"]["time"]["iqm_us"], 12.0)
        self.assertEqual(row["peers"]["ako_port"]["placements_iqm_us"], [10.4, 10.0, 10.2])
        self.assertEqual(row["size_copy"]["time"]["iqm_us"], 9.0)
        self.assertEqual(row["size_copy"]["placements_iqm_us"], [9.0, 9.5, 8.0])
        self.assertEqual(row["peers"]["torch"]["verdict"], "unavailable")
        self.assertNotIn("time", row["peers"]["torch"])

    def test_one_round_keeps_the_layout_before(self):
        row = {"peers": {}}
        port_timing.merge_placements(row, [self.round_(10.0, 11.0, 9.0)])
        self.assertNotIn("placements_iqm_us", row["peers"]["ako_port"])
        self.assertNotIn("placements_iqm_us", row["size_copy"])

    def test_a_wrong_round_makes_the_row_wrong_and_untimed(self):
        row = {"peers": {}}
        timed = port_timing.merge_placements(row, [self.round_(10.0, 11.0, 9.0), self.round_(0, 11.5, 9.1, "incorrect")])
        self.assertEqual(timed, ["sglang_cute"])
        self.assertEqual(row["peers"]["ako_port"]["verdict"], "incorrect")
        self.assertNotIn("time", row["peers"]["ako_port"])

    def test_the_table_says_how_many_placements(self):
        d = doc([case("video-fast", 100e6, 100.0, 300.0, 105.0)])
        self.assertNotIn("placements", engine_table.render(d).splitlines()[0])
        d["placements"] = 3
        self.assertIn("each case at 3 placements of its tensors, a kernel's median one",
                      engine_table.render(d).splitlines()[0])
