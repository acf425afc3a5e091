"""ako's task expression language (tasks/README.md, "The expression language"), evaluated in
Python for the peer timing side: buffer extents, present_if, the top-level and baseline `when`,
scalar values. Same grammar and semantics as harness/task/expr.hpp: 64-bit integers with C
division (truncating toward zero), comparisons and ! giving 0 or 1, short-circuit && and ||,
right-associative ?:, the functions ceil_div, min, max, gcd, pow2, and string axes compared
with 'quoted' values (== and != only). A tokenizer and a recursive-descent parser; nothing is
passed to Python's eval."""
import math
import re

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|'([^']*)'|(&&|\|\||==|!=|<=|>=|[-+*/%<>!?:(),]))")
_I64_MIN, _I64_MAX = -(2 ** 63), 2 ** 63 - 1


class ExprError(ValueError):
    """A syntax error, an unknown identifier, a division by zero, an overflow: names the
    expression and the 1-based column, as ako does."""


def _tokens(text):
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExprError(f'expression "{text}": unexpected character at column {pos + 1}')
        col = m.start() + len(m.group(0)) - len(m.group(0).lstrip()) + 1
        if m.group(1) is not None:
            out.append(("int", int(m.group(1)), col))
        elif m.group(2) is not None:
            out.append(("name", m.group(2), col))
        elif m.group(3) is not None:
            out.append(("str", m.group(3), col))
        else:
            out.append(("op", m.group(4), col))
        pos = m.end()
    out.append(("end", None, len(text) + 1))
    return out


def _check(text, col, v):
    if isinstance(v, int) and not (_I64_MIN <= v <= _I64_MAX):
        raise ExprError(f'expression "{text}": overflow at column {col}')
    return v


def _cdiv(a, b):  # C: truncate toward zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a, b):
    return a - _cdiv(a, b) * b


_FUNCS = {
    "ceil_div": (2, lambda a, b: -(-a // b)),
    "min": (2, min),
    "max": (2, max),
    "gcd": (2, math.gcd),
    "pow2": (1, lambda a: int(a > 0 and (a & (a - 1)) == 0)),
}


class _Parser:
    """Builds a closure tree; evaluation is lazy so && || ?: short-circuit as in C."""

    def __init__(self, text):
        self.text, self.toks, self.i = text, _tokens(text), 0

    def peek(self):
        return self.toks[self.i]

    def take(self, op=None):
        t = self.toks[self.i]
        if op is not None and (t[0] != "op" or t[1] != op):
            got = "the end" if t[0] == "end" else f"'{t[1]}'"
            raise ExprError(f'expression "{self.text}": expected \'{op}\' at column {t[2]}, got {got}')
        self.i += 1
        return t

    def is_op(self, *ops):
        t = self.peek()
        return t[0] == "op" and t[1] in ops

    def parse(self):
        node = self.ternary()
        t = self.peek()
        if t[0] != "end":
            raise ExprError(f'expression "{self.text}": unexpected \'{t[1]}\' at column {t[2]}')
        return node

    def ternary(self):
        cond = self.binary(0)
        if not self.is_op("?"):
            return cond
        self.take("?")
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        return lambda env: a(env) if _truth(self.text, cond(env)) else b(env)

    _LEVELS = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]

    def binary(self, level):
        if level == len(self._LEVELS):
            return self.unary()
        node = self.binary(level + 1)
        while self.is_op(*self._LEVELS[level]):
            _, op, col = self.take()
            rhs = self.binary(level + 1)
            node = self._combine(op, col, node, rhs)
        return node

    def _combine(self, op, col, lhs, rhs):
        text = self.text
        if op == "&&":
            return lambda env: int(_truth(text, lhs(env)) and _truth(text, rhs(env)))
        if op == "||":
            return lambda env: int(_truth(text, lhs(env)) or _truth(text, rhs(env)))

        def apply(env):
            a, b = lhs(env), rhs(env)
            if op in ("==", "!="):
                if isinstance(a, str) != isinstance(b, str):
                    raise ExprError(f'expression "{text}": compares a string axis with a number at column {col}')
                return int((a == b) == (op == "=="))
            if isinstance(a, str) or isinstance(b, str):
                raise ExprError(f'expression "{text}": \'{op}\' on a string at column {col}')
            if op in ("/", "%") and b == 0:
                raise ExprError(f'expression "{text}": {"division" if op == "/" else "modulo"} by zero at column {col}')
            v = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: _cdiv(a, b),
                 "%": lambda: _cmod(a, b), "<": lambda: int(a < b), "<=": lambda: int(a <= b),
                 ">": lambda: int(a > b), ">=": lambda: int(a >= b)}[op]()
            return _check(text, col, v)
        return apply

    def unary(self):
        if self.is_op("-", "!"):
            _, op, col = self.take()
            inner = self.unary()
            text = self.text
            if op == "-":
                return lambda env: _check(text, col, -_int(text, col, inner(env)))
            return lambda env: int(not _truth(text, inner(env)))
        return self.primary()

    def primary(self):
        kind, val, col = self.take()
        text = self.text
        if kind == "int":
            _check(text, col, val)
            return lambda env: val
        if kind == "str":
            return lambda env: val
        if kind == "op" and val == "(":
            node = self.ternary()
            self.take(")")
            return node
        if kind == "name":
            if self.is_op("("):
                if val not in _FUNCS:
                    raise ExprError(f'expression "{text}": unknown function \'{val}\' at column {col}')
                arity, fn = _FUNCS[val]
                self.take("(")
                args = [self.ternary()]
                while self.is_op(","):
                    self.take(",")
                    args.append(self.ternary())
                self.take(")")
                if len(args) != arity:
                    raise ExprError(f'expression "{text}": {val} takes {arity} argument(s), got {len(args)} at column {col}')

                def call(env):
                    vals = [_int(text, col, a(env)) for a in args]
                    if val == "ceil_div" and vals[1] <= 0:
                        raise ExprError(f'expression "{text}": ceil_div needs a positive divisor at column {col}')
                    return _check(text, col, fn(*vals))
                return call

            def lookup(env):
                if val not in env:
                    raise ExprError(f'expression "{text}": unknown identifier \'{val}\' at column {col} '
                                    f'(known: {", ".join(sorted(env))})')
                v = env[val]
                return int(v) if isinstance(v, bool) else v
            return lookup
        got = "the end" if kind == "end" else f"'{val}'"
        raise ExprError(f'expression "{text}": unexpected {got} at column {col}')


def _int(text, col, v):
    if isinstance(v, str):
        raise ExprError(f'expression "{text}": a string where a number is needed at column {col}')
    return v


def _truth(text, v):
    if isinstance(v, str):
        raise ExprError(f'expression "{text}": a string where a boolean is needed')
    return v != 0


_CACHE = {}


def evaluate(text, env):
    """Value of an expression (an int, or a str for a bare string axis) under env: names to
    ints, bools (flags) or strs (string axes). A JSON integer is accepted as is."""
    if isinstance(text, bool):
        raise ExprError(f"expected an expression, got the boolean {text}")
    if isinstance(text, int):
        return text
    node = _CACHE.get(text)
    if node is None:
        node = _CACHE[text] = _Parser(text).parse()
    return node(env)


def holds(text, env):
    """A boolean expression: true when its value is non-zero."""
    return _truth(str(text), evaluate(text, env))
