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

