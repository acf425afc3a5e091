"""scripts/sglang_prebuild.py's packs and scripts/sglang_port_gpu.py's unpack_prebuilt: a module
packed under its unit's key is found by the GPU side's Builder without building it, and a pack
built against another tvm_ffi, for another core count or another arch is left alone. No nvcc, no GPU."""
import json
import pathlib
import shutil
import sys
import tarfile
import tempfile
import unittest

from bench.tests._path import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import sglang_jit  # noqa: E402
from sglang_port_gpu import unpack_prebuilt  # noqa: E402
from sglang_prebuild import pack_modules  # noqa: E402

UNIT = ("ako_t_check_0of1", ["diffusion/t.cuh"], [("ako_t_0", "AkoTKernel<true, bf16_t>::run")])


class PrebuiltTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="ako-prebuild-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        # a payload holding one kernel file where the Builder looks for it
        self.payload = self.tmp / "payload"
        csrc = self.payload / sglang_jit.ENGINE_REL / "jit" / "csrc" / "diffusion"
        csrc.mkdir(parents=True)
        (csrc / "t.cuh").write_text("// the ported kernel\n")
        (self.payload / "prebuilt").mkdir()

    def builder(self, root):
        b = sglang_jit.Builder(self.payload, root, "90a", ffi=([], "/nonexistent", "tvm_ffi"))
        b.nvcc = b.cxx = "/bin/false"  # any build attempt fails
        return b

    def pack(self, ffi="0.1.11", jobs=16, arch="90a"):
        """A 'module' built here under the unit's folder, packed as sglang_prebuild.py packs."""
        here = self.tmp / "here"
        d, _, _ = self.builder(here).unit_folder(*UNIT[1:])
        d.mkdir(parents=True)
        (d / "module.so").write_bytes(b"not really a module")
        (d / "build.sh").write_text("nvcc ...\n")
        pack_modules(here, [d / "module.so"], {"tvm_ffi": ffi, "jobs": jobs, "arch": arch, "nvcc": "V13.0.88",
                                                          "built": "now"},
                     self.payload / "prebuilt" / "t.tar.xz")
        return d

    def test_an_unpacked_module_is_found_without_building(self):
        d = self.pack()
        there = self.tmp / "there"
        said = unpack_prebuilt(self.payload, ["t"], there, "0.1.11", 16, "90a")
        self.assertIn("t: 1 modules unpacked", said)
        so = self.builder(there).build(*UNIT)
        self.assertEqual(so, there / d.name / "module.so")
        self.assertEqual(so.read_bytes(), b"not really a module")

    def test_another_tvm_ffi_core_count_or_arch_leaves_the_pack_unused(self):
        self.pack(ffi="0.1.15")
        there = self.tmp / "there"
        self.assertIn("not used (built for tvm_ffi 0.1.15, 16 cores and sm_90a; here 0.1.11, 16 and sm_90a)",
                      unpack_prebuilt(self.payload, ["t"], there, "0.1.11", 16, "90a"))
        self.assertIn("not used", unpack_prebuilt(self.payload, ["t"], there, "0.1.15", 32, "90a"))
        self.assertIn("not used", unpack_prebuilt(self.payload, ["t"], there, "0.1.15", 16, "100a"))
        self.assertFalse(there.exists() and any(there.iterdir()))
        with self.assertRaises(sglang_jit.Failure):
            self.builder(there).build(*UNIT)  # so it is built, here with /bin/false

    def test_a_folder_already_built_is_kept_and_no_pack_says_nothing(self):
        d = self.pack()
        there = self.tmp / "there"
        (there / d.name).mkdir(parents=True)
        (there / d.name / "module.so").write_bytes(b"built there")
        unpack_prebuilt(self.payload, ["t"], there, "0.1.11", 16, "90a")
        self.assertEqual((there / d.name / "module.so").read_bytes(), b"built there")
        self.assertEqual(unpack_prebuilt(self.payload, ["other"], there, "0.1.11", 16, "90a"), "")
        with tarfile.open(self.payload / "prebuilt" / "t.tar.xz") as tar:
            self.assertEqual(json.loads(tar.extractfile("PREBUILT.json").read())["tvm_ffi"], "0.1.11")


if __name__ == "__main__":
    unittest.main()
