#!/usr/bin/env python3
"""Runs the Python tests of the peer timing side for ctest (tests/CMakeLists.txt).

    python3 bench/tests/run.py cpu     what needs no torch (expressions, cases, binding, dry run)
    python3 bench/tests/run.py torch   the torch side on the CPU and SGLang's module imports

`torch` prints a GoogleTest-style skip (ctest's SKIP_REGULAR_EXPRESSION, the reason in the form
scripts/skipped-tests.sh lists) when torch is not installed; tests inside it that need more (triton, nvidia-cutlass-dsl,
scripts/fetch-sglang.sh's files) are skipped by unittest with their reason, shown by -v."""
import importlib.util
import pathlib
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GROUPS = {"cpu": ["test_expr", "test_cases", "test_family", "test_timing", "test_peer_timing", "test_compare_torch", "test_engine_table", "test_compare_tunes",
                  "test_validate", "test_validate_engine", "test_port_class_choice", "test_nvcc_nvrtc_regs", "test_abba_cases", "test_tune_db_split", "test_sweep_sets",
                  "test_ncu_stalls", "test_ncu_details", "test_sass_load_order", "test_gpu_abba", "test_sglang_prebuild"],
          "torch": ["test_torch_side", "test_sglang_loader", "test_validate_torch"]}


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    if group not in GROUPS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(GROUPS)}")
    if group == "torch" and importlib.util.find_spec("torch") is None:
        print(f"{pathlib.Path(__file__).relative_to(ROOT)}:1: Skipped")
        print("torch is not installed here: the torch-side peer tests (bench/tests/test_torch_side.py,")
        print("test_sglang_loader.py) need it; the torch-free ones ran in bench_peers_cpu")
        print("[  SKIPPED ] bench_peers_torch")
        return
    sys.path.insert(0, str(ROOT))
    suite = unittest.defaultTestLoader.loadTestsFromNames([f"bench.tests.{m}" for m in GROUPS[group]])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
