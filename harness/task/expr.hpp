#pragma once
// A tiny integer expression language for task specs: launch geometry ("ceil_div(rows, ROWS)"),
// buffer shapes and constraints ("BLOCK % 32 == 0 && cols % VEC == 0").
// Grammar: integer literals, 'string' literals (values of string axes), identifiers, ( ),
// unary - !, * / %, + -, < <= > >=, == !=, &&, ||, c ? a : b, and the functions ceil_div(a,b), min(a,b), max(a,b), gcd(a,b), pow2(a) (1 when a is a power of two).
// Precedence and semantics follow C (/ and % truncate toward zero, && and || short-circuit,
// comparisons give 0 or 1); overflow is an error. Full reference: tasks/README.md.
// Hand-written: the one well-kept Debian option (muParser) evaluates in double, and
// launch geometry needs exact integer / and %.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ako::task {

using ExprEnv = std::map<std::string, int64_t, std::less<>>;

// Throws ako::Error with the expression and the position ("at column N", 1-based) on a
// syntax error, an unknown identifier (listing the known ones), a division or modulo by zero
// or an overflow.
int64_t eval_int(std::string_view expr, const ExprEnv& env);
bool eval_bool(std::string_view expr, const ExprEnv& env);

// The identifiers an expression uses (function names excluded), without evaluating it:
// spec validation checks them against the declared names. Throws ako::Error on a syntax error.
std::set<std::string> expr_identifiers(std::string_view expr);
// The 'string' literals an expression uses: spec validation checks each is a value of an axis.
std::set<std::string> expr_strings(std::string_view expr);

// The integer a string axis's value stands for in an environment (and a 'literal' evaluates
// to): a hash with the sign bit set, so 'bf1c' == layout holds exactly when the texts are equal.
int64_t string_value(std::string_view text);

}  // namespace ako::task
