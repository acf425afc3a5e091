"""scripts/sweep_sets.py and scripts/gpu-sweep-sets.sh: launch-parameter sets against the committed config,
A1 X1a .. Xna Xnb .. X1b A2, per case (the runner driven on the CPU by a stub ako that times by --param)."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

from bench.tests._path import ROOT

ANALYSIS = str(ROOT / "scripts/sweep_sets.py")
RUNNER = str(ROOT / "scripts/gpu-sweep-sets.sh")


def run_json(times, failed=()):
    """An `ako run --json` document: one compare case per (dtype, time) of shape s; `failed` dtypes failed."""
    cases = [{"kind": "compare", "verdict": "failed" if dt in failed else "correct", "shape": "s", "dtype": dt,
              "flags": {}, "axes": {}, "solution_time": None if dt in failed else {"iqm_us": t}}
             for dt, t in times.items()]
    cases.append({"kind": "reference_check", "verdict": "correct", "shape": "check", "dtype": "bf16"})
    return {"cases": cases}


class SweepSetsAnalysisTest(unittest.TestCase):
    def analyse(self, docs, sets_text, shape="s"):
        with tempfile.TemporaryDirectory() as tmp:
            for name, doc in docs.items():
                with open(os.path.join(tmp, f"{name}.json"), "w") as f:
                    json.dump(doc, f)
            sets = os.path.join(tmp, "sets.txt")
            with open(sets, "w") as f:
                f.write(sets_text)
            return subprocess.run([sys.executable, ANALYSIS, tmp, shape, sets], capture_output=True, text=True)

    def test_each_set_over_the_committed_config_with_noise_missing_and_lost_cases(self):
        base = {"bf16": 10.0, "fp16": 20.0}
        docs = {"A1": run_json(base), "A2": run_json({"bf16": 10.0, "fp16": 20.2}),
                "X1a": run_json({"bf16": 9.0, "fp16": 20.1}), "X1b": run_json({"bf16": 9.0, "fp16": 20.1}),
                "X3a": run_json(base, failed=("fp16",)), "X3b": run_json(base, failed=("fp16",))}
        r = self.analyse(docs, "# comment\ns X1 BLOCK=128 TOKENS=2\nother Y1 BLOCK=64\ns X2 BLOCK=256\ns X3 VEC=4\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 4, r.stdout)
        self.assertTrue(lines[0].startswith("== s: noise A2 / A1: 2 cases"), lines[0])
        self.assertIn("X1 [BLOCK=128 TOKENS=2] / A: 2 cases", lines[1])
        self.assertIn("faster >1%: 1, slower >1%: 0", lines[1])
        self.assertIn("| s bf16  10.00 us 0.900", lines[1])  # the moved case, with A's mean time
        self.assertNotIn("fp16", lines[1].split("|")[1])        # 20.1 / 20.1: within 1%
        self.assertTrue(lines[2].startswith("X2: missing"), lines[2])
        self.assertIn("[BLOCK=256]", lines[2])
        self.assertIn("1 case(s) not correct or not timed under the set", lines[3])
        self.assertNotIn("Y1", r.stdout)

    def test_a_malformed_set_line_and_a_missing_committed_run_are_errors(self):
        r = self.analyse({"A1": run_json({"bf16": 1.0}), "A2": run_json({"bf16": 1.0})}, "s X1 BLOCK\n")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("sets.txt:1: want `SHAPE TAG NAME=VALUE ...`", r.stderr)
        r = self.analyse({"A1": run_json({"bf16": 1.0})}, "s X1 BLOCK=1\n")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the committed config's run A2 is missing", r.stderr)
        r = self.analyse({"A1": run_json({"bf16": 1.0}), "A2": run_json({"bf16": 1.0})}, "t X1 BLOCK=1\n")
        self.assertIn("has no set for shape s", r.stderr)


STUB = textwrap.dedent("""\
    #!/usr/bin/env python3
    # A stand-in for ako: logs each run's --param list (and --where), and writes a run whose bf16 time is 10 us, 9 with
    # BLOCK=128; a run with VEC=3 is refused (no --json written), as the static checks refuse a set.
    import json, os, sys
    a = sys.argv[1:]
    params = [a[i + 1] for i, w in enumerate(a) if w == "--param"]
    out = a[a.index("--json") + 1]
    where = ["where=" + a[a.index("--where") + 1]] if "--where" in a else []
    solution = ["solution=" + a[a.index("--solution") + 1]] if "--solution" in a else []
    with open(os.environ["STUB_LOG"], "a") as f:
        f.write(" ".join([a[a.index("--shapes") + 1], a[2]] + params + solution + where) + "\\n")
    if "VEC=3" in params:
        print("STATIC_CHECK: refused (1 finding)"); sys.exit(1)
    t = 9.0 if "BLOCK=128" in params else 10.0
    json.dump({"cases": [{"kind": "compare", "verdict": "correct", "shape": "s", "dtype": "bf16", "flags": {},
                          "axes": {}, "solution_time": {"iqm_us": t}}]}, open(out, "w"))
    print("CORRECT: yes (1/1 cases correct)")
    """)


class GpuSweepSetsRunnerTest(unittest.TestCase):
    def sweep(self, tmp, sets_text, relative=False, **env):
        """scripts/gpu-sweep-sets.sh on shape s of mytask against the stub ako, the sets written to
        tmp/sets.txt (named relative to the caller's folder tmp when `relative`), env added; returns the
        completed run (its exit checked) and the stub's log, one line a run."""
        stub = os.path.join(tmp, "ako")
        with open(stub, "w") as f:
            f.write(STUB)
        os.chmod(stub, os.stat(stub).st_mode | stat.S_IEXEC)
        sets = os.path.join(tmp, "sets.txt")
        with open(sets, "w") as f:
            f.write(sets_text)
        log = os.path.join(tmp, "log.txt")
        env = dict(os.environ, A=stub, OUT=os.path.join(tmp, "out"), STUB_LOG=log, **env)
        r = subprocess.run(["bash", RUNNER, "mytask", "s", "sets.txt" if relative else sets], capture_output=True,
                           text=True, env=env, cwd=tmp if relative else None)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(log) as f:
            return r, f.read().splitlines()

    def test_mirrored_order_the_spec_and_the_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            # the sets file named relative to the caller's folder (the script runs from the repository root)
            r, runs = self.sweep(tmp, "s X1 BLOCK=128 STATS=1\ns X2 VEC=3\nother Y BLOCK=1\n", relative=True,
                                 SPEC="variant/task.json")
            self.assertEqual(runs, ["s variant/task.json", "s variant/task.json BLOCK=128 STATS=1",
                                    "s variant/task.json VEC=3", "s variant/task.json VEC=3",
                                    "s variant/task.json BLOCK=128 STATS=1", "s variant/task.json"])
            self.assertEqual([l.split()[1] for l in r.stdout.splitlines() if l.startswith("run ")],
                             ["A1", "X1a", "X2a", "X2b", "X1b", "A2"])
            self.assertIn("STATIC_CHECK: refused", r.stdout)
            self.assertIn("X1 [BLOCK=128 STATS=1] / A: 1 cases, geomean 0.9000", r.stdout)
            self.assertIn("X2: missing", r.stdout)

    def test_where_reaches_every_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, runs = self.sweep(tmp, "s X1 BLOCK=128\n", WHERE="affine && C == 3")
            self.assertEqual(len(runs), 4)
            for run in runs:  # the committed config's runs too: the same cases on both sides
                self.assertTrue(run.endswith("where=affine && C == 3"), run)

    def test_a_variant_solution_reaches_every_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, runs = self.sweep(tmp, "s X1 BLOCK=128\n", SOLUTION="variants/k.cuh")
            self.assertEqual(runs, ["s mytask solution=variants/k.cuh", "s mytask BLOCK=128 solution=variants/k.cuh",
                                    "s mytask BLOCK=128 solution=variants/k.cuh", "s mytask solution=variants/k.cuh"])

    def test_usage_and_a_sets_file_without_the_shape(self):
        r = subprocess.run(["bash", RUNNER, "t"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("OUT=DIR scripts/gpu-sweep-sets.sh TASK SHAPE SETS_FILE", r.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            sets = os.path.join(tmp, "sets.txt")
            with open(sets, "w") as f:
                f.write("other X1 BLOCK=1\n")
            env = dict(os.environ, A="/bin/true", OUT=os.path.join(tmp, "out"))
            r = subprocess.run(["bash", RUNNER, "t", "s", sets], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 2)
            self.assertIn("has no set for shape s", r.stderr)


if __name__ == "__main__":
    unittest.main()
