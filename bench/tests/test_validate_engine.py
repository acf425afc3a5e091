"""`ako validate`'s engine backend without a GPU: the runtime's conditions around SGLang's JIT
wrappers (bench/validate/engine_jit.py), the files `scripts/sglang-gpu-check.sh --prepare`
takes from the sglang wheel (scripts/sglang_engine_files.py) and packs into its payload, and
SGLang's own qknorm_rope.cuh built by ako's Builder as SGLang's JIT builds it (nvcc, sm_90a)."""
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from bench.tests._path import ROOT  # noqa: F401  (puts bench/ on sys.path)
from validate import engine_jit

sys.path.insert(0, str(ROOT / "scripts"))
import sglang_engine_files  # noqa: E402
import sglang_jit  # noqa: E402

BF16, FP16, FP32 = "torch.bfloat16", "torch.float16", "torch.float32"


class RuntimeConditionsTest(unittest.TestCase):
    def test_flux_s_qknorm_rope_call_asks_the_guard(self):
        # FLUX.1: bf16 q / k [N, 24, 128], contiguous, bf16 weights, a 128-wide cos | sin cache
        self.assertIsNone(engine_jit.qknorm_rope_refusal(BF16, BF16, (BF16, BF16), True, 128, 128))

    def test_qknorm_rope_refusals_name_the_condition(self):
        r = engine_jit.qknorm_rope_refusal
        self.assertIn("one half type", r(FP32, FP32, (FP32, FP32), True, 128, 128))
        self.assertIn("one half type", r(BF16, BF16, (FP32, BF16), True, 128, 128))
        self.assertIn("not contiguous", r(BF16, BF16, (BF16, BF16), False, 128, 128))
        self.assertIn("even and <= head_dim", r(BF16, BF16, (BF16, BF16), True, 130, 128))
        self.assertIn("even and <= head_dim", r(BF16, BF16, (BF16, BF16), True, 63, 64))
        self.assertIn("SGLANG_ENABLE_FUSED_QKNORM_ROPE", r(BF16, BF16, (BF16, BF16), True, 128, 128, enabled=False))

    def test_the_jit_rmsnorm_takes_wan_s_and_ltx_s_rows_across_heads(self):
        for hidden in (5120, 1536, 2048, 3840, 3072):
            self.assertIsNone(engine_jit.rmsnorm_refusal(BF16, BF16, hidden), hidden)

    def test_the_jit_rmsnorm_refusals(self):
        r = engine_jit.rmsnorm_refusal
        self.assertIn("triton_one_pass_rms_norm", r(BF16, BF16, 128))
        self.assertIn("not a size", r(BF16, BF16, 5000))
        self.assertIn("not a size", r(BF16, BF16, 16384 + 512))
        self.assertIsNone(r(BF16, BF16, 16384))
        self.assertIn("one half type", r(FP32, FP32, 5120))
        self.assertIn("one half type", r(BF16, None, 5120))


def fake_wheel(path, files):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def engine_files(extra_header=""):
    """A wheel's members for every file sglang_engine_files wants, the .cuh including headers."""
    root = sglang_engine_files.WHEEL_ROOT
    files = {root + rel: f"# {rel}\n" for rel in sglang_engine_files.PYTHON}
    for rel in sglang_engine_files.CUDA:
        files[root + rel] = '#include <sgl_kernel/utils.cuh>\n#include <cuda_bf16.h>\n#include "local.cuh"\n'
        files[root + str(pathlib.PurePosixPath(rel).parent / "local.cuh")] = "// beside its includer\n"
    files[root + "jit/include/sgl_kernel/utils.cuh"] = "#include <sgl_kernel/impl/norm.cuh>\n" + extra_header
    files[root + "jit/include/sgl_kernel/impl/norm.cuh"] = "// reached through utils.cuh\n"
    files[root + "jit/include/sgl_kernel/unused.cuh"] = "// nobody includes it\n"
    files[root + "jit/utils/compile/cpp_args.py"] = "def make_cpp_args(*a): return a\n"
    return files


class EngineFilesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="ako-engine-files-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def test_the_closure_follows_sgl_kernel_and_local_includes_only(self):
        wheel = fake_wheel(self.tmp / "sglang.whl", engine_files())
        got = sglang_engine_files.extract(wheel, self.tmp / "k")
        self.assertIn("jit/include/sgl_kernel/impl/norm.cuh", got)
        self.assertIn("jit/csrc/diffusion/local.cuh", got)
        self.assertIn("jit/csrc/elementwise/local.cuh", got)
        self.assertNotIn("jit/include/sgl_kernel/unused.cuh", got)
        for rel in got:
            self.assertTrue((self.tmp / "k" / rel).is_file(), rel)
        self.assertEqual(set(sglang_engine_files.PYTHON + sglang_engine_files.CUDA) - set(got), set())

    def test_a_file_the_wheel_lacks_is_an_error(self):
        files = engine_files()
        del files[sglang_engine_files.WHEEL_ROOT + "jit/csrc/diffusion/qknorm_rope.cuh"]
        with self.assertRaisesRegex(SystemExit, "jit/csrc/diffusion/qknorm_rope.cuh: not in the sglang wheel"):
            sglang_engine_files.extract(fake_wheel(self.tmp / "sglang.whl", files), self.tmp / "k")

    def test_a_header_already_there_must_be_the_wheel_s(self):
        wheel = fake_wheel(self.tmp / "sglang.whl", engine_files())
        sglang_engine_files.extract(wheel, self.tmp / "k")  # again: identical files are kept
        sglang_engine_files.extract(wheel, self.tmp / "k")
        (self.tmp / "k/jit/include/sgl_kernel/utils.cuh").write_text("// another release\n")
        with self.assertRaisesRegex(SystemExit, "differs from the wheel's"):
            sglang_engine_files.extract(wheel, self.tmp / "k")


class PrepareTest(unittest.TestCase):
    """scripts/sglang-gpu-check.sh --prepare into a payload folder of the test's own (SGL_PROOF)."""

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="ako-prepare-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        tree = self.tmp / "tree/python/sglang/kernels"
        (tree / "jit/include/sgl_kernel").mkdir(parents=True)
        (tree / "jit/include/sgl_kernel/utils.cuh").write_text("#include <sgl_kernel/impl/norm.cuh>\n")
        (tree / "jit/include/sgl_kernel/impl").mkdir()
        (tree / "jit/include/sgl_kernel/impl/norm.cuh").write_text("// reached through utils.cuh\n")
        (tree / "jit/csrc/diffusion").mkdir(parents=True)
        (tree / "jit/csrc/diffusion/rmsnorm.cuh").write_text("// Generated by `ako port` for task rmsnorm\n")
        (tree / "ops/diffusion/norm").mkdir(parents=True)
        (tree / "ops/diffusion/norm/rmsnorm_jit.py").write_text("# Generated by `ako port` for task rmsnorm: x\n")
        self.tree = self.tmp / "tree"
        self.tvm = fake_wheel(self.tmp / "apache_tvm_ffi-0.1.15-cp312-cp312-x.whl", {"tvm_ffi/__init__.py": ""})
        self.pay = self.tmp / "payload"

    def prepare(self, files):
        sgl = fake_wheel(self.tmp / "sglang-0.5.23-cp311-cp311-x.whl", files)
        return subprocess.run(["bash", str(ROOT / "scripts/sglang-gpu-check.sh"), "--prepare", str(self.tree), str(self.tvm),
                               str(sgl)], capture_output=True, text=True, env={**os.environ, "SGL_PROOF": str(self.pay)})

    def test_the_payload_holds_sglang_s_own_files_and_the_manifest_lists_them(self):
        r = self.prepare(engine_files())
        self.assertEqual(r.returncode, 0, r.stderr)
        manifest = (self.pay / "MANIFEST").read_text().splitlines()
        self.assertTrue(manifest[3].startswith("# ported: jit/csrc/diffusion/rmsnorm.cuh ops/diffusion/norm/rmsnorm_jit.py"))
        self.assertTrue(manifest[4].startswith("# engine's own (from the wheel): ops/layernorm/norm.py"), manifest[4])
        k = self.pay / "sglang/python/sglang/kernels"
        listed = {line.split("  ", 1)[1] for line in manifest if not line.startswith("#")}
        for rel in sglang_engine_files.CUDA + sglang_engine_files.PYTHON + ("jit/utils/compile/cpp_args.py",):
            self.assertTrue((k / rel).is_file(), rel)
            self.assertIn("./sglang/python/sglang/kernels/" + rel, listed)
        for line in manifest:
            if not line.startswith("#"):
                digest, rel = line.split("  ", 1)
                self.assertEqual(hashlib.sha256((self.pay / rel).read_bytes()).hexdigest(), digest, rel)
        self.assertFalse((k / "jit/include/sgl_kernel/unused.cuh").exists())

    def test_an_engine_tree_of_another_release_is_refused(self):
        r = self.prepare(engine_files(extra_header="// this release's utils.cuh differs from the tree's\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("differs from the wheel's", r.stderr)


def payload_for_build():
    """(payload, tvm-ffi wheel) when this checkout has a prepared .sgl-proof with SGLang's own
    qknorm_rope.cuh and a tvm-ffi wheel (or AKO_TVM_FFI_WHEEL names one); else why not."""
    pay = ROOT / ".sgl-proof"
    if not (pay / "sglang/python/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh").is_file():
        return None, "no .sgl-proof with SGLang's qknorm_rope.cuh (scripts/sglang-gpu-check.sh --prepare)"
    wheels = [pathlib.Path(w) for w in [os.environ.get("AKO_TVM_FFI_WHEEL", "")] if w] or sorted((pay / "wheels").glob("apache_tvm_ffi-*.whl"))
    if not wheels or not wheels[0].is_file():
        return None, "no apache-tvm-ffi wheel in .sgl-proof/wheels (or AKO_TVM_FFI_WHEEL)"
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        return None, "no nvcc"
    return (pay, wheels[0]), None


class BuildTest(unittest.TestCase):
    def test_sglang_s_qknorm_rope_builds_as_its_jit_would_and_exports_the_entry(self):
        got, why = payload_for_build()
        if got is None:
            self.skipTest(why)
        pay, wheel = got
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="ako-engine-build-"))
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        b = sglang_jit.Builder(pay, tmp / "build", "90a", sglang_jit.ffi_from_wheel(wheel, tmp / "ffi"))
        # qknorm_rope_jit._jit_qknorm_rope_module(128, 128, False, bf16, fp32, False) on sm_90: FLUX.1's call
        args = "128, 128, false, true, bf16_t, fp32_t, false, false, true"
        so = b.build("qknorm_rope", ["diffusion/qknorm_rope.cuh"], [("qknorm_rope", f"QKNormRopeKernel<{args}>::run")])
        unit = (so.parent / "cuda.cu").read_text()
        self.assertIn("TVM_FFI_DLL_EXPORT_TYPED_FUNC(qknorm_rope, (QKNormRopeKernel<" + args + ">::run));", unit)
        self.assertIn("-DSGL_CUDA_ARCH=900", (so.parent / "build.sh").read_text())
        if shutil.which("nm"):
            syms = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True).stdout
            self.assertIn("__tvm_ffi_qknorm_rope", syms)
        # the same unit again is the module already built (as SGLang's cache finds it)
        self.assertEqual(b.build("again", ["diffusion/qknorm_rope.cuh"], [("qknorm_rope", f"QKNormRopeKernel<{args}>::run")]), so)


if __name__ == "__main__":
    unittest.main()
