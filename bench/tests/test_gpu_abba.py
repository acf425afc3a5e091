"""scripts/gpu-abba.sh: A1 B1 B2 A2 runs of one task where A and B differ by config and / or solution file, driven on
the CPU by a stub ako in a scratch workspace (its task's config folder read from task.json, the copies removed)."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

from bench.tests._path import ROOT

RUNNER = str(ROOT / "scripts/gpu-abba.sh")

STUB = textwrap.dedent("""\
    #!/usr/bin/env python3
    # A stand-in for ako: logs each run's arguments after `run task`, notes whether the config the run names exists,
    # and writes a run whose bf16 case takes 9 us with --solution and 10 without.
    import json, os, sys
    a = sys.argv[1:]
    out = a[a.index("--json") + 1]
    shown = [w for w in a[3:] if w != out and w != "--json"]
    if "--device" in a:
        cfg = os.path.join("solution/mine/configs", "device_name=" + a[a.index("--device") + 1] + ".json")
        shown.append("config-there" if os.path.isfile(cfg) else "config-missing")
    with open(os.environ["STUB_LOG"], "a") as f:
        f.write(" ".join(shown) + "\\n")
    t = 9.0 if "--solution" in a else 10.0
    json.dump({"cases": [{"kind": "compare", "verdict": "correct", "shape": "s", "dtype": "bf16", "flags": {},
                          "axes": {}, "solution_time": {"iqm_us": t}}]}, open(out, "w"))
    print("CORRECT: yes (1/1 cases correct)")
    """)


class GpuAbbaTest(unittest.TestCase):
    def workspace(self, tmp):
        """A scratch workspace: task `mytask` whose configs live in solution/mine/configs, a stub ako, a config and
        a solution file; returns the environment for the runner."""
        os.makedirs(os.path.join(tmp, "ws/tasks/mytask"))
        os.makedirs(os.path.join(tmp, "ws/solution/mine/configs"))
        with open(os.path.join(tmp, "ws/tasks/mytask/task.json"), "w") as f:
            json.dump({"solution": {"config": "solution/mine/configs"}}, f)
        stub = os.path.join(tmp, "ako")
        with open(stub, "w") as f:
            f.write(STUB)
        os.chmod(stub, os.stat(stub).st_mode | stat.S_IEXEC)
        for name in ("before.json", "variant.cuh"):
            with open(os.path.join(tmp, name), "w") as f:
                f.write("{}\n")
        return dict(os.environ, A=stub, ROOT=os.path.join(tmp, "ws"), OUT=os.path.join(tmp, "out"),
                    STUB_LOG=os.path.join(tmp, "log.txt"))

    def test_a_config_against_a_solution_in_mirrored_order(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = self.workspace(tmp)
            env.update(A_CONFIG=os.path.join(tmp, "before.json"), B_SOLUTION=os.path.join(tmp, "variant.cuh"),
                       LABEL="variant / before")
            r = subprocess.run(["bash", RUNNER, "mytask", "--shapes", "s", "--size-copy"], capture_output=True,
                               text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(env["STUB_LOG"]) as f:
                runs = f.read().splitlines()
            variant = os.path.join(tmp, "variant.cuh")
            a = "--no-progress --device ABBA_A --shapes s --size-copy config-there"
            b = f"--no-progress --solution {variant} --shapes s --size-copy"
            self.assertEqual(runs, [a, b, b, a])
            self.assertEqual([l.split()[1] for l in r.stdout.splitlines() if l.startswith("run ")], ["A1", "B1", "B2", "A2"])
            self.assertIn("variant / before: 1 cases, geomean 0.9000", r.stdout)
            self.assertIn("noise A2 / A1: 1 cases, geomean 1.0000", r.stdout)
            # The config copy is gone after the runs; the per-case table is kept.
            self.assertEqual(os.listdir(os.path.join(tmp, "ws/solution/mine/configs")), [])
            with open(os.path.join(tmp, "out/cases.txt")) as f:
                self.assertIn("B/A 0.900", f.read())

    def test_usage_and_a_missing_file(self):
        r = subprocess.run(["bash", RUNNER], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("OUT=DIR scripts/gpu-abba.sh TASK", r.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            env = self.workspace(tmp)
            env["B_CONFIG"] = os.path.join(tmp, "nowhere.json")
            r = subprocess.run(["bash", RUNNER, "mytask"], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 2)
            self.assertIn("gpu-abba: no file", r.stderr)
            self.assertFalse(os.path.exists(env["STUB_LOG"]))  # nothing ran


if __name__ == "__main__":
    unittest.main()
