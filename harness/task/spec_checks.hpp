#pragma once
// Checks shared by the spec and config parsers: names that expressions can refer to, and
// expressions that must parse and use only declared names.
#include <string>
#include <string_view>
#include <vector>

#include "task/json_field.hpp"

namespace ako::task {

// Whether `names` holds `name` (declared dims, flags, axes, params, buffers, ...).
bool contains(const std::vector<std::string>& names, const std::string& name);

// [A-Za-z_][A-Za-z0-9_]*: dims, flags and params appear in expressions and C++ templates.
bool is_identifier(std::string_view name);

// `known` without the quoted string values ('bc') expression_names adds: for messages.
std::vector<std::string> identifiers_only(const std::vector<std::string>& known);

// Fails at `f` unless `expr` parses, every identifier in it is one of `known` and every
// 'string' literal is a quoted entry of `known` (a value of a string axis).
// `what` describes the expected expression, e.g. "an integer expression over the dims".
void check_expression(const Field& f, const std::string& expr, const std::vector<std::string>& known,
                      std::string_view what);

}  // namespace ako::task
