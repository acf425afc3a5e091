"""bench/peer_timing.py up to the GPU boundary: --dry-run lists the cases and which peers would
run, without torch; bad arguments are refused with the choices."""
import contextlib
import io
import unittest

from bench.tests._path import FIXTURES, ROOT
import peer_timing


def dry(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        peer_timing.main(list(argv) + ["--dry-run"])
    return out.getvalue()


class DryRunTest(unittest.TestCase):
    def test_rmsnorm_lists_its_40_cases(self):
        text = dry("rmsnorm")
        self.assertIn("40 compare cases", text)
        self.assertIn("qknorm-flux fp16 noweight", text)
        self.assertRegex(text, r"# peer torch: torch eager F.rms_norm \[(available|unavailable: .*torch.*)\]")

    def test_each_family_fixture(self):
        for name, count in (("layernorm", 40), ("scale_shift", 192), ("norm_scale_shift", 324),
                            ("residual_gate_norm_scale_shift", 400)):
            text = dry(str(FIXTURES / f"{name}.json"))
            self.assertIn(f"{count} compare cases", text, name)
            self.assertNotIn("cannot bind", text, name)

    def test_the_family_tasks_bind_every_case(self):
        # the counts each task's context note gives for its compare cases
        for name, count in (("layernorm", 60), ("scale_shift", 158), ("norm_scale_shift", 116),
                            ("residual_gate_norm_scale_shift", 158), ("gated_act", 62), ("qknorm", 24)):
            if not (ROOT / "tasks" / name / "task.json").is_file():
                self.skipTest(f"tasks/{name} is not in this checkout")
            text = dry(name)
            self.assertIn(f"{count} compare cases", text, name)
            self.assertNotIn("cannot bind", text, name)

    def test_a_storage_reached_through_views_counts_through_them(self):
        # qknorm: q and k read and written, v (the last third of qkv) never: 2 x 2 x 4608 x 48 x 128
        text = dry("qknorm", "--shapes", "flux1", "--dtypes", "bf16")
        self.assertRegex(text, r"flux1 bf16 noacross_heads head_dim=128\s+113\.2 MB")

    def test_not_applicable_peers_say_why(self):
        text = dry(str(FIXTURES / "scale_shift.json"), "--shapes", "wan14b-480p", "--dtypes", "bf16")
        self.assertIn("wan14b-480p bf16 layout=bf1c mod_dtype=same", text)
        self.assertIn("sglang_triton: not applicable: fuse_scale_shift_kernel indexes shift per token", text)
        text = dry(str(FIXTURES / "norm_scale_shift.json"), "--shapes", "text-512", "--peers", "sglang_ln_modulate")
        self.assertIn("sglang_ln_modulate: not applicable: FLUX's fused LN + modulate is bf16 only", text)
        self.assertNotIn("sglang_cute", text)

    def test_where_keeps_only_the_cases_it_holds_for(self):
        text = dry("layernorm", "--shapes", "zimage", "--where", "!affine && dtype != 'fp32'")
        self.assertIn("2 compare cases", text)
        self.assertIn("zimage bf16 noaffine", text)
        self.assertNotIn("zimage bf16 affine", text)
        self.assertNotIn("fp32", text.split("compare cases", 1)[1].split("# peer", 1)[0])

    def test_refusals(self):
        for argv, msg in ((["nosuchtask"], "No such file|no such|nosuchtask"),
                          (["rmsnorm", "--peers", "nope"], "no peer nope"),
                          (["rmsnorm", "--shapes", "nope"], 'no shape "nope"'),
                          (["rmsnorm", "--deps", "/no/such/folder"], "--deps /no/such/folder: no such folder"),
                          (["rmsnorm", "--where", "nope == 1"], "--where: .*unknown identifier 'nope'")):
            with self.assertRaisesRegex(SystemExit, msg):
                with contextlib.redirect_stdout(io.StringIO()):
                    peer_timing.main(argv + ["--dry-run"])


if __name__ == "__main__":
    unittest.main()
