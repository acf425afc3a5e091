#pragma once
// Shared by the two norm-fusion task tests (norm_scale_shift, residual_gate_norm_scale_shift):
// the repository as the workspace, a case's buffer by name, and compare cases counted per
// "<shape> <dtype>".
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "task/cases.hpp"

namespace ako::task::testing::norm_fusion {

inline const std::filesystem::path kRepo = AKO_SOURCE_DIR;

inline const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

inline std::map<std::string, int> compare_counts(const std::vector<Case>& cases) {
  std::map<std::string, int> n;
  for (const auto& c : cases)
    if (c.kind == "compare") ++n[c.shape->name + " " + std::string(dtype_name(c.dtype))];
  return n;
}

}  // namespace ako::task::testing::norm_fusion
