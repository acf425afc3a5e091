#pragma once
// Task-spec expressions (tasks/README.md: C syntax on int64) turned into C++ for the ported
// host code, and into Python for the wrapper's presence checks: identifiers renamed to the
// generated variables, the spec's functions to ako's constexpr helpers, 'string' literals of
// string axes to the codes the generated code compares. The semantics are C's on int64_t in
// both C++ and the spec, so the text carries over.
#include <functional>
#include <string>

#include "task/spec.hpp"

namespace ako::port {

// Every identifier is passed to `rename` (function names included: ceil_div, min, max, gcd,
// pow2), and every 'string' literal with its quotes ("'bc'").
std::string rename_identifiers(const std::string& expr, const std::function<std::string(const std::string&)>& rename);

// Where a host expression is evaluated.
struct ExprScope {
  // Prefix of the generated helpers and string codes: "" inside the host namespace,
  // "<host_ns>::" in the entry struct outside it.
  std::string qualifier;
  // Flags and axes as the template parameters (kWeight, kLayout) instead of the flag_<f> /
  // axis_<a> constants the launch and dispatch functions declare.
  bool template_params = false;
};

// A spec expression as host C++: dims -> dim_<d>, flags -> flag_<f> (or kF), axes -> axis_<a>
// (or kA), 'v' -> ako_str_v, params stay, the spec's functions -> ako_*.
std::string host_expression(const task::TaskSpec& spec, const std::string& expr, const ExprScope& scope = {});

// The constexpr helpers the renamed functions call (ako_ceil_div, ako_min, ako_max, ako_pow2;
// ako_gcd only when `code` calls it, so that a spec without gcd keeps its text).
std::string expr_helpers_cpp(const std::string& code = "");

// A boolean spec expression over flags and axes as Python, for the wrapper: && || ! become
// and / or / not, 'strings' stay Python strings, each flag or axis becomes local(name).
// Throws ako::Error (naming `what` and the expression) for what has no Python spelling here:
// dims, ?:, and the functions other than min and max.
std::string python_expression(const task::TaskSpec& spec, const std::string& expr,
                              const std::function<std::string(const std::string&)>& local, const std::string& what);

}  // namespace ako::port
