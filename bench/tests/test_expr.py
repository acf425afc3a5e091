"""bench/peers/expr.py against the semantics tasks/README.md gives ako's expression language."""
import unittest

from bench.tests import _path  # noqa: F401
from peers import expr


class ExprTest(unittest.TestCase):
    def ev(self, text, **env):
        return expr.evaluate(text, env)

    def test_arithmetic_follows_c(self):
        self.assertEqual(self.ev("1 + 2 * 3"), 7)
        self.assertEqual(self.ev("(1 + 2) * 3"), 9)
        self.assertEqual(self.ev("-7 / 2"), -3)   # truncates toward zero
        self.assertEqual(self.ev("-7 % 2"), -1)
        self.assertEqual(self.ev("7 % -2"), 1)
        self.assertEqual(self.ev("10 - 4 - 3"), 3)  # left-associative
        self.assertEqual(self.ev("--3"), 3)

    def test_comparisons_and_logic_give_0_or_1(self):
        self.assertEqual(self.ev("3 < 4"), 1)
        self.assertEqual(self.ev("3 >= 4"), 0)
        self.assertEqual(self.ev("!0"), 1)
        self.assertEqual(self.ev("!5"), 0)
        self.assertEqual(self.ev("1 && 0 || 1"), 1)
        self.assertEqual(self.ev("1 == 1 && 2 != 3"), 1)

    def test_short_circuit_never_divides_by_zero(self):
        self.assertEqual(self.ev("VEC != 0 && cols % VEC == 0", VEC=0, cols=7), 0)
        self.assertEqual(self.ev("1 || 1 / 0"), 1)
        self.assertEqual(self.ev("0 ? 1 / 0 : 2"), 2)

    def test_ternary_is_lowest_and_right_associative(self):
        self.assertEqual(self.ev("layout == 'blc' ? L : 1", layout="blc", L=9), 9)
        self.assertEqual(self.ev("layout == 'blc' ? L : 1", layout="bc", L=9), 1)
        self.assertEqual(self.ev("a ? 1 : b ? 2 : 3", a=0, b=1), 2)
        self.assertEqual(self.ev("1 + 1 ? 5 : 6"), 5)

    def test_functions(self):
        self.assertEqual(self.ev("ceil_div(rows, 64)", rows=65), 2)
        self.assertEqual(self.ev("min(3, max(1, 2))"), 2)
        self.assertEqual(self.ev("gcd(16 / 2, 3072)"), 8)
        self.assertEqual(self.ev("pow2(64) + pow2(48) + pow2(0)"), 1)

    def test_flags_and_string_axes(self):
        self.assertTrue(expr.holds("weight", {"weight": True}))
        self.assertFalse(expr.holds("!weight", {"weight": True}))
        self.assertTrue(expr.holds("B * L < 30000 || layout == 'bf1c'", {"B": 1, "L": 32760, "layout": "bf1c"}))
        self.assertFalse(expr.holds("B * L < 30000 || layout == 'bf1c'", {"B": 1, "L": 32760, "layout": "blc"}))
        self.assertEqual(expr.evaluate(128, {}), 128)  # a JSON integer

    def test_errors_name_the_expression_and_column(self):
        with self.assertRaisesRegex(expr.ExprError, r'"rows \+ bias": unknown identifier \'bias\' at column 8'):
            self.ev("rows + bias", rows=1)
        with self.assertRaisesRegex(expr.ExprError, "division by zero at column 3"):
            self.ev("1 / 0")
        with self.assertRaisesRegex(expr.ExprError, "expected '\\)'"):
            self.ev("(1 + 2")
        with self.assertRaisesRegex(expr.ExprError, "takes 2 argument"):
            self.ev("min(1)")
        with self.assertRaisesRegex(expr.ExprError, "overflow"):
            self.ev("9223372036854775807 + 1")
        with self.assertRaisesRegex(expr.ExprError, "string"):
            self.ev("layout + 1", layout="bc")
        with self.assertRaisesRegex(expr.ExprError, "unexpected"):
            self.ev("1 2")


if __name__ == "__main__":
    unittest.main()
