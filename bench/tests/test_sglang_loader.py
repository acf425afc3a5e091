"""bench/peers/sglang_loader.py: SGLang's kernel modules import from peers/sglang-0.5.23/ without
the sglang package, and a missing piece is reported by name. The imports need the packages the
kernels need (triton; nvidia-cutlass-dsl for the CuTe DSL one) and scripts/fetch-sglang.sh's
files; each test skips, saying which, where those are missing."""
import importlib.util
import unittest

from bench.tests import _path  # noqa: F401
from peers import sglang_loader


def have(pkg):
    try:
        return importlib.util.find_spec(pkg) is not None
    except (ImportError, ValueError):
        return False


FILES = (sglang_loader.ROOT / "MANIFEST").is_file()
NO_FILES = f"no SGLang files in {sglang_loader.ROOT} ({sglang_loader.HINT})"


class LoaderTest(unittest.TestCase):
    def test_missing_files_are_named(self):
        saved = sglang_loader.ROOT
        try:
            sglang_loader.ROOT = saved.parent / "no-such-sglang"
            with self.assertRaisesRegex(sglang_loader.Unavailable, "fetch-sglang.sh"):
                sglang_loader.require_files()
        finally:
            sglang_loader.ROOT = saved

    def test_missing_package_is_named(self):
        with self.assertRaisesRegex(sglang_loader.Unavailable, "no_such_package_xyz"):
            sglang_loader.load("kernels.numerics", needs=("no_such_package_xyz",))

    @unittest.skipUnless(FILES and have("torch") and have("triton"), NO_FILES + " or no torch/triton")
    def test_triton_modules(self):
        m = sglang_loader.load("kernels.ops.diffusion.modulate.scale_shift_triton", needs=("triton",))
        self.assertTrue(callable(m.fuse_scale_shift_kernel))
        m = sglang_loader.load("kernels.kda_kernels.layernorm_modulate_triton", needs=("triton",))
        self.assertTrue(callable(m.fused_layernorm_modulate))
        self.assertTrue(m.__file__.startswith(str(sglang_loader.ROOT)))

    @unittest.skipUnless(FILES and have("torch") and have("cutlass") and have("tvm_ffi"),
                         NO_FILES + " or no torch/nvidia-cutlass-dsl/apache-tvm-ffi")
    def test_cute_dsl_module(self):
        m = sglang_loader.load("kernels.ops.diffusion.norm.scale_residual_norm_cutedsl", needs=("cutlass",))
        self.assertIn("fused_norm_scale_shift", repr(m.fused_norm_scale_shift))
        # the KDA Blackwell path in front of it imports too, through the stood-in jit utils
        kda = sglang_loader.load("kernels.kda_kernels.norm_scale_shift_jit")
        self.assertTrue(callable(kda.try_fused_norm_scale_shift))


if __name__ == "__main__":
    unittest.main()
