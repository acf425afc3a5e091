#pragma once
// A tiny integer expression language for task specs: launch geometry ("ceil_div(rows, ROWS)"),
// buffer shapes and constraints ("BLOCK % 32 == 0 && cols % VEC == 0").
// Grammar: literals, identifiers, ( ), unary - !, * / %, + -, < <= > >=, == !=, &&, ||,
// and the functions ceil_div(a,b), min(a,b), max(a,b), pow2(a) (1 when a is a power of two).
// Hand-written: the one well-kept Debian option (muParser) evaluates in double, and
// launch geometry needs exact integer / and %.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ako::task {

using ExprEnv = std::map<std::string, int64_t, std::less<>>;

// Throws ako::Error with the expression and the position on a syntax error, an unknown
// identifier or a division by zero.
int64_t eval_int(std::string_view expr, const ExprEnv& env);
bool eval_bool(std::string_view expr, const ExprEnv& env);

}  // namespace ako::task
