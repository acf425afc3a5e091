"""How bench/peers/timing.py cuts the profiler's kernel stream into samples (no torch needed)."""
import unittest

from bench.tests import _path  # noqa: F401
from peers import timing

MARK = "void at::native::vectorized_elementwise_kernel<4, at::native::bitwise_not_kernel_cuda(...)>"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<unsigned char>, ...>"


class SplitTest(unittest.TestCase):
    def test_cold_drops_the_flush_and_charges_everything_else(self):
        ks = [(10, 1.0, "warm-up leftover"), (20, 1.3, MARK), (21, 32.0, FILL), (22, 3.7, "k"),
              (23, 2.0, FILL), (30, 1.3, MARK), (31, 31.0, FILL), (32, 3.6, "k"), (33, 2.1, FILL)]
        s = timing.split_samples(ks, flush=True)
        # a FillFunctor the peer launches itself (after its first kernel) is charged
        self.assertEqual(s, [[(3.7, "k"), (2.0, FILL)], [(3.6, "k"), (2.1, FILL)]])

    def test_hot_has_no_flush(self):
        ks = [(1, 1.0, MARK), (2, 4.0, "a"), (3, 5.0, "b"), (4, 1.0, MARK), (5, 6.0, "a")]
        self.assertEqual(timing.split_samples(ks, flush=False), [[(4.0, "a"), (5.0, "b")], [(6.0, "a")]])

    def test_order_is_by_start_time(self):
        ks = [(5, 6.0, "a"), (4, 1.0, MARK), (1, 1.0, MARK), (3, 5.0, "b"), (2, 4.0, "a")]
        self.assertEqual(timing.split_samples(ks, flush=False), [[(4.0, "a"), (5.0, "b")], [(6.0, "a")]])

    def test_no_marker_no_sample(self):
        self.assertEqual(timing.split_samples([(1, 2.0, "k")], flush=True), [])


if __name__ == "__main__":
    unittest.main()


class IqmTest(unittest.TestCase):
    def test_hand_computed(self):
        # 8 samples: g = 2 trimmed per end, the mean of {11, 11, 12, 12}; the 50 does not move it.
        self.assertEqual(timing.iqm([10, 12, 11, 13, 50, 9, 11, 12]), 11.5)
        self.assertEqual(timing.iqm([5, 1, 4, 2, 3]), 3.0)   # g = 1: {2, 3, 4}
        self.assertEqual(timing.iqm([7.0]), 7.0)
        with self.assertRaises(ValueError):
            timing.iqm([])

    def test_two_modes(self):
        # 104 samples at 49.4 and 96 at 51.0: the median is in the low mode, the IQM between them.
        xs = [49.4] * 104 + [51.0] * 96
        self.assertAlmostEqual(timing.iqm(xs), (54 * 49.4 + 46 * 51.0) / 100)



class InterleaveTest(unittest.TestCase):
    def test_rotation_starts_each_round_one_further(self):
        names = ["ako_port", "torch", "sglang_cute"]
        self.assertEqual([timing.rotation(names, r) for r in range(4)],
                         [["ako_port", "torch", "sglang_cute"], ["torch", "sglang_cute", "ako_port"],
                          ["sglang_cute", "ako_port", "torch"], ["ako_port", "torch", "sglang_cute"]])
        # every callable takes every position equally often over len(names) rounds
        firsts = [timing.rotation(names, r)[0] for r in range(6)]
        self.assertEqual(sorted(firsts), sorted(names * 2))

    def test_samples_are_handed_out_along_the_orders(self):
        orders = [timing.rotation(["a", "b"], r) for r in range(3)]  # a b | b a | a b
        samples = [[(1.0, "ka")], [(2.0, "kb")], [(2.1, "kb")], [(1.1, "ka")], [(0.9, "ka")], [(1.9, "kb")]]
        got = timing.attribute(samples, orders)
        self.assertEqual([sum(d for d, _ in s) for s in got["a"]], [1.0, 1.1, 0.9])
        self.assertEqual([sum(d for d, _ in s) for s in got["b"]], [2.0, 2.1, 1.9])

    def test_a_missing_sample_is_an_error_not_a_shift(self):
        orders = [timing.rotation(["a", "b"], r) for r in range(2)]
        with self.assertRaises(RuntimeError):
            timing.attribute([[(1.0, "k")]] * 3, orders)

    def test_split_then_attribute_from_a_kernel_stream(self):
        # two rounds of (a, b) then (b, a), each sample [marker][flush][kernels]
        ks, t = [], 0
        for name, durs in (("a", [3.0]), ("b", [1.0, 1.5]), ("b", [1.1, 1.4]), ("a", [3.2])):
            for k in [(1.3, MARK), (30.0, FILL)] + [(d, f"k_{name}") for d in durs]:
                ks.append((t, k[0], k[1]))
                t += 1
        got = timing.attribute(timing.split_samples(ks, flush=True), [["a", "b"], ["b", "a"]])
        self.assertEqual([[n for _, n in s] for s in got["b"]], [["k_b", "k_b"], ["k_b", "k_b"]])
        self.assertEqual([sum(d for d, _ in s) for s in got["a"]], [3.0, 3.2])
