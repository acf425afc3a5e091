#pragma once
// Variant axes of a task (tasks/README.md, "Axes"): boolean flags ("weight") and typed axes
// whose values are strings ("scale_layout": bc, b1c, ...) or integers ("head_dim": 64, 128).
// Every case takes one value per axis; expressions, buffer shapes and presence, kernel name
// placeholders, constraints, config classes, labels and the port's dispatch can use it.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ako::model {

enum class AxisKind { flag, string, integer };

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::flag;
  std::vector<std::string> strings;   // kind string: the values, in the order given
  std::vector<int64_t> integers;      // kind integer: the values, in the order given
  size_t size() const {
    return kind == AxisKind::flag ? 2 : kind == AxisKind::string ? strings.size() : integers.size();
  }
};

// A case's value on one axis.
using AxisValue = std::variant<bool, std::string, int64_t>;

// As a kernel name placeholder and in labels: true/false, the string, the integer.
inline std::string axis_value_text(const AxisValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  return std::to_string(std::get<int64_t>(v));
}

}  // namespace ako::model
