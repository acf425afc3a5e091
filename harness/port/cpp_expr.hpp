#pragma once
// Task-spec expressions (tasks/README.md: C syntax on int64) turned into C++ for the ported
// host code: identifiers renamed to the generated variables, the spec's functions to ako's
// constexpr helpers. The semantics are C's on int64_t in both, so the text carries over.
#include <functional>
#include <string>

#include "task/spec.hpp"

namespace ako::port {

// Every identifier is passed to `rename` (function names included: ceil_div, min, max, pow2).
std::string rename_identifiers(const std::string& expr, const std::function<std::string(const std::string&)>& rename);

// A spec expression as host C++: dims -> dim_<d>, flags -> flag_<f>, params stay, the spec's
// functions -> ako_*.
std::string host_expression(const task::TaskSpec& spec, const std::string& expr);

// The constexpr helpers the renamed functions call (ako_ceil_div, ako_min, ako_max, ako_pow2).
std::string expr_helpers_cpp();

}  // namespace ako::port
