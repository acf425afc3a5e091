"""bench/validate without torch: the model table (real dims and token counts, RoPE splits that
fit the head) and the verdict rules (verdict.py) on hand-made numbers."""
import unittest

from bench.tests._path import ROOT  # noqa: F401  (puts bench/ on sys.path)
from validate import models, verdict


def result(engine_fam, ako_fam, micro, ako_impls=None, ported=("rmsnorm",), rel_l2=1e-3):
    def mode(fams):
        return {"step_ms": {"median": 1.0}, "gpu_us": {"families": fams, "total": sum(fams.values())}}
    r = {"ported": list(ported), "micro": [{"family": f, "count": 2, "engine_us": e, "ako_us": a} for f, (e, a) in micro.items()],
         "backends": {"engine": {"eager": mode(engine_fam), "graph": mode(engine_fam), "output": {"rel_l2": rel_l2}},
                      "ako": {"eager": mode(ako_fam), "graph": mode(ako_fam), "output": {"rel_l2": rel_l2},
                              "sites": [{"site": "wan.cross.q_norm", "family": "rmsnorm", "calls": 2,
                                         "impl": (ako_impls or {}).get("rmsnorm", "ako")}]}}}
    r["families"] = verdict.families(r)
    return r


class ModelsTest(unittest.TestCase):
    def test_dims_and_tokens_of_the_models_the_bar_names(self):
        flux, wan, hy = models.get("flux1"), models.get("wan14b"), models.get("hunyuan")
        self.assertEqual((flux.C, flux.heads, flux.head_dim, flux.img, flux.txt), (3072, 24, 128, 4096, 512))
        self.assertEqual(dict(flux.blocks), {"double": 19, "single": 38})
        self.assertEqual((wan.C, wan.heads, wan.ffn, wan.img), (5120, 40, 13824, 32760))
        self.assertEqual((hy.C, hy.img, hy.txt), (3072, 118800, 256))

    def test_every_model_s_grid_is_its_token_count_and_its_rope_fits_the_head(self):
        for m in models.MODELS.values():
            with self.subTest(m.name):
                t, h, w = m.grid
                self.assertEqual(t * h * w, m.img)
                self.assertLessEqual(2 * sum(m.rope_axes), m.head_dim)
                self.assertEqual(m.C, m.heads * m.head_dim)
                tiny = models.tiny(m)
                self.assertEqual(2 * sum(tiny.rope_axes), tiny.head_dim)

    def test_an_unknown_model_names_the_known_ones(self):
        with self.assertRaisesRegex(KeyError, "known: flux1, flux2"):
            models.get("sd3")

    def test_the_stack_caps_each_kind(self):
        self.assertEqual(models.stack(models.get("flux1"), 2), (("double", 2), ("single", 2)))
        self.assertEqual(models.stack(models.get("flux1"), 0), (("double", 19), ("single", 38)))


class VerdictTest(unittest.TestCase):
    def test_a_win_that_shows_in_the_step_transfers(self):
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 80.0}, {"rmsnorm": (10.0, 8.0)})
        self.assertEqual(r["families"]["rmsnorm"]["verdict"], "transfers")
        self.assertEqual(verdict.overall(r), ("pass", []))

    def test_a_win_that_shrinks_in_the_step_does_not_transfer(self):
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 90.0}, {"rmsnorm": (10.0, 8.0)})  # 1.11x in the step, 1.25x micro
        row = r["families"]["rmsnorm"]
        self.assertEqual(row["verdict"], "does not transfer")
        self.assertIn("microbench 1.25x, in the step eager 1.11x, graph 1.11x", row["reason"])
        self.assertEqual(verdict.overall(r)[0], "fail")

    def test_the_bar_is_95_percent_of_the_microbench(self):
        ok = result({"rmsnorm": 100.0}, {"rmsnorm": 100 / 1.19}, {"rmsnorm": (10.0, 8.0)})  # 1.19 >= 0.95 * 1.25
        self.assertEqual(ok["families"]["rmsnorm"]["verdict"], "transfers")

    def test_a_site_left_to_the_engine_fails_and_is_named(self):
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 80.0}, {"rmsnorm": (10.0, 8.0)},
                   ako_impls={"rmsnorm": "engine torch (ako: the ported wrapper returned False (falls back))"})
        row = r["families"]["rmsnorm"]
        self.assertEqual(row["verdict"], "fallback")
        self.assertIn("wan.cross.q_norm: engine torch", row["reason"])

    def test_a_family_not_ported_is_no_failure(self):
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 100.0}, {}, ported=())
        self.assertEqual(r["families"]["rmsnorm"]["verdict"], "not ported")
        self.assertEqual(verdict.overall(r)[0], "pass")

    def test_an_output_beyond_tolerance_fails(self):
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 80.0}, {"rmsnorm": (10.0, 8.0)}, rel_l2=0.2)
        status, failures = verdict.overall(r)
        self.assertEqual(status, "fail")
        self.assertTrue(any("relative L2 0.2 > 0.05" in f for f in failures), failures)

    def test_micro_speedups_weight_each_call_by_its_count(self):
        rows = [{"family": "a", "count": 3, "engine_us": 10.0, "ako_us": 5.0},
                {"family": "a", "count": 1, "engine_us": 10.0, "ako_us": 10.0}]
        self.assertAlmostEqual(verdict.micro_speedups(rows)["a"], 40.0 / 25.0)

    def test_a_microbench_call_that_fell_back_measures_nothing(self):
        # the wan14b run's qknorm: the microbench's copies were refused by the ported kernel
        rows = [{"family": "a", "count": 1, "engine_us": 10.0, "ako_us": 10.0,
                 "ako_impl": "engine torch (ako: the ported kernel refused: q: stride 0 must be ...)"},
                {"family": "b", "count": 1, "engine_us": 10.0, "ako_us": 5.0, "ako_impl": "ako"}]
        self.assertEqual(verdict.micro_speedups(rows), {"b": 2.0})
        r = result({"rmsnorm": 100.0}, {"rmsnorm": 80.0}, {})
        self.assertEqual(r["families"]["rmsnorm"]["verdict"], "unmeasured")
        self.assertEqual(verdict.overall(r)[0], "fail")


if __name__ == "__main__":
    unittest.main()
