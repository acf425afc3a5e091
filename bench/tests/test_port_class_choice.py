"""scripts/sglang_port_gpu.py's prediction of the class the ported dispatch picks per case (which
the GPU check compares with what ran): a class's `when` may name the case's dtype, as ako run's
choice does (tasks/README.md), so the prediction must see it too."""
import importlib.util
import json
import sys
import types
import unittest

from bench.tests._path import ROOT
from peers import cases as casemod
from peers import expr

sys.path.insert(0, str(ROOT / "scripts"))
spec = importlib.util.spec_from_file_location("sglang_port_gpu", ROOT / "scripts/sglang_port_gpu.py")
port_gpu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(port_gpu)


class PortClassChoice(unittest.TestCase):
    def test_a_class_choosing_by_dtype_takes_only_that_dtypes_cases(self):
        task = casemod.load_task(ROOT / "tasks/norm_scale_shift/task.json")
        classes = [{"name": "half", "when": "dtype == 'fp16' && affine", "params": {"BLOCK": 128}},
                   {"name": "rest", "params": {"BLOCK": 512}}]
        run = types.SimpleNamespace(spec=task, classes=classes, expr=expr)
        seen = set()
        for case in casemod.expand(task):
            name, params = port_gpu.TaskRun.picked(run, case)
            half = case.dtype == "fp16" and bool(case.flags.get("affine"))
            self.assertEqual(name, "half" if half else "rest", (case.shape, case.dtype, case.flags, case.axes))
            self.assertEqual(params["BLOCK"], 128 if half else 512)
            seen.add(name)
        self.assertEqual(seen, {"half", "rest"})

    def test_the_committed_h200_configs_load_and_pick_a_class_for_every_case(self):
        for t in ("norm_scale_shift", "residual_gate_norm_scale_shift"):
            task = casemod.load_task(ROOT / f"tasks/{t}/task.json")
            cfg = json.loads((ROOT / f"solution/{t}/configs/device_name=NVIDIA_H200.json").read_text())
            run = types.SimpleNamespace(spec=task, classes=cfg["classes"], expr=expr)
            for case in casemod.expand(task):
                name, _ = port_gpu.TaskRun.picked(run, case)
                self.assertIsNotNone(name, (t, case.shape, case.dtype))


if __name__ == "__main__":
    unittest.main()
