"""bench/peers/cases.py expands a task's compare cases as ako does (tasks/README.md, "From a
spec to cases" and "Which combinations run"), with buffers evaluated per case."""
import json
import tempfile
import unittest

from bench.tests._path import FIXTURES, ROOT
from peers import cases


class CasesTest(unittest.TestCase):
    def test_rmsnorm_cases_order_and_labels(self):
        spec = cases.load_task(ROOT / "tasks/rmsnorm/task.json")
        cs = cases.expand(spec)
        self.assertEqual(len(cs), 10 * 2 * 2)  # tasks/README.md: 40 compare cases
        self.assertEqual([c.label for c in cs[:4]], ["text-512 bf16 weight", "text-512 bf16 noweight",
                                                     "text-512 fp16 weight", "text-512 fp16 noweight"])
        c = cs[1]
        self.assertFalse(c.buffers["weight"].present)
        self.assertEqual(c.buffers["x"].shape, (512, 3072))
        self.assertEqual(c.buffers["out"].tolerance, (1e-2, 1e-2))
        self.assertAlmostEqual(c.scalars["eps"], 1e-6)
        self.assertEqual(c.scalars["rows"], 512)

    def test_typed_axes_per_buffer_dtypes_and_broadcast_extents(self):
        spec = cases.load_task(ROOT / "tests/tasks/tasks/modulate/task.json")
        cs = cases.expand(spec)
        self.assertEqual(len(cs), 1 * 2 * 3 * 2)
        c = next(c for c in cs if c.label == "wan-480p bf16 layout=bf1c mod_dtype=fp32")
        self.assertEqual(c.buffers["scale"].shape, (1, 21, 1, 1536))
        self.assertEqual(c.buffers["scale"].dtype, "fp32")
        self.assertEqual(c.buffers["x"].dtype, "bf16")
        c = next(c for c in cs if c.label == "wan-480p fp16 layout=blc mod_dtype=same")
        self.assertEqual(c.buffers["shift"].shape, (1, 1, 32760, 1536))
        self.assertEqual(c.buffers["shift"].dtype, "fp16")
        self.assertEqual(c.buffers["y"].tolerance, (5e-2, 5e-2))

    def test_top_level_when_drops_combinations(self):
        spec = cases.load_task(FIXTURES / "scale_shift.json")
        cs = cases.expand(spec)
        big = [c for c in cs if c.dims["B"] * c.dims["L"] >= 30000]
        self.assertTrue(big)
        self.assertTrue(all(c.axes["layout"] in ("bc", "bf1c") for c in big))
        small = [c for c in cs if c.shape == "text-512" and c.dtype == "bf16"]
        self.assertEqual(len(small), 6 * 2)
        # 7 small shapes x 12 combinations, 3 big shapes x 4, each in 2 dtypes
        self.assertEqual(len(cs), 2 * (7 * 12 + 3 * 4))

    def test_filters_and_keys(self):
        spec = cases.load_task(ROOT / "tasks/rmsnorm/task.json")
        cs = cases.expand(spec, shapes=["zimage"], dtypes=["fp16"])
        self.assertEqual([c.label for c in cs], ["zimage fp16 weight", "zimage fp16 noweight"])
        self.assertEqual(cs[0].key, cases.case_key("zimage", "fp16", {"weight": True}, {}))
        self.assertEqual(cases.case_key("s", "bf16", {}, {"head_dim": 128}), cases.case_key("s", "bf16", {}, {"head_dim": "128"}))
        with self.assertRaisesRegex(cases.TaskError, 'no shape "nope"'):
            cases.expand(spec, shapes=["nope"])
        with self.assertRaisesRegex(cases.TaskError, 'no dtype "fp32"'):
            cases.expand(spec, dtypes=["fp32"])

    def test_spec_errors_name_the_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump({"schema": "ako.task/1"}, f)
            f.flush()
            with self.assertRaisesRegex(cases.TaskError, "schema"):
                cases.load_task(f.name)
        spec = json.loads((FIXTURES / "scale_shift.json").read_text())
        spec["when"] = "layout == 'bc' && bogus"
        spec["_file"] = "x.json"
        with self.assertRaisesRegex(cases.TaskError, "unknown identifier 'bogus'"):
            cases.expand(spec)


if __name__ == "__main__":
    unittest.main()
